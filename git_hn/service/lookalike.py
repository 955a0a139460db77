"""Anchor paths that name nothing at the anchor commit but look like something the user sees
there (git-hn; docs/decisions.md): a file inside a submodule, a name in another case where Git
takes case as the same (``core.ignoreCase``), a name in another Unicode normalization (NFC typed,
NFD in the tree, as macOS writes it).

Such a path would be signed as ``absent`` for good with only a warning after signing (a trial of
unusual repositories); a path that is genuinely absent (a file not written yet, a deleted one)
stays legitimate and is not touched here. Asked only for a path already found absent: the walk
reads the commit's trees through the repository's batch reader (no process per directory) and
asks Git's configuration only when a name differs in case alone.

Owns nothing; trusts the repository's objects.
"""

from __future__ import annotations

import unicodedata

from ..core.tuples import NamedTuple
from ..store.repo import Repo

SUBMODULE = "160000"
TREE = "40000"


class LookAlike(NamedTuple):
    """What an absent path looks like: ``what`` is ``submodule`` (``spelled``: the submodule's
    path), ``case`` or ``normalization`` (``spelled``: the path as the tree spells it; ``also``:
    the tree's other spellings, when several names there fold to the typed one; ``directory``:
    the tree's spelling of the directory the typed name is new in, when ``spelled`` ends with it)."""

    what: str
    spelled: str
    also: tuple = ()
    directory: str = ""


