"""Whether a memory just signed will wait for its anchor commit before it is published (a
team trial; CONTRACT §9.13 and ``replication.gate``).

A stream is published only up to the memory before the first one whose anchor commit is on no
branch of the remote: one memory anchored on a local feature branch holds back every later
memory of its stream ("3 memories wait until commit … is on origin"), and the author heard of it
only at the next sync. ``waits_hint`` says so when the memory is signed, as one line.

Reads only this repository's refs: one ``for-each-ref`` (the remote-tracking refs; a repository
without them, so without remotes, stops there) and one ``rev-list``; a third process
(``for-each-ref --contains``) only when the hint is given, to name the branch that holds the
commit. Trusts
the remote-tracking refs (a publication reads the same ones); never contacts a remote. Author
text (a branch name) is shell-quoted inside the command it names.
"""

from __future__ import annotations

from ..core.lines import lines_of
from ..store.repo import Repo


def _tracking(repo: Repo) -> tuple[list[str], str | None, str]:
    """(the remote-tracking tips, a tracking ref of the remote to name, the current branch or "")
    from one ``for-each-ref``: ``origin``'s when it has tracking refs, else the first."""
    proc = repo.git.run(["for-each-ref", "--format=%(HEAD)%(objectname) %(refname)", "refs/remotes/",
                         "refs/heads/"])
    if proc.returncode != 0:
        return [], None, ""
    tips, remotes, branch = set(), [], ""  # (the current branch: %(HEAD) marks it with *)
    for line in lines_of(proc.stdout.decode("utf-8", "surrogateescape")):
        mark, rest = line[:1], line[1:]
        oid, _sp, ref = rest.partition(" ")
        if ref.startswith("refs/heads/"):
            branch = ref[len("refs/heads/"):] if mark == "*" else branch
        elif ref.startswith("refs/remotes/") and not ref.endswith("/HEAD"):
            tips.add(oid)
            remotes.append(ref[len("refs/remotes/"):])
    first = next((r for r in remotes if r.startswith("origin/")), remotes[0] if remotes else None)
    return sorted(tips), first, branch


def _remote_of(repo: Repo, tracked: str) -> str:
    """The configured remote whose tracking ref ``tracked`` (``<remote>/<branch>``) is: the
    longest name that prefixes it (a remote may be named ``team/fork``)."""
    names = [n for n in repo.remote_names() if tracked.startswith(n + "/")]
    return max(names, key=len) if names else tracked.split("/", 1)[0]


def _holder(repo: Repo, anchor: str, current: str) -> str:
    """The branch that contains ``anchor``: ``current`` when it does, else the first; "" for
    none (or when Git could not answer). One ``for-each-ref --contains``."""
    proc = repo.git.run(["for-each-ref", "--format=%(refname)", f"--contains={anchor}", "refs/heads/"])
    if proc.returncode != 0:
        return ""
    names = [r[len("refs/heads/"):] for r in lines_of(proc.stdout.decode("utf-8", "surrogateescape"))]
    return current if current in names else (names[0] if names else "")


def waits_hint(repo: Repo, result) -> str | None:
    """After a record, handoff or supersede was signed (not a replay): one line when its anchor
    commit is on no remote-tracking ref, so its publication, and that of every later memory of
    the stream, waits until the commit is pushed; None otherwise (no remote-tracking refs, the
    commit on one of them, or Git could not answer: the hint is advice, never an error)."""
    from shlex import quote

    from ..core.gostr import short_id

    env = result.envelope
    if env.record is None or getattr(result, "replayed", False):
        return None
    anchor = env.record.anchor.commit
    tips, tracked, branch = _tracking(repo)
    if not tips or tracked is None:
        return None
    walk = repo.git.run(["rev-list", "--stdin"],
                        input=(f"{anchor}\n" + "".join(f"^{t}\n" for t in tips)).encode())
    if walk.returncode != 0 or anchor not in walk.stdout.decode("ascii", "replace").split():
        return None
    remote = _remote_of(repo, tracked)
    branch = _holder(repo, anchor, branch)
    how = f"branch {branch}: git push {quote(remote)} {quote(branch)}" if branch else "push a branch that contains it"
    return (f"publication of stream {short_id(env.stream)} to {remote} waits until commit {anchor[:12]} is "
            f"pushed ({how}): later memories of this stream wait behind it")
