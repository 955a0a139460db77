"""Moving unpublished memories off a commit: after a rewrite (the ``post-rewrite`` hook) and by
hand (``git hn memory reanchor OLD NEW``), for a commit Git will never push, such as one a
``git reset`` discarded (git-hn extension; docs/decisions.md).

Owns: resolving the two revisions, the words of the result (one line per stream, with the new
IDs of the memories signed again), and keeping the exported index consistent afterwards. The
rebuilding itself is ``store.reanchor``'s: only the active identity's unpublished memories, from
the first that names OLD to the tip of its stream, each signed anew.
"""

from __future__ import annotations

from ..core.gostr import short_id
from ..core.grammar import is_oid, parse_local_ref
from ..core.lines import lines_of
from ..core.tuples import NamedTuple
from ..errors import HnError, InputError
from ..store import identity as identmod
from ..store import reanchor as store
from ..store.repo import Repo
from . import index_refresh

SHOWN_RENAMES = 5  # new IDs named per stream in a human line (``--json`` lists every one)


class Reanchored(NamedTuple):
    old: str  # the commit the memories named
    new: str  # the commit they name now
    streams: list  # store.reanchor.Rewritten, one per stream rebuilt
    absent: tuple = ()  # (path, warning) of each anchored path the move recorded absent (``absent_notes``)
    detached: bool = False  # NEW is held only by a detached HEAD (``detached_hint``)


def reanchor(repo: Repo, old: str, new: str, files_only: bool = False) -> Reanchored:
    """Move the active identity's unpublished memories that name commit ``old`` (as anchor or
    ``git:`` evidence) to commit ``new``; an error when there are none. ``files_only``
    (``--files-only``): a memory whose anchored path is a directory or a submodule at ``new``
    moves too, such paths left out of its anchor (``narrowed_lines``), instead of staying."""
    ident = identmod.load_active(repo)
    old_commit, new_commit = _old_commit(repo, old), repo.resolve_commit(new)
    if old_commit == new_commit:
        raise InputError(f"{old} and {new} are the same commit {old_commit}: nothing to move")
    detached = _held_by_head_only(repo, new_commit)
    done = rewrite(repo, ident, {old_commit: new_commit}, cause="reanchor", files_only=files_only)
    if done and not any(r.memories for r in done):  # (only memories that must stay)
        kept = [r for r in done if r.kept]
        raise InputError(stream_line(kept[0], "") if kept else f"{unanchored_lines(done)[0]}; nothing was signed again")
    if not done:
        raise InputError(f"no unpublished memory of yours names commit {old_commit} (a published memory "
                         "is never rewritten: correct one with git hn memory supersede --at)" + _stopped_hint(repo))
    return Reanchored(old_commit, new_commit, done, tuple(absent_notes(repo, done)), detached)


def _held_by_head_only(repo: Repo, new: str) -> bool:
    """Whether only HEAD (detached) holds ``new``, not a branch, tag or remote-tracking ref;
    refused when nothing does. HEAD counts, as it does for ``--drop``'s check and for ``record
    --at`` (a review: README said "a branch, tag or remote-tracking ref" while a detached HEAD's
    commit was taken): its memories wait, as any unpushed anchor's, until a branch that contains
    it is pushed (``detached_hint`` says so). One ``rev-list``; one more only for a commit no
    ref holds."""
    from .replication.gate import discarded

    if not discarded(repo, {new}, head=False):
        return False
    if discarded(repo, {new}):
        raise InputError(f"commit {new} is on no branch, tag or remote-tracking ref here either, nor HEAD, so "
                         "no push would carry it: name a commit on a branch you push")
    return True


def detached_hint(result: Reanchored) -> str:
    """After a move to a commit only a detached HEAD holds: what publishes its memories."""
    return (f"commit {result.new[:12]} is on no branch (only the detached HEAD holds it): the memories moved to it "
            "are published once a branch that contains it is pushed (git switch -c BRANCH, then git push REMOTE "
            "BRANCH), and are left behind again if HEAD moves off it first")


