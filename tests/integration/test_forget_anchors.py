"""Anchors forgotten by hand: ``git hn replication forget-anchors REMOTE [COMMIT]...``
(replication/forget.py, docs/decisions.md 2b). The lost-anchor and at-risk reminders otherwise end
only when a branch of the remote holds the commit again, even for a memory its author decided
need not be importable from there. Real repositories, a real bare remote, real pushes with the
hooks installed; the refusals change nothing, byte for byte, and a change waits for the records'
locks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import commit_on, git, hn, shared_remote, wait_publication

MEMORY = "sha256:" + "ab" * 32


def _record(repo, content) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _push(repo, *args):
    proc = subprocess.run(["git", "push", "-q", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    return proc


def _records(repo) -> dict[str, bytes]:
    """name -> bytes of every lost-anchor and at-risk record file (and their notes)."""
    directory = Path(repo) / ".git" / "hn" / "replication"
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())
            if p.name.startswith(("lost-", "atrisk-"))} if directory.is_dir() else {}


def _taken_off(tmp_path):
    """Alice (hooks installed) publishes a memory at commit c1 of branch feature, then deletes
    the branch on origin: the push warns, and c1 is remembered. (alice, c1, the memory)"""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    c1 = commit_on(a, "feature", "c1.txt")
    mem = _record(a, "decided at c1")
    _push(a, "origin", "feature")
    deleted = _push(a, "origin", "--delete", "feature")
    assert f"takes commit {c1[:12]} off origin" in deleted.stderr, deleted.stderr
    git(a, "checkout", "-q", "main")
    return a, c1, mem


def _remember(repo, lost=(), atrisk=()) -> None:
    """Records made directly: ``lost`` commits, and ``atrisk`` (commit, state) pairs, each on
    the memory ``MEMORY`` (the commits need not exist: a forgotten one often does not)."""
    from git_hn.service.replication import atrisk as atrisk_record
    from git_hn.service.replication import lost as lost_record
    from git_hn.store.repo import open_repo

    repo = open_repo(str(repo))
    if lost:
        lost_record.remember(repo, "origin", [(MEMORY, c) for c in lost])
    if atrisk:
        atrisk_record.replace(repo, "origin", "main", {c: (MEMORY, s) for c, s in atrisk})


def test_the_reminders_command_ends_the_reminder_and_changes_nothing_else(tmp_path):
    """The reminder names the command; following it forgets the commit (its subject said), the
    next push and sync say nothing, and no ref moves: the memory stays as it was."""
    a, c1, mem = _taken_off(tmp_path)
    commit_on(a, None, "later.txt")
    later = _push(a, "origin", "main")
    command = f"git hn replication forget-anchors origin {c1[:12]}"
    assert later.stderr.endswith(f"; only if it was taken off on purpose (a secret), {command} ends this reminder, "
                                 "and importers still stop at the memory\n"), later.stderr
    refs = git(a, "for-each-ref")
    r = hn(a, *command.split()[2:])
    assert git(a, "for-each-ref") == refs
    assert (r.code, r.out) == (0, f"Forgot {c1} (memory {mem['memoryId'][7:19]}): c1.txt\n"), r.err
    assert r.err == ("git-hn: hint: no push to origin nor sync with it reminds of it now; whoever imports its memory "
                     "from origin still stops at that memory while no branch of origin holds that commit\n")
    assert _records(a) == {}
    commit_on(a, None, "later still.txt")
    assert _push(a, "origin", "main").stderr == ""
    synced = hn(a, "sync")
    assert synced.code == 0 and "Anchors of origin" not in synced.out, synced.out
    assert hn(a, "memory", "show", mem["memoryId"]).code == 0


def test_a_forgotten_anchor_a_force_push_took_off_stays_forgotten(tmp_path):
    """A review's case: Alice force-pushes main back over commit X, which her published memory
    is anchored on, then forgets X; the next sync named X again, because the check of the
    remote-tracking refs (``tracked``) still held X as a tip and handed it back. Forgetting now
    settles that check first."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    x = commit_on(a, None, "x.txt")
    _push(a, "origin", "main")
    _record(a, "decided at X")
    assert hn(a, "sync").code == 0
    forced = _push(a, "--force", "origin", "HEAD~1:main")
    assert f"takes commit {x[:12]} off origin" in forced.stderr, forced.stderr
    r = hn(a, "replication", "forget-anchors", "origin", x[:12])
    assert r.code == 0 and r.out.startswith(f"Forgot {x} "), (r.out, r.err)
    synced = hn(a, "sync")
    assert synced.code == 0 and "Anchors of origin" not in synced.out + synced.err, synced.out + synced.err
    left = hn(a, "replication", "forget-anchors", "origin", "--dry-run", "--json")
    assert json.loads(left.out)["forgotten"] == [], left.out


