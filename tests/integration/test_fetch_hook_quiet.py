"""The fetch hook's quiet record (issue 11): once git-hn's import from a remote found every
selected stream up to date, a fetch whose answers are unchanged starts no git-hn; any change in
what the import reads starts it again, and it imports what changed. Real repositories, real
``git fetch`` through the installed wrapper; the wrapper's git-hn is a logging shim that runs the
real one, so each test sees exactly when git-hn was started."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from git_hn.store.replication import QUIET_MAGIC, quiet_input
from helpers import git, hn, make_repo, wait_publication


def _push(repo, *args):
    proc = subprocess.run(["git", "push", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr


class Team:
    """``a`` publishes memory to ``origin``; ``b`` imports it through its fetch hook, whose git-hn
    logs each start to ``log``."""

    def __init__(self, tmp_path: Path, object_format: str = "sha1"):
        self.remote = tmp_path / "remote.git"
        git(tmp_path, "init", "-q", "--bare", f"--object-format={object_format}", str(self.remote))
        self.a = make_repo(tmp_path / "a", object_format=object_format)
        git(self.a, "remote", "add", "origin", str(self.remote))
        git(self.a, "push", "-q", "-u", "origin", "main")
        self.b = tmp_path / "b"
        git(tmp_path, "clone", "-q", str(self.remote), str(self.b))
        for repo, name in ((self.a, "A"), (self.b, "B")):
            assert hn(repo, "init", "--name", name).code == 0
            assert hn(repo, "hooks", "install").code == 0, name
        self.log = tmp_path / "runs"
        shim = tmp_path / "git-hn-logged"
        wrapper = self.b / ".git" / "hooks" / "reference-transaction"
        recorded = next(line.split("=", 1)[1] for line in wrapper.read_text().splitlines()
                        if line.strip().startswith("recorded="))
        shim.write_text(f'#!/bin/sh\necho "$*" >> {self.log}\nexec {recorded} "$@"\n')
        os.chmod(shim, 0o755)
        wrapper.write_text(wrapper.read_text().replace(f"recorded={recorded}", f"recorded={shim}"))
        self.quiet = self.b / ".git" / "hn" / "replication" / "quiet" / "b3JpZ2lu"  # origin's

    def add_remote(self, name: str, path: Path) -> None:
        """A second remote of ``b``: a bare copy of ``origin`` (branches and memory refs)."""
        git(path.parent, "clone", "-q", "--mirror", str(self.remote), str(path))
        git(self.b, "remote", "add", name, str(path))
        git(self.b, "fetch", "-q", name)

    def record(self, content: str) -> dict:
        rec = hn(self.a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD",
                 "--applies", "descendants", "--content", content).json()
        assert hn(self.a, "sync", "origin").code == 0
        return rec

    def runs(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0

    def moved_fetch(self, remote: str = "origin", url: Path | None = None) -> subprocess.CompletedProcess:
        """A fetch that moves ``<remote>/main`` (and so runs the hook); ``url``: where that
        remote is, when it is not ``origin``."""
        git(self.a, "commit", "-q", "--allow-empty", "-m", "moves the remote's main")
        _push(self.a, str(url) if url else "origin", "main")
        proc = subprocess.run(["git", "fetch", remote], cwd=self.b, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert git(self.b, "rev-parse", f"{remote}/main") == git(self.a, "rev-parse", "main")
        return proc

    def accepted(self, rec: dict) -> str:
        return git(self.b, "rev-parse", "--verify", "--quiet",
                   f"refs/hn/remotes/origin/memory/{rec['actor']}/{rec['stream'][7:]}", check=False)

    def quiet_with_all(self) -> dict:
        """A memory recorded by ``a``, imported by ``b`` with an ``--all`` selection, then a quiet
        record; returns the memory."""
        rec = self.record("first")
        assert hn(self.b, "replication", "select", "origin", "--all").code == 0
        self.moved_fetch()
        self.quiet_after_two_fetches()
        return rec

    def quiet_after_two_fetches(self) -> None:
        """Bring ``b`` to a quiet record: the one its last import left when it promoted every
        stream whole, else a fetch with git-hn that finds nothing to import; the fetch after it
        starts no git-hn."""
        before = self.runs()
        self.moved_fetch()
        assert self.runs() <= before + 1 and self.quiet.exists()
        before = self.runs()
        self.moved_fetch()
        assert self.runs() == before  # quiet: git-hn not started


@pytest.fixture
def team(tmp_path):
    return Team(tmp_path)


def test_a_fetch_that_changes_nothing_git_hn_reads_starts_no_git_hn(team):
    rec = team.record("first")
    assert hn(team.b, "replication", "select", "origin", "--all").code == 0
    proc = team.moved_fetch()
    assert team.runs() == 1 and team.accepted(rec) == git(team.a, "rev-parse", f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}")
    assert team.quiet.exists()  # it promoted every stream whole: the next fetch that brings none is quiet
    # (the accepted refs' listing it hashes is the one before the fetch with the promotions applied,
    # ``quiet.promoted_listing``: Git's own listing now, byte for byte)
    assert team.quiet.read_text().splitlines()[4] == _answers_id(team)
    assert "git-hn" not in proc.stderr
    team.quiet_after_two_fetches()
    lines = team.quiet.read_text().splitlines()
    assert lines[:2] == [QUIET_MAGIC, "origin"] and lines[3] == str(team.remote)
    assert lines[4] == _answers_id(team)  # the object ID of exactly what git-hn read
    assert hn(team.b, "memory", "index", "verify").code == 0


def _answers_id(team) -> str:
    """The object ID of what git-hn's import of ``origin`` reads now, computed here independently
    of git-hn (``store.replication.quiet_input``'s layout)."""
    adv = subprocess.run(["git", "ls-remote", "--refs", "--", str(team.remote), "refs/hn/*"], cwd=team.b,
                         capture_output=True, check=True).stdout
    listing = subprocess.run(["git", "for-each-ref", "--format=%(objectname) %(refname)",
                              "refs/hn/remotes/origin/memory/"], cwd=team.b, capture_output=True,
                             check=True).stdout
    selection = (team.b / ".git" / "hn" / "replication" / "selections" / "b3JpZ2lu.json").read_bytes()
    data = quiet_input(str(team.remote), adv, listing, selection)
    return subprocess.run(["git", "hash-object", "--stdin"], cwd=team.b, input=data, capture_output=True,
                          check=True).stdout.decode().strip()


def test_a_new_memory_on_the_remote_is_imported_by_the_next_fetch(team):
    team.quiet_with_all()
    runs = team.runs()
    second = team.record("second")
    tip = git(team.a, "rev-parse", f"refs/hn/memory/{second['actor']}/{second['stream'][7:]}")
    assert team.accepted(second) != tip
    team.moved_fetch()
    assert team.runs() == runs + 1
    assert team.accepted(second) == tip
    assert team.quiet.exists()  # (renewed by that import: ``test_a_fetch_after_one_that_imported_…``)


def test_a_lost_accepted_ref_starts_git_hn_which_imports_it_again(team):
    rec = team.quiet_with_all()
    tip = team.accepted(rec)
    git(team.b, "update-ref", "-d", f"refs/hn/remotes/origin/memory/{rec['actor']}/{rec['stream'][7:]}")
    runs = team.runs()
    assert runs == team.runs()  # deleting a memory ref moves no remote-tracking ref: no git-hn
    team.moved_fetch()
    assert team.runs() == runs + 1 and team.accepted(rec) == tip


@pytest.mark.parametrize("change", ["selection", "url", "anchor", "record", "symlinked-selection"])
def test_anything_else_git_hn_reads_starting_it_again(team, tmp_path, change):
    rec = team.quiet_with_all()
    runs = team.runs()
    replication = team.b / ".git" / "hn" / "replication"
    if change == "selection":
        assert hn(team.b, "replication", "select", "origin", "--memory", rec["stream"]).code == 0
    elif change == "url":  # the same repository by another spelling: only git-hn may approve it
        git(team.b, "remote", "set-url", "origin", "file://" + str(team.remote))
    elif change == "anchor":  # an interrupted import: git-hn repairs it first
        (replication / "anchors" / ("txn-" + "0" * 24 + ".json")).write_text("{}")
    elif change == "record":
        team.quiet.write_text(team.quiet.read_text().replace(QUIET_MAGIC, "hn-quiet/9"))
    else:
        name = team.quiet.read_text().splitlines()[2]
        target = tmp_path / "selection-copy.json"
        sel = replication / "selections" / name
        target.write_bytes(sel.read_bytes())
        sel.unlink()
        sel.symlink_to(target)
    proc = team.moved_fetch()
    assert team.runs() == runs + 1, change
    if change == "symlinked-selection":  # git-hn refuses it and says so; the wrapper never decides
        assert "git-hn: memory import from origin failed" in proc.stderr


def test_an_unreachable_remote_starts_git_hn_which_reports_it(team, tmp_path):
    team.quiet_with_all()
    runs = team.runs()
    team.remote.rename(tmp_path / "gone.git")
    # a transaction that moves a remote-tracking ref while the remote cannot answer
    head = git(team.b, "rev-parse", "HEAD")
    proc = subprocess.run(["git", "update-ref", "refs/remotes/origin/elsewhere", head], cwd=team.b,
                          capture_output=True, text=True)
    assert proc.returncode == 0
    assert team.runs() == runs + 1
    assert "git-hn: memory import from origin failed: " in proc.stderr and "; run git hn sync origin" in proc.stderr


def test_a_transaction_that_moves_two_remotes_starts_git_hn(team, tmp_path):
    team.quiet_with_all()
    runs = team.runs()
    head = git(team.b, "rev-parse", "HEAD")
    git(team.b, "update-ref", "--stdin",
        input=f"create refs/remotes/origin/x {head}\ncreate refs/remotes/other/x {head}\n".encode())
    assert team.runs() == runs + 1
    runs += 1
    git(team.b, "update-ref", "refs/remotes/origin/y", head)  # origin alone, unchanged: quiet
    assert team.runs() == runs


def test_sha256_repositories_are_quiet_too(tmp_path):
    team = Team(tmp_path, object_format="sha256")
    team.quiet_with_all()
    assert len(team.quiet.read_text().splitlines()[4]) == 64


def test_a_selection_of_exact_streams_also_gets_a_quiet_record(team):
    """``git hn sync`` fetches such a selection by name (no advertisement); the fetch hook's
    import reads the advertisement anyway, so that a fetch that brings nothing leaves the
    record and the fetches after it start no git-hn; a new memory on that stream is imported."""
    rec = team.record("first")
    assert hn(team.b, "replication", "select", "origin", "--memory", rec["stream"]).code == 0
    owners = team.b / ".git" / "hn" / "replication" / "owners"
    assert owners.is_dir() and any(owners.iterdir())  # the owner is known: sync would fetch by name
    team.moved_fetch()
    assert team.runs() == 1 and team.accepted(rec)
    team.quiet_after_two_fetches()
    runs = team.runs()
    second = hn(team.a, "memory", "supersede", rec["memoryId"], "--json", "--kind", "decision", "--at", "HEAD",
                "--applies", "descendants", "--content", "second").json()
    assert hn(team.a, "sync", "origin").code == 0
    tip = git(team.a, "rev-parse", f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}")
    assert second["stream"] == rec["stream"] and team.accepted(rec) != tip
    team.moved_fetch()
    assert team.runs() == runs + 1 and team.accepted(rec) == tip
    assert hn(team.b, "memory", "index", "verify").code == 0


def test_a_sync_by_name_that_finds_nothing_new_keeps_the_quiet_record(team):
    """``git hn sync`` fetches a selection of exact streams by name, without the advertisement
    the record hashes. When every selected stream is up to date it changes nothing the record
    describes, so it leaves the record and the next fetch still starts no git-hn (it used to drop
    it, and the next fetch ran git-hn only to find nothing). A sync by name that imports
    something drops it (the accepted refs it hashes moved), as does one that publishes (the
    advertisement moved)."""
    rec = team.record("first")
    assert hn(team.b, "replication", "select", "origin", "--memory", rec["stream"]).code == 0
    team.moved_fetch()
    team.quiet_after_two_fetches()
    runs = team.runs()
    record = team.quiet.read_text()
    r = hn(team.b, "sync", "origin", "--json")
    assert r.code == 0, r.err
    assert r.json()["outcomes"][0]["status"] == "up-to-date" and r.json()["published"] == 0
    assert team.quiet.read_text() == record
    team.moved_fetch()
    assert team.runs() == runs  # quiet: git-hn not started
    assert hn(team.a, "memory", "supersede", rec["memoryId"], "--kind", "decision", "--at", "HEAD",
              "--applies", "descendants", "--content", "second").code == 0
    assert hn(team.a, "sync", "origin").code == 0
    r = hn(team.b, "sync", "origin", "--json")
    assert r.code == 0 and r.json()["promoted"] == 1, r.out
    assert not team.quiet.exists()
    team.moved_fetch()  # git-hn finds it up to date and records it again
    assert team.runs() == runs + 1 and team.quiet.exists()
    assert hn(team.b, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "from b").code == 0
    r = hn(team.b, "sync", "origin", "--json")
    assert r.code == 0 and r.json()["published"] == 1, r.out
    assert not team.quiet.exists()
    assert hn(team.b, "memory", "index", "verify").code == 0


def test_a_remote_without_a_selection_starts_no_git_hn(team, tmp_path):
    """The usual second remote of a fork: ``origin`` has a selection, ``upstream`` none. A fetch
    from ``upstream`` has nothing to import, and the wrapper knows it without git-hn (it finds
    that remote's selection file by name); ``origin`` still imports as before."""
    rec = team.record("first")
    assert hn(team.b, "replication", "select", "origin", "--all").code == 0
    upstream = tmp_path / "upstream.git"
    team.add_remote("upstream", upstream)
    runs = team.runs()
    for _ in range(2):
        proc = team.moved_fetch("upstream", upstream)
        assert team.runs() == runs and "git-hn" not in proc.stderr
    assert not team.accepted(rec)  # nothing imported from upstream (it selects nothing)
    team.moved_fetch()
    assert team.runs() == runs + 1 and team.accepted(rec)  # origin: imported by git-hn
    assert hn(team.b, "replication", "select", "upstream", "--all").code == 0
    team.moved_fetch("upstream", upstream)  # selected now: git-hn imports from it
    assert team.runs() == runs + 2
    assert git(team.b, "rev-parse", "--verify", "--quiet",
               f"refs/hn/remotes/upstream/memory/{rec['actor']}/{rec['stream'][7:]}", check=False)


def test_two_selected_remotes_fetched_in_turn_both_stay_quiet(team, tmp_path):
    """One quiet record per remote: an import from one remote leaves the other's record, so
    fetching two remotes in turn starts git-hn only until each found itself up to date; a new
    memory on one of them is imported by its next fetch, and the other stays quiet."""
    team.quiet_with_all()
    mirror = tmp_path / "mirror.git"
    team.add_remote("mirror", mirror)
    assert hn(team.b, "replication", "select", "mirror", "--all").code == 0
    quiet_dir = team.quiet.parent
    mirror_record = quiet_dir / "bWlycm9y"  # "mirror" in unpadded URL-safe base64
    runs = team.runs()
    team.moved_fetch("mirror", mirror)  # imports (its accepted refs were empty): leaves mirror's record
    assert team.runs() == runs + 1 and mirror_record.exists() and team.quiet.exists()
    for remote, url in (("origin", None), ("mirror", mirror), ("origin", None), ("mirror", mirror)):
        team.moved_fetch(remote, url)
    assert team.runs() == runs + 1  # in turn, neither starts git-hn
    assert mirror_record.read_text().splitlines()[1:3] == ["mirror", "bWlycm9y.json"]
    second = team.record("second")  # published to origin only
    team.moved_fetch()
    assert team.runs() == runs + 2 and team.accepted(second)
    assert mirror_record.exists()  # origin's import left mirror's record alone
    team.moved_fetch("mirror", mirror)
    assert team.runs() == runs + 2


def test_the_single_record_of_earlier_versions_is_removed(team):
    """Earlier versions kept one record for the whole repository at ``hn/replication/quiet``,
    where the records' directory now is: the next import removes it and records per remote."""
    team.record("first")
    assert hn(team.b, "replication", "select", "origin", "--all").code == 0
    team.moved_fetch()
    legacy = team.quiet.parent
    shutil.rmtree(legacy) if legacy.is_dir() else None  # (the record and this fetch's stamp)
    legacy.write_text(f"{QUIET_MAGIC}\norigin\nb3JpZ2lu.json\n{team.remote}\n{'0' * 40}\n")
    runs = team.runs()
    team.moved_fetch()  # the old file is no record for the wrapper: git-hn runs and replaces it
    assert team.runs() == runs + 1 and legacy.is_dir() and team.quiet.exists()
    team.moved_fetch()
    assert team.runs() == runs + 1


def test_publishing_by_push_keeps_the_next_fetch_quiet(team):
    """A push publishes the pusher's new memory in the background, which changes the
    advertisement the pusher's quiet record hashes. The publisher then runs the fetch hook's
    import itself (it finds nothing to import), which renews the record: the pusher's next fetch
    starts no git-hn."""
    team.quiet_with_all()
    runs = team.runs()
    mine = hn(team.b, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD",
              "--applies", "descendants", "--content", "from b").json()
    ref = f"refs/hn/memory/{mine['actor']}/{mine['stream'][7:]}"
    _push(team.b, "origin", "HEAD:refs/heads/b-work")  # its pre-push hook publishes in the background
    assert git(team.b, "ls-remote", str(team.remote), ref).split()[0] == git(team.b, "rev-parse", ref)
    assert team.runs() == runs  # the push's own remote-tracking update found the record current
    team.moved_fetch()
    assert team.runs() == runs  # quiet: the publisher renewed the record
    assert team.quiet.exists()
    assert hn(team.b, "memory", "index", "verify").code == 0


def test_a_push_s_own_remote_tracking_update_starts_no_import(team):
    """A push moves ``refs/remotes/origin/*`` to what it pushed: that brings nothing to import,
    and git-hn's pre-push hook noted it, so the wrapper skips it without even the quiet check's
    round trip (here the record no longer matches, so the check would start git-hn). Any other
    transaction on the same refs still goes through the check."""
    team.quiet_with_all()
    team.quiet.write_text(team.quiet.read_text().replace(QUIET_MAGIC, "hn-quiet/9"))  # would not match
    runs = team.runs()
    git(team.b, "commit", "-q", "--allow-empty", "-m", "b's work")
    _push(team.b, "origin", "HEAD:refs/heads/b-work")
    head = git(team.b, "rev-parse", "HEAD")
    assert git(team.b, "rev-parse", "refs/remotes/origin/b-work") == head
    assert team.runs() == runs  # the push's own update: no git-hn
    note = team.b / ".git" / "hn" / "replication" / "pushing" / "b3JpZ2lu"
    pid, pushed = note.read_text().splitlines()
    assert pid.isdigit() and head in pushed.split(" ")
    git(team.b, "update-ref", "refs/remotes/origin/elsewhere", head)  # another process, same commit
    assert team.runs() == runs + 1


def test_a_push_pre_push_left_no_note_for_starts_no_import(team):
    """A team trial: while a selected stream failed to import, every ``git push --no-verify``
    and every push with nothing to push (pre-push ran with no line, so its note names nothing)
    ran the whole import and said its failure, though a push brings nothing to import. The
    wrapper knows a push by the command line of the Git process running it (Git's own options
    before ``push`` too); any other Git command moving the same refs still starts git-hn."""
    team.quiet_with_all()
    team.quiet.write_text(team.quiet.read_text().replace(QUIET_MAGIC, "hn-quiet/9"))  # would not match
    runs = team.runs()
    git(team.b, "commit", "-q", "--allow-empty", "-m", "b's work")
    for args in (["push", "--no-verify", "origin", "HEAD:refs/heads/b-work"],
                 ["push", "origin", "HEAD:refs/heads/b-work"],  # nothing to push: an empty note
                 ["-c", "push.default=simple", "-C", str(team.b), "--no-pager", "push", "--no-verify",
                  "origin", "HEAD:refs/heads/b-work"]):
        proc = subprocess.run(["git", *args], cwd=team.b, capture_output=True, text=True)
        wait_publication(team.b)
        assert proc.returncode == 0 and "git-hn" not in proc.stderr, proc.stderr
        assert team.runs() == runs, args
    assert git(team.b, "rev-parse", "refs/remotes/origin/b-work") == git(team.b, "rev-parse", "HEAD")
    git(team.b, "update-ref", "refs/remotes/origin/elsewhere", "HEAD")  # not a push: git-hn runs
    assert team.runs() == runs + 1


def test_pruning_remote_tracking_branches_starts_nothing(team, capsys):
    """``git fetch --prune`` deletes each stale remote-tracking branch in a transaction of its
    own; a deletion brings nothing to import, so none of them starts git-hn, nor the quiet
    check's round trip (measured: 50 pruned branches took 2.2 s with the hooks, 57 ms without).
    With the quiet record removed, any transaction the wrapper took for a change would start
    git-hn; git-hn itself skips a deletion the same way."""
    from git_hn.service.fetch_hook import run_reference_transaction
    from git_hn.store.repo import open_repo

    team.quiet_with_all()
    branches = [f"topic-{i}" for i in range(4)]
    for name in branches:
        git(team.a, "branch", name)
    _push(team.a, "origin", *branches)
    proc = subprocess.run(["git", "fetch", "origin"], cwd=team.b, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    _push(team.a, "origin", *[f":{name}" for name in branches])
    team.quiet.unlink()
    runs = team.runs()
    proc = subprocess.run(["git", "fetch", "--prune", "origin"], cwd=team.b, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    left = git(team.b, "for-each-ref", "--format=%(refname)", "refs/remotes/origin/")
    assert not [name for name in branches if f"refs/remotes/origin/{name}" in left.split()]
    assert team.runs() == runs
    # a fetch that moves a branch still starts it (there is no quiet record now)
    team.moved_fetch()
    assert team.runs() == runs + 1
    # git-hn itself, handed a deletion (a chained manager may call it directly): no import, so
    # not even an unreachable remote is reported
    team.remote.rename(team.remote.with_name("gone.git"))
    zero = "0" * 40
    head = git(team.b, "rev-parse", "HEAD")
    line = f"{head} {zero} refs/remotes/origin/{branches[0]}\n".encode()
    assert run_reference_transaction(open_repo(str(team.b)), "committed", line) == 0
    assert "memory import" not in capsys.readouterr().err
    assert run_reference_transaction(open_repo(str(team.b)), "committed",
                                     f"{zero} {head} refs/remotes/origin/{branches[0]}\n".encode()) == 0
    err = capsys.readouterr().err
    assert "git-hn: memory import from origin failed: " in err and "; run git hn sync origin" in err


def _fetch_asking(team, tmp_path) -> tuple[list[str], str]:
    """``git fetch origin`` in ``b`` (it must succeed), traced: (the ``git ls-remote`` lines of the
    trace, each a question to the remote, the wrapper's or git-hn's; the fetch's stderr)."""
    trace = tmp_path / "trace"
    proc = subprocess.run(["git", "fetch", "origin"], cwd=team.b, capture_output=True, text=True,
                          env={**os.environ, "GIT_TRACE": str(trace)})
    assert proc.returncode == 0, proc.stderr
    return [line for line in trace.read_text().splitlines() if "git ls-remote" in line], proc.stderr


def test_a_fetch_of_many_new_branches_asks_the_remote_once(team, tmp_path):
    """An audit: Git 2.39 gives each ref a fetch updates a transaction of its own, and with a
    quiet record each ran its own ``git ls-remote`` (100 new branches over a 300 ms link: 0.72 s
    without the hook, 66.8 s with it); a hostile teammate's 100,000 branches made everyone's next
    fetch take hours. The remote is asked once per fetch, and git-hn started at most once."""
    team.quiet_with_all()
    runs = team.runs()
    names = [f"many-{i}" for i in range(50)]
    for name in names:
        git(team.a, "branch", name)
    _push(team.a, "origin", *names)
    asked, stderr = _fetch_asking(team, tmp_path)
    assert len(git(team.b, "for-each-ref", "refs/remotes/origin/many-*").splitlines()) == 50
    assert len(asked) <= 1, asked
    assert team.runs() <= runs + 1
    # a later fetch (another Git process) asks again: the stamp is this fetch's only
    team.moved_fetch()
    assert team.quiet.exists() and team.runs() <= runs + 1


def test_many_new_branches_without_a_quiet_record_start_git_hn_once(team, tmp_path):
    """Without a quiet record the first transaction starts git-hn, whose import serves the whole
    fetch: the later ones start nothing."""
    team.quiet_with_all()
    team.quiet.unlink()
    runs = team.runs()
    names = [f"more-{i}" for i in range(20)]
    for name in names:
        git(team.a, "branch", name)
    _push(team.a, "origin", *names)
    asked, stderr = _fetch_asking(team, tmp_path)
    assert team.runs() == runs + 1
    assert len(asked) <= 1, asked  # (git-hn's own import's, if any: the wrapper asks nothing more)


def test_a_teammates_force_push_is_checked_despite_the_quiet_record(team):
    """An audit: with a quiet record a fetch never checked for a teammate's force-push (the
    record hashes memory refs only), so the author of a memory whose anchor it took off the
    remote was not told. A tracking ref that moved off a commit makes the wrapper start git-hn."""
    x, _mine = _b_publishes_and_is_quiet(team)
    git(team.a, "fetch", "-q", "origin")
    git(team.a, "reset", "-q", "--hard", f"{x}~1")
    git(team.a, "commit", "-q", "--allow-empty", "-m", "a's rewrite without X")
    _push(team.a, "--force", "origin", "main")
    proc = subprocess.run(["git", "fetch", "origin"], cwd=team.b, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "git-hn: Anchors of origin: commit " + x[:12] in proc.stderr, proc.stderr


def _b_publishes_and_is_quiet(team) -> tuple[str, dict]:
    """``b`` (a quiet record for origin) publishes a memory on its commit X of main, and is quiet
    again; (X, the memory)."""
    team.quiet_with_all()
    git(team.b, "pull", "-q", "origin", "main")
    git(team.b, "commit", "-q", "--allow-empty", "-m", "b's commit X")
    x = git(team.b, "rev-parse", "HEAD")
    mine = hn(team.b, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD",
              "--applies", "descendants", "--content", "b's decision on X").json()
    _push(team.b, "origin", "main")
    ref = f"refs/hn/memory/{mine['actor']}/{mine['stream'][7:]}"
    assert git(team.b, "ls-remote", str(team.remote), ref).split()[0] == git(team.b, "rev-parse", ref)
    git(team.b, "fetch", "-q", "origin")  # (quiet again)
    assert team.quiet.exists()
    return x, mine


def _force_push_branches(team, names: list[str], base: str = "origin/main") -> None:
    """``a`` pushes ``names`` (a commit on ``base``; ``b`` fetches them), then force-pushes each
    to another commit on ``base``."""
    git(team.a, "fetch", "-q", "origin")
    git(team.a, "checkout", "-q", "-b", "side", base)
    git(team.a, "commit", "-q", "--allow-empty", "-m", "y")
    for name in names:
        git(team.a, "branch", "-f", name)
    _push(team.a, "origin", *names)
    git(team.b, "fetch", "-q", "origin")
    git(team.a, "reset", "-q", "--hard", "HEAD~1")
    git(team.a, "commit", "-q", "--allow-empty", "-m", "y2")
    for name in names:
        git(team.a, "branch", "-f", name)
    _push(team.a, "--force", "origin", *names)
    git(team.a, "checkout", "-q", "main")


def test_many_force_pushed_branches_start_git_hn_once_and_ask_the_remote_once(team, tmp_path):
    """A review: in a clone that published, each force-pushed branch of a quiet fetch started
    git-hn, whose whole import asked the remote again (40 branches: 40 starts, 41 ``ls-remote``,
    2.96 s against 0.02 s without the hooks). One start for the fetch, which only checks what
    left the tracking refs (``quiet``: no import, the remote not asked again)."""
    _b_publishes_and_is_quiet(team)
    names = [f"forced-{i}" for i in range(15)]
    _force_push_branches(team, names)
    runs = team.runs()
    asked, stderr = _fetch_asking(team, tmp_path)
    assert git(team.b, "rev-parse", "origin/forced-3") == git(team.a, "rev-parse", "forced-3")
    started = team.log.read_text().splitlines()[runs:]
    assert started == ["hooks run reference-transaction committed quiet"], started
    assert len(asked) == 1, asked  # (the wrapper's quiet check)
    assert "git-hn" not in stderr, stderr  # (nothing of b's left)


def test_force_pushed_branches_after_an_import_start_no_check_when_nothing_of_ours_left(team, tmp_path):
    """Without a quiet record the first transaction's import serves the whole fetch: its later
    force-pushed refs start nothing when no anchor of this clone's publications left with them
    (each started a whole import before, with its round trip; then one check of what left). Once
    that list is gone, the first of them starts one check of what left (as before the list), and
    the rest nothing."""
    _b_publishes_and_is_quiet(team)
    names = [f"forced-{i}" for i in range(8)]
    _force_push_branches(team, names)
    team.quiet.unlink()
    runs = team.runs()
    asked, stderr = _fetch_asking(team, tmp_path)
    assert team.log.read_text().splitlines()[runs:] == ["hooks run reference-transaction committed"]
    assert len(asked) <= 1, asked  # (the import's)
    published = team.b / ".git" / "hn" / "replication" / "published" / "b3JpZ2lu"
    assert published.read_text().startswith("hn-published/0\n")
    git(team.a, "branch", "-q", "-D", "side")
    _force_push_branches(team, [f"again-{i}" for i in range(8)])
    team.quiet.unlink(missing_ok=True)
    published.unlink()
    published.mkdir()  # (no list that can be read or written: as before the list existed)
    runs = team.runs()
    asked, stderr = _fetch_asking(team, tmp_path)
    assert team.log.read_text().splitlines()[runs:] == ["hooks run reference-transaction committed",
                                                       "hooks run reference-transaction committed quiet"]


def test_a_fetch_that_imports_and_takes_an_anchor_off_says_so(team):
    """A review: a fetch whose first ref's transaction imported new memory, and whose later ref
    (main, force-pushed) took b's published anchor off the remote, said nothing (the import's
    check ran before main moved, and the import's stamp made main's transaction start nothing).
    After an import a later force-pushed ref still starts one check of what left."""
    x, _mine = _b_publishes_and_is_quiet(team)
    git(team.a, "fetch", "-q", "origin")
    git(team.a, "reset", "-q", "--hard", f"{x}~1")
    git(team.a, "commit", "-q", "--allow-empty", "-m", "a's rewrite without X")
    git(team.a, "branch", "-f", "feature")
    team.record("new memory from a")  # (the remote is not quiet any more: the fetch imports)
    _push(team.a, "--force", "origin", "main", "feature")
    git(team.b, "checkout", "-q", "--detach")  # (no branch merged: feature's update comes first)
    runs = team.runs()
    proc = subprocess.run(["git", "fetch", "origin"], cwd=team.b, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert team.log.read_text().splitlines()[runs:] == ["hooks run reference-transaction committed",
                                                       "hooks run reference-transaction committed quiet"]
    assert "git-hn: Anchors of origin: commit " + x[:12] in proc.stderr, proc.stderr


def test_an_anchor_a_later_ref_of_the_fetch_took_off_is_said_at_fetch_time(team):
    """Git 2.39 updates a fetch's refs one transaction each (the branch merged into the current
    one first, then in name order). A review: git-hn's check for the first force-pushed ref
    (aaa-forced) left the ``checked`` stamp, and main's transaction, later in the same fetch,
    which took b's published anchor off, started nothing: nobody said it at fetch time. The
    wrapper finds b's anchor among the commits main left (``tracked.note_published``'s list) and
    starts one more check, which says it."""
    x, _mine = _b_publishes_and_is_quiet(team)
    _force_push_branches(team, ["aaa-forced"], base=f"{x}~1")
    git(team.a, "fetch", "-q", "origin")
    git(team.a, "reset", "-q", "--hard", f"{x}~1")
    git(team.a, "commit", "-q", "--allow-empty", "-m", "a's rewrite without X")
    _push(team.a, "--force", "origin", "main")
    git(team.b, "checkout", "-q", "--detach")  # (no branch merged: main's update comes after aaa-forced's)
    runs = team.runs()
    proc = subprocess.run(["git", "fetch", "origin"], cwd=team.b, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert team.log.read_text().splitlines()[runs:] == ["hooks run reference-transaction committed quiet"] * 2
    assert "git-hn: Anchors of origin: commit " + x[:12] in proc.stderr, proc.stderr


def test_one_fetch_says_each_anchor_of_ours_once(team):
    """A review: b published a memory on each of x1..x3; a force-pushed them all back to main
    (after f1..f6, which hold nothing of b's). The check for x1 asked the remote, which holds
    none of the three any more, and said them all; then x2's and x3's transactions each found
    their own anchor in the published list and started another check that said the whole line
    again. What a check of this fetch said is left out of the list: one line, two starts."""
    team.quiet_with_all()
    git(team.b, "pull", "-q", "origin", "main")
    xs = [f"x{i}" for i in range(1, 4)]
    for name in xs:
        git(team.b, "checkout", "-q", "-b", name, "origin/main")
        git(team.b, "commit", "-q", "--allow-empty", "-m", f"b's {name}")
        hn(team.b, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD",
           "--applies", "descendants", "--content", f"on {name}").json()
        _push(team.b, "origin", name)
    git(team.b, "checkout", "-q", "--detach")
    git(team.b, "fetch", "-q", "origin")
    fs = [f"f{i}" for i in range(1, 7)]
    git(team.a, "fetch", "-q", "origin")
    git(team.a, "checkout", "-q", "-b", "side", "origin/main")
    git(team.a, "commit", "-q", "--allow-empty", "-m", "p")
    for name in fs:
        git(team.a, "branch", "-f", name)
    _push(team.a, "origin", *fs)
    git(team.b, "fetch", "-q", "origin")
    git(team.a, "reset", "-q", "--hard", "origin/main")
    git(team.a, "commit", "-q", "--allow-empty", "-m", "w")
    for name in fs:
        git(team.a, "branch", "-f", name)
    for name in xs:
        git(team.a, "branch", "-f", name, "origin/main")
    _push(team.a, "--force", "origin", *xs, *fs)
    runs = team.runs()
    proc = subprocess.run(["git", "fetch", "origin"], cwd=team.b, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("git-hn: Anchors of origin: ")]
    assert len(said) == 1 and said[0].startswith("git-hn: Anchors of origin: 3 commits"), proc.stderr
    assert team.runs() - runs <= 2, team.log.read_text()


@pytest.mark.parametrize("n", [2, 3])
def test_anchors_kept_on_hn_anchor_branches_force_pushed_together_are_each_said_once(team, n):
    """A review: b's anchors, put back on ``hn-anchor/*`` keep branches as the reminder says, were
    force-pushed off in one push; the next fetch said the reminder once per keep branch, each
    line naming the earlier lines' anchors again (each branch's transaction started its own
    check). A later check of the fetch leaves out what an earlier one named."""
    team.quiet_with_all()
    git(team.b, "pull", "-q", "origin", "main")
    xs = [f"x{i}" for i in range(1, n + 1)]
    anchors = []
    for name in xs:
        git(team.b, "checkout", "-q", "-b", name, "origin/main")
        git(team.b, "commit", "-q", "--allow-empty", "-m", f"b's {name}")
        anchors.append(git(team.b, "rev-parse", "HEAD"))
        hn(team.b, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD",
           "--applies", "descendants", "--content", f"on {name}").json()
        _push(team.b, "origin", name)
    git(team.b, "checkout", "-q", "--detach")
    git(team.b, "fetch", "-q", "origin")
    git(team.a, "fetch", "-q", "origin")
    for name in xs:  # (a's force-push takes them off; b puts them back as the reminder says)
        git(team.a, "branch", "-f", name, "origin/main")
    _push(team.a, "--force", "origin", *xs)
    git(team.b, "fetch", "-q", "origin")
    keep = [f"{c}:refs/heads/hn-anchor/{c[:12]}" for c in anchors]
    _push(team.b, "origin", *keep)
    git(team.b, "fetch", "-q", "origin")
    assert hn(team.b, "sync", "origin").code == 0
    git(team.a, "fetch", "-q", "origin")
    for c in anchors:  # (then force-pushes the keep branches off, in one push)
        git(team.a, "branch", "-f", f"hn-anchor/{c[:12]}", "origin/main")
    _push(team.a, "--force", "origin", *(f"hn-anchor/{c[:12]}" for c in anchors))
    proc = subprocess.run(["git", "fetch", "origin"], cwd=team.b, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("git-hn: Anchors of origin: ")]
    assert said, proc.stderr
    pushed = [line.split(" git push origin ", 1)[1].split(";")[0].split() for line in said]
    named = [spec.split(":")[0] for specs in pushed for spec in specs]  # (each its own tip)
    assert sorted(named) == sorted(anchors), proc.stderr


def test_the_stamp_s_named_anchors_are_read_back_past_64_kib(team):
    """A review: the stamp's anchors were read back only up to 64 KiB (about 1,600 anchors), and
    past it none at all, so a fetch that had named more said them all again. Read up to 4 MiB."""
    from git_hn.service.fetch_hook import _named_earlier
    from git_hn.store.repo import open_repo

    team.quiet_with_all()
    many = [f"{i:040x}" for i in range(1, 3001)]  # (123 KiB)
    stamp = team.quiet.parent / (team.quiet.name + ".seen")
    stamp.write_text("".join(f"{line}\n" for line in ["hn-seen/0 12 34 checked", *many]))
    assert _named_earlier(open_repo(str(team.b)), "origin", "12 34") == frozenset(many)
    assert _named_earlier(open_repo(str(team.b)), "origin", "12 35") == frozenset()


def test_a_remote_that_stalls_its_memory_listing_holds_the_fetch_for_one_bound(tmp_path, bare_remote, http_backend):
    """A red-team trial: a remote that stalled only the listing of its memory refs held ``git
    fetch`` for the wrapper's own bound (300 s, not git-hn's 60), and then the import asked again
    for its 60 s. The wrapper's question now has the import's bound (``hn.syncStallTimeout``, as
    the quiet record gives it), and when it runs out the import fails at once with its usual line
    and asks nothing again."""
    url = http_backend(bare_remote("team.git"))
    server = http_backend.server(url)
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", url)
    git(a, "push", "-q", "-u", "origin", "main")
    assert hn(a, "init", "--name", "A").code == 0
    hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "x")
    assert hn(a, "sync", "origin").code == 0
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", url, str(b))
    assert hn(b, "init", "--name", "B").code == 0
    assert hn(b, "hooks", "install").code == 0
    assert hn(b, "replication", "select", "origin", "--all").code == 0
    git(b, "config", "hn.syncStallTimeout", "2")
    assert hn(b, "sync", "origin").code == 0  # imports
    assert hn(b, "sync", "origin").code == 0  # finds it up to date: the quiet record
    record = b / ".git" / "hn" / "replication" / "quiet" / "b3JpZ2lu"
    assert record.read_text().splitlines()[5] == "2"
    git(a, "commit", "-q", "--allow-empty", "-m", "moves the remote's main")
    git(a, "push", "-q", "origin", "main")
    # ``git ls-remote -- URL 'refs/hn/*'`` sends no ref prefix (it matches the pattern itself);
    # the fetch's own listing asks for refs/heads/
    server.hold_if = lambda body: b"command=ls-refs" in body and b"ref-prefix" not in body
    started = time.monotonic()
    proc = subprocess.run(["git", "fetch", "origin"], cwd=b, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - started
    assert proc.returncode == 0 and git(b, "rev-parse", "origin/main") == git(a, "rev-parse", "main")
    assert ("git-hn: memory import from origin failed: replication advertisement failed for remote origin; the "
            "remote did not answer within 2 s (git config hn.syncStallTimeout); run git hn sync origin"
            in proc.stderr.splitlines()), proc.stderr
    assert took < 15, took
    assert len([r for r in server.requests if r.get("held")]) == 1  # asked once


def test_the_fetch_callers_name_stays_git_hn_s_and_reaches_no_chained_hook(tmp_path):
    """A review: ``HN_FETCH_CALLER``, the wrapper's name for the fetch's Git, given to git-hn,
    reached the user's chained reference-transaction hook through every Git git-hn's import ran.
    The wrapper unsets it before a chained hook runs (``HN_HOOK_ACTIVE`` still comes with it)."""
    team = Team(tmp_path)
    seen = tmp_path / "seen"
    chained = team.b / ".git" / "hooks" / "hn-chained" / "reference-transaction"
    chained.parent.mkdir(exist_ok=True)
    chained.write_text(f'#!/bin/sh\ncat >/dev/null\necho "${{HN_HOOK_ACTIVE-}}:${{HN_FETCH_CALLER-none}}" >> {seen}\n')
    chained.chmod(0o755)
    rec = team.record("one")
    assert hn(team.b, "replication", "select", "origin", "--all").code == 0
    runs = team.runs()
    team.moved_fetch()  # (its import accepts the memory: git-hn's Git moves refs, and runs the hook)
    assert team.runs() > runs and team.accepted(rec)
    lines = seen.read_text().splitlines()
    assert "1:none" in lines and all(x.endswith(":none") for x in lines), lines


def _tip(team, rec: dict) -> str:
    return git(team.a, "rev-parse", f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}")


def test_a_fetch_after_one_that_imported_a_teammates_memory_starts_no_git_hn(team):
    """An import that promoted every stream it fetched whole, each at the tip the advertisement
    named, leaves the quiet record of that advertisement and of the accepted refs as its
    promotion left them: the next fetch that brings no memory starts no git-hn. Before, every
    fetch after a teammate's publication started git-hn once more (+110 ms at 5,000 streams),
    only to find nothing and leave the record. A teammate's new memory changes the
    advertisement, so the fetch after it still imports it; a new stream as well."""
    team.quiet_with_all()
    for content, stream in (("second", None), ("third", None), ("on a stream of its own", "label:other")):
        runs = team.runs()
        rec = hn(team.a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
                 "descendants", "--content", content, *(("--stream", stream) if stream else ())).json()
        assert hn(team.a, "sync", "origin").code == 0
        assert team.accepted(rec) != _tip(team, rec)
        proc = team.moved_fetch()
        assert team.runs() == runs + 1 and team.accepted(rec) == _tip(team, rec), content
        # (f163: A's memory is anchored on A's HEAD, which B fetched but did not merge: the hint
        # that says so, once in its window, is all git-hn says)
        said = [line for line in proc.stderr.splitlines() if "git-hn" in line]
        assert said == ([] if content != "second" else [
            "git-hn: hint: the imported memory is anchored on a commit not merged here (on origin/main): recall "
            "lists it once you merge origin/main, or now with git hn memory recall --at origin/main"]), proc.stderr
        assert team.quiet.read_text().splitlines()[4] == _answers_id(team)
        team.moved_fetch()
        assert team.runs() == runs + 1, content  # quiet: git-hn not started
    assert hn(team.b, "memory", "index", "verify").code == 0


def test_a_sync_that_imported_by_the_advertisement_leaves_the_quiet_record(team):
    """``git hn sync`` of an ``--all`` selection reads the advertisement as the fetch hook does:
    when it promoted a teammate's memory whole (and published nothing), the next fetch that
    brings none starts no git-hn."""
    team.quiet_with_all()
    runs = team.runs()
    rec = team.record("second")
    r = hn(team.b, "sync", "origin", "--json")
    assert r.code == 0 and r.json()["promoted"] == 1 and r.json()["published"] == 0, r.out
    assert team.accepted(rec) == _tip(team, rec)
    assert team.quiet.read_text().splitlines()[4] == _answers_id(team)
    team.moved_fetch()
    assert team.runs() == runs  # quiet: git-hn not started


@pytest.mark.parametrize("how", ["failed", "partial"])
def test_an_import_that_left_a_stream_behind_leaves_no_quiet_record(team, how):
    """The record is written only when the next import would find nothing to do. One stream of
    the teammate's promoted and the other failed (over its ``--max-events`` budget), or one was
    promoted only up to a memory whose anchor commit this clone lacks: no record, and each later
    fetch starts git-hn, which tries again (and says so). Once the cause is gone the stream is
    imported and the record written. A guard: before the extension no import that fetched left a
    record (its setup, the first import's record, is what fails without it)."""
    assert hn(team.b, "replication", "select", "origin", "--all", "--max-events", "2").code == 0
    first = team.record("first")
    team.moved_fetch()
    assert team.accepted(first) and team.quiet.exists()
    other = hn(team.a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
               "descendants", "--content", "a stream of its own", "--stream", "label:other").json()
    if how == "failed":  # the first stream: three new memories, over the budget of two
        for content in ("second", "third", "fourth"):
            team.record(content)
    else:  # the first stream: a memory on main, then one on a commit the remote does not have
        team.record("second, on main")
        git(team.a, "checkout", "-q", "-b", "local-only")
        git(team.a, "commit", "-q", "--allow-empty", "-m", "not pushed yet")
        hn(team.a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "on a commit only a has")
        git(team.a, "checkout", "-q", "main")
        ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
        git(team.a, "push", "-q", "--no-verify", "origin", f"{ref}:{ref}")  # (by hand, anchor and all)
    assert hn(team.a, "sync", "origin").code in (0, 1)
    runs = team.runs()
    proc = team.moved_fetch()
    assert team.runs() == runs + 1 and team.accepted(other) == _tip(team, other)
    assert team.accepted(first) != _tip(team, first)
    assert "git-hn: memory import from origin failed" in proc.stderr, proc.stderr
    assert not team.quiet.exists()
    proc = team.moved_fetch()
    assert team.runs() == runs + 2  # not quiet: git-hn tries again, and says so again
    assert "git-hn: memory import from origin failed" in proc.stderr, proc.stderr
    assert not team.quiet.exists()
    if how == "failed":
        assert hn(team.b, "replication", "select", "origin", "--all", "--max-events", "10").code == 0
    else:
        _push(team.a, "origin", "local-only")
    team.moved_fetch()
    assert team.runs() == runs + 3 and team.accepted(first) == _tip(team, first)
    assert team.quiet.exists()
    team.moved_fetch()
    assert team.runs() == runs + 3
    assert hn(team.b, "memory", "index", "verify").code == 0


def test_a_readers_clone_gets_an_empty_list_of_published_anchors_without_the_state(team, tmp_path):
    """A clone with no identity and no stream of its own gave the remote nothing and has nothing
    of its own accepted back: the fetch hook writes an empty list of published anchors without
    opening the state (before, it loaded and opened the state on every run that imported, and
    wrote no list at all when the state could not answer, so a later force-pushed ref of the
    same fetch started git-hn's check for nothing)."""
    team.record("first")
    reader = tmp_path / "reader"
    git(tmp_path, "clone", "-q", str(team.remote), str(reader))
    assert hn(reader, "replication", "select", "origin", "--all").code == 0
    assert hn(reader, "hooks", "install").code == 0
    published = reader / ".git" / "hn" / "replication" / "published" / "b3JpZ2lu"
    for step in ("imports", "finds it up to date, the state gone"):
        git(team.a, "commit", "-q", "--allow-empty", "-m", "moves main")
        _push(team.a, "origin", "main")
        proc = subprocess.run(["git", "fetch", "origin"], cwd=reader, capture_output=True, text=True)
        assert proc.returncode == 0 and "git-hn" not in proc.stderr, proc.stderr
        assert git(reader, "for-each-ref", "refs/hn/remotes/origin/memory/")  # imported
        assert published.read_text() == "hn-published/0\n", step
        shutil.rmtree(reader / ".git" / "hn" / "memory", ignore_errors=True)  # (the state cannot answer)
        shutil.rmtree(reader / ".git" / "hn" / "replication" / "quiet")  # (git-hn runs again)
