"""Published memories a rewrite leaves on the commits it replaced (service/left_behind.py,
docs/decisions.md): the post-rewrite hook re-anchors only unpublished memories; a team trial
rebased a branch whose memory was already published, recall on the rebased branch dropped it,
and the hook said nothing. It now names them, bounded, with the command that carries each over
to the commit that replaced its anchor. Real repositories, a real bare remote, real ``git
rebase`` and ``git push`` with the hooks installed."""

from __future__ import annotations

import subprocess

from helpers import actor_of, commit_on, git, hn, shared_remote, wait_publication


def _record(repo, content) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _run(repo, *args) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    return proc


def _main_moves_on(tmp_path, remote, name="other.txt"):
    """Someone else pushes a commit to main (the rebase's new base)."""
    other = tmp_path / f"other-{name}"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    git(other, "config", "user.name", "Other")
    git(other, "config", "user.email", "other@example.invalid")
    commit_on(other, None, name)
    git(other, "push", "-q", "origin", "main")


def _ids(repo) -> list[str]:
    r = hn(repo, "memory", "recall", "--include-untrusted", "--json")
    return [m["id"] for m in r.json()["memories"]]


def test_a_rebase_names_the_published_memories_it_leaves_behind_and_how_to_carry_them_over(tmp_path):
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    mems = []
    for i in range(5):
        commit_on(alice, "feat" if i == 0 else None, f"f{i}.txt")
        mems.append(_record(alice, f"decided at feature commit {i}"))
    _run(alice, "push", "-q", "-u", "origin", "feat")
    assert git(remote, "for-each-ref", "refs/hn/memory")  # (published)
    _main_moves_on(tmp_path, remote)
    git(alice, "fetch", "-q", "origin")
    rebased = _run(alice, "rebase", "-q", "origin/main")
    first = git(alice, "rev-parse", "HEAD~4")  # (what replaced the first memory's anchor)
    lines = [x for x in rebased.stderr.splitlines() if "already published" in x]
    assert len(lines) == 1, rebased.stderr
    line = lines[0]
    assert line.startswith("git-hn: 5 memories already published stay on commits this rebase replaced, so recall "
                           "and the brief on the new ones leave them out (a published memory is never signed "
                           f"again): git hn memory supersede {mems[0]['memoryId'][7:19]} --at {first} --same-content "
                           "carries one of yours over (likewise "), line
    assert line.endswith(", ...)"), line  # (bounded: three named, the count says the rest)
    assert sum(m["memoryId"][7:19] in line for m in mems) == 3, line
    assert not [m for m in mems if m["memoryId"] in _ids(alice)]
    # what the line says, as it says it (a team trial was told --content TEXT, and retyped the memory)
    carried = hn(alice, "memory", "supersede", mems[0]["memoryId"][7:19], "--at", first, "--same-content", "--json")
    assert carried.code == 0, carried.err
    assert hn(alice, "memory", "show", carried.json()["memoryId"], "--json").json()["projection"]["data"][
        "content"] == "decided at feature commit 0"
    assert len(_ids(alice)) == 1


def test_an_unpublished_memory_is_re_anchored_and_not_called_published(tmp_path):
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    commit_on(alice, "feat", "f.txt")
    _record(alice, "not published yet")
    _main_moves_on(tmp_path, remote)
    git(alice, "fetch", "-q", "origin")
    rebased = _run(alice, "rebase", "-q", "origin/main")
    assert "re-anchored 1 unpublished memory" in rebased.stderr, rebased.stderr
    assert "already published" not in rebased.stderr, rebased.stderr


