"""One import and one publication at a time per remote (``service.replication.serial``), and
what concurrent or killed syncs, one identity in two clones and history rewrites used to break.
Real repositories, a real bare remote, real ``git hn`` processes at the same time."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import git, hn, hn_proc, make_repo, one_identity_in_two_clones, shared_remote, wait_publication


def _lock(repo, what: str, remote: str = "origin"):
    """Take git-hn's ``what`` lock of ``remote`` in this process (as a running sync holds it)."""
    digest = hashlib.sha256(remote.encode()).hexdigest()[:24]
    path = repo / ".git" / "hn" / "locks" / f"{what}-{digest}.lock"
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # (git-hn's private modes)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _record(repo, content, at="HEAD") -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "observation", "--at", at, "--applies",
           "descendants", "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _sync(repo) -> subprocess.Popen:
    return subprocess.Popen(["git", "hn", "sync"], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def test_syncs_started_together_all_succeed(tmp_path):
    """Three syncs at once, each with a memory of the user's own to import back and to publish:
    before, the later ones lost the accepted-ref compare-and-swap, the server's ref lock, or
    validated the user's own stream against answers Git gave before the first one promoted."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "replication", "select", "--all").code == 0
    for i in range(3):
        mem = _record(a, f"note {i}")
        procs = [_sync(a) for _ in range(3)]
        outs = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0], "\n".join(o + e for o, e in outs)  # (whole)
        ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
        assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    assert hn(a, "memory", "index", "verify").code == 0


def test_a_sync_waits_for_the_running_one_and_the_fetch_hook_does_not(tmp_path):
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    mem = _record(a, "from Alice")
    assert hn(a, "sync").code == 0
    assert hn(b, "hooks", "install").code == 0
    assert hn(b, "replication", "select", "--all").code == 0
    fd = _lock(b, "import")
    try:
        waiting = _sync(b)
        time.sleep(1.0)
        assert waiting.poll() is None  # it waits
        # a fetch's import does not hold up Git: it says what to do and lets the fetch end
        (a / "more.txt").write_text("more\n")
        git(a, "add", "more.txt")
        git(a, "commit", "-q", "-m", "more")
        git(a, "push", "-q", "origin", "main")
        fetched = subprocess.run(["git", "fetch", "-q", "origin"], cwd=b, capture_output=True, text=True)
        assert fetched.returncode == 0
        assert fetched.stderr == ("git-hn: another git hn sync with origin is running; "
                                  "run git hn sync origin after it\n")
    finally:
        os.close(fd)
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "imported 1 memory" in out
    ref = f"refs/hn/remotes/origin/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert git(b, "rev-parse", ref) == git(remote, "rev-parse", f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}")


def _many_streams(tmp_path) -> tuple[Path, Path]:
    """A remote of 200 streams (4 actors x 50) and a clone ``b`` that selects them all."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import memgen

    remote = tmp_path / "remote.git"
    src = make_repo(tmp_path / "src")
    memgen.write_streams(str(src), dict(os.environ, HN_HOOK_ACTIVE="1"),
                         [memgen.Actor(bytes([i]) * 32, f"W{i}") for i in range(1, 5)], 400,
                         git(src, "rev-parse", "HEAD"), random.Random(3), streams_per_actor=50)
    git(tmp_path, "clone", "-q", "--mirror", str(src), str(remote))
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(remote), str(b))
    assert hn(b, "init", "--name", "B").code == 0
    assert hn(b, "replication", "select", "--all").code == 0
    return remote, b


def test_a_killed_syncs_ref_transaction_releases_its_locks_itself(tmp_path):
    """A SIGKILL of a sync's process group (a closed terminal, an OOM kill) while its prepared ref
    transaction holds one lock file per accepted ref: Git died with it and every later sync
    failed on the locks. The transaction runs in a session of its own: it reads the end of its
    input, aborts, and removes every lock; nothing was promoted, and the next sync promotes
    everything."""
    _remote, b = _many_streams(tmp_path)
    accepted = b / ".git" / "refs" / "hn" / "remotes" / "origin" / "memory"
    sync = subprocess.Popen(["git", "hn", "sync"], cwd=b, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while len(list(accepted.rglob("*.lock"))) < 200 and sync.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)  # (until Git has locked every accepted ref: the transaction is prepared)
    assert len(list(accepted.rglob("*.lock"))) == 200
    os.killpg(sync.pid, signal.SIGKILL)
    sync.wait()
    deadline = time.monotonic() + 30
    while list(accepted.rglob("*.lock")) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert list(accepted.rglob("*.lock")) == []
    assert git(b, "for-each-ref", "refs/hn/remotes") == ""
    doc = hn(b, "sync", "--json").json()
    assert doc["promoted"] == 200
    assert hn(b, "memory", "index", "verify").code == 0