def _stopped_hint(repo: Repo) -> str:
    """When a stopped publication's offers count as published (``store.given``): how to settle them."""
    import shlex

    from ..store import given

    try:
        stopped = given.offered(repo)
    except (HnError, OSError):
        return ""
    if not stopped:
        return ""
    remotes = " ".join(sorted({given.remote_of(r) for r, _ref, _h in stopped}))  # (a push URL's key names it)
    return (f"; a publication to {remotes} was stopped while pushing, so what it sent counts as published "
            f"until git hn sync {shlex.quote(remotes.split()[0])} finds what the remote holds (when it holds less, no "
            "sooner than ten minutes after the stop: a server may still be taking that push); if that remote "
            f"is gone, remove its lines from {given.offered_path(repo)}")


RENAME_LOOKUPS = 8  # commit pairs asked for renames after one re-anchoring (a rebase may rewrite hundreds)


def absent_notes(repo: Repo, done: list) -> list[tuple[str, str]]:
    """(path, warning) for each anchored path a re-anchoring recorded absent (``Rewritten.absent``:
    a file at the rewritten commit, none at its replacement): the post-rewrite hook's warnings and
    ``reanchor``'s, one text (a trial: the hook turned a renamed file's path into ``absent`` without
    a word, and the memory was never stale again). Each names the memory, the path, and the
    ``supersede`` that anchors the memory to the file where it is now: with the new name when Git
    sees the rename between the two commits (``_renames``; not a secret-shaped one), else with a
    placeholder. A secret-shaped path (``secretscan.shaped``) is never repeated: its own warning is
    left out, as ``record``'s warnings leave it out, and a command that would name one (another
    path of the memory, recorded with --allow-secret-shaped) gives the renamed file alone and says
    a path was withheld (a review: the supersede repeated every path of the memory). At most
    ``SHOWN_RENAMES`` paths are warned of one by one (and asked for renames); one more line
    counts the others, with their memories, as the hook's other lines do."""
    from ..core.hints import shell_path
    from .secretscan import shaped

    every = [e for r in done for e in r.absent if not shaped(e.path)]
    gone, more = every[:SHOWN_RENAMES], every[SHOWN_RENAMES:]
    renames: dict[tuple[str, str, str], str] = {}
    for old, new in sorted({(e.old, e.new) for e in gone})[:RENAME_LOOKUPS]:
        renames.update({(old, new, a): b for a, b in _renames(repo, old, new).items() if not shaped(b)})
    out = []
    for e in gone:
        mid, to = short_id(e.memory), renames.get((e.old, e.new, e.path))
        text = f"memory {e.memory} names --path {shell_path(e.path)}, which is not in commit {e.new}; it is recorded as absent"
        named = [renames.get((e.old, e.new, p), p) for p in e.paths]
        if to and not any(shaped(p) for p in named):
            paths = " ".join(f"--path {shell_path(p)}" for p in named)
            text += (f"; Git sees the file renamed to {shell_path(to)}: git hn memory supersede {mid} --same-content "
                     f"{paths} anchors the memory there")
        elif to:
            text += (f"; Git sees the file renamed to {shell_path(to)}: git hn memory supersede {mid} --same-content "
                     f"with --path {shell_path(to)} and a --path for each other file it is about anchors the memory "
                     "there (a path of the memory is not repeated here: it looks like a credential)")
        else:
            text += (f"; if the file moved, git hn memory supersede {mid} --same-content with a --path for each file "
                     "it is about anchors the memory there")
        out.append((e.path, text))
    if more:  # (a review: 30 deleted anchored files gave 30 lines of 330 characters)
        ids = list(dict.fromkeys(short_id(e.memory) for e in more))
        listed = ", ".join(ids[:SHOWN_RENAMES]) + (", ..." if len(ids) > SHOWN_RENAMES else "")
        one = len(more) == 1
        out.append(("", f"{len(more)} more anchored {'path' if one else 'paths'} of the memories moved "
                        f"{'names' if one else 'name'} nothing at their new commit and {'is' if one else 'are'} "
                        f"recorded as absent ({'memory' if len(ids) == 1 else 'memories'} {listed}): git hn memory show ID names a memory's paths, and "
                        "git hn memory supersede ID --same-content with a --path for each file it is about anchors "
                        "it where the files are now"))
    return out


