"""The signature verifier's kinds (inline, worker threads, forked processes) give exactly the
answers of a sequential loop, in order, for good signatures, bad ones and staging errors; a real
chain verifies the same way whichever kind runs, and a corrupted signature is refused with the
same error at the same position. A worker process that is killed leaves its chunks to the parent
(the answers do not change, and nothing waits for it forever), and no worker holds a descriptor
of the parent's."""

from __future__ import annotations

import os

import pytest

from git_hn.core import keys
from git_hn.errors import ValidationError
from git_hn.store import verify
from helpers import git, one_stream


def _staged(n: int) -> list:
    out = []
    for i in range(n):
        seed = bytes([i % 7 + 1]) * 32
        payload = b'{"n":%d}' % i
        sig = keys.sign(seed, payload)
        pub = keys.public_key_from_seed(seed)
        if i % 11 == 5:
            sig = bytes([sig[0] ^ 1]) + sig[1:]  # a bad signature
        if i % 13 == 7:
            out.append(ValidationError(f"staging error {i}"))
            continue
        out.append((payload, keys.b64_encode(sig).encode(), pub, sig))
    return out


@pytest.mark.parametrize("n", [5, 31, 32, 100, 700, 2100])
def test_every_kind_answers_as_a_sequential_loop(n):
    staged = _staged(n)
    expected = [verify._check_signature(i) for i in staged]
    verifier = verify.Verifier(n)
    assert verifier.kind == ("inline" if n < 32 else "threads" if n < 2048 else "processes")
    try:
        got = list(verify.Verifier.results(verifier.submit(staged)))
        # a second submission on the same verifier keeps its own order too
        got2 = list(verify.Verifier.results(verifier.submit(staged[::-1])))
    finally:
        verifier.close()
    assert got == expected and got2 == expected[::-1]
    assert True in expected and (False in expected or n < 6)


def _children(ticket) -> list:
    return list({id(c): c for how, (c, _k) in ticket if how == "worker"}.values())


def test_a_worker_process_that_is_killed_leaves_its_chunks_to_the_parent():
    """The kernel's out-of-memory killer (or anyone) ends a worker mid-way: its chunks are
    checked by the parent and the answers are still the sequential loop's (a worker of
    ``multiprocessing.Pool`` that died lost its task, and the sync waited for it forever)."""
    import signal

    staged = _staged(2100)
    expected = [verify._check_signature(i) for i in staged]
    verifier = verify.Verifier(len(staged))
    try:
        ticket = verifier.submit(staged)
        children = _children(ticket)
        assert len(children) == 2 and all(c.pid for c in children)
        os.kill(children[0].pid, signal.SIGKILL)  # its 1,050 checks take far longer than this
        got = list(verify.Verifier.results(ticket))
        killed = children[0].status  # known once its output ended, before its chunks were computed here
        # the same verifier goes on with the worker that is left (and computes the dead one's share)
        again = list(verify.Verifier.results(verifier.submit(staged[:600])))
    finally:
        verifier.close()
    assert got == expected and again == expected[:600]
    assert killed is not None and os.WIFSIGNALED(killed) and os.WTERMSIG(killed) == signal.SIGKILL
    finished = children[1].status  # asked for nothing more, it left at the end of its input
    assert finished is not None and os.WIFEXITED(finished) and os.WEXITSTATUS(finished) == 0


def test_worker_processes_hold_no_descriptor_of_the_parent():
    """A pipe the parent holds while workers run (as a prepared ``update-ref --stdin`` waits for
    the end of its input) ends when the parent closes it: no worker keeps a copy open."""
    import select

    r, w = os.pipe()
    staged = _staged(2100)
    verifier = verify.Verifier(len(staged))
    try:
        ticket = verifier.submit(staged)
        children = _children(ticket)
        assert len(children) == 2 and all(c.status is None for c in children)
        os.close(w)
        # a worker closes what it inherited first thing: the end of input comes at once, while
        # the workers still have most of their 1,050 checks each ahead of them
        assert select.select([r], [], [], 10)[0] == [r]
        assert os.read(r, 1) == b""
        assert any(c.status is None for c in children)
        assert list(verify.Verifier.results(ticket)) == [verify._check_signature(i) for i in staged]
    finally:
        verifier.close()
        os.close(r)


def test_a_verifier_closed_early_ends_its_busy_workers():
    """A caller that fails before taking every result (an error, a signal) closes the verifier:
    workers still computing are ended at once, none is left running."""
    staged = _staged(4200)
    verifier = verify.Verifier(len(staged))
    ticket = verifier.submit(staged)
    children = _children(ticket)
    next(iter(verify.Verifier.results(ticket)))  # the first chunk only
    verifier.close()
    for child in children:
        assert child.status is not None  # reaped: no process left behind
        with pytest.raises(ChildProcessError):
            os.waitpid(child.pid, os.WNOHANG)


