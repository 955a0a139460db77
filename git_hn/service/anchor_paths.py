"""The paths a record anchors, checked against the anchor commit (CONTRACT §1.6, §13.6; git-hn's
warnings and refusals around them).

Owns: what ``--path`` (or an MCP ``anchor.paths`` entry) names at the commit (``tree_entry``), the
refusals of a path that names nothing there but would from the current directory, or from a
directory whose path from the top no anchor can name (not UTF-8, a control character), and the
warnings printed once a record is signed (an absent path, uncommitted changes). Trusts: nothing
the user typed; Git's answers about the commit.
"""

from __future__ import annotations

from ..core.gostr import echoed, quoted
from ..core.grammar import is_path, path_problem
from ..core.limits import LIMITS, PATH_RULE
from ..errors import InputError
from ..store.repo import Repo


INVALID = "memory anchor path is invalid"  # CONTRACT §1.5's texts, which check_anchor raises
BOUND = "memory anchor paths exceed their bound"


def path_refusal(paths: list[str], name: str = "--path", many: str = "--path values", rule: str = PATH_RULE,
                 repo: Repo | None = None) -> tuple[str, str] | None:
    """(the contract's text, what to change) for the first anchor-path rule ``paths`` break, in
    ``check_anchor``'s order: their number, each path, their total bytes; None when they keep
    them. A bound says its number and how many were given; an invalid path is named (inert:
    control characters spelled ``\\xNN``, cut to ``PATH_LIMIT`` characters, not repeated when it
    looks like a credential) with why. ``repo`` (the CLI's flags): an absolute path inside the
    working tree, one with ./ or ../ (from the current directory) or a backslash is followed by
    the path to use (a trial: three paths, two invalid, got one generic line; 129 paths "exceed
    their bound" with no number; $PWD/f.txt and ../f.txt no suggestion)."""
    if len(paths) > LIMITS.max_paths:
        return BOUND, f"at most {LIMITS.max_paths} {many} ({len(paths)} given)"
    for path in paths:
        why = path_problem(path, LIMITS.max_path)
        if why:
            from .secretscan import shaped

            fix = _path_fix(repo, path) if repo is not None and not shaped(path) else ""
            use = f": use {name} {_shown(fix, name)}" if fix else ""
            return INVALID, f"{name} {_shown(path, name)} {why}{use}; {rule}"
    total = sum(len(p.encode("utf-8", "surrogatepass")) for p in paths)
    if total > LIMITS.max_total_path:
        return BOUND, f"at most {LIMITS.max_total_path} bytes of paths in all ({total} given)"
    return None


def _shown(path: str, name: str) -> str:
    """A path as a refusal repeats it: shell-quoted for a flag, in double quotes for a request's
    field, each control character spelled (``one_line`` would make a tab a space, which it is not)."""
    import re

    from ..core.gostr import PATH_LIMIT
    from ..core.hints import shell_path
    from ..core.invisible import spell_invisible
    from .secretscan import shaped

    if shaped(path):  # (a refused record must not echo what the secret lint would refuse)
        return "(not repeated: it looks like a credential)"
    cut = path if len(path) <= PATH_LIMIT else path[:PATH_LIMIT] + "…"
    cut = re.sub("[\x00-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m[0]):02x}", cut)
    return shell_path(cut) if name.startswith("--") else f'"{spell_invisible(cut)}"'


def _path_fix(repo: Repo, path: str) -> str:
    """The anchor path ``path`` likely means, or "": an absolute path inside the working tree from
    its top; one with a ./ or ../ segment from the current directory (what those mean to a shell);
    one with backslashes or an empty segment with its separators made Git's."""
    import os
    import posixpath

    segments = path.split("/")
    if path.startswith("/"):
        from ..store.worktree import toplevel

        top = toplevel(repo)
        if top is None:
            return ""
        tops = (top, os.path.realpath(top))
        fix = next((p[len(t.rstrip("/")) + 1:] for p in (path, os.path.realpath(path)) for t in tops
                    if p.startswith(t.rstrip("/") + "/")), "")
    elif "\\" in path:
        fix = posixpath.normpath(path.replace("\\", "/"))
    elif "." in segments or ".." in segments:
        proc = repo.git.run(["rev-parse", "--show-prefix"])
        prefix = proc.stdout.decode("utf-8", "surrogateescape").rstrip("\n") if proc.returncode == 0 else ""
        fix = posixpath.normpath(prefix + path)
    elif not path.endswith("/"):
        fix = posixpath.normpath(path)
    else:
        fix = ""  # (a trailing /: a directory, which no anchor names)
    return fix if fix != path and is_path(fix, LIMITS.max_path) else ""


