"""The ``post-rewrite`` hook's run (CONTRACT §10.7): after ``git commit --amend`` or ``git rebase``,
re-anchor the active identity's memories that were never published and name a rewritten commit
(``reanchor``), and say which published ones stay where they were (``left_behind``).

Owns ``<gitdir>/hn/rebase-amends`` (derived, private, per worktree): the mappings of the amends
made during a rebase, tagged with the rebase they belong to, followed from the rebase's own list.
Trusts Git's hook input, as Git gives it (parsed strictly by ``store.reanchor.parse_mapping``).
Never fails the user's command: what it did, or why it did not, is one line per stream.
"""

from __future__ import annotations

import os
import sys

from ..errors import HnError
from ..store.repo import Repo


def run_post_rewrite(repo: Repo, data: bytes, command: str = "") -> int:
    """After ``git commit --amend`` or ``git rebase``: re-anchor the active identity's memories
    that were never published and name a rewritten commit (``store.reanchor``). Never fails
    the user's command; what it did is one line per stream.

    An ``amend`` while a rebase is in progress (a squash or fixup step, an amend at an ``edit``
    stop, or one an ``--exec`` command makes) is left to the rebase: its own ``post-rewrite`` at
    the end maps the commits it replaced, and if it is aborted nothing was rewritten
    (re-anchoring at the step left memories on a commit the abort discarded). Such an amend's
    mapping is kept (``<gitdir>/hn/rebase-amends``) and followed from the rebase's: Git's final
    list names the commit a step made, not the one an ``--exec`` amend then made of it. The
    kept mappings name the rebase they belong to (``_rebase_tag``): those of a rebase that was
    aborted are never followed (the next, unrelated rebase moved a memory onto a commit the
    abort had discarded)."""
    from ..store.reanchor import parse_mapping

    amends = os.path.join(repo.worktree_hn_dir, "rebase-amends")
    tag = _rebase_tag(repo)
    if command == "amend" and tag:
        _keep_amends(repo, amends, tag, data)
        return 0
    mapping = parse_mapping(data, repo.oid_hex_len)
    if command == "rebase":  # the steps' amends too (a commit the rebase kept, then amended), followed
        kept = _take(repo, amends)
        later = parse_mapping(kept, repo.oid_hex_len) if tag and kept.startswith(tag) else {}
        mapping = {**later, **mapping}
        for old, new in mapping.items():
            seen = set()
            while new in later and new not in seen:
                seen.add(new)
                new = later[new]
            mapping[old] = new
    mapping = {old: new for old, new in mapping.items() if old != new}  # (a rebase that made the same commit)
    if not mapping:
        return 0
    from ..store import identity as identmod
    from . import reanchor

    try:
        ident = identmod.load_active(repo)
    except HnError:
        return 0  # no identity here: no memory of ours to re-anchor
    try:
        done = reanchor.rewrite(repo, ident, mapping)
    except HnError as exc:
        how = ""
        from ..errors import LocalStateError

        # (an amend: the one command that does it by hand; not when this clone cannot tell what
        # was published, a damaged record: that command refuses the same way)
        if len(mapping) == 1 and not isinstance(exc, LocalStateError):
            (old, new), = mapping.items()
            how = f"; git hn memory reanchor {old} {new} re-anchors them"
        sys.stderr.write(f"{fresh_line()}git-hn: memories on rewritten commits were not re-anchored: "
                         f"{exc.message}{how}\n")
        return 0
    from . import left_behind  # (published ones stay: a team trial's rebase dropped them from recall unsaid)

    lines = [reanchor.stream_line(r, 'on the rewritten commits') for r in done if r.memories or r.kept]
    lines += reanchor.untested_lines(repo, done, command or "rewrite")  # (verifications on a changed tree)
    lines += reanchor.unanchored_lines(done)  # (a path that is a directory or a submodule there)
    # (the warnings reanchor prints: a renamed or deleted file's path, never a secret-shaped one)
    lines += [f"warning: {text}" for _path, text in reanchor.absent_notes(repo, done)]
    moved = {m for r in done for m, _n in r.renamed} | {m for r in done for m, _c in r.kept} | \
        {u.memory for r in done for u in (*r.untested, *r.unanchored)}
    said = left_behind.line(left_behind.left(repo, mapping, ident.actor, moved), mapping, ident.actor,
                            command or "rewrite")
    lines += [said] if said else []
    if lines:
        sys.stderr.write(fresh_line() + "".join(f"git-hn: {line}\n" for line in lines))
    return 0


def fresh_line() -> str:
    """What goes before a post-rewrite's first line on a terminal: ``git rebase`` leaves its
    "Rebasing (1/1)" progress ended by a carriage return, not a newline, and the hook's line
    landed on it (a team trial). The line is cleared first, as Git's own ``term_clear_line``
    does before its next line (spaces on a dumb terminal); nothing when stderr is not a
    terminal (a log, a pipe: no progress there to clear)."""
    try:
        if not sys.stderr.isatty():
            return ""
    except (AttributeError, ValueError):
        return ""
    term = os.environ.get("TERM", "")
    return "\r" + " " * 80 + "\r" if not term or term == "dumb" else "\r\x1b[K"


def _rebase_tag(repo: Repo) -> bytes:
    """The rebase in progress in this worktree, as the first line of its kept amends: a file Git
    writes once when the rebase starts (its state directory's ``onto``, or ``rebasing`` for the
    apply backend), by inode and modification time; b"" when no rebase is in progress."""
    for where, name in (("rebase-merge", "onto"), ("rebase-apply", "rebasing")):
        try:
            st = os.stat(os.path.join(repo.git_dir, where, name))
        except OSError:
            continue
        return f"rebase {where} {st.st_ino} {st.st_mtime_ns}\n".encode("ascii")
    return b""


def _keep_amends(repo: Repo, path: str, tag: bytes, data: bytes) -> None:
    from ..store import private

    try:
        before = private.read_private(repo.worktree_hn_dir, path, 1 << 20) or b""
        before = before[len(tag):] if before.startswith(tag) else b""  # (an aborted rebase's: dropped)
        private.write_private(repo.worktree_hn_dir, path, tag + (before + data)[-(1 << 20):], derived=True)
    except (HnError, OSError):
        pass  # best effort: the rebase's own list still moves what it names


def _take(repo: Repo, path: str) -> bytes:
    from ..store import private

    try:
        data = private.read_private(repo.worktree_hn_dir, path, 1 << 20) or b""
        os.unlink(path)
    except (HnError, OSError):
        return b""
    return data
