"""Memory imported on commits not merged here is not silent (f163, a newcomer trial): Bob commits,
records a memory anchored on his new commit and pushes; Alice's ``git fetch`` (hooks installed)
or ``git hn sync`` imported it, then every recall on her unmerged HEAD left it out without a word
while ``memory log`` listed it, and she concluded the sync had failed. The import now says how
many of the memories it accepted are anchored on commits not merged here, naming a
remote-tracking branch that holds them (once in ten minutes from the fetch hook: the memo ``git
hn sync`` shares, which says the shorter form), and a recall that found others says how many more
it left out so. Real clones of a real bare remote, real fetches through the installed hooks."""

from __future__ import annotations

import json
import subprocess

from helpers import commit_on, git, hn, shared_remote

HINT = "git-hn: hint: "


def _team(tmp_path):
    """Alice (hooks installed, every stream selected, one memory of her own on main) and Bob, a
    clone that published nothing yet: (alice, bob)."""
    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(alice, "hooks", "install").code == 0
    assert hn(alice, "replication", "select", "--all").code == 0
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Alice's, on main").code == 0
    assert hn(alice, "sync").code == 0
    return alice, bob


def _bob_records(bob, content: str, at: str = "HEAD", branch: str = "main", new_file: str = "") -> str:
    """Bob commits ``new_file`` (when named) on ``branch``, records ``content`` anchored on ``at``,
    pushes the branch and publishes the memory: the anchor commit."""
    if new_file:
        if branch != "main" and git(bob, "branch", "--show-current") != branch:
            git(bob, "checkout", "-q", "-b", branch)
        commit_on(bob, None, new_file)
    anchor = git(bob, "rev-parse", at)
    paths = ["--path", new_file] if new_file and at == "HEAD" else []
    assert hn(bob, "memory", "record", "--kind", "observation", "--at", anchor, "--applies", "descendants",
              *paths, "--content", content).code == 0
    git(bob, "push", "-q", "origin", branch)
    assert hn(bob, "sync").code == 0
    return anchor


def _fetch(repo) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", "fetch", "origin"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc


def _hints(err: str) -> list[str]:
    return [line[len(HINT):] for line in err.splitlines() if line.startswith(HINT) and "not merged here" in line]


def test_a_fetch_importing_a_memory_on_an_unmerged_commit_says_so_once_in_the_window(tmp_path):
    alice, bob = _team(tmp_path)
    anchor = _bob_records(bob, "Bob's, on his new commit", new_file="new.py")
    before = git(alice, "rev-parse", "HEAD")
    fetched = _fetch(alice)
    assert _hints(fetched.stderr) == [
        "1 of the imported memories is anchored on a commit not merged here (on origin/main): recall lists it "
        "once you merge origin/main, or now with git hn memory recall --at origin/main"], fetched.stderr
    # (a hint only: HEAD stays, the memory is imported, and recall at origin/main lists it)
    assert git(alice, "rev-parse", "HEAD") == before
    assert "Bob's, on his new commit" in hn(alice, "memory", "log").out
    assert "Bob's, on his new commit" in hn(alice, "memory", "recall", "--at", "origin/main",
                                            "--include-untrusted").out
    # a second fetch within the window that imports more of the same branch's memory says nothing again
    _bob_records(bob, "Bob's second", new_file="second.py")
    again = _fetch(alice)
    assert "Bob's second" in hn(alice, "memory", "log").out
    assert _hints(again.stderr) == [], again.stderr
    # git hn sync, which shares the memo, says the shorter form of it
    _bob_records(bob, "Bob's third", new_file="third.py")
    synced = hn(alice, "sync")
    assert synced.code == 0, synced.err
    assert _hints(synced.err) == [
        "the imported memory is anchored on a commit not merged here (git hn memory recall --at origin/main "
        "lists it; said in full less than a minute ago)"], synced.err
    # once merged, recall lists them
    git(alice, "merge", "-q", "--ff-only", "origin/main")
    here = hn(alice, "memory", "recall", "--include-untrusted").out
    assert all(c in here for c in ("Bob's, on his new commit", "Bob's second", "Bob's third"))
    assert anchor in git(alice, "rev-list", "HEAD").split()