def _renames(repo: Repo, old: str, new: str) -> dict[str, str]:
    """Old path -> new path of each rename Git sees from commit ``old`` to ``new`` (one ``diff-tree
    -M``); none when it cannot say."""
    proc = repo.git.run(["diff-tree", "-r", "-z", "-M", "--name-status", "--diff-filter=R", "--end-of-options",
                         old, new])
    if proc.returncode != 0:
        return {}
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    return {fields[i + 1]: fields[i + 2] for i in range(0, len(fields) - 2, 3) if fields[i].startswith("R")}


def _old_commit(repo: Repo, rev: str) -> str:
    """OLD as a full commit ID: a revision, or the ID of a commit that is no longer here at all
    (``git gc`` pruned it after its reflog expired): in full, or by a prefix that names one anchor
    commit of the memories here, such as the 12 hex digits ``git hn sync`` and ``push`` print (a
    newcomer trial: the error said "named by its full ID, as git hn sync prints it", and sync
    printed 12)."""
    try:
        return repo.resolve_commit(rev)
    except InputError as exc:
        low = rev.lower()  # (Git takes a commit that is here in either case: one no longer here too)
        if is_oid(low) and len(low) == repo.oid_hex_len and repo.git.object_info(low) is None:
            return low
        if is_oid(low) and len(low) != repo.oid_hex_len:  # (the other object format's: never here, but
            return low  # ``git:`` evidence an older git-hn signed names it, which --drop discards; lint.withheld)
        if 4 <= len(low) < repo.oid_hex_len and all(c in "0123456789abcdef" for c in low):
            rev = low
            from ..store import stateview

            try:
                with stateview.current(repo) as view:
                    anchors = view.anchors(rev)
            except HnError:
                anchors = []
            if len(anchors) == 1:
                if repo.git.object_info(anchors[0]) is None:
                    return anchors[0]
                raise  # (a commit that is here, which Git found ambiguous among its objects)
            if len(anchors) > 1:
                raise InputError(f"{exc.message}; it begins more than one memory anchor commit here: give more of "
                                 "its hex digits, or its full ID") from None
            raise InputError(f"{exc.message}; nor does any memory here name a commit beginning so (a commit that "
                             "is no longer here is named by its full ID, or by the first digits git hn sync "
                             "prints)") from None
        raise


class Dropped(NamedTuple):
    commit: str  # the commit the discarded memories named
    streams: list  # store.discard.Discarded, one per stream rebuilt


def drop(repo: Repo, old: str) -> Dropped:
    """``git hn memory reanchor OLD --drop`` (git-hn): discard the active identity's unpublished
    memories that name commit ``old`` (``store.discard``), under the same publication locks and
    with the same refreshes as a rewrite; an error when there are none."""
    from ..store import discard

    ident = identmod.load_active(repo)
    commit = _old_commit(repo, old)
    _check_discarded(repo, commit)
    from .secretscan import scan

    done = _rebuilding(repo, lambda: discard.discard(repo, ident, commit, scan))
    if not done:
        raise InputError(f"no unpublished memory of yours names commit {commit} (a published memory is never "
                         "discarded: withdraw one with git hn memory retract)" + _stopped_hint(repo))
    return Dropped(commit, done)


def _check_discarded(repo: Repo, commit: str) -> None:
    """Refuse ``--drop`` for a commit a push can still carry (``holder``). Its memories publish
    with it; discarding them is not undone by any reflog (a review: a decision on ``main``'s tip
    was dropped without a word)."""
    from ..store.discard import NOTHING

    by, then = holder(repo, commit)
    if by:
        raise InputError(f"commit {commit[:12]} is not discarded ({by}), so a push carries it and its memories with "
                         f"it; --drop is for a commit no branch, tag, remote-tracking ref or HEAD holds: withdraw a "
                         f"memory with git hn memory retract ID --reason obsolete, or {then}; {NOTHING}")


