"""Whether a memory just signed will wait for its anchor commit before it is published (a
team trial; CONTRACT §9.13 and ``replication.gate``).

A stream is published only up to the memory before the first one whose anchor commit is on no
branch of the remote: one memory anchored on a local feature branch holds back every later
memory of its stream ("3 memories wait until commit … is on origin"), and the author heard of it
only at the next sync. ``waits_hint`` says so when the memory is signed, as one line.

It runs after every write, so it is kept cheap: the remote it names is the one ``git hn sync``
publishes to by default (``origin``, else the first configured remote), skipped when its
``remote.<name>.hnPublish`` is false; three questions started together (the remotes, that
remote's tracking refs, the ``hnPublish`` settings); nothing more when the anchor is one of that
remote's tips; else one ``rev-list`` (bounded in time: the hint is advice) and, only when the hint
is given and the anchor is not HEAD, one ``merge-base --is-ancestor`` to name the current branch.
No local branch is listed or searched. Trusts the remote-tracking refs (a publication reads the
same ones, of the same remote: ``gate._not_on_remote``); never contacts a remote. Author text (a
branch name) is shell-quoted inside the command it names.
"""

from __future__ import annotations

from ..core.lines import lines_of
from ..store.git import PRE_PUSH_QUESTIONS, config_false
from ..store.repo import Repo

# the longest a walk may take (no commit-graph, a deep anchor: 60,000 commits ~175 ms); not less:
# on a loaded 2-core machine a Git process's start alone can take tens of milliseconds, and a hint
# that goes silent under load would make its tests, and the advice, depend on the hour
WALK_SECONDS = 0.5
_TRACKING = ("for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes/")
_PUBLISH = ("config", "--get-regexp", r"^remote\..*\.hnpublish$")


def _named_remote(repo: Repo, publish_text: str) -> str | None:
    """The remote ``git hn sync`` publishes to by default: ``origin`` when configured, else the
    first; None without remotes or when publication to it is off (``hnPublish`` false)."""
    names = repo.remote_names()
    if not names:
        return None
    remote = "origin" if "origin" in names else sorted(names)[0]
    key = f"remote.{remote}.hnpublish".lower()
    for line in lines_of(publish_text):
        name, _sp, value = line.partition(" ")
        if name.lower() == key and config_false(value if _sp else None):
            return None
    return remote


def _tips(repo: Repo, remote: str, listing: str) -> list[str]:
    """The tips of ``remote``'s tracking refs (not another remote's nested under its name)."""
    prefix = f"refs/remotes/{remote}/"
    others = tuple(f"refs/remotes/{n}/" for n in repo.remote_names() if n.startswith(remote + "/"))
    tips = set()
    for line in lines_of(listing):
        oid, _sp, ref = line.partition(" ")
        if ref.startswith(prefix) and not ref.startswith(others) and not ref.endswith("/HEAD"):
            tips.add(oid)
    return sorted(tips)


def _current_branch(repo: Repo, anchor: str) -> str:
    """The current branch when it contains ``anchor`` (one ``merge-base --is-ancestor`` unless
    the anchor is HEAD); "" otherwise, or when Git could not answer."""
    proc = repo.git.run(["symbolic-ref", "--short", "-q", "HEAD"])
    branch = proc.stdout.decode("utf-8", "surrogateescape").strip() if proc.returncode == 0 else ""
    if not branch or repo.head_commit() == anchor:
        return branch
    from ..errors import HnError

    try:
        held = repo.git.run(["merge-base", "--is-ancestor", anchor, "HEAD"], timeout=WALK_SECONDS)
    except HnError:  # (no answer in time: the branch is not named)
        return ""
    return branch if held.returncode == 0 else ""


def waits_hint(repo: Repo, result) -> str | None:
    """After a record, handoff or supersede was signed (not a replay): one line when its anchor
    commit is on none of the named remote's tracking refs, so its publication, and that of every
    later memory of the stream, waits until the commit is pushed; None otherwise (no remote,
    publication to it off, the commit on one of its tracking refs, or Git could not answer in
    time: the hint is advice, never an error)."""
    from shlex import quote

    from ..core.gostr import short_id
    from ..errors import HnError

    env = result.envelope
    if env.record is None or getattr(result, "replayed", False):
        return None
    anchor = env.record.anchor.commit
    git = repo.git
    known = getattr(repo, "_remote_names", None) is not None  # (asked already: not again)
    for question in (() if known else (PRE_PUSH_QUESTIONS[0],)) + (_TRACKING, _PUBLISH):
        git.ask_early(question)
    listing = git.run(list(_TRACKING))
    publish = git.run(list(_PUBLISH))
    remote = _named_remote(repo, publish.stdout.decode("utf-8", "surrogateescape"))
    if remote is None or listing.returncode != 0:
        return None
    tips = _tips(repo, remote, listing.stdout.decode("utf-8", "surrogateescape"))
    if anchor in tips:
        return None
    if tips:
        try:
            walk = git.run(["rev-list", "--stdin"], timeout=WALK_SECONDS,
                           input=(f"{anchor}\n" + "".join(f"^{t}\n" for t in tips)).encode())
        except HnError:  # (no answer in time)
            return None
        if walk.returncode != 0 or anchor not in walk.stdout.decode("ascii", "replace").split():
            return None
    branch = _current_branch(repo, anchor)
    if branch:
        how = f"branch {branch}: git push {quote(remote)} {quote(branch)}; or git fetch {quote(remote)} if it is there already"
    else:
        how = f"push a branch that contains it, or git fetch {quote(remote)} if one is there already"
    return (f"publication of stream {short_id(env.stream)} to {remote} waits until commit {anchor[:12]} is "
            f"pushed ({how}): later memories of this stream wait behind it")