def absent_notes(commit: str, absent: list[str]) -> list[tuple[str, str]]:
    """git-hn: (path, warning) for each ``--path`` that names nothing at the anchor commit
    (recorded as ``absent``, which the contract allows: a memory about a deleted file), since a
    mistyped path would otherwise be signed for good without a word (one relative to the current
    directory, or one that looks like a path of the tree, is refused before: ``check_top_relative``). The caller prints them only once the
    record is signed, and never a secret-shaped path (``secret_free``): a refused record must not
    echo what the lint refused."""
    if not absent:
        return []
    from ..core.hints import shell_path

    # (shell-quoted, invisible characters spelled: a trial's leading space was invisible, and a
    # U+202E reversed the rest of the line on a terminal)
    return [(path, f"--path {shell_path(path)} names nothing at commit {commit}; it is recorded as absent")
            for path in absent]


def check_top_relative(repo: Repo, commit: str, absent: list[str], prefix: str | None = None) -> None:
    """git-hn: refuse, before anything is signed, a typed ``--path`` that names nothing at the
    anchor commit while the same path taken from the current directory names something there.
    Paths are relative to the top of the repository (§13.6), so ``cd src; record --path f.txt``
    would sign ``f.txt`` as ``absent`` for good: a newcomer trial found the warning printed after
    the signature too late. A path absent everywhere (a deleted file, a typo) is still signed,
    with a warning (``absent_notes``). ``prefix``: the current directory's path from the top
    (default: asked of Git); the MCP server gives the one of the directory it was started in, and
    the error then names ``anchor.paths`` (an agent trial: a server started in ``src/`` signed
    ``pkg/parser.py`` as absent for good where the CLI refused it). The error names the path to
    use, unless the secret lint flags it (a refused record must not echo a credential). Then a
    path that looks like one the user sees there (``lookalike``: inside a submodule, another case,
    another Unicode normalization) is refused alike."""
    if not absent:
        return
    mcp = prefix is not None
    if prefix is None:
        proc = repo.git.run(["rev-parse", "--show-prefix"])
        prefix = proc.stdout.decode("utf-8", "surrogateescape").rstrip("\n") if proc.returncode == 0 else ""
    if prefix:
        _check_from_here(repo, commit, absent, prefix, mcp)
    from . import lookalike

    for path in absent:
        found = lookalike.look_alike(repo, commit, path)
        if found is not None:
            from .secretscan import shaped

            raise InputError(lookalike.refusal(found, path, commit, mcp, named=not shaped(path)))


def check_given_absent(repo: Repo, commit: str, absent: list[str], document: bool) -> None:
    """git-hn: refuse, before anything is signed, an anchor path the user gave the blob
    ``absent`` for (``--blob absent``; a ``document``, ``record --input``'s request) that names
    nothing at the commit while the same path taken from the current directory names a file
    there (a trial, S93: ``record --input`` from ``repo/sub`` signed ``inner.txt`` as absent for
    good, where the same flags without ``--blob`` are refused; docs/decisions.md). The blob is
    explicit, but an ``absent`` for what is a file from here is almost always a path given from
    here; from the top of the repository the same request is signed as given. An OID given as
    the blob is checked against the commit by the contract already. Unlike
    ``check_top_relative``, no look-alike check: the user said the path is absent."""
    if not absent:
        return
    proc = repo.git.run(["rev-parse", "--show-prefix"])
    prefix = proc.stdout.decode("utf-8", "surrogateescape").rstrip("\n") if proc.returncode == 0 else ""
    if prefix and is_path(prefix.rstrip("/"), LIMITS.max_path):
        _check_from_here(repo, commit, absent, prefix, False, given="document" if document else "flag")


