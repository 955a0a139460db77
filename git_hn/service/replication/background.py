"""Publication in the background, for the pre-push hook (issue 11: ``git push`` with hooks costs
what its checks cost, not a second push).

The hook verifies and lints the streams that moved, then hands their exact tips to a detached
``git hn hooks run publish REMOTE PID`` and returns: the user's push goes on at once. The publisher
waits for that push (process ``PID``) to end, so that it sees whether the anchors of the new
memories reached the remote (a successful push moves ``refs/remotes/<remote>/*``; a rejected one
does not), publishes each stream only up to its first memory whose anchor the remote lacks
(issue 12), takes a per-remote lock (publications to one remote run one after another), pushes each tip it
was given whose local ref still names it (a newer tip was not checked by this hook, and the push
that made it publishes it), and remembers what the remote got. When the last import from that
remote had left a quiet record (``hookscripts``), it then runs that import again, so that the
record describes the remote with the new memory and the user's next fetch starts no git-hn. A
failure is written to ``<common-gitdir>/hn/replication/publication-<remote digest>.failed`` and
said by the next pre-push, which publishes those streams again (they were never remembered as
given): "…failed (publishing again now): …". Taken, the record becomes ``….said``, kept until a
publication to that remote succeeds: a publisher that fails the same way again (the same fixed
refusal words) marks its record ``repeated``, and only then is a refusal of access's advice to
stop publishing there (``hnPublish false``) said (a newcomer trial: after the server was mended,
the push that published first advised turning publishing off, for a refusal it was retrying). A
server's refusal of memory refs gets its advice at once, in sync's words (``push_refused.
stop_publishing``; a later newcomer trial: two pushes said the failure and no way out).

Owns the marker ``publication-<remote digest>.running`` (created before the publisher starts,
removed when it ends), which tells a waiting caller (a test, a script) that a publication is in
flight, and holds the process ID and start time of the push the publisher waits for: with several
push URLs Git runs pre-push once per URL, and a block-mode run starts no second publisher for the
same push (``started_for``; a review: two publishers, each asking and giving every URL, compared
the second one's failure with the first's and called a first refusal a repeated one). The start
time makes a marker that a killed publisher left name no later push that the system gave the same
ID (a review: in a container or CI job, whose process IDs repeat, publication stopped for good).
"""

from __future__ import annotations

import json
import os
import subprocess

from ...core.grammar import is_oid, parse_local_ref
from ...core.tuples import NamedTuple
from ...errors import ConflictError, HnError
from ...store import private
from ...store.process import wait_for_exit
from ...store.process_tree import is_pid
from ...store.repo import Repo

WAIT = 600.0  # seconds a publisher waits for an earlier one to the same remote
# the publisher's input after the tips: the remote pushes where it fetches, or one line per push URL
USUAL = "pushes-where-it-fetches"
PUSH_URL = "push-url "


def _path(repo: Repo, remote: str, suffix: str) -> str:
    from .serial import publication_marker

    return publication_marker(repo, remote, suffix)


def running_marker(repo: Repo, remote: str) -> str:
    return _path(repo, remote, "running")


def start(repo: Repo, remote: str, tips: dict[str, str], push_pid: str = "", targets=()) -> None:
    """Start the detached publisher for ``tips`` (ref -> verified tip) and return at once; it
    waits for the ``git push`` with process ID ``push_pid`` (if given) to end first. ``targets``:
    the remote's push URLs when it pushes elsewhere than it fetches, None when it does not (the
    hook read both from its one ``git config``: the publisher asks Git again for neither, a
    review), () when not known. They go on the publisher's input, never its command line (a URL
    may carry credentials)."""
    mark = _push_mark(push_pid)
    private.write_private(repo.hn_dir, running_marker(repo, remote), mark, derived=True)
    data = "".join(f"{ref} {oid}\n" for ref, oid in sorted(tips.items())).encode("ascii")
    if targets is None:
        data += f"{USUAL}\n".encode("ascii")
    elif targets and not any("\n" in url for url in targets):
        data += "".join(f"{PUSH_URL}{url}\n" for url in targets).encode("utf-8", "surrogateescape")
    env = {k: v for k, v in os.environ.items() if k != "HN_HOOK_ACTIVE"}
    pid = [push_pid] if is_pid(push_pid) else []
    proc = subprocess.Popen([_executable(), "hooks", "run", "publish", remote, *pid], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            start_new_session=True, close_fds=True)
    proc.stdin.write(data)
    proc.stdin.close()
    DETACHED.append(proc)  # never waited for: it outlives this hook, in a session of its own