def test_an_anchor_in_both_records_is_forgotten_from_both_once(tmp_path):
    """Published while only feature held it (at risk), then taken off by Alice's own push
    (lost): one entry, from both records, with ``--json``'s stable document."""
    a, c1, mem = _taken_off(tmp_path)
    names = sorted(n for n in _records(a) if "." not in n)
    assert [n.split("-")[0] for n in names] == ["atrisk", "lost"], names
    r = hn(a, "replication", "forget-anchors", "origin", "--json")
    assert r.code == 0, r.err
    assert r.out == json.dumps({"remote": "origin", "dryRun": False, "forgotten": [
        {"commit": c1, "memoryId": mem["memoryId"], "records": ["lost", "at-risk"], "present": True,
         "subject": "c1.txt"}]}, separators=(",", ":")) + "\n"
    assert r.err == ""  # (the hint is for people)
    assert _records(a) == {}
    again = hn(a, "replication", "forget-anchors", "origin")
    assert (again.code, again.out, again.err) == (0, "Nothing is remembered for origin\n", "")


def test_named_commits_go_and_the_others_stay(tmp_path):
    """Full or abbreviated IDs, matched against the records (not the repository: these commits
    are not in this clone); the rest of each record stays in its order."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    c = {name: name * 40 for name in "1234"}
    _remember(a, lost=[c["1"], c["2"], c["3"]], atrisk=[(c["2"], "g"), (c["4"], "r")])
    r = hn(a, "replication", "forget-anchors", "origin", c["2"][:4].upper(), c["4"])
    assert r.code == 0, r.err
    assert r.out == (f"Forgot {c['2']} (memory {'ab' * 6}; not in this clone)\n"
                     f"Forgot {c['4']} (memory {'ab' * 6}; not in this clone)\n")
    records = _records(a)
    lost = next(v for k, v in records.items() if k.startswith("lost-")).decode().splitlines()
    assert lost[1:] == [f"{c['1']} {MEMORY}", f"{c['3']} {MEMORY}"]
    assert not [k for k in records if k.startswith("atrisk-")]  # (its last entries went: the file goes)
    doc = hn(a, "replication", "forget-anchors", "origin", "--dry-run", "--json").json()
    assert doc == {"remote": "origin", "dryRun": True, "forgotten": [
        {"commit": c[n], "memoryId": MEMORY, "records": ["lost"], "present": False, "subject": None} for n in "13"]}


def test_a_dry_run_says_what_it_would_forget_and_changes_nothing(tmp_path):
    a, c1, mem = _taken_off(tmp_path)
    before = _records(a)
    r = hn(a, "replication", "forget-anchors", "--dry-run", "origin")
    assert (r.code, r.out) == (0, f"Would forget {c1} (memory {mem['memoryId'][7:19]}): c1.txt\n")
    # a team trial took forgetting for a fix: the dry run says, in one line, that it is none
    assert r.err == ("git-hn: hint: forgetting only stops the reminder: whoever imports its memory from origin "
                     "still stops at that memory while no branch of origin holds that commit; pushing that commit "
                     "back (git push origin COMMIT:refs/heads/hn-anchor/NAME) is what lets them import\n")
    assert _records(a) == before
    commit_on(a, None, "later.txt")
    assert f"forget-anchors origin {c1[:12]} ends this reminder" in _push(a, "origin", "main").stderr


def test_each_refusal_leaves_the_records_byte_for_byte(tmp_path):
    """All or nothing: an unknown remote, a COMMIT that is no commit ID, that names no entry or
    several, even beside one that names an entry: one line naming it, exit 1, nothing changed."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    one, other, third = "abcd" + "1" * 36, "abcd" + "2" * 36, "9" * 40
    _remember(a, lost=[one, other], atrisk=[(third, "g")])
    before = _records(a)
    assert len(before) == 2
    for args, message in [
        (["upstream"], 'remote "upstream" does not exist (the remotes here: origin); nothing is remembered for it'),
        (["upstream", one], 'remote "upstream" does not exist (the remotes here: origin); nothing is remembered '
                            "for it"),
        (["origin", third, "1234567"], "commit 1234567 is not remembered for origin (3 are: git hn replication "
                                       "forget-anchors origin --dry-run lists them)"),
        (["origin", one, "abcd"], "commit abcd is ambiguous: 2 commits remembered for origin start with it "
                                  "(abcd11111111, abcd22222222); give more of its digits"),
        (["origin", "abc"], '"abc" is not a commit ID: a COMMIT is a full commit ID or at least 4 of its first hex '
                            "digits"),
        (["origin", "HEAD"], '"HEAD" is not a commit ID: a COMMIT is a full commit ID or at least 4 of its first '
                             "hex digits"),
        (["origin", "--dry-run", "5" * 40], f"commit {'5' * 40} is not remembered for origin (3 are: git hn "
                                            "replication forget-anchors origin --dry-run lists them)"),
    ]:
        r = hn(a, "replication", "forget-anchors", *args)
        assert (r.code, r.out, r.err) == (1, "", f"git-hn: {message}\n"), args
        assert _records(a) == before, args
    r = hn(a, "replication", "forget-anchors")
    assert (r.code, r.out, r.err) == (1, "", "git-hn: missing REMOTE; usage: git hn replication forget-anchors "
                                             "REMOTE [COMMIT]... [--dry-run] [--json]\n")
    git(a, "remote", "add", "empty", str(tmp_path / "remote.git"))
    r = hn(a, "replication", "forget-anchors", "empty", one)
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: commit {one} is not remembered for empty (nothing is)\n")
    assert _records(a) == before