def holder(repo: Repo, commit: str) -> tuple[str, str]:
    """What holds ``commit`` so that a push can still carry it, in ``--drop``'s refusal's words
    ("origin/feat holds it"), and what takes it off ("take the commit off your branches first");
    ("", "") when nothing does: no HEAD of any worktree, branch, tag or remote-tracking ref
    (``gate.discarded``, the test the held publication's hint makes before it offers ``--drop``;
    ``untested_lines`` makes it too, through ``holders``)."""
    return holders(repo, [commit])[commit]


def holders(repo: Repo, commits) -> dict[str, tuple[str, str]]:
    """``holder`` for each of ``commits``, in the same words, asked for them all at once: one
    ``git worktree list``, one ``rev-list`` (``gate.discarded``) and one ``name-rev`` walk per
    kind of ref (``held.holding_refs``) for the held ones (a reread: the post-rewrite hook ran
    the three for each verification it left)."""
    from .held import holding_refs
    from .replication.gate import ALL_REFS, discarded

    todo = sorted(set(commits))
    if not todo:
        return {}
    # every worktree's HEAD counts (a review: a commit checked out in a second worktree, which a
    # push from there carries, was dropped): one ``git worktree list``, on this path only
    heads = _worktree_heads(repo)
    gone = discarded(repo, set(todo), ALL_REFS + tuple(heads.values()))
    held = [c for c in todo if c not in gone]
    named = holding_refs(repo, held, held=True) if held else {}
    return {c: ("", "") if c in gone else _held_words(repo, c, named.get(c, ""), heads) for c in todo}


def _held_words(repo: Repo, commit: str, held_by: str, heads: dict[str, str]) -> tuple[str, str]:
    """``holder``'s words for a ``commit`` something holds: the ref ``held_by`` names ("": none
    named), else the worktree whose HEAD holds it."""
    tree = "" if held_by else _worktree_holding(repo, commit, heads)
    if held_by or not tree:
        return (f"{held_by} holds it" if held_by else "a worktree's HEAD or a ref here holds it, perhaps a keep branch "
                "hn-anchor/… (git branch -a --contains names it)", "take the commit off your branches first")
    from ..core.gostr import cut  # (a review: "git branch -a --contains" named nothing, and the commit was on no branch)

    return f'the HEAD of worktree "{cut(tree, 200)}" holds it', "move that worktree's HEAD off it first"


def _worktree_heads(repo: Repo) -> dict[str, str]:
    """Each worktree's path -> the commit its HEAD names (``git worktree list --porcelain -z``);
    a worktree on an unborn branch (Git lists its HEAD as the null ID: a review found ``rev-list``
    then failing with "bad object") or whose HEAD Git cannot read is left out."""
    listing = repo.git.run(["worktree", "list", "--porcelain", "-z"])
    if listing.returncode != 0:
        return {}
    heads, path = {}, ""
    for field in listing.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if field.startswith("worktree "):
            path = field[len("worktree "):]
        elif field.startswith("HEAD ") and is_oid(field[5:]) and field[5:].strip("0") and path:
            heads[path] = field[5:]
    return heads


def _worktree_holding(repo: Repo, commit: str, heads: dict[str, str]) -> str:
    """The path of a worktree whose HEAD holds ``commit`` (one ``merge-base`` a worktree, on the
    refusal's path only); "" when none does."""
    for path, head in sorted(heads.items()):
        if head == commit or repo.git.run(["merge-base", "--is-ancestor", commit, head]).returncode == 0:
            return path
    return ""