def _chain(tmp_path, n: int):
    """A repository with one stream of ``n`` memories: (repo, its ref, its (commit, tree) pairs,
    root first)."""
    repo = one_stream(tmp_path, n)
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    commits = [tuple(line.split()) for line in git(repo, "log", "--reverse", "--format=%H %T", ref).splitlines()]
    assert len(commits) == n
    return repo, ref, commits


def test_a_chain_verifies_the_same_with_every_kind(tmp_path, monkeypatch):
    repo, ref, commits = _chain(tmp_path, 90)
    from git_hn.store.repo import open_repo

    monkeypatch.chdir(repo)
    r = open_repo()
    threaded = verify.verify_commits(r, ref, commits)
    many = verify.verify_many(r, [(ref, commits)])[ref]
    init = verify.Verifier.__init__

    def of_kind(kind):
        def __init__(self, expected):
            init(self, expected)
            self.kind = kind
        return __init__

    monkeypatch.setattr(verify.Verifier, "__init__", of_kind("inline"))
    inline = verify.verify_commits(r, ref, commits)
    # worker processes decode too: what they hand back is what the parent would have decoded
    monkeypatch.setattr(verify.Verifier, "__init__", of_kind("processes"))
    forked = verify.verify_commits(r, ref, commits)
    forked_many = verify.verify_many(r, [(ref, commits)])[ref]
    assert [m.memory_id for m in threaded] == [m.memory_id for m in inline] == [m.memory_id for m in many]
    assert threaded == inline == forked == forked_many == many
    r.git.close()
    os.chdir(tmp_path)



def test_verify_many_splits_long_chains_across_batches_with_the_same_answers(tmp_path, monkeypatch):
    """Worker processes get batches that grow from ``FIRST_BATCH`` commits, a long chain split
    across them (so they start verifying while the rest is read): every ref's answer is the one
    an unsplit run gives, memories in chain order, and a failure in a later part of a chain is
    that chain's first error, worded the same."""
    repo, _ref, commits = _chain(tmp_path, 40)
    broken = list(commits)
    broken[29] = (commits[29][1], commits[29][1])  # a tree where a commit should be: refused
    broken[33] = (commits[33][1], commits[33][1])  # a later error: never reported
    items = [("refs/x/a", commits[:3]), ("refs/x/b", broken), ("refs/x/c", []), ("refs/x/d", commits)]
    from git_hn.store.repo import open_repo

    monkeypatch.chdir(repo)
    r = open_repo()
    init = verify.Verifier.__init__

    def processes(self, expected):
        init(self, expected)
        self.kind = "processes"

    monkeypatch.setattr(verify.Verifier, "__init__", processes)
    submitted = []
    real_submit = verify._submit

    def counting(repo_, verifier, batch, read=None, lean=False):
        submitted.append([(name, len(part)) for name, part in batch])
        return real_submit(repo_, verifier, batch, read, lean)

    monkeypatch.setattr(verify, "_submit", counting)
    monkeypatch.setattr(verify, "FIRST_BATCH", 1 << 20)
    whole = verify.verify_many(r, items)
    assert len(submitted) == 1
    submitted.clear()
    monkeypatch.setattr(verify, "FIRST_BATCH", 4)
    split = verify.verify_many(r, items)
    r.git.close()
    os.chdir(tmp_path)
    # batches of 4, 8, 16, 32, 32 commits: chains b and d each span several
    assert [sum(n for _name, n in b) for b in submitted] == [4, 8, 16, 32, 23]
    assert sum(1 for b in submitted for name, _n in b if name == "refs/x/d") >= 2
    assert set(split) == set(whole) == {"refs/x/a", "refs/x/b", "refs/x/c", "refs/x/d"}
    assert split["refs/x/a"] == whole["refs/x/a"] and len(split["refs/x/a"]) == 3
    assert split["refs/x/c"] == whole["refs/x/c"] == []
    assert split["refs/x/d"] == whole["refs/x/d"]
    assert [m.commit for m in split["refs/x/d"]] == [c for c, _t in commits]
    for answer in (split["refs/x/b"], whole["refs/x/b"]):
        assert isinstance(answer, ValidationError)
        assert answer.message == (f"memory source refs/x/b: memory commit {commits[29][1]} "
                                  "is unavailable or not a commit")


def _in_a_new_interpreter(code: str) -> str:
    import subprocess
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([here, os.path.dirname(here)])})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


