"""Anchors a push took off a remote, remembered until they are back (replication/lost.py,
docs/decisions.md 2b): which memories count, what the reminder asks for, and when the record
ends. Real repositories, real bare remotes, real ``git push`` with the hooks installed."""

from __future__ import annotations

import subprocess

from helpers import actor_of, git, hn, shared_remote, wait_publication


def _commit(repo, name):
    (repo / f"{name}.txt").write_text(f"{name}\n")
    git(repo, "add", f"{name}.txt")
    git(repo, "commit", "-q", "-m", name)
    return git(repo, "rev-parse", "HEAD")


def _record(repo, content, at="HEAD") -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", at, "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _push(repo, *args):
    proc = subprocess.run(["git", "push", "-q", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    return proc


def _records(repo):
    return [p.name for p in (repo / ".git" / "hn" / "replication").iterdir() if p.name.startswith("lost-")]


def _bobs_branch_accepted_by_alice(tmp_path, key: str, value: str):
    """Bob (hooks installed) publishes a memory on his pushed branch ``bobs``; Alice (hooks
    installed, ``git config KEY VALUE``) selects all, fetches and syncs it: (remote, alice,
    bob, the branch's commit, the memory)."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(a, "hooks", "install").code == 0
    assert hn(b, "hooks", "install").code == 0
    git(b, "checkout", "-q", "-b", "bobs")
    c = _commit(b, "bobs")
    mem = _record(b, "Bob's, on his branch")
    _push(b, "origin", "bobs")
    git(a, "config", key, value)
    assert hn(a, "replication", "select", "--all").code == 0
    git(a, "fetch", "-q", "origin")
    assert hn(a, "sync").code == 0
    return remote, a, b, c, mem


def test_only_a_remote_that_holds_the_memory_is_warned_of_and_reminded(tmp_path):
    """An audit: a remote publication is off for (hnPublish false) got the warning and every
    later reminder though no memory was ever published there, and so did a remote that never
    received the memory. Only what the remote holds counts."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    for name in ("deploy", "mirror"):
        git(tmp_path, "init", "-q", "--bare", str(tmp_path / f"{name}.git"))
        git(a, "remote", "add", name, str(tmp_path / f"{name}.git"))
    git(a, "config", "remote.deploy.hnPublish", "false")
    git(a, "checkout", "-q", "-b", "feature")
    c1 = _commit(a, "c1")
    mem = _record(a, "published at c1, to origin only")
    _push(a, "origin", "feature")
    _push(a, "deploy", "feature")
    _push(a, "--no-verify", "mirror", "feature")  # (no hook: the memory never reaches mirror)
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    for name in ("deploy", "mirror"):
        assert git(tmp_path / f"{name}.git", "for-each-ref", "refs/hn") == ""
    git(a, "commit", "-q", "--amend", "-m", "c1 amended")
    for name in ("deploy", "mirror"):
        forced = _push(a, "-f", name, "feature")
        assert forced.stderr == "", forced.stderr
    assert _records(a) == []
    forced = _push(a, "-f", "origin", "feature")  # origin holds it: said, and remembered
    assert forced.stderr.startswith(f"git-hn: this push takes commit {c1[:12]} off origin, and memory "
                                    f"{mem['memoryId'][7:19]} of {actor_of(a)[:12]} (\"Alice\", a self-chosen name) is anchored on it"), \
        forced.stderr
    assert len(_records(a)) == 1


def test_a_teammates_memory_accepted_from_the_remote_counts(tmp_path):
    """What the remote holds includes the memories accepted from it: deleting a branch there
    that a teammate's memory is anchored on still warns (and is remembered), publication off or
    not (a remote one only reads from)."""
    _remote, a, b, c, mem = _bobs_branch_accepted_by_alice(tmp_path, "remote.origin.hnPublish", "false")
    assert hn(a, "memory", "show", mem["memoryId"]).code == 0
    deleted = _push(a, "origin", "--delete", "bobs")
    # (a team trial: the one deleting a teammate's branch was not told whose memories they are)
    assert deleted.stderr.startswith(f"git-hn: this push takes commit {c[:12]} off origin, and memory "
                                     f"{mem['memoryId'][7:19]} of {actor_of(b)[:12]} (\"Bob\", a self-chosen name) is anchored on it"), \
        deleted.stderr
    assert len(_records(a)) == 1


def test_the_reminder_for_several_commits_puts_them_all_back_in_one_push(tmp_path):
    """An audit: the reminder for several commits named one; following it put back that one,
    and the next push asked for the next. Its command pushes the commits that contain them all:
    the newest of one line of history, or the tip of each line."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    c1 = _commit(a, "c1")
    m1 = _record(a, "on c1")
    c2 = _commit(a, "c2")
    _record(a, "on c2")
    _push(a, "origin", "feature")
    git(a, "checkout", "-q", "main")
    _commit(a, "base moved")
    _push(a, "origin", "main")
    git(a, "checkout", "-q", "feature")
    git(a, "rebase", "-q", "main")
    forced = _push(a, "-f", "origin", "feature")
    assert "this push takes 2 commits off origin" in forced.stderr, forced.stderr
    git(a, "checkout", "-q", "main")
    _commit(a, "later")
    later = _push(a, "origin", "main")
    advice = f"git push origin {c2}:refs/heads/hn-anchor/{c2[:12]}"
    assert later.stderr == (f"git-hn: 2 commits (first: {c1[:12]}), which memory {m1['memoryId'][7:19]} and others are "
                            "anchored on, are no longer on any branch of origin (a force-push, or a branch deleted or squash-merged "
                            "there): whoever imports their "
                            f"streams from origin stops there; a clone that has them puts them back with {advice}; only if "
                            "they were taken off on purpose (a secret), git hn replication forget-anchors origin "
                            "COMMIT... ends the reminder (with no COMMIT, for all of them), and importers still stop "
                            "at those memories\n")
    _push(a, *advice.split()[2:])
    assert _push(a, "origin", "main").stderr == ""
    assert "Anchors of origin" not in hn(a, "sync").out and _records(a) == []
    # two lines of history, each taken off: one command with both tips
    d1 = _commit(a, "d1")
    _record(a, "on d1")
    git(a, "checkout", "-q", "-b", "other", "HEAD~1")
    e1 = _commit(a, "e1")
    _record(a, "on e1")
    git(a, "checkout", "-q", "main")
    _push(a, "origin", "main", "other", "feature")
    git(a, "reset", "-q", "--hard", "HEAD~1")
    _push(a, "-f", "origin", "main")
    _push(a, "origin", "--delete", "other")
    synced = hn(a, "sync")
    keep = f"{d1}:refs/heads/hn-anchor/{d1[:12]} {e1}:refs/heads/hn-anchor/{e1[:12]}"
    assert f"a clone that has them puts them back with git push origin {keep}" in synced.out, synced.out
    _push(a, "origin", *keep.split())
    assert "Anchors of origin" not in hn(a, "sync").out and _records(a) == []
    assert git(remote, "rev-parse", f"refs/heads/hn-anchor/{e1[:12]}") == e1


def test_two_processes_remembering_at_once_lose_nothing(tmp_path):
    """An audit: the record was read, changed and written with no lock; two processes
    remembering 100 commits each left 166 of the 200. Each change holds the record's lock."""
    import sys

    _remote, (a,) = shared_remote(tmp_path, "Alice")
    code = ("import hashlib, sys, time\n"
            "from git_hn.store.repo import open_repo\n"
            "from git_hn.service.replication import lost\n"
            "repo = open_repo('.')\n"
            "while time.time() < float(sys.argv[2]):\n"
            "    pass\n"
            "for i in range(100):\n"
            "    c = hashlib.sha1(f'{sys.argv[1]}{i}'.encode()).hexdigest()\n"
            "    lost.remember(repo, 'origin', [('sha256:' + 'ab' * 32, c)])\n")
    import time

    start = str(time.time() + 2)
    procs = [subprocess.Popen([sys.executable, "-c", code, tag, start], cwd=a) for tag in "xy"]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    (record,) = _records(a)
    lines = (a / ".git" / "hn" / "replication" / record).read_text().splitlines()
    assert len([line for line in lines if not line.startswith("url ")]) == 200


def test_the_record_follows_the_remotes_url_not_its_name(tmp_path):
    """An audit: after ``git remote remove origin`` and ``git remote add origin`` with another
    server, the old reminder named the unrelated one. The record keeps (a digest of) the URL
    it was made for, and a record of another URL is dropped."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    c1 = _commit(a, "c1")
    _record(a, "on c1")
    _push(a, "origin", "feature")
    assert f"takes commit {c1[:12]} off origin" in _push(a, "origin", "--delete", "feature").stderr
    assert f"Anchors of origin: commit {c1[:12]}" in hn(a, "sync").out
    other = tmp_path / "other.git"
    git(a, "init", "-q", "--bare", str(other))
    git(a, "remote", "remove", "origin")
    git(a, "remote", "add", "origin", str(other))
    git(a, "checkout", "-q", "main")
    assert _push(a, "origin", "main").stderr == ""
    assert "Anchors of origin" not in hn(a, "sync").out
    assert _records(a) == []


def test_a_followed_reminder_ends_where_no_tracking_ref_follows_the_anchor_branch(tmp_path):
    """An audit: on a remote whose fetch refspecs never map ``hn-anchor/*`` (a push-only or
    single-branch remote), the next push still reminded after the user ran the command. A push
    that creates such a branch is noted, and the next push or sync asks the remote whether it
    landed; a dry run keeps nothing."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    git(a, "config", "--replace-all", "remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/main")
    c1 = _commit(a, "c1")
    mem = _record(a, "on c1")
    _push(a, "origin", "main")
    assert git(remote, "for-each-ref", "refs/hn") != ""
    git(a, "reset", "-q", "--hard", "HEAD~1")
    _commit(a, "c1 again")
    assert f"takes commit {c1[:12]} off origin, and memory {mem['memoryId'][7:19]}" in _push(a, "-f", "origin", "main").stderr
    _commit(a, "later")
    advice = f"git push origin {c1}:refs/heads/hn-anchor/{c1[:12]}"
    assert advice in _push(a, "origin", "main").stderr
    _push(a, "--dry-run", *advice.split()[2:])
    _commit(a, "later still")
    assert advice in _push(a, "origin", "main").stderr  # (a dry run put nothing back)
    _push(a, *advice.split()[2:])
    _commit(a, "after the keep")
    assert _push(a, "origin", "main").stderr == ""
    assert _records(a) == []


def test_block_mode_refuses_a_push_that_takes_an_anchor_off(tmp_path):
    """A team trial: with ``git config hn.prePush block`` a force-push (or a deleted branch) that
    took a published memory's anchor off the remote still went through, with a warning only, and
    the warning did not say whose memory it was. Now the push is refused, in one line naming the
    author and the ways out; nothing moved, so nothing is remembered. The keeping push it names
    lets the same push through."""
    remote, a, b, c, mem = _bobs_branch_accepted_by_alice(tmp_path, "hn.prePush", "block")
    before = git(remote, "for-each-ref")
    proc = subprocess.run(["git", "push", "-q", "origin", "--delete", "bobs"], cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert proc.returncode != 0
    keep = f"git push origin {c}:refs/heads/hn-anchor/{c[:12]}"
    assert proc.stderr.splitlines()[0] == (
        f"git-hn: this push takes commit {c[:12]} off origin, and memory {mem['memoryId'][7:19]} of {actor_of(b)[:12]} "
        f"(\"Bob\", a self-chosen name) is anchored on it: whoever imports its stream from origin stops there until the "
        f"commit is back; push it there first: {keep}; only if it goes on purpose (a secret): git -c "
        f"hn.prePush=warn push --force-with-lease=refs/heads/bobs:{c} origin :refs/heads/bobs repeats this push with "
        "a warning instead"), proc.stderr
    assert git(remote, "for-each-ref") == before
    assert _records(a) == []
    _push(a, *keep.split()[2:])
    _push(a, "origin", "--delete", "bobs")
    assert git(remote, "rev-parse", f"refs/heads/hn-anchor/{c[:12]}") == c


def test_a_refused_push_publishes_nothing_and_its_way_out_is_about_the_anchor(tmp_path):
    """A review: the block-mode refusal of a push that takes an anchor off ended "to push the code
    without publishing memory: git config hn.prePush warn ... or git push --no-verify", which is
    not what it refused (and --no-verify skips the team's own pre-push checks too); and memory that
    could be published was pushed before the push was refused. A refusal changes nothing: no
    memory goes; its way out repeats the push with a warning, and works as said."""
    remote, a, _b, c, _mem = _bobs_branch_accepted_by_alice(tmp_path, "hn.prePush", "block")
    mine = _record(a, "Alice's, on main")  # (publishable: main is on the remote)
    ref = f"refs/hn/memory/{mine['actor']}/{mine['stream'][7:]}"
    proc = subprocess.run(["git", "push", "-q", "origin", "--delete", "bobs"], cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert proc.returncode != 0
    assert git(remote, "rev-parse", "--verify", "-q", ref, check=False) == ""  # (not even Alice's, on main)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("git-hn:")]
    way_out = f"git -c hn.prePush=warn push --force-with-lease=refs/heads/bobs:{c} origin :refs/heads/bobs"
    assert len(lines) == 1 and lines[0].endswith(
        f"; only if it goes on purpose (a secret): {way_out} repeats this push with a "
        "warning instead"), proc.stderr
    assert "--no-verify" not in proc.stderr and "publishing memory" not in proc.stderr
    assert git(remote, "rev-parse", "bobs") == c
    # pasted as printed (a review: "push ..." was a placeholder, which Git took for a remote)
    anyway = subprocess.run(way_out, shell=True, cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert anyway.returncode == 0, anyway.stderr
    assert anyway.stderr.startswith(f"git-hn: this push takes commit {c[:12]} off origin"), anyway.stderr
    assert git(remote, "rev-parse", "--verify", "-q", "bobs", check=False) == ""
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)  # (published with the push that went)
    assert _records(a)  # (remembered: later pushes remind)


def _published_then_amended(tmp_path):
    """Alice (hooks installed) published a memory on commit c1 of branch feature, then amended
    c1 (not pushed yet): (remote, her clone, c1, the memory)."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    c1 = _commit(a, "c1")
    mem = _record(a, "published at c1")
    _push(a, "origin", "feature")
    git(a, "commit", "-q", "--amend", "-m", "c1 amended")
    return remote, a, c1, mem


def test_the_takes_off_line_names_ids_by_12_characters_and_its_command_still_works(tmp_path):
    """A team trial: "pre-push 'takes … off' line prints full IDs": a 71-character memory ID and
    a 40-character commit, then the command's, made one unreadable line. The line names the
    memory and the commit by 12 characters, as the held-back publication lines do; its command
    keeps full commit IDs, and pasted as printed it puts the commit back on the remote."""
    remote, a, c1, mem = _published_then_amended(tmp_path)
    line = _push(a, "-f", "origin", "feature").stderr.splitlines()[0]
    said, _also, command = line.partition("; to keep it there, also ")
    assert said.startswith(f"git-hn: this push takes commit {c1[:12]} off origin, and memory {mem['memoryId'][7:19]} "), \
        line
    assert c1 not in said and mem["memoryId"][7:] not in said and mem["memoryId"][7:19] in said, line
    assert command == f"git push origin {c1}:refs/heads/hn-anchor/{c1[:12]}", line
    subprocess.run(command, shell=True, cwd=a, check=True, capture_output=True)
    assert git(remote, "rev-parse", f"refs/heads/hn-anchor/{c1[:12]}") == c1


def test_the_reminder_names_ids_by_12_characters_and_its_command_still_works(tmp_path):
    """A review: the reminder later pushes and syncs print named the commit and the memory by
    their full IDs (40 and 71 characters), while the pre-push "takes ... off" line names them by
    12. So does the reminder now; its command keeps the full commit ID, and pasted as printed it
    puts the commit back and ends the reminder."""
    remote, a, c1, mem = _published_then_amended(tmp_path)
    _push(a, "-f", "origin", "feature")
    _commit(a, "later")
    line = _push(a, "origin", "feature").stderr.splitlines()[0]
    said, _sp, command = line.partition(" puts it back with ")
    assert said.startswith(f"git-hn: commit {c1[:12]}, which memory {mem['memoryId'][7:19]} is anchored on, "), line
    assert c1 not in said and mem["memoryId"][7:] not in said, line
    assert command.startswith(f"git push origin {c1}:refs/heads/hn-anchor/{c1[:12]}; "), line
    synced = next(x for x in hn(a, "sync").out.splitlines() if x.startswith("Anchors of origin: "))
    assert c1 not in synced.partition(" puts it back with ")[0] and f"commit {c1[:12]}," in synced, synced
    subprocess.run(command.split(";")[0], shell=True, cwd=a, check=True, capture_output=True)
    assert git(remote, "rev-parse", f"refs/heads/hn-anchor/{c1[:12]}") == c1
    assert "Anchors of origin" not in hn(a, "sync").out


def test_the_block_refusals_way_out_of_a_force_push_works_pasted_as_printed(tmp_path):
    """A review: the way out ended "git -c hn.prePush=warn push ... repeats this push", whose
    "..." Git took for a remote when pasted. It names the remote and each ref as sent (leased on
    what the push expected there: a ``+`` could reset a teammate's later push), shell-quoted, and
    pasted as printed it makes the same push."""
    remote, a, c1, _mem = _published_then_amended(tmp_path)
    git(a, "config", "hn.prePush", "block")
    head = git(a, "rev-parse", "HEAD")
    proc = subprocess.run(["git", "push", "-q", "-f", "origin", "feature"], cwd=a, capture_output=True, text=True)
    assert proc.returncode != 0 and git(remote, "rev-parse", "feature") == c1, proc.stderr
    line = next(line for line in proc.stderr.splitlines() if line.startswith("git-hn:"))
    command = line.rsplit("only if it goes on purpose (a secret): ", 1)[1]
    assert command == (f"git -c hn.prePush=warn push --force-with-lease=refs/heads/feature:{c1} origin "
                       f"{head}:refs/heads/feature repeats this push with a warning instead"), line
    pasted = subprocess.run(command.split(" repeats ")[0], shell=True, cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert pasted.returncode == 0, pasted.stderr
    assert git(remote, "rev-parse", "feature") == head


def test_a_teammates_keep_push_ends_the_reminder_before_a_fetch(tmp_path):
    """A team trial: Bob pushed ``hn-anchor/<commit>``; Alice, not fetched since, pushed again and
    her pre-push said the commit "is no longer on any branch of origin" and told her to push it,
    though it was there (the line went after a ``git fetch``). The push asks the remote for its
    branches before saying it."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    c1 = _commit(a, "c1")
    _record(a, "published at c1")
    _push(a, "origin", "feature")
    git(b, "fetch", "-q", "origin")
    git(a, "commit", "-q", "--amend", "-m", "c1 amended")
    _push(a, "-f", "origin", "feature")
    _push(b, "origin", f"{c1}:refs/heads/hn-anchor/{c1[:12]}")
    _commit(a, "later")
    said = _push(a, "origin", "feature").stderr
    assert "no longer on any branch" not in said, said
    assert _records(a) == []


def test_a_reminder_the_remote_could_not_confirm_says_as_of_the_last_fetch(tmp_path):
    """The same trial: where the remote is not asked (two push URLs: which one would answer?),
    the reminder says it is as of the last fetch, not as a fact about the remote now."""
    remote, a, c1, _mem = _published_then_amended(tmp_path)
    _push(a, "-f", "origin", "feature")
    git(tmp_path, "clone", "-q", "--bare", str(remote), str(tmp_path / "backup.git"))
    git(a, "config", "--add", "remote.origin.pushurl", str(remote))
    git(a, "config", "--add", "remote.origin.pushurl", str(tmp_path / "backup.git"))
    _commit(a, "later")
    said = _push(a, "origin", "feature").stderr
    assert f"is no longer on any branch of origin as of your last fetch of origin (" in said, said


def test_a_push_that_puts_a_lost_anchor_back_on_an_ordinary_branch_does_not_remind_of_it(tmp_path):
    """A review: after a force-push took an anchor off, ``git push origin C:refs/heads/feature-
    restored`` (an ordinary branch, not the reminder's ``hn-anchor/*``) still said, on that same
    push, that C "is no longer on any branch of origin ... put it back": the reminder looked at the
    remote as it was before the push. What the push itself puts on a branch is left out, and the
    next push, the branch being there, says nothing either."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    assert hn(a, "replication", "select", "--all").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    c1 = _commit(a, "c1")
    _record(a, "published at c1")
    _push(a, "origin", "feature")
    git(a, "commit", "-q", "--amend", "-m", "c1 amended")
    _push(a, "-f", "origin", "feature")
    assert len(_records(a)) == 1
    kept = _push(a, "origin", f"{c1}:refs/heads/feature-restored")
    assert "no longer on any branch" not in kept.stderr and "put it back" not in kept.stderr, kept.stderr
    git(a, "checkout", "-q", "-b", "later")
    _commit(a, "later")
    later = _push(a, "origin", "later")
    assert "no longer on any branch" not in later.stderr, later.stderr


def test_a_lost_anchor_this_clone_no_longer_has_is_fetched_by_id_then_put_back(tmp_path):
    """A team trial: the author squash-merged a feature, deleted its branch there and here, and
    ``git gc`` pruned the commit its published memory names. The reminder said ``a clone that
    has it puts it back with git push origin C:…``, which fails here (``fatal: bad object``). It
    now says the commit is not in this clone either and fetches it by ID first (the server still
    holds the object); pasted as printed it puts the commit back and the reminder ends. For when
    no one has it, forgetting is named."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    c = _commit(a, "feature")
    mem = _record(a, "on the feature")
    _push(a, "origin", "feature")
    git(a, "checkout", "-q", "main")
    git(a, "merge", "-q", "--squash", "feature")
    git(a, "commit", "-q", "-m", "feature (squashed)")
    _push(a, "origin", "main")
    _push(a, "origin", "--delete", "feature")
    git(a, "branch", "-q", "-D", "feature")
    git(a, "reflog", "expire", "--expire=now", "--all")
    git(a, "gc", "-q", "--prune=now")
    assert subprocess.run(["git", "cat-file", "-e", c], cwd=a).returncode != 0
    line = next(x for x in hn(a, "sync").out.splitlines() if x.startswith("Anchors of origin: "))
    assert f"commit {c[:12]}, which memory {mem['memoryId'][7:19]} is anchored on" in line, line
    said, _sp, rest = line.partition("; it is not in this clone either: ")
    command, _sp, after = rest.partition(" puts it back if origin still has the object")
    assert command == f"git fetch origin {c} && git push origin {c}:refs/heads/hn-anchor/{c[:12]}", line
    assert f"if no one has it, or it was taken off on purpose (a secret), git hn replication forget-anchors origin {c[:12]}" in after
    subprocess.run(command, shell=True, cwd=a, check=True, capture_output=True)
    assert git(remote, "rev-parse", f"refs/heads/hn-anchor/{c[:12]}") == c
    assert "Anchors of origin" not in hn(a, "sync").out and _records(a) == []


def test_a_single_branch_clone_is_told_to_track_the_hn_anchor_branches_that_keep_its_anchors(tmp_path):
    """A trial: a single-branch clone (``git clone --depth 1``, even after ``--unshallow``)
    never fetches the remote's ``hn-anchor/*`` branches, so each sync named one missing commit
    per stream, each to be fetched by ID. When a missing anchor is the tip of such a branch, sync
    and the fetch hook say so and give the command that tracks them all; pasted as printed, the
    next sync imports."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    git(a, "checkout", "-q", "-b", "feature")
    c = _commit(a, "feature")
    _record(a, "on the feature")
    _push(a, "origin", "feature")
    assert hn(a, "sync").code == 0
    git(a, "checkout", "-q", "main")
    git(a, "merge", "-q", "--squash", "feature")
    git(a, "commit", "-q", "-m", "feature (squashed)")
    _push(a, "origin", "main", f"{c}:refs/heads/hn-anchor/{c[:12]}")
    _push(a, "origin", "--delete", "feature")
    s = tmp_path / "single"
    git(tmp_path, "clone", "-q", "--single-branch", remote.as_uri(), str(s))  # (a path's clone copies every object)
    assert hn(s, "init", "--name", "Sam").code == 0
    assert hn(s, "hooks", "install").code == 0
    assert hn(s, "replication", "select", "--all").code == 0
    command = ("git remote set-branches --add origin 'hn-anchor/*' && git fetch origin brings it and every anchor "
               "kept so (then git hn sync origin again)")
    r = hn(s, "sync")
    assert r.code == 1
    line = next(x for x in r.out.splitlines() if x.startswith(f"Commit {c} is not here"))
    assert line.endswith(f": origin's branch hn-anchor/{c[:12]} keeps it, and this clone does not fetch origin's "
                         f"hn-anchor/* branches (a single-branch clone?): {command}"), line
    _commit(a, "later")
    _push(a, "origin", "main")
    fetched = subprocess.run(["git", "fetch", "origin"], cwd=s, capture_output=True, text=True)
    said = [x for x in fetched.stderr.splitlines() if x.startswith("git-hn: ")]
    assert len(said) == 1 and f"commit {c[:12]}: origin's branch hn-anchor/{c[:12]} keeps it" in said[0], said
    assert command in said[0], said
    subprocess.run(command.split(" brings it")[0], shell=True, cwd=s, check=True, capture_output=True)
    assert hn(s, "sync").code == 0
