"""A write's long hint said once in full, then shorter for ten minutes (``store.hints_said``).

A trial recorded memories in a burst, as a coding agent does, and every record repeated the
same ~400-character hints on stderr (no trust policy at HEAD; publication waiting for a push).
Now the same text within ten minutes of the write that said it in full is one short line that
still says the state and the way out; a changed text, an expired window, and a memo file that
is missing or cannot be trusted say it in full. A write with no hint never touches the file.
Real repositories, a real bare remote and real pushes; the clock is moved by writing the memo's
recorded times into the past, through the file itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import git, hn

FULL = ("git-hn: hint: memory signed, but recall and the brief leave it out (--include-untrusted shows it) until "
        "the trust policy trusts it: HEAD has no memory trust policy; git hn policy init creates one that trusts "
        "whoever runs it (run here, this identity), then commit .hn/policy.json\n")
SHORT = ("git-hn: hint: memory signed, still left out of recall and the brief: HEAD has no memory trust policy "
         "(git hn policy init, then commit .hn/policy.json; said in full ")

n = iter(range(1000))


def _record(repo, *args) -> str:
    r = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", f"d {next(n)}", *args)
    assert r.code == 0, r.err
    return r.err


def _short(err: str, start: str = SHORT) -> bool:
    """Whether ``err`` is the one shorter line (its "… ago" not pinned: no timed assertion)."""
    return err.startswith(start) and err.endswith(" ago)\n") and err.count("\n") == 1


def _memo(repo) -> Path:
    return Path(repo) / ".git" / "hn" / "hints-said-v0"


def test_a_burst_of_records_says_the_trust_hint_in_full_once_then_shorter(inited):
    assert _record(inited) == FULL
    assert _short(_record(inited))
    assert _short(_record(inited))
    # (a handoff and --json: the same line, and the document on stdout is unchanged)
    r = hn(inited, "memory", "handoff", "--json", "--at", "HEAD", "--applies", "descendants", "--content", "stop")
    assert r.code == 0 and _short(r.err), r.err
    assert set(json.loads(r.out)) == {"version", "memoryId", "stream", "actor", "anchor"}
    memo = _memo(inited)
    assert (memo.stat().st_mode & 0o777) == 0o600
    # one line, the time and a digest: the hint's text is not in it
    lines = memo.read_text().splitlines()
    assert len(lines) == 1 and b"policy" not in memo.read_bytes()
    when, key = lines[0].split(" ")
    assert when.isdigit() and len(key) == 64


def test_a_changed_policy_state_says_it_in_full_again(inited):
    assert _record(inited) == FULL
    assert _short(_record(inited))
    assert hn(inited, "policy", "init").code == 0  # in the working tree, not committed: another text
    waiting = _record(inited)
    assert waiting.startswith("git-hn: hint: memory signed, but recall and the brief leave it out") and \
        "the working tree trusts it and takes effect once it is committed" in waiting, waiting
    assert _short(_record(inited), "git-hn: hint: memory signed, still left out of recall and the brief: HEAD has "
                  "no memory trust policy (.hn/policy.json in the working tree trusts it and takes effect once it "
                  "is committed; said in full ")
    git(inited, "add", ".hn/policy.json")
    git(inited, "commit", "-q", "-m", "trust")
    assert _record(inited) == ""  # trusted: nothing to say


def _trusted_on_origin(repo, bare_remote) -> str:
    """``repo`` with a remote ``origin`` holding its branch and a committed policy trusting its
    identity (so that only the publication hint is said); the branch's name."""
    git(repo, "remote", "add", "origin", str(bare_remote()))
    branch = git(repo, "symbolic-ref", "--short", "HEAD")
    assert hn(repo, "policy", "init").code == 0
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", "trust")
    git(repo, "push", "-q", "origin", branch)
    return branch


def test_publication_waiting_for_a_push_is_said_shorter_until_another_commit(inited, bare_remote):
    branch = _trusted_on_origin(inited, bare_remote)
    git(inited, "commit", "-q", "--allow-empty", "-m", "work")  # (on no branch of origin yet)
    head = git(inited, "rev-parse", "HEAD")
    full = _record(inited)
    assert full.startswith("git-hn: hint: publication of stream ") and full.count("\n") == 1 and \
        f"to origin waits until commit {head[:12]} is pushed (branch {branch}: git push origin {branch}, then git hn sync origin; " in full
    again = _record(inited)
    assert _short(again, "git-hn: hint: publication of stream ") and \
        f"to origin still waits until commit {head[:12]} is pushed (git push origin {branch}, then git hn sync origin; said in full " in again
    git(inited, "push", "-q", "origin", branch)
    git(inited, "commit", "-q", "--allow-empty", "-m", "next")
    after = _record(inited)  # another commit: another text, in full
    assert f"waits until commit {git(inited, 'rev-parse', 'HEAD')[:12]} is pushed (branch" in after, after