_HOLDER = """\
import sys, time
from git_hn.store.repo import open_repo
from git_hn.service.replication import lost
repo = open_repo('.')
with lost.locked(repo, 'origin', sys.argv[1]):
    taken, key = lost.recorded(repo, 'origin')  # (a push remembering another commit meanwhile)
    print('held', flush=True)
    time.sleep(float(sys.argv[2]))
    if sys.argv[3:]:
        lost.replace(repo, 'origin', {**taken, sys.argv[3]: 'sha256:' + 'cd' * 32}, key)
    time.sleep(float(sys.argv[2]))
"""


def _holding(repo, which: str, seconds: float, commit: str = ""):
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, which, str(seconds), *([commit] if commit else [])],
                            cwd=repo,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "held\n"
    return proc


def test_a_change_waits_for_the_records_lock_and_keeps_what_was_remembered_meanwhile(tmp_path):
    """A push remembering a commit while the command runs: the command waits for the lock, reads
    the record then, and takes out only what it names."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    one, two, meanwhile = "1" * 40, "2" * 40, "3" * 40
    _remember(a, lost=[one, two])
    holder = _holding(a, "lost", 0.5, meanwhile)
    r = hn(a, "replication", "forget-anchors", "origin", one)
    assert holder.wait(timeout=30) == 0
    assert (r.code, r.out) == (0, f"Forgot {one} (memory {'ab' * 6}; not in this clone)\n"), r.err
    (lost,) = _records(a).values()
    assert lost.decode().splitlines()[1:] == [f"{two} {MEMORY}", f"{meanwhile} sha256:{'cd' * 32}"]


def test_a_lock_that_stays_busy_is_an_error_that_changes_nothing(tmp_path, monkeypatch):
    """The records' usual best effort (after a few seconds, the change is made without the lock)
    is not a hand's: the command says so and changes neither record."""
    from git_hn.service.replication import lost

    monkeypatch.setattr(lost, "LOCK_WAIT", 0.2)
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    _remember(a, lost=["1" * 40], atrisk=[("1" * 40, "g")])
    before = _records(a)
    for which in ("lost", "atrisk"):
        holder = _holding(a, which, 1.5)
        r = hn(a, "replication", "forget-anchors", "origin")
        assert (r.code, r.out, r.err) == (1, "", f"git-hn: the {which} anchor record of origin is being changed by "
                                                 "another git-hn; retry\n"), which
        assert _records(a) == before
        assert holder.wait(timeout=30) == 0


def test_a_record_that_cannot_be_written_changes_neither(tmp_path, monkeypatch):
    """The lost-anchor record is written first: when the at-risk one then fails, the first is
    put back, and the failure is said (the records' usual best effort would pass it silently)."""
    from git_hn.errors import LocalStateError
    from git_hn.service.replication import atrisk

    _remote, (a,) = shared_remote(tmp_path, "Alice")
    _remember(a, lost=["1" * 40, "2" * 40], atrisk=[("1" * 40, "g")])
    before = _records(a)

    def refused(*_args):
        raise LocalStateError("cannot change the at-risk record: Read-only file system")

    monkeypatch.setattr(atrisk, "replace", refused)
    r = hn(a, "replication", "forget-anchors", "origin", "1111")
    assert (r.code, r.out, r.err) == (1, "", "git-hn: cannot change the at-risk record: Read-only file system\n")
    assert _records(a) == before