def drop_lines(result: Dropped) -> list[str]:
    out = []
    for d in result.streams:
        line = (f"dropped {_count(len(d.dropped))} of {_stream(d.ref)} that named {short_id(result.commit)}: "
                f"{', '.join(short_id(i) for i in d.dropped[:SHOWN_RENAMES])}" if d.dropped else
                f"signed again {_count(len(d.renamed))} of {_stream(d.ref)}, which name memories signed again")
        if d.dropped and d.removed:
            line += "; the stream held nothing else, so its ref is deleted"
        if d.renamed:
            more = len(d.renamed) - SHOWN_RENAMES
            renames = ", ".join(f"{short_id(a)} -> {short_id(b)}" for a, b in d.renamed[:SHOWN_RENAMES])
            line += (f"; {len(d.renamed)} later signed again, new IDs: " if d.dropped else "; new IDs: ") + \
                renames + (f" and {more} more" if more > 0 else "")
        out.append(line)
    # (refs/hn/* keep no reflog: a drop made by mistake is undone only from these tips)
    out += [f"undo: git update-ref {d.ref} {d.before}" for d in result.streams if d.before]
    return out


def drop_json(result: Dropped) -> dict:
    return {"commit": result.commit,
            "streams": [{"ref": d.ref, "before": d.before, "dropped": list(d.dropped), "removed": d.removed,
                         "renamed": [{"from": a, "to": b} for a, b in d.renamed]} for d in result.streams]}


PUBLICATION_WAIT = 60.0  # seconds a rewrite waits for a publication that is running


def rewrite(repo: Repo, ident, mapping: dict[str, str], cause: str = "rewrite", files_only: bool = False) -> list:
    """``store.reanchor.reanchor``; when it moved refs, the exported index made consistent and
    the verified state brought to the rebuilt streams (their new commits verified now, as an
    append records its own), so that the state is exact for ``index verify`` and the next command.

    Under the publication lock of every remote (``replication.serial``): a push's background
    publisher that is still running may be sending a memory this would take for unpublished,
    and re-signing a memory the remote has splits the stream for good (the remote refuses the
    rebuilt one as a non-fast-forward). So the rewrite waits for it, and then knows what it
    published; a publisher that starts later finds the tips it was given replaced and sends
    nothing of them."""
    if not mapping:
        return []
    from .secretscan import scan

    return _rebuilding(repo, lambda: store.reanchor(repo, ident, mapping, cause, files_only, scan))


def _rebuilding(repo: Repo, rebuild) -> list:
    """``rebuild()`` (a list of results, each with the ``ref`` it moved) under the publication
    lock of every remote, then the index and the state brought to the refs it moved."""
    from contextlib import ExitStack

    from .replication import serial

    import sys

    proc = repo.git.run(["remote"])
    with ExitStack() as stack:
        for remote in sorted(set(lines_of(proc.stdout.decode("utf-8", "surrogateescape")))):
            said = f"git-hn: waiting for the memory publication to {remote} to end before re-anchoring\n"
            stack.enter_context(serial.publishing(repo, remote, PUBLICATION_WAIT,
                                                  lambda said=said: sys.stderr.write(said)))
        done = rebuild()
    if done:
        index_refresh.after_ref_change(repo)
        _refresh_state(repo, {parse_local_ref(r.ref) for r in done})
    return done


def _refresh_state(repo: Repo, scope: set) -> None:
    from ..store import stateview, streams

    try:
        listing = [s for s in streams.list_sources(repo) if (s.actor, s.stream) in scope]
        with stateview.current(repo, listing=listing, scope=scope):
            pass
    except HnError:
        pass  # the next command's refresh verifies them


def stream_line(r, where: str) -> str:
    """One stream's result: how many memories named a moved commit, and, when later memories of
    the stream had to be signed again (each names the one before it), how many, with new IDs."""
    if r.kept and not r.memories:  # (something published cites them: they stay as they are)
        ids = ", ".join(short_id(i) for i, _commit in r.kept[:SHOWN_RENAMES])
        commits = list(dict.fromkeys(c for _i, c in r.kept))
        keep = " ".join(f"{c}:refs/heads/hn-anchor/{c[:12]}" for c in commits)
        which = f"commit {commits[0]}" if len(commits) == 1 else f"commits {', '.join(commits)}"
        return (f"left {_count(len(r.kept))} of {_stream(r.ref)} on the old "
                f"{'commit' if len(commits) == 1 else 'commits'} ({ids}): a published memory, or "
                f"another identity's, cites it, so it cannot be signed again; its stream waits for {which}: "
                f"keep {'it' if len(commits) == 1 else 'them'} on the remote (git push REMOTE {keep})")
    line = f"re-anchored {_count(r.moved)} of {_stream(r.ref)} {where}"
    renames = ", ".join(f"{short_id(a)} -> {short_id(b)}" for a, b in r.renamed[:SHOWN_RENAMES])
    more = len(r.renamed) - SHOWN_RENAMES
    extra = f" and {more} more" if more > 0 else ""
    if not r.moved:  # a stream that cites a memory signed again (a retraction recorded with --stream)
        return (f"signed again {_count(r.memories)} of {_stream(r.ref)}, which name memories signed again; "
                f"new IDs: {renames}{extra}")
    if r.memories > r.moved:
        return f"{line}; {_count(r.memories)} signed again, new IDs: {renames}{extra}"
    return f"{line}; new IDs: {renames}{extra}"