def test_a_memory_on_a_commit_merged_here_gets_no_hint(tmp_path):
    """Bob pushes a new commit but anchors his memory on one Alice has: the fetch imports it, and
    says nothing of merging."""
    alice, bob = _team(tmp_path)
    old = git(bob, "rev-parse", "HEAD")
    assert git(alice, "rev-parse", "HEAD") == old
    _bob_records(bob, "Bob's, on a commit Alice has", at=old, new_file="new.py")
    fetched = _fetch(alice)
    assert "Bob's, on a commit Alice has" in hn(alice, "memory", "log").out
    assert _hints(fetched.stderr) == [], fetched.stderr
    recalled = hn(alice, "memory", "recall", "--include-untrusted")
    assert "Bob's, on a commit Alice has" in recalled.out
    assert _hints(recalled.err) == [], recalled.err


def test_a_sync_names_the_branch_holding_them_shell_quoted_and_its_json_keeps_its_fields(tmp_path):
    """Two memories on Bob's branch, which he named ``$(touch${IFS}x)``: ``git hn sync`` names
    ``origin/<it>`` (not main) as one quoted word, so pasting the command runs nothing, and
    ``--json`` keeps its document (the hint is on stderr); refs and state are the import's."""
    alice, bob = _team(tmp_path)
    branch = "$(touch${IFS}x)"
    _bob_records(bob, "feature one", branch=branch, new_file="f1.py")
    _bob_records(bob, "feature two", branch=branch, new_file="f2.py")
    empty = tmp_path / "no-hooks"
    empty.mkdir()
    git(alice, "-c", f"core.hooksPath={empty}", "fetch", "-q", "origin")  # (the code only: the sync imports)
    synced = hn(alice, "sync", "--json")
    assert synced.code == 0, synced.err
    doc = json.loads(synced.out)
    # (no field of f163's; f159's importedAlreadyHere counts Alice's own, back from the remote)
    assert set(doc) == {"version", "remote", "outcomes", "verifiedEvents", "promoted", "importedMemories",
                        "published", "importedAlreadyHere"} and doc["importedMemories"] == 3
    assert doc["importedAlreadyHere"] == 1
    word = "'origin/$(touch${IFS}x)'"
    assert _hints(synced.err) == [
        f"2 of the imported memories are anchored on commits not merged here (on {word}): recall lists them once "
        f"you merge {word}, or now with git hn memory recall --at {word}"], synced.err
    listed = subprocess.run(f"git hn memory recall --include-untrusted --at {word}", shell=True, cwd=alice,
                            capture_output=True, text=True)
    assert "feature one" in listed.stdout and "feature two" in listed.stdout, listed.stderr
    assert not (alice / "x").exists()


def test_a_recall_that_found_others_counts_those_of_work_not_merged_here(tmp_path):
    """Item 2: recall found Alice's memory and left Bob's out (its anchor is on origin/main, not
    merged): the human forms say how many and the recall that lists them (shorter within the
    window), ``--json`` says nothing new; a recall that found nothing keeps its own hint."""
    alice, bob = _team(tmp_path)
    anchor = _bob_records(bob, "Bob's, on his new commit", new_file="new.py")
    assert hn(alice, "sync").code == 0
    first = hn(alice, "memory", "recall", "--include-untrusted")
    assert "Alice's, on main" in first.out and "Bob's" not in first.out
    c = anchor[:12]
    assert _hints(first.err) == [
        f"1 more matching memory was left out, anchored on a commit not merged here ({c}): git hn memory recall "
        f"--at {c} lists it, and git branch -a --contains {c} names the branch to merge"], first.err
    second = hn(alice, "memory", "recall", "--include-untrusted")
    assert _hints(second.err) == [
        f"1 more matching memory was left out, anchored on a commit not merged here (git hn memory recall --at {c} "
        "lists it; said in full less than a minute ago)"], second.err
    as_json = hn(alice, "memory", "recall", "--include-untrusted", "--json")
    assert as_json.code == 0 and "more matching" not in as_json.err, as_json.err
    nothing_else = hn(alice, "memory", "recall", "--include-untrusted", "--path", "new.py")
    assert "more matching" not in nothing_else.err
    assert "its anchor commit is on origin/main, not merged here: git hn memory recall --at origin/main lists it " \
           "there" in nothing_else.err, nothing_else.err
    listed = hn(alice, "memory", "recall", "--at", c, "--include-untrusted")
    assert "Bob's, on his new commit" in listed.out and _hints(listed.err) == [], listed.err


