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
    path), ``case`` or ``normalization`` (``spelled``: the path as the tree spells it)."""

    what: str
    spelled: str


def look_alike(repo: Repo, commit: str, path: str) -> LookAlike | None:
    """The ``LookAlike`` of ``path`` at ``commit``, or None when nothing there resembles it."""
    from ..core.chain import parse_tree

    obj = repo.git.read_object(commit)
    if obj is None or obj[0] != "commit" or not obj[1].startswith(b"tree "):
        return None
    tree = obj[1][5:5 + repo.oid_hex_len].decode("ascii", "replace")
    parts, spelled, what = path.split("/"), [], ""
    ignore_case: list[bool] = []  # (asked once, and only when a name differs in case alone)
    for i, part in enumerate(parts):
        raw = repo.git.read_object(tree)
        if raw is None or raw[0] != "tree":
            return None
        try:
            entries = {name.decode("utf-8", "surrogateescape"): (mode.decode("ascii", "replace"), oid)
                       for mode, name, oid in parse_tree(raw[1], repo.oid_hex_len // 2)}
        except ValueError:
            return None
        hit = part if part in entries else _normalized(part, entries)
        if hit is None:
            hit = _folded(part, entries)
            if hit is None:
                return None
            if not ignore_case:
                ignore_case.append(_ignores_case(repo))
            if not ignore_case[0]:
                return None  # (two names Git keeps apart: the typed one may be a file to come)
            what = "case"
        elif hit != part and not what:
            what = "normalization"
        spelled.append(hit)
        mode, oid = entries[hit]
        if mode == SUBMODULE and i < len(parts) - 1:
            return LookAlike("submodule", "/".join(spelled))
        if i == len(parts) - 1:
            return LookAlike(what, "/".join(spelled)) if what else None
        if mode != TREE:
            return None
        tree = oid
    return None


def _normalized(part: str, entries) -> str | None:
    nfc = unicodedata.normalize("NFC", part)
    found = [n for n in entries if unicodedata.normalize("NFC", n) == nfc]
    return found[0] if len(found) == 1 else None


def _folded(part: str, entries) -> str | None:
    key = unicodedata.normalize("NFC", part).casefold()
    found = [n for n in entries if unicodedata.normalize("NFC", n).casefold() == key]
    return found[0] if len(found) == 1 else None


def _ignores_case(repo: Repo) -> bool:
    proc = repo.git.run(["config", "--type=bool", "--get", "core.ignoreCase"])
    return proc.returncode == 0 and proc.stdout.strip() == b"true"


def refusal(found: LookAlike, path: str, commit: str, mcp: bool, named: bool) -> str:
    """The one-line error for an absent ``path`` that looks like ``found`` (nothing signed).
    ``named``: the path may be repeated (the secret lint does not flag it)."""
    import shlex

    from ..core.gostr import one_line, quoted

    option = "anchor.paths" if mcp else "--path"
    start = f"{option} {quoted(path) if mcp else one_line(path)}" if named else option
    start += f" names nothing at commit {commit[:12]}"
    spelled = found.spelled
    if found.what == "submodule":
        where = quoted(spelled) if mcp else one_line(shlex.quote(spelled))
        return (f"{start}: {one_line(spelled)} is a submodule at that commit: record from inside it "
                f"(cd {where}) (nothing was recorded)")
    use = f'use "{quoted(spelled)}"' if mcp else f"use --path {one_line(shlex.quote(spelled))}"
    if not named:
        use = "use the tree's spelling"
    if found.what == "case":
        return (f"{start}: the tree has {one_line(spelled) if named else 'it'} (another case), which core.ignoreCase "
                f"takes for the same file: {use} (nothing was recorded)")
    return (f"{start}: the tree has {one_line(spelled) if named else 'it'} in another Unicode normalization: "
            f"{use} (nothing was recorded)")