def look_alike(repo: Repo, commit: str, path: str) -> LookAlike | None:
    """The ``LookAlike`` of ``path`` at ``commit``, or None when nothing there resembles it. A
    name under a directory the tree spells otherwise is the tree's spelling of it too (a review:
    ``src/new.py`` beside ``Src/App.py`` was signed absent, where a case-insensitive file system
    writes ``Src/new.py``)."""
    from ..core.chain import parse_tree

    obj = repo.git.read_object(commit)
    if obj is None or obj[0] != "commit" or not obj[1].startswith(b"tree "):
        return None
    tree = obj[1][5:5 + repo.oid_hex_len].decode("ascii", "replace")
    parts, spelled, what = path.split("/"), [], ""
    same: dict[str, bool] = {}  # (Git's settings, asked once, and only when a name differs)
    for i, part in enumerate(parts):
        raw = repo.git.read_object(tree)
        if raw is None or raw[0] != "tree":
            return None
        try:
            entries = {name.decode("utf-8", "surrogateescape"): (mode.decode("ascii", "replace"), oid)
                       for mode, name, oid in parse_tree(raw[1], repo.oid_hex_len // 2)}
        except ValueError:
            return None
        hits = [part] if part in entries else _normalized(part, entries)
        kind = "normalization"
        if not hits:
            hits, kind = _folded(part, entries), "case"
        if hits and hits != [part]:
            same = same or _settings(repo)
            # (two names Git keeps apart: the typed one may be a file to come; Linux keeps an NFC and
            # an NFD name as two files, as Git does unless core.precomposeUnicode, a review)
            if not same["core.ignorecase" if kind == "case" else "core.precomposeunicode"]:
                hits = []
            else:
                what = "case" if kind == "case" or what == "case" else what or kind
        if not hits:  # (a name new in a directory the tree spells otherwise)
            return LookAlike(what, "/".join(spelled + parts[i:]), (), "/".join(spelled)) if what else None
        rest = parts[i + 1:]
        if len(hits) > 1:  # (README and readme: either is the file a case-insensitive checkout shows)
            full = ["/".join(spelled + [h] + rest) for h in hits]
            return LookAlike(what, full[0], tuple(full[1:]))
        hit = hits[0]
        spelled.append(hit)
        mode, oid = entries[hit]
        if mode == SUBMODULE and rest:
            return LookAlike("submodule", "/".join(spelled))
        if not rest:
            return LookAlike(what, "/".join(spelled)) if what else None
        if mode != TREE:
            return None
        tree = oid
    return None


def _normalized(part: str, entries) -> list[str]:
    nfc = unicodedata.normalize("NFC", part)
    return sorted(n for n in entries if unicodedata.normalize("NFC", n) == nfc)


def _folded(part: str, entries) -> list[str]:
    key = unicodedata.normalize("NFC", part).casefold()
    return sorted(n for n in entries if unicodedata.normalize("NFC", n).casefold() == key)


def _settings(repo: Repo) -> dict[str, bool]:
    """``core.ignoreCase`` and ``core.precomposeUnicode``, as Git reads them (one ``git config``)."""
    proc = repo.git.run(["config", "--type=bool", "--get-regexp", r"^core\.(ignorecase|precomposeunicode)$"])
    found = {"core.ignorecase": False, "core.precomposeunicode": False}
    for line in proc.stdout.decode("utf-8", "replace").splitlines() if proc.returncode == 0 else []:
        key, _sp, value = line.partition(" ")
        if key.lower() in found:
            found[key.lower()] = value.strip() == "true"
    return found


def points(name: str, other: str) -> str:
    """How ``name`` spells the first character it writes otherwise than ``other`` (the same text
    in another Unicode normalization), visibly: ``decomposed (e + U+0301)``, ``composed (U+00E9)``;
    two spellings of one name look alike on any terminal (a review)."""
    from ..core.invisible import clusters, spelled_cluster

    a, b = clusters(name), clusters(other)
    diff = next((x for x, y in zip(a, b) if x != y), name) if len(a) == len(b) else name
    return spelled_cluster(diff)


def refusal(found: LookAlike, path: str, commit: str, mcp: bool, named: bool) -> str:
    """The one-line error for an absent ``path`` that looks like ``found`` (nothing signed).
    ``named``: the path may be repeated (the secret lint does not flag it)."""
    import shlex

    from ..core.gostr import and_joined, echoed, quoted

    def use(spelled: str) -> str:
        return f'"{quoted(spelled)}"' if mcp else f"--path {echoed(shlex.quote(spelled))}"

    option = "anchor.paths" if mcp else "--path"
    start = f"{option} {quoted(path) if mcp else echoed(path)}" if named else option
    start += f" names nothing at commit {commit[:12]}"
    spelled, end = found.spelled, " (nothing was recorded)"
    if found.what == "submodule":
        # (a review: where the submodule was since vendored, ``cd`` led to this same repository)
        at = "anchor.commit" if mcp else "--at"
        return (f"{start}: {echoed(spelled)} is a submodule at that commit: record from inside the submodule, "
                f"or {at} a commit where {echoed(spelled)} is part of this repository{end}")
    if not named:
        how = ("(another case), which core.ignoreCase" if found.what == "case" else
               "in another Unicode normalization, which core.precomposeUnicode")
        return f"{start}: the tree has it {how} takes for the same file: use the tree's spelling{end}"
    if found.what == "case":
        setting = "core.ignoreCase"
        if found.also:  # (README and readme: a review saw ReadMe signed absent)
            names = [spelled, *found.also]
            return (f"{start}: the tree has {and_joined(echoed(n) for n in names)} "
                    f"(other cases), which {setting} takes for the same file: use "
                    f"{' or '.join(use(n) for n in names)}{end}")
        told = "(another case)"
    else:
        setting = "core.precomposeUnicode"
        typed = path.split("/")
        tree = spelled.split("/")
        k = next((j for j, (a, b) in enumerate(zip(tree, typed)) if a != b), 0)
        told = (f"in another Unicode normalization (the tree's name is {points(tree[k], typed[k])}, this one "
                f"{points(typed[k], tree[k])})")
    if found.directory:  # (a review: src/new.py beside Src/App.py was signed absent)
        return (f"{start}: the tree spells its directory {echoed(found.directory)} {told}, which {setting} takes "
                f"for the same directory: use {use(spelled)}{end}")
    return f"{start}: the tree has {echoed(spelled)} {told}, which {setting} takes for the same file: use {use(spelled)}{end}"