def _check_from_here(repo: Repo, commit: str, absent: list[str], prefix: str, mcp: bool, given: str = "") -> None:
    if absent and not is_path(prefix.rstrip("/"), LIMITS.max_path):
        _refuse_unanchorable_here(commit, absent[0], prefix, mcp)
    for path in absent:
        full = prefix + path
        if not is_path(full, LIMITS.max_path):
            continue
        try:
            below = tree_entry(repo, commit, full) != "absent"
        except InputError:  # a directory or a submodule there: it names something
            below = True
        if not below:
            continue
        from ..core.hints import shell_path
        from .secretscan import shaped

        here = "the directory the MCP server was started in" if mcp else "the current directory"
        if shaped(full):
            named, use = "", ("prefix it with the path from the top of the directory the MCP server was started in"
                              if mcp else "prefix it with the current directory's path from the top")
        elif mcp or given == "document":
            named, use = f" {quoted(path)}", f'use "{quoted(full)}"'
        else:
            named, use = f" {shell_path(path)}", f"use --path {shell_path(full)}"
        if given:  # (an explicit absent: the blob changes with the path, and from the top it is signed as given)
            field = "record input field anchor.paths" if given == "document" else "--path"
            blob = "with its blob at that commit" if given == "document" else "with no --blob (git-hn looks it up)"
            raise InputError(f"{field}{named} is given as absent, and names nothing at commit {commit[:12]}, but names a "
                             f"file from {here}; paths are relative to the top of the repository: {use} {blob}, or "
                             "run from the top of the repository to record it as absent (nothing was recorded)")
        raise InputError(f"{'anchor.paths' if mcp else '--path'}{named} names nothing at commit {commit[:12]} but "
                         f"does from {here}; paths are relative to the top of the repository: {use} (nothing "
                         "was recorded)")


def _refuse_unanchorable_here(commit: str, path: str, prefix: str, mcp: bool) -> None:
    """An absent path given from a directory whose path from the top is no anchor path (not
    UTF-8, a control character): whether it meant a file here cannot be asked of Git, and it
    was signed as absent (a trial, from ``caf\\xe9/``); refused before signing instead."""
    from ..core.gostr import has_control, is_utf8
    from ..core.hints import shell_path

    why = ("is not UTF-8" if not is_utf8(prefix) else "holds a control character" if has_control(prefix) else
           "is not a path an anchor can name")
    here = "the directory the MCP server was started in" if mcp else "the current directory"
    given = f'"{quoted(path)}"' if mcp else shell_path(path)
    raise InputError(f"{'anchor.paths' if mcp else '--path'} {given} names nothing at commit {commit[:12]} and may "
                     f"mean a file in {here}, whose path from the top of the repository ({shell_path(prefix)}) {why}, "
                     "so nothing there can be anchored; to record it as absent, run from the top of the repository "
                     "(nothing was recorded)")


def uncommitted_notes(repo: Repo, commit: str, paths: list[str]) -> list[tuple[str, str]]:
    """git-hn: (path, warning) for each anchored path that has changes not committed yet (staged
    or not), when recording at ``HEAD``: the memory is anchored to the committed version, so once
    the change is committed its brief lists it as a stale anchor at once (an agent trial: most
    path-anchored memories of a session that recorded before committing were stale). One ``git
    status`` for all paths."""
    if not paths:
        return []
    from ..store.worktree import toplevel

    top = toplevel(repo)  # (the runner's pathspecs are literal, and from the worktree's top: ``git -C TOP``)
    if top is None:
        return []
    proc = repo.git.run(["-C", top, "status", "--porcelain=v1", "-z", "--untracked-files=no", "--", *paths])
    if proc.returncode != 0:
        return []
    changed = set()
    entries = iter(proc.stdout.decode("utf-8", "surrogateescape").split("\0"))
    for entry in entries:
        if len(entry) > 3:
            changed.add(entry[3:])
            if entry[0] in "RC":  # (a rename's source follows)
                next(entries, None)
    from ..core.hints import shell_path

    return [(p, f"--path {shell_path(p)} has changes not committed yet: the memory is anchored to its version "
                f"at commit {commit[:12]}, so it shows as stale once they are (commit first, then record, to "
                "anchor the new version)") for p in paths if p in changed]


def tree_entry(repo: Repo, commit: str, path: str) -> str:
    """The blob OID at ``path`` in ``commit``, ``absent``, or an error for a non-blob entry."""
    proc = repo.git.run(["--literal-pathspecs", "ls-tree", "--full-tree", "-z", commit, "--", path])
    if proc.returncode != 0:
        raise InputError(f"anchor path {echoed(path)} is not a blob at commit {commit}")
    for item in proc.stdout.split(b"\x00"):
        if not item:
            continue
        meta, _, name = item.partition(b"\t")
        if name.decode("utf-8", "surrogateescape") != path:
            continue
        mode, otype, oid = meta.decode("ascii").split(" ")
        if otype != "blob":
            raise InputError(f"anchor path {echoed(path)} is not a blob at commit {commit}")
        return oid
    return "absent"
