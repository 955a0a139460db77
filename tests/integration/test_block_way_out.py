"""The way out of a ``hn.prePush=block`` refusal (``hook_runs.anyway``), pasted as printed, and
the refusal of a push that deletes memory refs at a URL. Real repositories, a real bare remote,
real ``git push`` with the hooks installed."""

from __future__ import annotations

import subprocess

from helpers import git, hn, shared_remote, wait_publication


def _commit(repo, name):
    (repo / f"{name}.txt").write_text(f"{name}\n")
    git(repo, "add", f"{name}.txt")
    git(repo, "commit", "-q", "-m", name)
    return git(repo, "rev-parse", "HEAD")


def _push(repo, *args):
    proc = subprocess.run(["git", "push", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    return proc


def _refused_force_and_fast_forward(tmp_path):
    """Alice (block) published a memory on feat's c1, amended c1 and committed on main; her
    ``git push origin +feat main`` is refused: (remote, alice, bob, the way out, feat, main)."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feat")
    _commit(a, "c1")
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "on c1").code == 0
    assert _push(a, "-q", "origin", "feat").returncode == 0
    git(a, "config", "hn.prePush", "block")
    git(a, "commit", "-q", "--amend", "-m", "c1b")
    feat = git(a, "rev-parse", "HEAD")
    git(a, "checkout", "-q", "main")
    main = _commit(a, "m2")
    proc = _push(a, "-q", "origin", "+feat", "main")
    assert proc.returncode != 0, proc.stderr
    line = next(x for x in proc.stderr.splitlines() if x.startswith("git-hn:"))
    command = line.rsplit("only if it goes on purpose (a secret): ", 1)[1]
    assert command.endswith(" repeats this push with a warning instead"), line
    return remote, a, b, command[:-len(" repeats this push with a warning instead")], feat, main


def test_the_way_out_leases_each_ref_and_forces_none(tmp_path):
    """A review: the way out put ``+`` on every ref of the push, so pasting it could reset a
    branch the push never forced. It leases each ref the remote had on what this push expected
    there, and pasted as printed (nothing changed since) makes the same push."""
    remote, a, _b, command, feat, main = _refused_force_and_fast_forward(tmp_path)
    old_feat, old_main = git(remote, "rev-parse", "feat"), git(remote, "rev-parse", "main")
    assert "+" not in command, command
    assert command == (f"git -c hn.prePush=warn push --force-with-lease=refs/heads/feat:{old_feat} "
                       f"--force-with-lease=refs/heads/main:{old_main} origin {feat}:refs/heads/feat "
                       f"{main}:refs/heads/main"), command
    pasted = subprocess.run(["sh", "-c", command], cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert pasted.returncode == 0, pasted.stderr
    assert (git(remote, "rev-parse", "feat"), git(remote, "rev-parse", "main")) == (feat, main)


def test_the_pasted_way_out_keeps_a_teammates_later_push(tmp_path):
    """The review's case: Bob pushed to main after the refusal; the pasted way out is refused for
    main (its lease no longer holds), and main stays as Bob left it."""
    remote, a, b, command, _feat, _main = _refused_force_and_fast_forward(tmp_path)
    git(b, "pull", "-q", "origin", "main")
    bobs = _commit(b, "bob's")
    assert _push(b, "-q", "origin", "main").returncode == 0
    pasted = subprocess.run(["sh", "-c", command], cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert pasted.returncode != 0 and "stale info" in pasted.stderr, pasted.stderr
    assert git(remote, "rev-parse", "main") == bobs


def test_a_mirror_or_a_push_of_many_refs_is_told_to_repeat_its_own_arguments(tmp_path):
    """A review: for ``--mirror`` (refs/remotes/* and refs/hn/remotes/* in the hook's input) the
    command "that repeats this push" was not that push, and for many refs it ran ~90 bytes a
    ref. Then the way out names the user's own push, with ``-c hn.prePush=warn``."""
    remote, a, _b, _command, _feat, _main = _refused_force_and_fast_forward(tmp_path)
    again = ("only if it goes on purpose (a secret): git -c hn.prePush=warn push with this push's own "
             "arguments, as you typed them, repeats it with a warning instead")
    git(a, "update-ref", "-d", "refs/remotes/origin/feat")  # (else the mirror carries c1 there)
    proc = _push(a, "-q", "--mirror", "origin")
    lines = [x for x in proc.stderr.splitlines() if x.startswith("git-hn:")]
    assert proc.returncode != 0 and len(lines) == 1 and lines[0].endswith(again), proc.stderr
    for i in range(9):
        git(a, "branch", f"b{i}", "main")
    proc = _push(a, "-q", "origin", "+feat", "main", *(f"b{i}" for i in range(9)))
    lines = [x for x in proc.stderr.splitlines() if x.startswith("git-hn:")]
    assert proc.returncode != 0 and len(lines) == 1 and lines[0].endswith(again), proc.stderr
    assert "refs/heads/b0" not in proc.stderr


def _published(tmp_path):
    """Alice's remote with hooks installed and one memory of hers published there: (remote, her
    clone, its memory ref on the remote)."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "on main").code == 0
    assert _push(a, "-q", "origin", "main").returncode == 0
    ref = git(remote, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    assert ref
    return remote, a, ref


def test_block_refuses_deleting_a_memory_ref_at_a_url(tmp_path):
    """A review: ``git push URL :refs/hn/memory/...`` with ``hn.prePush=block`` was not refused,
    and its warning said the push "sends memory refs to a URL"; pushed to the remote's name the
    same deletion is refused. Now it is at a URL too, in one line that says it deletes, and the
    memory ref stays."""
    remote, a, ref = _published(tmp_path)
    other = tmp_path / "other.git"
    git(tmp_path, "clone", "-q", "--mirror", str(remote), str(other))
    git(a, "config", "hn.prePush", "block")
    for url in (str(remote), str(other)):  # (the remote's own URL, and one that is no remote here)
        proc = _push(a, "-q", url, f":{ref}")
        lines = [x for x in proc.stderr.splitlines() if x.startswith("git-hn:")]
        assert proc.returncode != 0 and lines == [
            f"git-hn: this push deletes 1 memory ref at the URL it pushes to (first: {ref}): memory history is "
            "append-only, and whoever relies on those streams loses them; only if that is meant: git -c "
            "hn.prePush=warn push with this push's own arguments, as you typed them, repeats it with a warning "
            "instead"], proc.stderr
        assert "sends memory refs" not in proc.stderr
        assert git(url, "for-each-ref", "--format=%(refname)", "refs/hn/memory/") == ref
    git(a, "config", "hn.prePush", "warn")
    proc = _push(a, "-q", str(other), f":{ref}")
    assert proc.returncode == 0 and "this push deletes 1 memory ref at the URL" in proc.stderr, proc.stderr
    assert "sends memory refs" not in proc.stderr
    assert git(other, "for-each-ref", "refs/hn/memory/") == ""


def test_a_deletion_at_a_remotes_url_gets_no_publishing_hint_and_only_memory_refs_count(tmp_path):
    """A review: ``git -c hn.prePush=warn push URL :refs/hn/memory/A/S`` to the remote's own URL
    said it deletes a memory ref, then also "a push to a URL publishes no memory; ... git hn sync
    origin publishes it", which a push that only deletes has no use for; and a deletion of any
    ``refs/hn/`` ref was said to delete a "memory ref"."""
    remote, a, ref = _published(tmp_path)
    git(remote, "update-ref", "refs/hn/notes/x", "HEAD")
    git(a, "config", "hn.prePush", "warn")
    proc = _push(a, "-q", f"file://{remote}", f":{ref}")
    lines = [x for x in proc.stderr.splitlines() if x.startswith("git-hn:")]
    assert proc.returncode == 0 and lines == [
        f"git-hn: this push deletes 1 memory ref at the URL it pushes to (first: {ref}): memory history is "
        "append-only, and whoever relies on those streams loses them"], proc.stderr
    proc = _push(a, "-q", f"file://{remote}", ":refs/hn/notes/x")
    assert proc.returncode == 0 and "memory ref" not in proc.stderr, proc.stderr
    assert git(remote, "for-each-ref", "refs/hn/notes/") == ""