def test_memories_held_back_by_an_earlier_one_are_said_shorter_as_their_count_grows(inited, bare_remote):
    """The line for memories waiting behind an earlier memory's unpushed anchor names how many
    wait, one more at each write, so its text was never the same twice and all ~600 characters
    were said at each record of a burst (f149's note). It is known by its words whatever the
    count: said in full once, then shorter with the count as it is now."""
    branch = _trusted_on_origin(inited, bare_remote)
    git(inited, "commit", "-q", "--allow-empty", "-m", "feature")  # (on no branch of origin yet)
    held = git(inited, "rev-parse", "HEAD")
    _record(inited)  # (its own anchor waits: the other line)
    git(inited, "commit", "-q", "--allow-empty", "-m", "more")
    full = _record(inited)
    assert full.count("\n") == 1 and f"waits until commit {held[:12]} is pushed (branch {branch}: " in full and \
        "2 memories, this one included, wait behind it; to keep unpushed feature work" in full, full
    for count in (3, 4):
        again = _record(inited)
        assert _short(again, "git-hn: hint: publication of stream ") and \
            f"still waits until commit {held[:12]} is pushed: memory " in again and \
            f"and {count} memories wait behind it (git push origin {branch}, then git hn sync origin; said in full " in again, again
    _age(inited, 601)  # (ten minutes on: in full again, with the count as it is now)
    assert "5 memories, this one included, wait behind it" in _record(inited)


def _age(repo, seconds: int) -> None:
    """The memo's recorded times moved ``seconds`` into the past, through the file itself."""
    memo = _memo(repo)
    lines = [line.split(" ") for line in memo.read_text().splitlines()]
    memo.write_text("".join(f"{int(w) - seconds} {k}\n" for w, k in lines))
    assert (memo.stat().st_mode & 0o777) == 0o600


def test_after_ten_minutes_it_is_said_in_full_again(inited):
    assert _record(inited) == FULL
    _age(inited, 9 * 60 + 5)
    err = _record(inited)
    assert _short(err) and "said in full 9 minutes ago)" in err  # (still inside the window)
    _age(inited, 56)
    assert _record(inited) == FULL  # ten minutes and a second: in full, and remembered anew
    assert _short(_record(inited))
    # a time to come (a clock set back, a file written by hand) is not "lately"
    _age(inited, -3600)
    assert _record(inited) == FULL


def test_a_missing_or_untrustworthy_memo_means_the_hint_in_full(inited, tmp_path):
    assert _record(inited) == FULL
    memo = _memo(inited)
    good = memo.read_bytes()
    memo.unlink()
    assert _record(inited) == FULL  # missing
    assert _short(_record(inited))

    def planted(data: bytes, mode: int = 0o600) -> None:
        memo.unlink()
        memo.write_bytes(data)
        memo.chmod(mode)

    for data in (b"", good.rstrip(b"\n"), b"junk\n", good.replace(b" ", b"  "), good.upper(), b"\xff" + good):
        planted(data)  # malformed: in full, never an error
        assert _record(inited) == FULL, data
    planted(good, 0o644)  # not 0600
    assert _record(inited) == FULL
    planted(good, 0o400)  # (read-only to its owner is not 0600 either)
    assert _record(inited) == FULL
    # a symbolic link to a well-formed memo elsewhere: in full, and the file it names is left alone
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(good)
    elsewhere.chmod(0o600)
    memo.unlink()
    memo.symlink_to(elsewhere)
    assert _record(inited) == FULL
    assert elsewhere.read_bytes() == good and not memo.is_symlink()
    # a memo that cannot be written (a directory in its place, as a read-only disk refuses it):
    # in full every time, and the write goes on
    memo.unlink()
    memo.mkdir()
    assert _record(inited) == FULL
    assert _record(inited) == FULL
    assert memo.is_dir() and not os.listdir(memo)


_NO_HINT = r'''
import os, sys
from git_hn.cli.main import main
code = main(["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "quiet"])
print(code, "git_hn.store.hints_said" in sys.modules, file=sys.stderr)
'''


def test_a_write_with_no_hint_never_touches_the_memo(inited):
    """A trusted actor, everything pushed (here: no remote): no hint, so the memo is neither read
    nor written, nor is its module loaded; one said earlier stays as it was."""
    assert hn(inited, "policy", "init").code == 0
    git(inited, "add", ".hn/policy.json")
    git(inited, "commit", "-q", "-m", "trust")
    proc = subprocess.run([sys.executable, "-c", _NO_HINT], cwd=inited, capture_output=True, text=True)
    assert proc.stderr == "0 False\n" and not _memo(inited).exists(), proc.stderr
    # a memo in place (said for an untrusted write earlier) is left exactly as it is
    memo = _memo(inited)
    memo.write_bytes(b"1 " + b"0" * 64 + b"\n")
    memo.chmod(0o600)
    before = os.lstat(memo)
    os.utime(memo, ns=(before.st_atime_ns - 10**9, before.st_mtime_ns - 10**9))
    before = os.lstat(memo)
    proc = subprocess.run([sys.executable, "-c", _NO_HINT], cwd=inited, capture_output=True, text=True)
    assert proc.stderr == "0 False\n", proc.stderr
    after = os.lstat(memo)
    assert (after.st_ino, after.st_mtime_ns, after.st_atime_ns) == (before.st_ino, before.st_mtime_ns,
                                                                     before.st_atime_ns)
    assert memo.read_bytes() == b"1 " + b"0" * 64 + b"\n"