def test_ref_lock_files_a_dead_transaction_left_are_removed_and_a_live_ones_are_not(tmp_path):
    """The locks a transaction left when its Git was killed too (recorded before it ended) are
    removed by the next import, and only those; while the recorded ``update-ref`` still runs
    (it outlives a killed sync for a moment), its locks are its own: the import waits for it."""
    from git_hn.service.replication import serial
    from git_hn.store.repo import open_repo

    remote, b = _many_streams(tmp_path)
    refs = git(remote, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()
    accepted = [r.replace("refs/hn/memory/", "refs/hn/remotes/origin/memory/") for r in refs[:3]]
    oid = git(b, "rev-parse", "HEAD")
    # a transaction that holds the first accepted ref's lock until its input ends
    live = subprocess.Popen(["git", "update-ref", "--stdin"], cwd=b, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    live.stdin.write(f"start\ncreate {accepted[0]} {oid}\nprepare\n".encode())
    live.stdin.flush()
    assert live.stdout.readline() == b"start: ok\n" and live.stdout.readline() == b"prepare: ok\n"
    repo = open_repo(str(b))
    serial.promoting(repo, "origin", [f"create {r} {oid}" for r in accepted], live.pid)
    repo.close()
    dead = [b / ".git" / (r + ".lock") for r in accepted[1:]]
    for path in dead:  # (as a killed prepared transaction leaves them: each holding its new value)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(oid + "\n")
    foreign = b / ".git" / "refs" / "hn" / "remotes" / "origin" / "other.lock"  # not recorded: stays
    foreign.write_text("")
    sync = subprocess.Popen(["git", "hn", "sync", "--json"], cwd=b, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    time.sleep(1.0)
    assert sync.poll() is None and (b / ".git" / (accepted[0] + ".lock")).exists()
    assert all(p.exists() for p in dead)  # (nothing is cleared while the recorded Git runs)
    live.stdin.close()  # its input ends: it aborts, and removes its lock
    live.wait(timeout=30)
    out, err = sync.communicate(timeout=120)
    assert sync.returncode == 0, err
    assert json.loads(out)["promoted"] == 200
    assert not any(p.exists() for p in dead) and foreign.exists()


def test_an_empty_ref_lock_a_dead_promotion_recorded_is_a_live_gits_and_stays(tmp_path):
    """A reread (the rule f65 gave appends): a killed promotion's prepared Git wrote each new value
    into its lock; an empty lock on a recorded ref is a live ``git pack-refs`` (``git gc``) or
    deletion's, and removing it loses what that Git then writes. It stays; the record goes."""
    from git_hn.service.replication import serial
    from git_hn.store.repo import open_repo

    remote, b = _many_streams(tmp_path)
    refs = git(remote, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()
    accepted = [r.replace("refs/hn/memory/", "refs/hn/remotes/origin/memory/") for r in refs[:2]]
    oid = git(b, "rev-parse", "HEAD")
    repo = open_repo(str(b))  # (the recorded Git: a process ID above any pid_max, so ended)
    serial.promoting(repo, "origin", [f"create {r} {oid}" for r in accepted], 2 ** 22 + 7)
    left, empty = (b / ".git" / (r + ".lock") for r in accepted)
    for path, text in ((left, oid + "\n"), (empty, "")):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert serial.clear_dead(repo, "origin") == [str(left)]
    repo.close()
    assert not left.exists() and empty.exists()


def test_a_promotion_record_with_a_damaged_process_id_is_cleared_and_every_sync_goes_on(tmp_path):
    """A review: ``pid ²`` as the first line of a ``promoting`` record (a damaged derived file)
    passed ``str.isdigit`` and failed in ``int``, so every sync with that remote, and the fetch
    hook's import, stopped with ``internal error: ValueError`` naming no file. A process ID that
    ``process_tree.is_pid`` refuses names no running Git: the record counts as ended, as one
    without an ID does, and the lock it names is cleared (under the import lock, as any)."""
    from git_hn.service.replication import serial
    from git_hn.store.repo import open_repo

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    _record(alice, "one")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "sync").code == 0
    [ref] = git(bob, "for-each-ref", "--format=%(refname)", "refs/hn/remotes/origin/memory/").split()
    oid = git(bob, "rev-parse", "HEAD")
    repo = open_repo(str(bob))
    record = Path(serial._promoting_path(repo, "origin"))
    repo.close()
    lock = bob / ".git" / (ref + ".lock")
    for pid in ("\u00b2", "\u0661\u0662", "0", "9999999999", "x"):  # (², Arabic-Indic 12: both isdigit)
        record.write_bytes(f"pid {pid}\n{ref}\n".encode())
        record.chmod(0o600)
        lock.write_text(oid + "\n")  # (as a killed prepared transaction leaves it)
        r = hn(bob, "sync")
        assert (r.code, r.err) == (0, ""), (pid, r.err)
        assert not lock.exists() and not record.exists(), pid


def test_one_identity_in_two_clones_publishes_nothing_from_the_clone_behind(tmp_path):
    """The same person in two clones (identity export/import): the clone that is behind has
    nothing to publish; before, each of its syncs failed as a refused non-fast-forward push."""
    remote, a, b = one_identity_in_two_clones(tmp_path)
    first = _record(a, "one")
    assert hn(a, "sync").code == 0
    assert hn(b, "sync").code == 0
    _record(b, "from the second clone")
    assert hn(b, "sync").code == 0
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    for _ in range(2):
        r = hn(a, "sync")
        assert r.code == 0, r.err
        assert "published" not in r.out
    assert git(remote, "rev-parse", ref) == git(b, "rev-parse", ref)
    later = _record(a, "from the first clone again")  # continues the longer chain (§4.4)
    assert hn(a, "sync").code == 0
    assert later["memoryId"] in git(remote, "log", "-1", "--format=%s", ref)


def test_a_rewrite_waits_for_a_running_publication(tmp_path):
    """A push's background publisher may be sending the memory an amend would re-sign; the
    post-rewrite hook waits for it (before, the remote kept the old memory and the clone a
    re-signed one: a stream split for good)."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    (a / "x.txt").write_text("x\n")
    git(a, "add", "x.txt")
    git(a, "commit", "-q", "-m", "x")
    mem = _record(a, "at the amended commit")
    fd = _lock(a, "publication")
    try:
        amend = subprocess.Popen(["git", "commit", "-q", "--amend", "-m", "x, reworded"], cwd=a,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        assert amend.poll() is None  # the hook waits for the publication
    finally:
        os.close(fd)
    _out, err = amend.communicate(timeout=120)
    assert amend.returncode == 0
    assert err.startswith("git-hn: waiting for the memory publication to origin to end before re-anchoring\n")
    assert "git-hn: re-anchored 1 unpublished memory of " in err
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert mem["memoryId"] not in git(a, "log", "--format=%s", ref)


def _three_commits_with_memories(a) -> list[dict]:
    mems = []
    for i in range(1, 4):
        (a / f"f{i}.txt").write_text(f"{i}\n")
        git(a, "add", f"f{i}.txt")
        git(a, "commit", "-q", "-m", f"c{i}")
        mems.append(_record(a, f"mem c{i}"))
    return mems


def _anchors(a) -> dict[str, str]:
    doc = hn(a, "memory", "recall", "--include-untrusted", "--json", "--max-records", "50").json()
    return {m["data"]["content"]: m["anchor"]["commit"] for m in doc["memories"]}


def test_a_squash_step_is_left_to_the_rebase_and_an_aborted_rebase_moves_nothing(tmp_path):
    """Git runs post-rewrite (amend) at each squash step of an interactive rebase, and again
    (rebase) at its end. Re-anchoring at the step left memories on a commit that an abort then
    discarded; the rebase's own mapping covers every commit it replaced."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    mems = _three_commits_with_memories(a)
    before = _anchors(a)
    env = {**os.environ, "GIT_EDITOR": "true",
           "GIT_SEQUENCE_EDITOR": "sed -i -e '2s/^pick/squash/' -e '2a exec false'"}
    stopped = subprocess.run(["git", "rebase", "-i", "HEAD~3"], cwd=a, env=env, capture_output=True, text=True)
    assert stopped.returncode != 0 and "re-anchored" not in stopped.stderr
    git(a, "rebase", "--abort")
    assert _anchors(a) == before
    held = hn(a, "sync", "--json").json()["heldBack"]  # (not pushed yet; none discarded)
    assert [(h["memoryId"], h["discarded"]) for h in held] == [(mems[0]["memoryId"], False)]
    env["GIT_SEQUENCE_EDITOR"] = "sed -i -e '2s/^pick/squash/'"
    done = subprocess.run(["git", "rebase", "-i", "HEAD~3"], cwd=a, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("git-hn: re-anchored") == 1
    squashed, last = git(a, "rev-parse", "HEAD~1"), git(a, "rev-parse", "HEAD")
    assert _anchors(a) == {"mem c1": squashed, "mem c2": squashed, "mem c3": last}
    assert hn(a, "memory", "index", "verify").code == 0
    wait_publication(a)
    assert hn_proc(a, "memory", "log").code == 0


def test_amends_an_exec_step_makes_are_followed_to_the_final_commits(tmp_path):
    """`git rebase --exec 'git commit --amend …'`: Git's final post-rewrite list names the commit
    each pick made (or none, for a commit the rebase kept), not the one the exec amend made of
    it; the amends' own mappings, kept during the rebase, are followed (a team audit found the
    memories left on the picks, which no branch holds)."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    _three_commits_with_memories(a)
    env = {**os.environ, "GIT_EDITOR": "true"}
    done = subprocess.run(["git", "rebase", "-q", "HEAD~3", "--exec", 'git commit -q --amend -m "$(git log -1 '
                           '--format=%s) x"'], cwd=a, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    finals = git(a, "rev-list", "--reverse", "HEAD~3..HEAD").split()
    assert [git(a, "log", "-1", "--format=%s", c) for c in finals] == ["c1 x", "c2 x", "c3 x"]
    assert _anchors(a) == {"mem c1": finals[0], "mem c2": finals[1], "mem c3": finals[2]}
    assert not (a / ".git" / "hn" / "rebase-amends").exists()
    assert hn(a, "memory", "index", "verify").code == 0


def test_an_amend_at_a_stop_of_an_aborted_rebase_is_never_followed_by_a_later_rebase(tmp_path):
    """A reviewer's case: an amend at an ``edit`` stop is kept for the rebase's end; the rebase
    was aborted, and the next, unrelated rebase (a reword of the last commit) followed that kept
    amend, moving the first commit's memory onto the commit the abort had discarded."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    _three_commits_with_memories(a)
    before = _anchors(a)
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": "sed -i '1s/^pick/edit/'"}
    stopped = subprocess.run(["git", "rebase", "-i", "HEAD~3"], cwd=a, env=env, capture_output=True, text=True)
    assert stopped.returncode == 0 and (a / ".git" / "rebase-merge").is_dir(), stopped.stderr
    git(a, "commit", "-q", "--amend", "-m", "c1 amended at the stop")
    assert (a / ".git" / "hn" / "rebase-amends").exists()
    git(a, "rebase", "--abort")
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": "sed -i '1s/^pick/reword/'", "GIT_EDITOR": "sed -i '1s/$/ x/'"}
    done = subprocess.run(["git", "rebase", "-i", "HEAD~1"], cwd=a, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    after = _anchors(a)
    assert after["mem c1"] == before["mem c1"] and after["mem c2"] == before["mem c2"]
    assert after["mem c3"] == git(a, "rev-parse", "HEAD") != before["mem c3"]
    assert not (a / ".git" / "hn" / "rebase-amends").exists()


def _two_forks(tmp_path):
    """Alice's stream at m2 on two remotes, origin and evil, both accepted by Bob; then m3 on
    origin and another m3 on evil (a fork at sequence 3). (remote, alice, bob, local ref, m2)."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    evil = tmp_path / "evil.git"
    git(tmp_path, "clone", "-q", "--bare", str(remote), str(evil))
    for repo in (alice, bob):
        git(repo, "remote", "add", "evil", str(evil))
    _record(alice, "m1")
    _record(alice, "m2")
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    m2 = git(alice, "rev-parse", ref)
    for name in ("origin", "evil"):
        git(alice, "push", "-q", name, f"{ref}:{ref}")
        assert hn(bob, "replication", "select", name, "--all").code == 0
    assert hn(bob, "sync", "evil").code == 0 and hn(bob, "sync", "origin").code == 0  # m1, m2 from both
    _record(alice, "m3 on origin")
    git(alice, "push", "-q", "origin", f"{ref}:{ref}")
    git(alice, "update-ref", ref, m2)
    # (git-hn refuses to sign a sequence it saw signed, ``rewound``; a state rebuilt from the refs
    # knows no old tip, as a second clone of the identity would not: the fork this test needs)
    assert hn(alice, "memory", "index", "rebuild").code == 0
    _record(alice, "m3 on evil")
    git(alice, "push", "-q", "evil", f"{ref}:{ref}")
    return remote, alice, bob, ref, m2


def test_imports_from_two_remotes_accept_one_at_a_time_so_two_forks_are_never_both_accepted(tmp_path):
    """An audit's case: Alice's stream forked at sequence 3, one fork on each of two remotes the
    victim imports from; two syncs at once each checked continuity against the accepted copies
    as they were before the other's promotion, both promoted, and every read then failed on the
    divergent chains (later syncs said up to date). From its continuity check to its ref
    transaction an import holds one lock for every remote: the second waits, then finds the
    first's copy and refuses its fork as an equivocation."""
    remote, alice, bob, ref, m2 = _two_forks(tmp_path)
    path = bob / ".git" / "hn" / "locks" / "accept.lock"
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # (as another import holds it)
    try:
        procs = [subprocess.Popen([sys.executable, "-m", "git_hn", "sync", name, "--json"], cwd=bob,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for name in ("evil", "origin")]
        time.sleep(1.5)
        assert [p.poll() for p in procs] == [None, None]  # both wait, their fetches done
    finally:
        os.close(fd)
    results = [p.communicate(timeout=120) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 1], results
    out = "".join(o for o, _e in results)
    assert "equivocation" in out
    accepted = [line.split() for line in git(bob, "for-each-ref", "--format=%(objectname) %(refname)",
                                             "refs/hn/remotes").splitlines()]
    tips = sorted({oid for oid, name in accepted if name.endswith(ref[len("refs/hn/memory/"):])})
    assert len(tips) == 2  # the refused copy stays at m2, below the accepted one: one chain
    below = [t for t in tips if subprocess.run(["git", "merge-base", "--is-ancestor", t, ({*tips} - {t}).pop()],
                                               cwd=bob).returncode == 0]
    assert below == [m2]
    r = hn(bob, "memory", "recall", "--include-untrusted", "--json")
    assert r.code == 0, r.err
    assert hn(bob, "memory", "index", "verify").code == 0


def test_the_fetch_hook_does_not_wait_for_another_remotes_acceptance(tmp_path):
    """A review's case: a plain ``git fetch`` with the hooks waited (up to ten minutes) while a
    sync with another remote held the acceptance lock. The hook's import does not wait: it says
    so, and git hn sync imports afterwards."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "hooks", "install").code == 0
    made = _record(alice, "arrives later")
    assert hn(alice, "sync").code == 0
    (alice / "more.txt").write_text("more\n")
    git(alice, "add", "more.txt")
    git(alice, "commit", "-q", "-m", "more")
    git(alice, "push", "-q", "origin", "main", "main:b1", "main:b2", "main:b3")
    path = bob / ".git" / "hn" / "locks" / "accept.lock"
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # (as a sync with another remote holds it)
    try:
        start = time.monotonic()
        fetched = subprocess.run(["git", "fetch", "-q", "origin"], cwd=bob, capture_output=True, text=True,
                                 timeout=120)
        assert time.monotonic() - start < 30
    finally:
        os.close(fd)
    assert fetched.returncode == 0
    said = "a sync with another remote is accepting memories; run git hn sync origin after it"
    assert fetched.stderr.count(said) == 1, fetched.stderr  # (once: not for each branch the fetch moved)
    assert hn(bob, "memory", "show", made["memoryId"]).code != 0  # not imported yet
    assert hn(bob, "sync").code == 0
    assert hn(bob, "memory", "show", made["memoryId"]).code == 0


PAUSE_HOOK = """#!/bin/sh
# pauses an import's promotion (its ref transaction, once prepared) until the test says go
[ "$1" = prepared ] || exit 0
grep -q ' refs/hn/remotes/' || exit 0
touch "$PAUSED"
i=0
while [ ! -e "$GO" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
exit 0
"""


def test_a_record_while_an_import_brings_the_same_identitys_newer_memory_never_forks_the_stream(tmp_path):
    """An audit's case: one identity in two clones; a ``record`` in the second while its import
    brought the first clone's newer memory of the same stream. Both had read the stream before
    the other wrote and both took the next sequence: a fork that every read refused (divergent
    chains), that record and ``sync --rebase`` could not mend. The import holds the stream's
    lock from its continuity check to its ref transaction: the record waits for it and then
    continues the accepted chain."""
    _remote, a, b = one_identity_in_two_clones(tmp_path)
    _record(a, "m1")
    assert hn(a, "sync").code == 0
    assert hn(b, "sync").code == 0  # m1 accepted in b
    _record(a, "m2 from the first clone")
    assert hn(a, "sync").code == 0
    hook = b / ".git" / "hooks" / "reference-transaction"
    hook.write_text(PAUSE_HOOK)
    hook.chmod(0o755)
    paused, go = tmp_path / "paused", tmp_path / "go"
    env = {**os.environ, "PAUSED": str(paused), "GO": str(go)}
    sync = subprocess.Popen(["git", "hn", "sync", "--json"], cwd=b, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    record = None
    try:
        deadline = time.monotonic() + 60
        while not paused.exists():
            assert time.monotonic() < deadline and sync.poll() is None, sync.communicate()
            time.sleep(0.05)
        time.sleep(1.5)  # its transaction is prepared while it validates: the import waits to commit now
        record = subprocess.Popen([sys.executable, "-m", "git_hn", "memory", "record", "--json", "--kind",
                                   "observation", "--at", "HEAD", "--applies", "descendants", "--content",
                                   "m3 from the second clone"], cwd=b, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        assert record.poll() is None  # it waits for the import's stream lock
    finally:
        go.touch()
    out, err = sync.communicate(timeout=120)
    assert sync.returncode == 0, (out, err)
    out, err = record.communicate(timeout=120)
    assert record.returncode == 0, err
    hook.unlink()
    ref = git(b, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    accepted = git(b, "for-each-ref", "--format=%(objectname)", "refs/hn/remotes/origin/memory")
    assert subprocess.run(["git", "merge-base", "--is-ancestor", accepted, ref], cwd=b).returncode == 0
    r = hn(b, "memory", "recall", "--include-untrusted", "--json")
    assert r.code == 0, r.err
    assert {"m1", "m2 from the first clone", "m3 from the second clone"} == \
        {m["data"]["content"] for m in r.json()["memories"]}
    assert hn(b, "memory", "index", "verify").code == 0


def test_a_local_stream_parted_from_its_accepted_copy_says_how_to_mend_it(tmp_path):
    """An audit's fork (a record during an import, before the import held the stream's lock):
    the local stream and the remote's accepted copy part at one sequence, every read fails on
    §11(a)'s divergent chains, and ``sync --rebase`` found nothing to import. The message says
    the way out, and following it mends the stream."""
    _remote, a, b = one_identity_in_two_clones(tmp_path)
    _record(a, "m1")
    assert hn(a, "sync").code == 0 and hn(b, "sync").code == 0
    _record(b, "m2 from the second clone")
    _record(a, "m2 from the first clone")
    assert hn(a, "sync").code == 0
    # (the accepted copy moved past the local stream's fork, as the race left it)
    git(b, "fetch", "-q", "origin", "+refs/hn/memory/*:refs/hn/remotes/origin/memory/*")
    accepted = git(b, "for-each-ref", "--format=%(refname)", "refs/hn/remotes/origin/memory")
    r = hn(b, "memory", "recall", "--include-untrusted", "--json")
    assert r.code == 1
    assert r.err.endswith(f"differ at sequence 2; your identity appended to it in another clone too: git update-ref "
                          f"-d {accepted}, then git hn sync origin --rebase imports origin's copy again and signs "
                          "your unpublished memories of it again on top of it\n"), r.err
    git(b, "update-ref", "-d", accepted)
    r = hn(b, "sync", "--rebase")
    assert r.code == 0, r.out + r.err
    r = hn(b, "memory", "recall", "--include-untrusted", "--json")
    assert r.code == 0, r.err
    assert {m["data"]["content"] for m in r.json()["memories"]} == \
        {"m1", "m2 from the first clone", "m2 from the second clone"}
    assert hn(b, "memory", "index", "verify").code == 0


def _record_to(repo, stream: str, content: str) -> dict:
    r = hn(repo, "memory", "record", "--json", "--stream", stream, "--kind", "observation", "--at", "HEAD",
           "--applies", "descendants", "--content", content)
    assert r.code == 0, r.err
    return r.json()


def test_a_record_to_a_named_stream_continues_what_an_import_accepted_before_its_lock(tmp_path, monkeypatch):
    """A review's case (after 6794b0b): ``record --stream`` lists the stream once before its lock,
    to refuse another actor's stream without leaving a lock file, and its first attempt continued
    that listing. A sync that imported the same identity's newer memory from the other clone, and
    took and released the stream's lock between that listing and the record's lock, was missed:
    the record signed a second sequence 2, forking its own stream, and every read then refused it
    (CONTRACT §11(b): the head is read under the lock). The seam runs a real ``git hn sync`` right
    after the first listing; the record lists again under its lock and continues at sequence 3."""
    from git_hn.store import streams

    _remote, a, b = one_identity_in_two_clones(tmp_path)
    first = _record_to(a, "label:x", "m1")
    assert hn(a, "sync").code == 0 and hn(b, "sync").code == 0
    _record_to(b, "label:x", "m2 from the second clone")
    assert hn(b, "sync").code == 0
    real, synced = streams.stream_sources, []

    def listed_then_synced(repo, actor, stream):
        sources = real(repo, actor, stream)
        if not synced:  # (between the first listing and the lock: the sync takes the lock and releases it)
            synced.append(hn_proc(a, "sync"))
        return sources

    # the listing before the lock is asked only while the stream's lock file does not exist (a
    # clone that never wrote the stream, or whose locks were removed): the window is there
    from git_hn.store.repo import open_repo

    repo = open_repo(str(a))
    os.remove(repo.lock_path(first["actor"], first["stream"]))
    repo.close()
    monkeypatch.setattr(streams, "stream_sources", listed_then_synced)
    _record_to(a, "label:x", "m3 from the first clone")
    monkeypatch.undo()
    assert synced[0].code == 0 and "imported 1 memory (your own)" in synced[0].out, synced[0]  # (m1 was held here: f159)
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    assert git(a, "log", "--format=%s", ref).count("hn memory ") == 3
    accepted = git(a, "for-each-ref", "--format=%(objectname)", "refs/hn/remotes/origin/memory")
    assert subprocess.run(["git", "merge-base", "--is-ancestor", accepted, ref], cwd=a).returncode == 0
    r = hn(a, "memory", "log")
    assert r.code == 0, r.err
    r = hn(a, "sync")
    assert r.code == 0, r.err
    assert hn(a, "memory", "index", "verify").code == 0


def test_a_record_to_the_default_stream_lists_it_under_its_lock(tmp_path, monkeypatch):
    """The same race through the listing a record asked Git for early (while the signing key
    loads), before the lock: collected under the lock, it described the stream before a sync that
    took and released the lock in between, and the record forked the stream as above. The seam
    waits for that early answer, if one was asked, then runs a real ``git hn sync``."""
    from git_hn.core.grammar import default_stream
    from git_hn.store import identity, streams

    _remote, a, b = one_identity_in_two_clones(tmp_path)
    first = _record(a, "m1")
    assert hn(a, "sync").code == 0 and hn(b, "sync").code == 0
    _record(b, "m2 from the second clone")
    assert hn(b, "sync").code == 0
    real, synced = identity.load_active, []

    def answered_then_synced(repo, *args, **kwargs):
        if not synced:  # (the early listing, if any, has read the refs; then the sync runs)
            repo.git.early_answer(streams._sources_question(default_stream(identity.active_actor(repo))))
            synced.append(hn_proc(a, "sync"))
        return real(repo, *args, **kwargs)

    monkeypatch.setattr(identity, "load_active", answered_then_synced)
    _record(a, "m3 from the first clone")
    monkeypatch.undo()
    assert synced[0].code == 0 and "imported 1 memory (your own)" in synced[0].out, synced[0]  # (m1 was held here: f159)
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    assert git(a, "log", "--format=%s", ref).count("hn memory ") == 3
    r = hn(a, "memory", "log")
    assert r.code == 0, r.err
    assert hn(a, "sync").code == 0 and hn(a, "memory", "index", "verify").code == 0