def test_a_teammates_memory_gets_a_command_a_teammate_can_run(tmp_path):
    """Bob rebases Alice's published branch: he cannot supersede her memory; the line gives him
    a record of his own citing it."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(alice, "hooks", "install").code == 0
    commit_on(alice, "feat", "f.txt")
    mem = _record(alice, "Alice's, on her branch")
    _run(alice, "push", "-q", "-u", "origin", "feat")
    assert hn(bob, "hooks", "install").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    git(bob, "fetch", "-q", "origin")
    assert hn(bob, "sync").code == 0
    git(bob, "checkout", "-q", "-b", "feat", "origin/feat")
    _main_moves_on(tmp_path, remote)
    git(bob, "fetch", "-q", "origin")
    rebased = _run(bob, "rebase", "-q", "origin/main")
    new = git(bob, "rev-parse", "HEAD")
    assert (f"git-hn: 1 memory already published stays on a commit this rebase replaced, so recall and the brief "
            "on the new one leave it out (a published memory is never signed again): it is another author's, which "
            f"only that author can supersede; git hn memory record --kind observation --at {new} --applies "
            f"descendants --evidence memory:{mem['memoryId']} --content TEXT records your own citing it\n"
            ) in rebased.stderr, rebased.stderr
    r = hn(bob, "memory", "record", "--kind", "observation", "--at", new, "--applies", "descendants",
           "--evidence", f"memory:{mem['memoryId']}", "--content", "Alice's decision holds after the rebase")
    assert r.code == 0, r.err


def test_carrying_over_a_challenged_memory_says_the_challenge_stays_on_its_old_id(tmp_path):
    """A team trial followed the rebase line's own advice on a memory a teammate had challenged:
    the successor showed active and unchallenged, and nothing said the challenge stayed behind (a
    challenge names one memory ID, as the projection derives it: that is not changed, it is said).
    Both the rebase line and the supersede say so; the challenger's name and reason are inert."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(alice, "hooks", "install").code == 0
    commit_on(alice, "feat", "f.txt")
    mem = _record(alice, "Use a table lexer.")
    _run(alice, "push", "-q", "-u", "origin", "feat")
    assert hn(bob, "replication", "select", "--all").code == 0
    git(bob, "fetch", "-q", "origin")
    assert hn(bob, "sync").code == 0
    assert hn(bob, "memory", "challenge", mem["memoryId"], "--reason", "needs-benchmark").code == 0
    assert hn(bob, "sync").code == 0
    assert hn(alice, "replication", "select", "--all").code == 0
    assert hn(alice, "sync").code == 0
    _main_moves_on(tmp_path, remote)
    git(alice, "fetch", "-q", "origin")
    rebased = _run(alice, "rebase", "-q", "origin/main")
    new = git(alice, "rev-parse", "HEAD")
    assert rebased.stderr.endswith(
        f"git hn memory supersede {mem['memoryId'][7:19]} --at {new} --same-content carries it over; it is "
        "challenged, and a challenge stays on the memory ID it names: ask its challenger to challenge the successor "
        "too, or settle it first\n"), rebased.stderr
    carried = hn(alice, "memory", "supersede", mem["memoryId"][7:19], "--at", new, "--same-content", "--json")
    assert carried.code == 0, carried.err
    succ, bob_id = carried.json()["memoryId"][7:19], actor_of(bob)[:12]
    warning = (f"git-hn: warning: memory {mem['memoryId'][7:19]} has 1 open challenge (by {bob_id} (\"Bob\", a self-chosen name): "
               f"\"needs-benchmark\"), and a challenge stays on the memory ID it names: its successor {succ} shows "
               f"unchallenged in recall, the brief and show; ask the challenger to challenge {succ} too (git hn "
               f"memory challenge {succ} --reason REASON), or settle it with them before relying on {succ}")
    assert warning in carried.err.splitlines(), carried.err
    # (the projection is unchanged: the successor is unchallenged, the challenge on the old ID)
    shown = hn(alice, "memory", "show", succ, "--json").json()["projection"]
    assert (shown["lifecycle"], shown["challengers"]) == ("active", [])
    # once the challenger challenged the successor too, nothing is left behind to warn of
    _run(alice, "push", "-q", "-f", "origin", "feat")
    assert hn(alice, "sync").code == 0
    git(bob, "fetch", "-q", "origin")
    assert hn(bob, "sync").code == 0
    assert hn(bob, "memory", "challenge", succ, "--reason", "needs-benchmark").code == 0
    assert hn(bob, "sync").code == 0
    assert hn(alice, "sync").code == 0
    again = hn(alice, "memory", "supersede", mem["memoryId"][7:19], "--at", new, "--same-content", "--json")
    assert again.code == 0 and again.json().get("replayed"), again.err
    assert "open challenge" not in again.err, again.err


