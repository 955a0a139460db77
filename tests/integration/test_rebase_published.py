"""Published memories a rewrite leaves on the commits it replaced (service/left_behind.py,
docs/decisions.md): the post-rewrite hook re-anchors only unpublished memories; a team trial
rebased a branch whose memory was already published, recall on the rebased branch dropped it,
and the hook said nothing. It now names them, bounded, with the command that carries each over
to the commit that replaced its anchor. Real repositories, a real bare remote, real ``git
rebase`` and ``git push`` with the hooks installed."""

from __future__ import annotations

import subprocess

from helpers import commit_on, git, hn, shared_remote, wait_publication


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