def test_a_companion_that_cannot_be_removed_leaves_both_records(tmp_path):
    """An audit: forgetting the last at-risk commit removed the at-risk record first and its
    ``.checked`` companion second; when the companion could not go (a directory there), the
    lost-anchor record was put back but the at-risk one was gone, and the error named the
    record. The companion goes first now, and the error names it."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    _remember(a, lost=["1" * 40], atrisk=[("1" * 40, "g")])
    (record,) = [p for p in (a / ".git" / "hn" / "replication").iterdir()
                 if p.name.startswith("atrisk-") and "." not in p.name]
    companion = record.with_name(record.name + ".checked")
    companion.unlink(missing_ok=True)
    companion.mkdir(mode=0o700)
    (companion / "z").write_text("")
    before = {k: v for k, v in _records_files(a).items()}
    r = hn(a, "replication", "forget-anchors", "origin", "1111")
    assert (r.code, r.out) == (1, "") and r.err == f"git-hn: cannot change {companion}: Is a directory\n", r.err
    assert _records_files(a) == before


def _records_files(repo) -> dict[str, bytes]:
    directory = Path(repo) / ".git" / "hn" / "replication"
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())
            if p.name.startswith(("lost-", "atrisk-")) and p.is_file()}


def test_a_dry_run_lists_what_a_teammates_force_push_took_off(tmp_path):
    """A review: the check of the remote-tracking refs (``tracked``) ran for the real run only,
    so after a fetch of a teammate's force-push the dry run said "Nothing is remembered for
    origin" and the real run then forgot the commit. Both settle that check first."""
    _remote, (carol, alice) = shared_remote(tmp_path, "Carol", "Alice")
    assert hn(carol, "hooks", "install").code == 0
    c = commit_on(carol, None, "carol.txt")
    mem = _record(carol, "Carol's decision on main")
    _push(carol, "origin", "main")
    assert hn(carol, "sync").code == 0
    git(alice, "fetch", "-q", "origin")
    git(alice, "reset", "-q", "--hard", "origin/main~1")
    git(alice, "commit", "-q", "--allow-empty", "-m", "Alice's rewrite")
    git(alice, "push", "-q", "--force", "origin", "main")
    git(carol, "fetch", "-q", "origin")
    shown = f"(memory {mem['memoryId'][7:19]}): carol.txt\n"
    dry = hn(carol, "replication", "forget-anchors", "origin", "--dry-run")
    assert (dry.code, dry.out) == (0, f"Would forget {c} {shown}"), (dry.out, dry.err)
    real = hn(carol, "replication", "forget-anchors", "origin")
    assert (real.code, real.out) == (0, f"Forgot {c} {shown}"), (real.out, real.err)


def test_forgetting_right_after_a_url_changes_form(tmp_path):
    """A review: after ``git remote set-url origin file://…`` (the same repository) the records'
    URL line no longer matched, and forget-anchors said the commit was not remembered, though
    the next sync showed the reminder again. The records count, whichever URL they were made
    for; what is left keeps its URL line (a sync still asks the remote which repository it is)."""
    a, c1, mem = _taken_off(tmp_path)
    remote = tmp_path / "remote.git"
    git(a, "remote", "set-url", "origin", f"file://{remote}")
    dry = hn(a, "replication", "forget-anchors", "origin", "--dry-run")
    assert (dry.code, dry.out) == (0, f"Would forget {c1} (memory {mem['memoryId'][7:19]}): c1.txt\n"), dry.err
    r = hn(a, "replication", "forget-anchors", "origin", c1[:12])
    assert (r.code, r.out) == (0, f"Forgot {c1} (memory {mem['memoryId'][7:19]}): c1.txt\n"), r.err
    assert _records(a) == {}
    synced = hn(a, "sync")
    assert synced.code == 0 and "Anchors of origin" not in synced.out, synced.out


def test_what_is_left_after_a_url_changed_form_keeps_its_url_line(tmp_path):
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    c = {name: name * 40 for name in "12"}
    _remember(a, lost=[c["1"], c["2"]], atrisk=[(c["1"], "g"), (c["2"], "r")])
    before = {k: v.decode().splitlines() for k, v in _records(a).items()}
    git(a, "remote", "set-url", "origin", f"file://{tmp_path / 'remote.git'}")
    r = hn(a, "replication", "forget-anchors", "origin", c["1"])
    assert r.code == 0, r.err
    after = {k: v.decode().splitlines() for k, v in _records(a).items()}
    assert after == {k: [line for line in v if not line.startswith(c["1"])] for k, v in before.items()}
