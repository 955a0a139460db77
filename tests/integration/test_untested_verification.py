"""The post-rewrite hook's lines for an unpublished verification it left on the commit it tested
(service/reanchor.py ``untested_lines``; docs/decisions.md, F85 and F93): every command a line
gives runs as given, in the order of the lines, and what a line says happens next is what
happens. Real repositories, a real bare remote, real ``git commit --amend``, ``git rebase`` and
``git push`` with the hooks installed."""

from __future__ import annotations

import hashlib
import re
import shlex
import subprocess

from helpers import commit_on, git, hn, shared_remote, wait_publication

SUBJECT = "issue:sha256:" + hashlib.sha256(b"https://example.com/1").hexdigest()


def _run(repo, *args) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    return proc


def _verify(repo, content, *extra, at="HEAD", applies="exact", evidence=None) -> dict:
    commit = git(repo, "rev-parse", at)
    r = hn(repo, "memory", "record", "--json", "--kind", "verification", "--at", commit, "--applies", applies,
           *extra, *[x for c in (evidence or [commit]) for x in ("--evidence", f"git:{c}")], "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _lines(stderr: str) -> list[str]:
    return [x for x in stderr.splitlines() if x.startswith("git-hn: left unpublished verification")]


def _command(line: str, start: str, end: str) -> str:
    """The command of ``line`` that begins with ``start`` and ends before `` end``."""
    found = re.search(re.escape(start) + r".*?(?= " + re.escape(end) + ")", line)
    assert found, (start, line)
    return found.group(0)


def _hn(repo, command: str, **filled) -> dict | None:
    """Run ``command`` (``git hn …``, as a line gives it) with its placeholders filled."""
    for name, value in filled.items():
        command = command.replace(name, shlex.quote(value))
    for one in command.split(" && "):
        words = shlex.split(one)
        assert words[:2] == ["git", "hn"], one
        r = hn(repo, *words[2:], "--json")
        assert r.code == 0, (one, r.err)
    return r.json() if r.out.strip() else None


def _shown(repo, memory: str) -> dict:
    return hn(repo, "memory", "show", memory, "--json").json()["projection"]


def test_a_verification_whose_tested_commit_is_on_the_remote_offers_no_drop_and_says_it_is_published_there(tmp_path):
    """A review (F93, finding 1): the branch was pushed, a verification recorded on its tip, and
    the branch rebased onto a moved main. The line offered ``reanchor OLD --drop``, refused
    ("origin/feat holds it"), and said the stream waits for OLD, while the next sync published
    it there. The line now checks what holds OLD, as ``--drop`` does, and says so: the next sync
    publishes it on OLD, where it was tested; after a force-push takes OLD off the remote, the
    ``--drop`` it names then works."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    old = commit_on(alice, "feat", "f.txt")
    _run(alice, "push", "-q", "-u", "origin", "feat")
    tested = _verify(alice, "tests pass", applies="descendants")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    commit_on(other, None, "o.txt")
    git(other, "push", "-q", "origin", "main")
    git(alice, "fetch", "-q", "origin")
    rebased = _run(alice, "rebase", "-q", "origin/main")
    new = git(alice, "rev-parse", "HEAD")
    line, = _lines(rebased.stderr)
    short = tested["memoryId"][7:19]
    assert line.startswith(f"git-hn: left unpublished verification {short} of yours on {old[:12]}, where it was "
                           f"signed: this rebase replaced {old[:12]} with {new[:12]}, which has another tree"), line
    assert (f"{old[:12]} is not discarded (origin/feat holds it), so the push or git hn sync that finds it on the "
            f"remote publishes {short} there, where it was tested") in line, line
    assert f"--drop discards {short} (its stream" not in line and "published only once" not in line, line
    assert f"git hn memory reanchor {old} --drop" in line  # (named for later: refused now, as the line says)
    assert hn(alice, "memory", "reanchor", old, "--drop").code == 1
    # what it says: the next sync publishes it there, on the commit it tested
    synced = hn(alice, "sync", "--json").json()
    assert synced.get("heldBack", []) == [] and synced["published"], synced
    # and the record command, run as given once tested, signs the new result on NEW
    done = _hn(alice, _command(line, "git hn memory record ", "records the result"), TEXT="tests pass on the rebase")
    assert (_shown(alice, done["memoryId"])["anchor"]["commit"], _shown(alice, done["memoryId"])["data"]["evidence"]) \
        == (new, [f"git:{new}"])


def test_after_a_force_push_takes_the_tested_commit_off_the_remote_its_drop_works(tmp_path):
    """The other half of the line above: a force-push of the rebased branch before any sync
    (the usual review flow) leaves the verification waiting for OLD, and the ``--drop`` the line
    names discards it then, as it says."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    commit_on(alice, "feat", "f.txt")
    _run(alice, "push", "-q", "-u", "origin", "feat")
    old = git(alice, "rev-parse", "HEAD")
    tested = _verify(alice, "tests pass")
    (alice / "f.txt").write_text("changed\n")
    git(alice, "add", "f.txt")
    amended = _run(alice, "commit", "-q", "--amend", "--no-edit")
    line, = _lines(amended.stderr)
    assert "is not discarded (origin/feat holds it)" in line, line
    drop = _command(line, f"git hn memory reanchor {old} --drop", "discards it)")
    _run(alice, "push", "-q", "-f", "origin", "feat")
    assert _hn(alice, drop) is not None
    assert hn(alice, "memory", "show", tested["memoryId"]).code == 1


def test_the_record_command_of_each_mode_runs_as_given_and_keeps_the_subject_paths_and_topics(tmp_path):
    """A review (F93, finding 2): the line's ``record`` named only ``--applies MODE``: refused
    for ``subject`` ("--applies subject needs --subject ID"), and an ``exact --path m.txt``
    verification came back as a whole-commit one, its topics gone. Each mode's command, run as
    given (TEXT filled in), signs the same subject, paths and topics at the amended commit."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    (alice / "m.txt").write_text("1\n")
    (alice / "n.txt").write_text("1\n")
    git(alice, "add", "m.txt", "n.txt")
    git(alice, "commit", "-q", "-m", "m")
    made = {"exact": _verify(alice, "exact passes", "--path", "m.txt", "--path", "n.txt", "--topic", "cache"),
            "descendants": _verify(alice, "descendants pass", "--topic", "ci", applies="descendants"),
            "subject": _verify(alice, "subject passes", "--subject", SUBJECT, applies="subject")}
    (alice / "m.txt").write_text("2\n")
    git(alice, "add", "m.txt")
    amended = _run(alice, "commit", "-q", "--amend", "--no-edit")
    new = git(alice, "rev-parse", "HEAD")
    lines = _lines(amended.stderr)
    assert len(lines) == 3, amended.stderr
    for mode, line in zip(made, lines):
        old = _shown(alice, made[mode]["memoryId"]) if mode == "exact" else None  # (first: not signed again)
        done = _hn(alice, _command(line, "git hn memory record ", "records the result"), TEXT=f"{mode} again")
        got = _shown(alice, done["memoryId"])["data"]
        assert got["anchor"]["commit"] == new and got["evidence"] == [f"git:{new}"], got
        assert got["applicability"]["mode"] == mode, got
        if mode == "exact":
            assert [p["path"] for p in got["anchor"]["paths"]] == ["m.txt", "n.txt"], got
            assert [p["path"] for p in old["data"]["anchor"]["paths"]] == ["m.txt", "n.txt"]
            assert got["topics"] == ["cache"], got
        if mode == "descendants":
            assert got["topics"] == ["ci"] and not got["anchor"].get("paths"), got
        if mode == "subject":
            assert got["anchor"]["subject"] == SUBJECT == got["applicability"]["subject"], got


def test_a_verification_naming_two_squashed_commits_is_carried_whole_by_the_command_given(tmp_path):
    """A review (F93, finding 3): a verification on B citing A and B, B then squashed into A
    (``fixup``). The line named A alone, and its ``reanchor A NEW`` left the anchor on the gone
    B, the stream held. The line names both pairs, and its carry command moves both: anchor and
    evidence on NEW, and a push holds nothing back."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    first = commit_on(alice, None, "a.txt")
    second = commit_on(alice, None, "b.txt")
    tested = _verify(alice, "tests pass at A and B", applies="descendants", evidence=[first, second])
    squashed = subprocess.run(["git", "rebase", "-q", "-i", "HEAD~2"], cwd=alice, capture_output=True, text=True,
                              env={**__import__("os").environ, "GIT_SEQUENCE_EDITOR": "sed -i '2s/^pick/fixup/'"})
    assert squashed.returncode == 0, squashed.stderr
    new = git(alice, "rev-parse", "HEAD")
    line, = _lines(squashed.stderr)
    assert (f"this rebase replaced the commits it names ({second[:12]} -> {new[:12]}, {first[:12]} -> {new[:12]}), "
            f"{first[:12]} with another tree") in line, line
    carry = line.split("holds on the new tree, ", 1)[1].split(" carries it instead")[0]
    assert carry == f"git hn memory reanchor {second} {new} && git hn memory reanchor {first} {new}", line
    _hn(alice, carry)
    got = [m for m in hn(alice, "memory", "recall", "--include-untrusted", "--json").json()["memories"]
           if m["data"]["kind"] == "verification"]
    assert [(m["anchor"]["commit"], m["data"]["evidence"]) for m in got] == [(new, [f"git:{new}"])], got
    assert got[0]["id"] != tested["memoryId"]
    pushed = _run(alice, "push", "-q", "origin", "main")
    assert "waits" not in pushed.stderr, pushed.stderr
    assert hn(alice, "sync", "--json").json().get("heldBack", []) == []


def test_the_lines_of_several_verifications_run_in_their_order_and_publish_the_stream(tmp_path):
    """A review (F93, finding 3): with several held, the line said "the same for each of the
    others, with the commits it names", naming neither their commits nor that their IDs change
    after the first ``--drop``. Each now has its line (two of one commit: the second says the
    first one's ``--drop`` discards it too), the last says the IDs change and the commands do
    not; the record and drop commands of every line, run as given in their order, leave a stream
    that a push publishes whole."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    git(alice, "checkout", "-q", "-b", "feat")
    one = commit_on(alice, None, "f1.txt")
    first = _verify(alice, "f1 tested")
    also = _verify(alice, "f1 linted")
    two = commit_on(alice, None, "f2.txt")
    second = _verify(alice, "f2 tested")
    git(alice, "checkout", "-q", "main")
    commit_on(alice, None, "moved.txt")
    git(alice, "checkout", "-q", "feat")
    rebased = _run(alice, "rebase", "-q", "main")
    lines = _lines(rebased.stderr)
    assert len(lines) == 3, rebased.stderr
    assert [f" {one[:12]}, where" in lines[0], f" {one[:12]}, where" in lines[1], f" {two[:12]}, where" in lines[2]] \
        == [True] * 3, lines
    assert f"git hn memory reanchor {one} --drop discards " in lines[0]
    assert f"git hn memory reanchor {one} --drop, above, discards " in lines[1]
    assert "the carry above moves it too" in lines[1]
    assert lines[2].endswith("the IDs named here change (git hn memory show OLD-ID names the new one), but the "
                             "commands name commits and run as given in this order"), lines[2]
    assert "the same for each of the others" not in rebased.stderr
    for n, line in enumerate(lines):
        _hn(alice, _command(line, "git hn memory record ", "records the result"), TEXT=f"retested {n}")
        if "--drop discards" in line:
            _hn(alice, _command(line, "git hn memory reanchor ", "discards"))
    for gone in (first, also, second):
        assert hn(alice, "memory", "show", gone["memoryId"]).code == 1
    logged = hn(alice, "memory", "log", "--json").json()["memories"]
    assert sorted(m["summary"] for m in logged) == ["retested 0", "retested 1", "retested 2"], logged
    pushed = _run(alice, "push", "-q", "-u", "origin", "feat")
    assert "waits" not in pushed.stderr, pushed.stderr
    assert hn(alice, "sync", "--json").json().get("heldBack", []) == []


def test_the_lines_of_several_held_verifications_ask_what_holds_their_commits_once(tmp_path):
    """A reread: the post-rewrite hook asked what holds each left verification's commit on its
    own (``git worktree list``, a ``rev-list`` and a ``name-rev`` walk per kind of ref, for every
    verification). Three verifications on three pushed commits, rebased: one ``worktree list``
    and at most one ``name-rev`` per kind of ref (branches, remote-tracking refs, tags), and each
    line still names the ref that holds its commit."""
    import os

    from helpers import git_processes

    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    git(alice, "checkout", "-q", "-b", "feat")
    tested = []
    for name in ("f1.txt", "f2.txt", "f3.txt"):
        tested.append(commit_on(alice, None, name))
    _run(alice, "push", "-q", "-u", "origin", "feat")
    for commit in tested:  # (after the push: unpublished, on commits origin/feat holds)
        _verify(alice, f"{commit} tested", at=commit)
    git(alice, "checkout", "-q", "main")
    commit_on(alice, None, "moved.txt")
    git(alice, "checkout", "-q", "feat")
    trace = tmp_path / "trace"
    trace.mkdir()
    rebased = subprocess.run(["git", "rebase", "-q", "main"], cwd=alice, capture_output=True, text=True,
                             env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    wait_publication(alice)
    assert rebased.returncode == 0, rebased.stderr
    lines = _lines(rebased.stderr)
    assert len(lines) == 3, rebased.stderr
    for commit, line in zip(tested, lines):
        assert f"{commit[:12]} is not discarded (origin/feat holds it)" in line, line
    runs = git_processes(trace)
    assert sum(argv[:2] == ["worktree", "list"] for argv in runs) == 1, runs
    assert sum(argv[:1] == ["name-rev"] for argv in runs) <= 3, [a for a in runs if a[:1] == ["name-rev"]]