def unanchored_lines(done: list) -> list[str]:
    """One line for each memory a re-anchoring left where it was signed because an anchored path is
    a directory or a submodule at the new commit (``Rewritten.unanchored``): the post-rewrite
    hook's and ``reanchor``'s. Signed there, its anchor would be invalid and it would leave recall
    and the brief unsaid (a trial); it says what moves it: ``reanchor OLD NEW --files-only``,
    which carries it with such paths left out of its anchor, or its content shown, the memory
    dropped (``--drop`` discards what still names the old commit), then recorded anew with a file.
    When a later memory of yours cites it, ``--drop`` is refused (that one would name a memory
    that no longer exists), so it is not offered; keeping the old commit on the remote is (a
    review: the line offered --drop, --drop's refusal offered reanchor OLD NEW, which refused
    again with this line)."""
    from ..core.hints import shell_path
    from .secretscan import shaped

    out = []
    for u in (u for r in done for u in r.unanchored):
        mid, what, old = short_id(u.memory), "a directory" if u.node == "tree" else "a submodule", u.old[:12]
        # (a path the secret lint flags is not repeated: a review)
        named = "(not repeated here: it looks like a credential)" if shaped(u.path) else shell_path(u.path)
        line = (f"left unpublished memory {mid} of yours on {old}, where it was signed: its anchored path "
                f"{named} is {what} at {u.new[:12]}, and an anchored path must be a file, so it "
                f"cannot be signed there (its stream is published once {old} is pushed); to move it, git hn memory "
                f"reanchor {u.old} {u.new} --files-only carries it to {u.new[:12]} with that path left out of its "
                "anchor")
        if u.cited:
            line += (" (a later memory of yours cites it, so --drop is refused: that memory would name one that no "
                     f"longer exists), or git push REMOTE {u.old}:refs/heads/hn-anchor/{old} keeps {old} on the "
                     "remote, which publishes it as it is")
        else:
            line += (f"; or git hn memory show {mid} shows its content, git hn memory reanchor {u.old} --drop discards "
                     f"it, and git hn memory record --at {u.new[:12]} with a --path naming a file records it anew")
        out.append(line)
    return out


def narrowed_lines(done: list, new: str) -> list[str]:
    """``reanchor OLD NEW --files-only``: one line for each memory moved with anchored paths left
    out of its anchor (``Rewritten.narrowed``), naming them and what each is at NEW; a
    secret-shaped path is not repeated."""
    from ..core.hints import shell_path
    from .secretscan import shaped

    out = []
    for mid, paths in (n for r in done for n in r.narrowed):
        named = [("a path not repeated here, as it looks like a credential" if shaped(p) else f"--path {shell_path(p)}")
                 + f" ({'a directory' if node == 'tree' else 'a submodule'} there)" for p, node in paths]
        out.append(f"memory {short_id(mid)} is anchored at {new[:12]} without {', '.join(named)}: --files-only left "
                   f"{'it' if len(paths) == 1 else 'them'} out, as an anchored path must be a file")
    return out