def test_a_pull_which_merges_right_after_its_fetch_gets_no_hint(tmp_path):
    """``git pull`` runs its fetch (``--update-head-ok``), whose hook imports Bob's memory before
    the merge: "not merged here" would be stale once the pull returns, so nothing is said, and
    recall lists the memory."""
    alice, bob = _team(tmp_path)
    _bob_records(bob, "Bob's, pulled", new_file="new.py")
    pulled = subprocess.run(["git", "pull", "--ff-only", "origin", "main"], cwd=alice, capture_output=True,
                            text=True)
    assert pulled.returncode == 0, pulled.stderr
    assert "Bob's, pulled" in hn(alice, "memory", "log").out  # (the hook imported it)
    assert _hints(pulled.stderr) == [], pulled.stderr
    assert "Bob's, pulled" in hn(alice, "memory", "recall", "--include-untrusted").out


def test_memories_on_one_commit_of_one_branch_are_said_to_be_there_plainly(tmp_path):
    """f175 (a newcomer trial): Bob's two memories, both on his one commit of ``feature/x``, were
    said to be on "commits ... such as" it, on "refs not merged here, such as origin/feature/x".
    The fetch hook, recall that found nothing else and recall that found Alice's memory each say
    "a commit" (recall: "their anchor commit is on origin/feature/x"), with no "such as"."""
    alice, bob = _team(tmp_path)
    anchor = _bob_records(bob, "Bob's first", branch="feature/x", new_file="x1.py")
    assert _bob_records(bob, "Bob's second", branch="feature/x") == anchor
    fetched = _fetch(alice)
    assert _hints(fetched.stderr) == [
        "2 of the imported memories are anchored on a commit not merged here (on origin/feature/x): recall lists them once "
        "you merge origin/feature/x, or now with git hn memory recall --at origin/feature/x"], fetched.stderr
    alone = hn(alice, "memory", "recall", "--include-untrusted", "--kind", "observation")
    assert alone.code == 0 and "Bob's" not in alone.out, alone.out
    assert ("2 matching memories do not apply at this commit and were left out: their anchor commit is on "
            "origin/feature/x, not merged here: git hn memory recall --at origin/feature/x lists them there"
            ) in alone.err and "such as" not in alone.err, alone.err
    c = anchor[:12]
    others = hn(alice, "memory", "recall", "--include-untrusted")
    assert "Alice's, on main" in others.out and "Bob's" not in others.out
    assert _hints(others.err) == [
        f"2 more matching memories were left out, anchored on a commit not merged here ({c}): git hn memory recall "
        f"--at {c} lists them, and git branch -a --contains {c} names the branch to merge"], others.err
    listed = hn(alice, "memory", "recall", "--include-untrusted", "--at", "origin/feature/x", "--kind", "observation")
    assert "Bob's first" in listed.out and "Bob's second" in listed.out  # (as the hint says: lists them there)