DETACHED: list = []


def started_for(repo: Repo, remote: str, push_pid: str) -> bool:
    """Whether a publisher to ``remote`` waiting for the ``git push`` with process ID ``push_pid``
    was started already (an earlier pre-push run of that push, for another push URL): it asks and
    gives every push URL once that push has ended. It is still waiting while the push runs, so its
    marker is there. A marker of another process that had that ID (``_push_mark``) is not."""
    if not is_pid(push_pid):
        return False
    try:
        return private.read_private(repo.hn_dir, running_marker(repo, remote), 64) == _push_mark(push_pid)
    except HnError:
        return False


def _push_mark(push_pid: str) -> bytes:
    """What the running marker holds for the push ``push_pid``: its ID and its start time where
    ``/proc`` says it (``process_tree.start_time``; a publisher killed with its push, as a
    container's PID namespace ends, leaves its marker, and a later push given that ID is another),
    else its ID alone; nothing for no push."""
    if not is_pid(push_pid):
        return b""
    from ...store.process_tree import start_time

    start = start_time(int(push_pid))
    return f"{push_pid} {start}".encode("ascii") if start else push_pid.encode("ascii")


def _executable() -> str:
    """The git-hn this hook runs as (the wrappers run it by its absolute path), else the one on
    PATH: no search of PATH and none of ``shutil``'s imports in a push's usual case."""
    import sys

    own = sys.argv[0] if sys.argv else ""
    if os.path.isabs(own) and os.path.basename(own) == "git-hn" and os.access(own, os.X_OK):
        return own
    from ...hookpaths import git_hn_path

    return git_hn_path()


def publish_given(repo: Repo, remote: str, data: bytes, push_pid: str = "") -> None:
    """The publisher: once the user's push has ended, push the given tips that are still the
    local tips or that the local tips continue (a memory recorded meanwhile waits for the next
    publication), each up to its first memory anchored on a commit the remote does not have
    (``gate.gate``: a rejected push publishes nothing it anchors); record a failure."""
    from ...store import replication as rstate
    from ...store import streams
    from . import gate, publish, push_targets, serial
    from .outcomes import PhaseError

    renew = False
    try:
        given, targets = _parse(data, repo.oid_hex_len)
        if is_pid(push_pid):
            wait_for_exit(int(push_pid), WAIT)
        quiet = os.path.isfile(rstate.quiet_path(repo, remote))  # (the push's own hook is over)
        with serial.publishing(repo, remote, WAIT):
            listing = streams.list_sources(repo)  # one listing: the tips and the gate's chains
            current = {s.ref: s.head for s in listing if s.remote is None}
            todo = {ref: oid for ref, oid in given.items() if current.get(ref) == oid}
            grown = {ref: (oid, current[ref]) for ref, oid in given.items() if current.get(ref) not in (None, oid)}
            if grown:  # a memory recorded since the hook looked (an agent records while the push runs): the
                # tip it verified still goes, as a prefix of the stream (it was skipped whole, silently);
                # a stream rewritten since (re-anchored) is the next publication's
                from .given_record import contains

                verdicts = contains(repo, sorted({(now, oid) for oid, now in grown.values()}))
                todo.update({ref: oid for ref, (oid, now) in grown.items() if verdicts.get((now, oid)) is True})
            urls = (push_targets.split(repo, remote) if targets == () else targets) if todo else None
            if urls:  # (each push URL asked and given on its own: which of them took this push is not known)
                sent: list[str] = []
                push_targets.publish_each(repo, remote, urls, todo, listing, publish.ASK_TIMEOUT, sent, pushed=True)
                renew, todo = quiet and bool(sent), {}
            if todo:
                bases = publish.remote_bases(repo, remote, todo, publish.published_heads(repo, remote))
                todo = {ref: oid for ref, oid in todo.items() if bases.get(ref) != oid}
            if todo:
                allowed, _held = gate.gate(repo, remote, todo, bases, listing)
                ready = sorted(r for r in allowed if bases.get(r) != allowed[r])
                if ready:
                    push_now(repo, remote, ready, allowed)
                    renew = quiet
        serial.forget_failure(repo, remote)
        if renew:
            _renew_quiet(repo, remote)
    except (PhaseError, ConflictError, HnError) as exc:
        _record_failure(repo, remote, exc)
    finally:
        _clear(repo, running_marker(repo, remote))