NO_SELECTION_SYNC = ("git-hn: hint: no replication selection is saved for origin, so this sync imported every stream "
                     "it advertises; git hn replication select --memory sha256:<stream> (or --all) saves one, which "
                     "the fetch hook follows too\n")
NO_SELECTION_RECALL = ("git-hn: hint: nothing matched; no replication selection is saved here, so a fetch imports no "
                       "memory; choose what to import with git hn replication select --all (or --memory "
                       "sha256:<stream>), then git hn sync\n")
NO_SELECTION_LOG = ("git-hn: hint: no memory here yet: record one with git hn memory record; no replication "
                    "selection is saved here, so a fetch imports no memory; choose what to import with git hn "
                    "replication select --all (or --memory sha256:<stream>), then git hn sync\n")


def _team(tmp_path):
    """Alice published a memory to a bare remote (a real push with her hooks installed); Bob
    cloned it, with an identity and the hooks, and no replication selection: (alice, bob)."""
    from helpers import shared_remote, wait_publication

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "hooks", "install").code == 0
    _publish(alice, "a.txt", wait_publication)
    return alice, bob


def _publish(alice, name: str, wait) -> None:
    """A commit and a memory on it, pushed: the pre-push hook publishes the memory."""
    (Path(alice) / name).write_text(name)
    git(alice, "add", name)
    git(alice, "commit", "-q", "-m", name)
    _record(alice)
    git(alice, "push", "-q", "origin", "main")
    wait(alice)


def test_a_burst_of_empty_recalls_and_logs_says_no_selection_in_full_once_then_shorter(tmp_path):
    """A newcomer's (or an agent's) clone with no selection: each empty recall, and each empty
    log, repeated the whole hint; now once in full, then one shorter line that keeps what is so
    and the way out."""
    _alice, bob = _team(tmp_path)
    git(bob, "pull", "-q")  # (a real fetch with the hooks installed: it imports nothing, no selection)
    recall = hn(bob, "memory", "recall", "--query", "lexer")
    assert recall.code == 0 and recall.err == NO_SELECTION_RECALL, recall.err
    for _ in range(2):
        again = hn(bob, "memory", "recall", "--query", "lexer").err
        assert _short(again, "git-hn: hint: nothing matched; still no replication selection is saved here, so a "
                      "fetch imports no memory (git hn replication select --all or --memory sha256:<stream>, then "
                      "git hn sync; said in full "), again
    log = hn(bob, "memory", "log")
    assert log.code == 0 and log.err == NO_SELECTION_LOG, log.err  # (its own text: in full once too)
    again = hn(bob, "memory", "log").err
    assert _short(again, "git-hn: hint: no memory here yet, and still no replication selection is saved here, so a "
                  "fetch imports no memory (git hn replication select --all or --memory sha256:<stream>, then git "
                  "hn sync, imports the team's; to add your own, record one with git hn memory record; said in "
                  "full "), again
    _age(bob, 601)  # (ten minutes on: in full again)
    assert hn(bob, "memory", "recall", "--query", "lexer").err == NO_SELECTION_RECALL
    # once a selection is saved, neither is said
    assert hn(bob, "replication", "select", "--all").code == 0
    assert "no replication selection" not in hn(bob, "memory", "recall", "--query", "lexer").err


def test_a_burst_of_syncs_without_a_selection_says_it_in_full_once_then_shorter(tmp_path):
    from helpers import wait_publication

    alice, bob = _team(tmp_path)
    first = hn(bob, "sync")
    assert first.code == 0 and first.err == NO_SELECTION_SYNC, first.err
    _publish(alice, "b.txt", wait_publication)  # (more to import: the next sync says it again)
    second = hn(bob, "sync")
    assert second.code == 0 and "imported 1 memory" in second.out, second.out
    assert _short(second.err, "git-hn: hint: still no replication selection is saved for origin, so this sync "
                  "imported every stream it advertises (git hn replication select --all, or --memory "
                  "sha256:<stream>, saves one; said in full "), second.err
    # another remote's line is another text: in full
    git(bob, "remote", "add", "team", git(bob, "remote", "get-url", "origin"))
    _publish(alice, "c.txt", wait_publication)
    other = hn(bob, "sync", "team")
    assert other.code == 0 and other.err == NO_SELECTION_SYNC.replace("for origin", "for team").replace(
        "select --memory", "select team --memory"), other.err