def test_memories_on_several_commits_name_one_ref_when_it_holds_all_and_such_as_for_several_refs(tmp_path):
    """f175: three memories on two commits of ``feature/x`` are on that one ref, said plainly; one
    more on ``feature/y`` makes them several refs, and only then "refs ... such as" the ref
    holding the commit with the most (and recall that found Alice's: "commits ... such as" it)."""
    alice, bob = _team(tmp_path)
    first = _bob_records(bob, "Bob's x1 one", branch="feature/x", new_file="x1.py")
    _bob_records(bob, "Bob's x1 two", branch="feature/x")
    _bob_records(bob, "Bob's x2", branch="feature/x", new_file="x2.py")
    assert hn(alice, "sync").code == 0
    one_ref = hn(alice, "memory", "recall", "--include-untrusted", "--kind", "observation")
    assert ("3 matching memories do not apply at this commit and were left out: their anchor commits are on "
            "origin/feature/x, not merged here: git hn memory recall --at origin/feature/x lists them there"
            ) in one_ref.err and "such as" not in one_ref.err, one_ref.err
    git(bob, "checkout", "-q", "main")
    _bob_records(bob, "Bob's y1", branch="feature/y", new_file="y1.py")
    assert hn(alice, "sync").code == 0
    several = hn(alice, "memory", "recall", "--include-untrusted", "--kind", "observation")
    assert ("4 matching memories do not apply at this commit and were left out: their anchor commits are on refs "
            "not merged here, such as origin/feature/x: git hn memory recall --at origin/feature/x lists what "
            "applies there") in several.err, several.err
    c = first[:12]
    others = hn(alice, "memory", "recall", "--include-untrusted")
    assert _hints(others.err) == [
        f"4 more matching memories were left out, anchored on commits not merged here (such as {c}, 2 of them): git "
        f"hn memory recall --at {c} lists what applies there, and git branch -a --contains {c} names the branch to "
        "merge"], others.err


def test_a_sync_asks_the_hint_while_it_ends_and_takes_that_answer_only_for_the_same_commits(tmp_path):
    """sync-100: ``git hn sync`` asks the hint's questions in a thread of their own once its
    promotion has marked its streams promoted (``not_merged.ask_ahead``), through a Git runner of
    the thread's own, so that they run while the completion receipt is written. The answer equals
    the one asked after the sync, and ``hint`` takes it only for a result holding the same
    promoted commits (otherwise it asks again, as before)."""
    from git_hn.service import replication as service
    from git_hn.service.replication import not_merged
    from git_hn.store.repo import open_repo

    alice, bob = _team(tmp_path)
    _bob_records(bob, "feature one", branch="feature", new_file="f1.py")
    _bob_records(bob, "feature two", branch="feature", new_file="f2.py")
    empty = tmp_path / "no-hooks"
    empty.mkdir()
    git(alice, "-c", f"core.hooksPath={empty}", "fetch", "-q", "origin")  # (the code only: the sync imports)
    repo = open_repo(str(alice))
    try:
        result = service.sync(repo, "origin")
        walked, thread, box = result.not_merged_asked
        assert thread.join(10) and thread.error is None
        assert box[0] == not_merged._outside(repo, result) == (2, {git(alice, "rev-parse", "origin/feature~1"): 1,
                                                                    git(alice, "rev-parse", "origin/feature"): 1})
        assert box[1] == not_merged._holding(repo.git, "origin", box[0][1]) == ("origin/feature", 2)
        said = not_merged.hint(repo, result)
        assert said is not None and said[0].startswith("2 of the imported memories are anchored on commits not "
                                                       "merged here (on origin/feature)"), said
        # an answer asked for other commits (a second import pass makes another result) is not taken
        result.not_merged_asked = (walked[1:], thread, [(7, {walked[0]: 7}), ("origin/other", 7)])
        assert not_merged.hint(repo, result) == said
        # nor one whose thread failed
        result.not_merged_asked = (walked, type(thread)(lambda: 1 / 0), [(7, {walked[0]: 7}), ("origin/other", 7)])
        assert not_merged.hint(repo, result) == said
    finally:
        repo.close()