def untested_lines(repo: Repo, done: list, what: str) -> list[str]:
    """The post-rewrite hook's lines for the verifications it left where they were signed
    (``Rewritten.untested``: the ``what``, an amend or a rebase, gave a commit each names another
    tree), one a memory, at most ``SHOWN_RENAMES`` and one more that counts the others: each names
    every rewritten commit the memory names, old -> new (a review: a squash's second was not
    named, and the one command given carried half the memory), and gives commands that run as
    given, in the order of the lines: test and record the result anew (``_record_again``: with
    its mode, subject, paths and topics); then, when no ref holds its anchor (``holder``), its
    stream waits for that commit and ``--drop`` discards it; when a ref holds it, the push or
    sync that finds it on the remote publishes it there, where it was tested, and ``--drop`` is
    refused, so none is offered (a review: the one offered was refused, "origin/feat holds it",
    and the next sync published it); or carry it, by hand, commit by commit. The commands name
    commits, not IDs: a ``--drop`` or a carry signs the later memories of a stream again."""
    left = [u for r in done for u in r.untested]
    if not left:
        return []
    try:  # (every anchor named at once: ``holders``)
        held_by = {c: words[0] for c, words in holders(repo, [u.anchor for u in left[:SHOWN_RENAMES]]).items()}
    except (HnError, OSError):
        held_by = {}  # (not known: --drop's own check says, and changes nothing)
    dropped, carried, lines = {}, set(), []
    for u in left[:SHOWN_RENAMES]:
        lines.append(_untested_line(u, what, held_by.get(u.anchor, ""), dropped, carried))
    more = left[SHOWN_RENAMES:]
    if more:
        ids = ", ".join(short_id(u.memory) for u in more[:SHOWN_RENAMES]) + (", ..." if len(more) > SHOWN_RENAMES else "")
        lines.append(f"left {len(more)} more unpublished {'verification' if len(more) == 1 else 'verifications'} of "
                     f"yours where {'it was' if len(more) == 1 else 'they were'} signed, for the same reason ({ids}): git "
                     "hn memory show ID names the commits each names")
    streams_named = [r.ref for r in done for _u in r.untested[:SHOWN_RENAMES]]
    if len(set(streams_named)) < len(streams_named):  # (two of one stream: the IDs of the later ones change)
        lines[-1] += ("; a --drop or a carry signs the later memories of its stream again, so the IDs named here "
                      "change (git hn memory show OLD-ID names the new one), but the commands name commits and run "
                      "as given in this order")
    return lines


def _untested_line(u, what: str, held_by: str, dropped: dict[str, str], carried: set) -> str:
    """One memory's line of ``untested_lines``; ``held_by``: what holds its anchor ("": nothing).
    ``dropped`` (anchor -> memory ID) and ``carried`` (pairs) say what an earlier line's command
    does already (two verifications of one commit: one ``--drop`` discards both)."""
    mid, anchor, new_of = short_id(u.memory), u.anchor, dict(u.pairs)
    new = new_of.get(anchor, anchor)
    if len(u.pairs) == 1:
        (old, to), = u.pairs
        changed = f"replaced {old[:12]} with {to[:12]}, which has another tree"
    else:
        changed = (f"replaced the commits it names ({', '.join(f'{o[:12]} -> {n[:12]}' for o, n in u.pairs)}), "
                   f"{', '.join(c[:12] for c in u.changed)} with another tree")
    text = (f"left unpublished verification {mid} of yours on {anchor[:12]}, where it was signed: this {what} "
            f"{changed}, so signing it again on the new {'commit' if len(set(new_of.values())) == 1 else 'commits'} "
            "would claim a test no one ran there; ")
    record, tested = _record_again(u, new)
    text += f"test {', '.join(c[:12] for c in tested)}, then {record} records the result"
    if held_by:
        text += (f"; {anchor[:12]} is not discarded ({held_by}), so the push or git hn sync that finds it on the "
                 f"remote publishes {mid} there, where it was tested (once no ref holds {anchor[:12]} any more, as "
                 f"after a force-push of the rewritten branch or a deleted branch, {mid} waits for it instead, and "
                 f"git hn memory reanchor {anchor} --drop discards it)")
    elif anchor in dropped:
        text += f", and git hn memory reanchor {anchor} --drop, above, discards {mid} with {dropped[anchor]}"
    else:
        dropped[anchor] = mid
        text += (f", and git hn memory reanchor {anchor} --drop discards {mid} (its stream is published only once "
                 f"{anchor[:12]} is pushed, or it is dropped)")
    todo = [pair for pair in u.pairs if pair not in carried]
    carried.update(u.pairs)
    if not todo:
        return text + "; the carry above moves it too, if that is the one you run"
    carry = " && ".join(f"git hn memory reanchor {o} {n}" for o, n in todo)
    return text + (f"; if you are sure its result holds on the new tree, {carry} carries it instead"
                   + (" (with the carry above)" if len(todo) < len(u.pairs) else ""))