def push_now(repo: Repo, remote: str, ready: list[str], allowed: dict[str, str]) -> None:
    """A pre-push hook's publication of ``ready`` (in this publisher, or in a block-mode hook):
    ``publish.push`` of the tips ``allowed``, then what it moved written down with the time
    (``given.note_pushed``), for the next sync's "up to date" to say what the push did; what
    a failed push moved before it failed too."""
    from ...store import given
    from . import publish

    sent: list[str] = []
    try:
        publish.push(repo, remote, ready, allowed, exact=True, sent=sent)
    finally:
        given.note_pushed(repo, remote, {r: allowed[r] for r in sent if r in allowed})


def _record_failure(repo: Repo, remote: str, exc: HnError) -> None:
    """Write ``exc`` as the failure record: its message without the advice to stop publishing
    there, that advice, the refusal's fixed words (``cause``; the message without one), whether
    the record before it (not said yet, else the one said last) has the same words, and whether
    the server refused memory refs (``push_refused.refused_memory``: its advice is said at once)."""
    from .push_refused import refused_memory

    message = _detached(repo, exc, remote)
    advice = getattr(exc, "advice", "") if message == exc.message else ""  # (``_detached`` advises otherwise)
    if advice:
        message = message.replace(f"; {advice}", "", 1)
    key = getattr(exc, "cause", "") or message
    before = _read(repo, _path(repo, remote, "failed")) or _read(repo, _path(repo, remote, "said")) or {}
    record = json.dumps({"remote": remote, "message": message, "advice": advice, "key": key,
                         "repeated": before.get("key") == key,
                         "refused": bool(advice) and refused_memory(getattr(exc, "cause", ""))}).encode("utf-8")
    try:
        private.write_private(repo.hn_dir, _path(repo, remote, "failed"), record, derived=True)
    except HnError:
        pass