@pytest.mark.parametrize("handler", ["sync's", "Python's own"])
def test_a_stopping_signal_while_workers_are_forked_leaves_none_without_an_owner(handler):
    """A stopping signal arriving right after a fork: it is raised once every worker is owned by
    the verifier, whose closing ends them all; no process and no descriptor is left behind.
    Whatever the handler: a sync's raises ``Signalled`` (``cli.commands``), and Python's own
    ``KeyboardInterrupt``, which the hold once let through (a review: only the sync's handler
    held anything back)."""
    sync = handler == "sync's"
    out = _in_a_new_interpreter(("sync = True\n" if sync else "sync = False\n") + r'''
import os, signal, time
from git_hn.cli.commands import _signals_raise
from git_hn.errors import Signalled
from git_hn.store import verify
from test_verifier_kinds import _staged

def fds():
    return sorted(int(n) for n in os.listdir("/proc/self/fd"))

staged = _staged(2100)
real_fork, pids = os.fork, []
def fork():
    pid = real_fork()
    if pid:
        pids.append(pid)
        os.kill(os.getpid(), signal.SIGTERM if sync else signal.SIGINT)  # as if it arrived during the fork
    return pid
before = fds()
import contextlib
with _signals_raise() if sync else contextlib.nullcontext():
    v = verify.Verifier(len(staged))
    os.fork = fork
    try:
        v.submit(staged)
        print("no signal")
    except Signalled as exc:
        print("raised", exc.signum == signal.SIGTERM, len(pids), len(v.pool.children) if v.pool else 0)
    except KeyboardInterrupt:
        print("raised", not sync, len(pids), len(v.pool.children) if v.pool else 0)
    finally:
        os.fork = real_fork
        v.close()
gone = []
for pid in pids:
    try:
        os.waitpid(pid, os.WNOHANG)
        gone.append(False)
    except ChildProcessError:
        gone.append(True)  # reaped by the verifier
print(gone, sorted(set(fds()) - set(before)))
''')
    assert out.splitlines() == ["raised True 2 2", "[True, True] []"]


def test_workers_are_waited_for_when_sigchld_is_ignored():
    """A git-hn started by a parent that ignores SIGCHLD (inherited across ``exec``) cannot reap
    its workers (the kernel does): a killed worker still leaves its chunks to the parent, and
    the answers come."""
    out = _in_a_new_interpreter(r'''
import os, signal
from git_hn.store import verify
from test_verifier_kinds import _staged

signal.signal(signal.SIGCHLD, signal.SIG_IGN)
staged = _staged(2100)
expected = [verify._check_signature(i) for i in staged]
v = verify.Verifier(len(staged))
try:
    ticket = v.submit(staged)
    os.kill(ticket[0][1][0].pid, signal.SIGKILL)
    print(list(verify.Verifier.results(ticket)) == expected)
finally:
    v.close()
''')
    assert out == "True"


@pytest.mark.parametrize("kind", ["processes", "threads", "inline"])
def test_lean_verification_holds_no_payload_and_collects_as_it_reads(tmp_path, monkeypatch, kind):
    """An import's validation (``lean``, f120): each memory equals the one a plain run gives but
    for its payload, which is not kept (nothing after validation reads it), the values repeated
    across a stream are one object, and the commits and blobs taken from ``read`` leave it (the
    trees stay). Worker processes' batches are collected at most ``WINDOW`` behind the batch being
    read, not once every batch was read: a 100,000-memory sync held every staged payload at once
    (~100 MiB more at the end of its validation)."""
    repo, ref, commits = _chain(tmp_path, 40)
    from git_hn.store.repo import open_repo

    monkeypatch.chdir(repo)
    r = open_repo()
    init = verify.Verifier.__init__

    def of_kind(self, expected):
        init(self, expected)
        self.kind = kind

    monkeypatch.setattr(verify.Verifier, "__init__", of_kind)
    monkeypatch.setattr(verify, "FIRST_BATCH", 4)
    monkeypatch.setattr(verify, "WINDOW", 1)
    events = []
    real_stage = verify.stage_commits

    def staging(*args, **kw):
        events.append("stage")
        return real_stage(*args, **kw)

    monkeypatch.setattr(verify, "stage_commits", staging)
    items = [("refs/x/a", commits[:7]), ("refs/x/d", commits)]
    whole = verify.verify_many(r, items)
    trees = [t for _c, t in commits]
    read = dict(zip(trees, r.git.read_objects_bounded(trees, 4096)))
    read.update(zip([c for c, _t in commits], r.git.read_objects_bounded([c for c, _t in commits], 1 << 20)))
    events.clear()
    lean = verify.verify_many(r, items, read, progress=lambda done, total: events.append("progress"),
                              lean=True)
    r.git.close()
    os.chdir(tmp_path)
    assert set(lean) == set(whole) == {"refs/x/a", "refs/x/d"}
    for name in lean:
        assert len(lean[name]) == len(whole[name]) > 0
        assert lean[name] == [m._replace(payload=b"") for m in whole[name]]
        assert all(m.payload for m in whole[name]) and not any(m.payload for m in lean[name])
    d = lean["refs/x/d"]
    assert d[1].envelope.previous is d[0].memory_id
    assert d[2].envelope.actor is d[1].envelope.actor and d[2].envelope.record.anchor is d[1].envelope.record.anchor
    assert set(read) == set(trees)  # the commits were taken, the trees stay
    if kind == "processes":  # batches of 4, 8, 16, 19 commits: the first collected before the last is read
        assert events.index("progress") < len(events) - 1 - events[::-1].index("stage")
    assert events.count("progress") == events.count("stage")