def _record_again(u, new: str) -> tuple[str, list[str]]:
    """The command that records ``u``'s verification anew at ``new`` once tested, and the commits
    to test: ``record`` with the memory's own mode, subject, paths and topics (a review: the mode
    alone was refused for ``--applies subject``, "needs --subject ID", and dropped the paths) and
    its ``git:`` evidence, each commit the rewrite replaced named by its replacement (``new``
    when it has none); the commits to test are those replacements. Not ``supersede``: a successor cites the old memory, and ``--drop`` then
    refuses to discard it (docs/decisions.md)."""
    from ..core.hints import shell_path, shell_word

    rec, new_of = u.record, dict(u.pairs)
    cited = list(dict.fromkeys(new_of.get(e[4:], e[4:]) for e in rec.evidence or () if e.startswith("git:"))) or [new]
    tested = [c for c in cited if c in set(new_of.values())] or [new]
    subject = rec.anchor.subject or rec.applicability.subject
    words = [f"--kind verification --at {new} --applies {rec.applicability.mode}",
             *([f"--subject {shell_word(subject)}"] if subject else []),
             *(f"--path {shell_path(p.path)}" for p in rec.anchor.paths),
             *(f"--topic {shell_word(t)}" for t in rec.topics or ()),
             *(f"--evidence git:{c}" for c in cited)]
    return f"git hn memory record {' '.join(words)} --content TEXT", tested


def _stream(ref: str) -> str:
    """A stream as the other lines name it ("stream 74207987abf1"; ``--json`` gives the ref), the
    ref itself when it is none of this clone's memory refs (a team trial: "re-anchored 1
    unpublished memory of refs/hn/memory/<64 hex>/<64 hex>" beside 12-character IDs)."""
    parsed = parse_local_ref(ref)
    return f"stream {short_id(parsed[1])}" if parsed else ref


def _count(n: int) -> str:
    return f"{n} unpublished {'memory' if n == 1 else 'memories'}"


def result_lines(result: Reanchored) -> list[str]:
    """One line per stream, then one ``undo:`` line per stream rebuilt, with its tip before (memory
    refs keep no reflog; a trial found the help promising the tips, and only ``--drop`` printing
    them)."""
    out = [stream_line(r, f"from {short_id(result.old)} to {short_id(result.new)}") for r in result.streams
           if r.memories or r.kept]
    out += unanchored_lines(result.streams) + narrowed_lines(result.streams, result.new)
    return out + [f"undo: git update-ref {r.ref} {r.before}" for r in result.streams if r.before]


def result_json(result: Reanchored) -> dict:
    return {"from": result.old, "to": result.new,
            "streams": [{"ref": r.ref, "reanchored": r.moved, "signed": r.memories,
                         **({"before": r.before} if r.before else {}),
                         "renamed": [{"from": a, "to": b} for a, b in r.renamed],
                         **({"kept": [{"memoryId": m, "commit": c} for m, c in r.kept]} if r.kept else {}),
                         **({"unanchored": [{"memoryId": u.memory, "commit": u.old, "path": u.path}
                                            for u in r.unanchored]} if r.unanchored else {}),
                         **({"narrowed": [{"memoryId": m, "paths": [p for p, _node in paths]}
                                          for m, paths in r.narrowed]} if r.narrowed else {})}
                        for r in result.streams]}