def _read(repo: Repo, path: str) -> dict | None:
    """A failure record (a JSON object), or None: absent, unreadable or not one."""
    try:
        data = private.read_private(repo.hn_dir, path, 65_536)
        doc = json.loads(data) if data is not None else None
    except (HnError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _detached(repo: Repo, exc: HnError, remote: str) -> str:
    """The failure's message, for a push that reached nothing because it had no terminal to ask
    on (the user's own push, at a terminal, got through: "stop publishing there" was wrong advice,
    a trial). This publisher runs in a session of its own, so ssh cannot ask for a key's
    passphrase, and modern ssh then says only "Permission denied": an agent publishes (``git hn
    sync`` at a terminal does not ask either: every Git process of git-hn's that may contact a
    remote runs without a terminal, F67). Git's own prompts for an
    HTTPS password are off in every Git process of git-hn's (``GIT_TERMINAL_PROMPT=0``), at a
    terminal too, so for those (no credentials, HTTP 401 or 403) only a credential helper does (a
    review found the ssh advice said for an HTTPS remote). A git daemon's refusal (``git://``, no
    credentials; f154: it got the ssh advice) is the failure as it is, as the foreground's. Access
    refused over HTTPS (a server's "access denied") or on this machine (a local path's "permission
    denied": its files' permissions) gets the advice that fits the push URL's transport
    (``store.transport.refused_way``; f156: both got ssh's); ssh, and a URL Git cannot say, ssh's."""
    from ...store.transport import (ACCESS_REFUSED, NO_ACCESS, NO_CREDENTIALS, NO_PASSPHRASE, over_git_protocol,
                                    over_ssh, refused_way, remote_url, ssh_way, without_terminal)

    cause = getattr(exc, "cause", "")
    if getattr(exc, "published", 0) or cause not in (*NO_ACCESS, NO_CREDENTIALS, NO_PASSPHRASE):
        return exc.message
    url = (getattr(exc, "url", "") or remote_url(repo.git, remote, True)) if cause == ACCESS_REFUSED else ""
    if over_git_protocol(url):
        return exc.message  # (with its advice to stop publishing there, said once the refusal repeats)
    failed = f"replication memory publication failed for remote {remote}: {cause}"
    if cause not in (NO_PASSPHRASE, ACCESS_REFUSED):  # (Git's prompt for a password: HTTPS)
        return f"{failed}; {without_terminal(NO_CREDENTIALS, remote, git=repo.git, push=True)}"
    if url and not over_ssh(url):  # (HTTPS, a local path: no key to load)
        return f"{failed}; {refused_way(cause, remote, url, repo.git, push=True)}"
    return f"{failed}; " + ssh_way(remote, cause == ACCESS_REFUSED, "the background publication runs without a "
                                   "terminal, where ssh cannot ask for a key's passphrase")


def _renew_quiet(repo: Repo, remote: str) -> None:
    """After publishing to a remote whose last import found every selected stream up to date:
    that import again, as the fetch hook runs it (reading the advertisement). The publication
    changed the advertisement the quiet record hashes, so without this the user's next fetch
    would start git-hn only to find the streams just published; the import finds the remote as
    this publication left it and renews the record. With a selection that holds the user's own
    streams, that import first accepts them back (as the next fetch would), which leaves the
    record when it promoted them whole (``quiet.remember_promoted``); else it runs once more,
    which finds everything up to date. Best effort: a failure is the next fetch's to report."""
    from ...store import replication as rstate
    from . import sync

    for _attempt in range(2):
        try:
            result = sync(repo, remote, publish=False, by_name=False, wait=0)  # (busy: that sync renews it)
        except (HnError, OSError):
            return
        if result.exit_message() or os.path.isfile(rstate.quiet_path(repo, remote)):
            return


def failure_recorded(repo: Repo, remote: str) -> bool:
    """Whether a failed background publication to ``remote`` is on record, said yet or not (no
    publication has succeeded since; read nothing)."""
    return any(os.path.lexists(_path(repo, remote, suffix)) for suffix in ("failed", "said"))


class Failure(NamedTuple):
    """A failed background publication, as the next pre-push says it (``line``)."""

    message: str  # without the advice to stop publishing there
    advice: str  # that advice, or ""
    repeated: bool  # the publication before it failed with the same words
    refused: bool = False  # the server refused memory refs (``push_refused.refused_memory``)

    def line(self, remote: str, again: bool) -> str:
        """The one line: the failure; with ``again``, that this push publishes those streams
        again (before the message: what to do stays last); its advice to stop publishing there
        when the server refused memory refs, as sync and a block push say it (a newcomer trial:
        two pushes said the failure without the way out; the advice says "if"), else only when
        the refusal repeated (a refusal of access: the first time, the retry may well succeed)."""
        return (f"the last background publication to {remote} failed{' again' if self.repeated else ''}"
                f"{' (publishing again now)' if again else ''}: {self.message}"
                f"{f'; {self.advice}' if (self.repeated or self.refused) and self.advice else ''}")


def take_failure(repo: Repo, remote: str) -> Failure | None:
    """The failed background publication to ``remote`` not said yet (then kept as said: the next
    failure is compared with it), or None."""
    path = _path(repo, remote, "failed")
    if not os.path.lexists(path):
        return None  # (the usual case: one stat)
    doc = _read(repo, path)
    try:
        os.replace(path, _path(repo, remote, "said"))
    except OSError:
        _clear(repo, path)
    from ...core.gostr import one_line

    if doc is None or not isinstance(doc.get("message"), str):
        return Failure("unreadable failure record", "", False)
    advice = doc.get("advice")
    return Failure(one_line(doc["message"])[:1000], one_line(advice)[:300] if isinstance(advice, str) else "",
                   doc.get("repeated") is True, doc.get("refused") is True)


def _parse(data: bytes, n: int) -> tuple[dict[str, str], list[str] | None | tuple]:
    """(ref -> tip, the push URLs ``start`` wrote: a list, None for a remote that pushes where it
    fetches, () when none was written)."""
    given: dict[str, str] = {}
    urls: list[str] = []
    usual = False
    for line in data.decode("utf-8", "surrogateescape").splitlines():
        if line.startswith(PUSH_URL):
            urls.append(line[len(PUSH_URL):])
            continue
        if line == USUAL:
            usual = True
            continue
        ref, _sp, oid = line.partition(" ")
        if parse_local_ref(ref) is None or not is_oid(oid) or len(oid) != n:
            raise HnError("background publication got a malformed tip list")
        given[ref] = oid
    return given, (None if usual else urls or ())


def _clear(repo: Repo, path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        pass