def test_a_verification_on_a_rebased_commit_is_tested_again_not_carried_as_it_is(tmp_path):
    """``--same-content`` of a verification onto the rebased commit would claim a test result for
    code no one tested (docs/decisions.md): the line says to test the new commit and record the
    result, citing it; a decision beside it is still carried over as it is, and so is a
    verification whose tree a reword kept."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    first = commit_on(alice, "feat", "f.txt")
    decision = _record(alice, "Decided on the feature branch.")
    r = hn(alice, "memory", "record", "--json", "--kind", "verification", "--at", "HEAD", "--applies", "descendants",
           "--evidence", f"git:{first}", "--content", "Tests pass.")
    assert r.code == 0, r.err
    verification = r.json()
    _run(alice, "push", "-q", "-u", "origin", "feat")
    _main_moves_on(tmp_path, remote)
    git(alice, "fetch", "-q", "origin")
    rebased = _run(alice, "rebase", "-q", "origin/main")
    new, short = git(alice, "rev-parse", "HEAD"), verification["memoryId"][7:19]
    line = next(x for x in rebased.stderr.splitlines() if "already published" in x)
    assert f"git hn memory supersede {decision['memoryId'][7:19]} --at {new} --same-content carries one of yours " \
        "over" in line, line
    assert line.endswith(
        f"; {short} is a verification of a commit whose tree this rebase changed, so --same-content would claim a "
        f"test the new commit never had: test {new[:12]}, then git hn memory supersede {short} --at {new} "
        f"--evidence git:{new} --content TEXT records the result"), line
    assert "(likewise" not in line  # (not among the ones carried as they are)
    # what the line says, as it says it
    done = hn(alice, "memory", "supersede", short, "--at", new, "--evidence", f"git:{new}", "--content",
              "Tests pass on the rebased commit.", "--json")
    assert done.code == 0, done.err
    shown = hn(alice, "memory", "show", done.json()["memoryId"], "--json").json()["projection"]
    assert (shown["data"]["kind"], shown["data"]["evidence"]) == ("verification", [f"git:{new}"])
    # a reword changes the commit, not what was tested: that verification is carried over as it is
    _run(alice, "push", "-q", "-f", "origin", "feat")
    assert hn(alice, "sync").code == 0
    amended = _run(alice, "commit", "-q", "--amend", "-m", "a better message")
    reworded = git(alice, "rev-parse", "HEAD")
    assert f"git hn memory supersede {done.json()['memoryId'][7:19]} --at {reworded} --same-content carries " \
        in amended.stderr, amended.stderr
    assert "is a verification" not in amended.stderr, amended.stderr


def test_an_unpublished_verification_stays_behind_when_a_rebase_changes_the_tree_it_tested(tmp_path):
    """The unpublished side of the rule above (f85, a trial: ``git pull --rebase`` re-signed "ran
    the 6 tests" onto a tree with 7): a rebase onto a moved base leaves an unpublished
    verification on the commit it tested. The decision recorded before it moves, so the
    verification is signed again after it (its predecessor changed), still anchored and evidenced
    on the old commit; the hook's line names that new ID, and recall on the rebased branch does
    not offer it as applicable there."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    first = commit_on(alice, "feat", "f.txt")
    decision = _record(alice, "Decided on the feature branch.")
    r = hn(alice, "memory", "record", "--json", "--kind", "verification", "--at", "HEAD", "--applies", "descendants",
           "--evidence", f"git:{first}", "--content", "Tests pass.")
    assert r.code == 0, r.err
    _main_moves_on(tmp_path, remote)
    git(alice, "fetch", "-q", "origin")
    rebased = _run(alice, "rebase", "-q", "origin/main")
    new = git(alice, "rev-parse", "HEAD")
    line = next(x for x in rebased.stderr.splitlines() if "verification" in x)
    renames = next(x for x in rebased.stderr.splitlines() if "re-anchored" in x)
    assert renames.startswith("git-hn: re-anchored 1 unpublished memory of stream "), renames
    pairs = dict(p.split(" -> ") for p in renames.split("new IDs: ", 1)[1].split(", "))
    assert set(pairs) == {decision["memoryId"][7:19], r.json()["memoryId"][7:19]}
    again = pairs[r.json()["memoryId"][7:19]]
    assert line.startswith(f"git-hn: left unpublished verification {again} of yours on {first[:12]}, where it was "
                           f"signed: this rebase replaced {first[:12]} with {new[:12]}, which has another tree"), line
    assert f"git hn memory reanchor {first} --drop discards {again}" in line, line
    shown = hn(alice, "memory", "show", again, "--json").json()["projection"]
    assert (shown["anchor"]["commit"], shown["data"]["evidence"]) == (first, [f"git:{first}"])
    recalled = hn(alice, "memory", "recall", "--include-untrusted", "--json").json()["memories"]
    assert [(m["data"]["kind"], m["anchor"]["commit"]) for m in recalled] == [("decision", new)]
