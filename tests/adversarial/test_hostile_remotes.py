"""A hostile remote (CONTRACT §9.4–§9.9, §11(a), §11(e)): every forged or oversized stream is
rejected with the right status, nothing bad is promoted, and a valid stream beside it promotes.

Each case plants its stream on a bare remote with plain Git plumbing and a validly signing key,
so the only thing wrong is exactly the attack named by the test.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess

import pytest

from helpers import git, hn, refs_snapshot, shared_remote
from independent import Writer, b64, canonical

EVIL_SEED = bytes([7]) * 32


class Forge:
    """Builds memory commits by hand in a scratch repository and pushes them to the remote."""

    def __init__(self, repo, remote, seed=EVIL_SEED, name="Mallory"):
        self.repo, self.remote = repo, remote
        self.w = Writer(seed, name)
        self.anchor = git(repo, "rev-parse", "HEAD")

    def record(self, content="forged", **extra):
        rec = {"kind": "decision", "content": content, "anchor": {"commit": self.anchor},
               "applicability": {"mode": "descendants"}, "topics": [], "evidence": []}
        rec.update(extra)
        return rec

    def env(self, seq, prev, record=None, stream=None, **over):
        env = self.w.envelope(seq, prev, f"2026-01-01T00:00:{seq:02d}Z", record or self.record(f"m{seq}"))
        if stream:
            env["stream"] = stream
        env.update(over)
        return env

    def sign(self, payload: bytes) -> bytes:
        return b64(self.w.key.sign(payload)).encode()

    def commit(self, payload: bytes, sig: bytes, parents=(), mode="100644", extra=""):
        m = git(self.repo, "hash-object", "-w", "--stdin", input=payload)
        s = git(self.repo, "hash-object", "-w", "--stdin", input=sig)
        tree = git(self.repo, "mktree", input=f"{mode} blob {m}\tmemory.json\n100644 blob {s}\tsignature\n{extra}".encode())
        args = ["commit-tree", tree, "-m", "hn memory x"]
        for p in parents:
            args += ["-p", p]
        return git(self.repo, *args)

    def chain(self, n, stream=None, mutate=None):
        """A valid chain of n memories, optionally mutating (payload, sig, parents) at one step."""
        prev, parent = "", ""
        for seq in range(1, n + 1):
            payload = canonical(self.env(seq, prev, stream=stream))
            sig = self.sign(payload)
            parents = [parent] if parent else []
            if mutate is not None:
                payload, sig, parents, kw = mutate(seq, payload, sig, parents)
            else:
                kw = {}
            parent = self.commit(payload, sig, parents, **kw)
            prev = "sha256:" + hashlib.sha256(payload).hexdigest()
        return parent

    def push(self, commit, actor=None, stream=None):
        actor = actor or self.w.actor
        stream = stream or self.w.stream
        ref = f"refs/hn/memory/{actor}/{stream[7:]}"
        git(self.repo, "push", "-q", "--force", str(self.remote), f"{commit}:{ref}")
        return stream


@pytest.fixture
def arena(tmp_path):
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    good = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
              "descendants", "--content", "a valid memory").json()
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(remote), str(bob))
    forge = Forge(alice, remote)
    return remote, alice, bob, forge, good


def _run(bob, good, bad_stream, *budget_args):
    assert hn(bob, "replication", "select", "--memory", good["stream"], "--memory", bad_stream,
              *budget_args).code == 0
    r = hn(bob, "sync", "--json")
    assert r.code == 1, r
    doc = json.loads(r.out)
    by_id = {o["id"]: o for o in doc["outcomes"]}
    assert by_id[good["stream"]]["status"] == "promoted"
    refs = git(bob, "for-each-ref", "--format=%(refname)", "refs/hn/remotes").split()
    assert refs == [f"refs/hn/remotes/origin/memory/{good['actor']}/{good['stream'][7:]}"]
    quarantine = bob / ".git" / "hn" / "replication" / "quarantine"
    assert not quarantine.exists() or os.listdir(quarantine) == []
    return by_id[bad_stream]


def _expect(out, status, fragment):
    assert out["status"] == status, out
    assert fragment in out["diagnostic"], out


def test_forged_signature(arena):
    remote, alice, bob, f, good = arena

    def mutate(seq, payload, sig, parents):
        return payload, b64(bytes(64)).encode(), parents, {}

    stream = f.push(f.chain(1, mutate=mutate))
    _expect(_run(bob, good, stream), "structurally-invalid", "invalid memory signature")


def test_tree_with_a_third_entry(arena):
    remote, alice, bob, f, good = arena
    extra = git(alice, "hash-object", "-w", "--stdin", input=b"smuggled")

    def mutate(seq, payload, sig, parents):
        return payload, sig, parents, {"extra": f"100644 blob {extra}\tpayload.sh\n"}

    stream = f.push(f.chain(1, mutate=mutate))
    _expect(_run(bob, good, stream), "structurally-invalid", "tree contains unexpected entry payload.sh")


def test_executable_mode_entry(arena):
    remote, alice, bob, f, good = arena
    stream = f.push(f.chain(1, mutate=lambda s, p, g, ps: (p, g, ps, {"mode": "100755"})))
    _expect(_run(bob, good, stream), "structurally-invalid", "has invalid tree entry")


def test_non_canonical_payload(arena):
    remote, alice, bob, f, good = arena

    def mutate(seq, payload, sig, parents):
        loose = payload.replace(b'"content":"m1"', b'"content":"\\u006d1"')  # same value, escaped
        assert loose != payload
        return loose, f.sign(loose), parents, {}

    stream = f.push(f.chain(1, mutate=mutate))
    _expect(_run(bob, good, stream), "structurally-invalid", "memory JSON is not canonical")


def test_padded_signature(arena):
    remote, alice, bob, f, good = arena
    stream = f.push(f.chain(1, mutate=lambda s, p, g, ps: (p, g + b"==", ps, {})))
    _expect(_run(bob, good, stream), "structurally-invalid", "has invalid signature encoding")


def test_sequence_gap(arena):
    remote, alice, bob, f, good = arena

    def mutate(seq, payload, sig, parents):
        if seq == 2:
            env = json.loads(payload)
            env["sequence"] = 3
            payload = canonical(env)
            sig = f.sign(payload)
        return payload, sig, parents, {}

    stream = f.push(f.chain(2, mutate=mutate))
    _expect(_run(bob, good, stream), "structurally-invalid", "has sequence 3, want 2")


def test_wrong_previous(arena):
    remote, alice, bob, f, good = arena

    def mutate(seq, payload, sig, parents):
        if seq == 2:
            env = json.loads(payload)
            env["previous"] = "sha256:" + "0" * 64
            payload = canonical(env)
            sig = f.sign(payload)
        return payload, sig, parents, {}

    stream = f.push(f.chain(2, mutate=mutate))
    _expect(_run(bob, good, stream), "structurally-invalid", "previous memory does not match its predecessor")


def test_merge_commit(arena):
    remote, alice, bob, f, good = arena
    main = git(alice, "rev-parse", "HEAD")

    def mutate(seq, payload, sig, parents):
        return payload, sig, parents + ([main] if seq == 2 else []), {}

    stream = f.push(f.chain(2, mutate=mutate))
    _expect(_run(bob, good, stream), "structurally-invalid", "has 2 parents; exactly one is allowed")


def test_stream_advertised_under_the_wrong_actor(arena):
    remote, alice, bob, f, good = arena
    stream = f.push(f.chain(1), actor="f" * 64)
    _expect(_run(bob, good, stream), "structurally-invalid", f"has owner {f.w.actor}, want {'f' * 64}")


def test_two_owners_for_one_stream(arena):
    remote, alice, bob, f, good = arena
    head = f.chain(1)
    f.push(head)
    f.push(head, actor="e" * 64)
    out = _run(bob, good, f.w.stream)
    _expect(out, "structurally-invalid", f"selected memory {f.w.stream} has ambiguous owners on remote origin")


def test_payload_over_the_bound(arena):
    remote, alice, bob, f, good = arena

    def mutate(seq, payload, sig, parents):
        env = json.loads(payload)
        env["record"]["content"] = "x" * 600_000
        payload = canonical(env)
        return payload, f.sign(payload), parents, {}

    stream = f.push(f.chain(1, mutate=mutate))
    _expect(_run(bob, good, stream), "structurally-invalid", "memory.json at memory commit")


@pytest.mark.parametrize("budget,args,fragment", [
    ("events", ["--max-events", "1"], "exceeded max-events budget: configured=1 measured=2"),
    ("objects", ["--max-objects", "4"], "exceeded max-objects budget: configured=4 measured=8"),
    ("bytes", ["--max-total-bytes", "20000"], "exceeded max-total-bytes budget: configured=20000"),
    ("object bytes", ["--max-object-bytes", "5000"], "exceeded max-object-bytes budget: configured=5000"),
])
def test_over_budget(arena, budget, args, fragment):
    remote, alice, bob, f, good = arena

    def mutate(seq, payload, sig, parents):
        env = json.loads(payload)
        env["record"]["content"] = "y" * 12000
        payload = canonical(env)
        return payload, f.sign(payload), parents, {}

    stream = f.push(f.chain(2, mutate=mutate if budget in ("bytes", "object bytes") else None))
    out = _run(bob, good, stream, *args)
    _expect(out, "over-budget", fragment)
    assert out["measurements"]["Events"] == 2


def test_missing_anchor_commit(arena):
    remote, alice, bob, f, good = arena
    rec = f.record("anchored nowhere")
    rec["anchor"] = {"commit": "c" * 40}
    payload = canonical(f.env(1, "", record=rec))
    stream = f.push(f.commit(payload, f.sign(payload)))
    out = _run(bob, good, stream)
    assert out["status"] == "dependency-missing"
    assert out["dependencyKind"] == "anchor-commit" and out["missingId"] == "c" * 40
    assert out["recovery"] == f"fetch a branch that contains {'c' * 40}, then git hn sync origin"


def test_rewritten_stream_after_acceptance(arena):
    remote, alice, bob, f, good = arena
    stream = f.push(f.chain(2))
    assert hn(bob, "replication", "select", "--memory", good["stream"], "--memory", stream).code == 0
    assert hn(bob, "sync").code == 0
    accepted = f"refs/hn/remotes/origin/memory/{f.w.actor}/{stream[7:]}"
    old = git(bob, "rev-parse", accepted)
    # a different valid history for the same stream, force-pushed

    def mutate(seq, payload, sig, parents):
        env = json.loads(payload)
        env["record"]["content"] = f"rewritten {seq}"
        payload = canonical(env)
        return payload, f.sign(payload), parents, {}

    rewritten = f.chain(3, mutate=mutate)
    f.push(rewritten)
    r = hn(bob, "sync", "--json")
    doc = json.loads(r.out)
    out = next(o for o in doc["outcomes"] if o["id"] == stream)
    _expect(out, "equivocation", f"does not descend from accepted head {old}")
    assert git(bob, "rev-parse", accepted) == old


def test_oversized_pack_is_stopped(arena):
    """A stream carrying a huge blob never gets promoted, whichever check stops it first."""
    remote, alice, bob, f, good = arena
    big = os.urandom(6 << 20)  # incompressible
    blob = git(alice, "hash-object", "-w", "--stdin", input=big)

    def mutate(seq, payload, sig, parents):
        return payload, sig, parents, {"extra": f"100644 blob {blob}\tzz-bomb\n"}

    stream = f.push(f.chain(1, mutate=mutate))
    out = _run(bob, good, stream, "--max-total-bytes", "100000")
    assert out["status"] == "over-budget", out
    assert "exceeded max-total-bytes budget: configured=100000" in out["diagnostic"]


@pytest.mark.parametrize("whose", ["a stranger's", "the importer's own actor"])
def test_a_verified_chain_advertised_under_another_stream_is_never_promoted(arena, whose):
    """§4.2 step 6 for a chain this clone has verified already: the import used to skip the
    commits it knew without asking which actor and stream they were signed for, so a remote that
    advertised Alice's verified head under another ref got it promoted there (on the second
    sync, or the first when the ref named the importer's own actor), after which that ref broke
    the index and every append of the importer."""
    from helpers import actor_of

    remote, alice, bob, f, good = arena
    assert hn(bob, "init", "--name", "Bob").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "sync").code == 0  # Alice's stream is verified here now
    head = git(remote, "rev-parse", f"refs/hn/memory/{good['actor']}/{good['stream'][7:]}")
    actor = "c" * 64 if whose == "a stranger's" else actor_of(bob)
    stolen = "sha256:" + "ab" * 32
    git(alice, "push", "-q", str(remote), f"{head}:refs/hn/memory/{actor}/{stolen[7:]}")
    for _ in range(2):
        r = hn(bob, "sync", "--json")
        assert r.code == 1, r
        out = {o["id"]: o for o in json.loads(r.out)["outcomes"]}[stolen]
        _expect(out, "structurally-invalid", f"has owner {good['actor']}, want {actor}")
        assert git(bob, "for-each-ref", "--format=%(refname)", f"refs/hn/remotes/origin/memory/{actor}") == ""
    assert hn(bob, "memory", "index", "rebuild").code == 0
    assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "bob can still write").code == 0


def test_a_pre_receive_hook_that_floods_stderr_is_not_held_in_memory(tmp_path):
    """An audit: a server's pre-receive hook printed 400 MB through ``git push``, and the sync
    held all of it (1.2 GB). Only the start and the end of a child's stderr are kept: the
    refusal still gives the server's first line, and the sync's peak memory stays far below the
    flood (measured as the peak RSS of a real ``git hn sync`` process)."""
    import subprocess
    import sys

    remote, (a,) = shared_remote(tmp_path, "Alice")
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'no memory refs here'\n"
                    "yes 'flood flood flood flood flood flood flood flood flood flood' | head -c 60000000\n"
                    "echo 'last words'\nexit 1\n")
    hook.chmod(0o755)
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "refused by a flooding server").code == 0
    code = ("import resource, subprocess, sys\n"
            "r = subprocess.run([sys.executable, '-m', 'git_hn', 'sync'], capture_output=True)\n"
            "sys.stdout.write(r.stderr.decode('utf-8', 'replace'))\n"
            "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=a, capture_output=True, text=True, timeout=300)
    assert proc.stdout == ("git-hn: publication phase failed after replication: replication memory publication "
                           "failed for remote origin: [remote rejected] (pre-receive hook declined); the server "
                           "said: no memory refs here; if origin never accepts memory refs, stop publishing there: "
                           "git config remote.origin.hnPublish false\n"), proc.stdout
    assert int(proc.stderr) < 48 * 1024, f"peak RSS {proc.stderr} KiB for 60 MB of a server's stderr"


@pytest.mark.parametrize("attack, words, hint", [
    ("rewrapped", "origin rewrote the stream's commits (the same memories in other commits), not its author",
     "origin rewrote its commits (the same memories), not its author"),
    ("rolled back", "origin rolled the stream back (to sequence 1 of 2), not its author",
     "origin rolled it back to an earlier memory, not its author"),
    ("signed twice", "its author signed two histories (another memory at sequence 1)",
     "equivocation, its author signed two histories")])
def test_a_remote_that_rewraps_or_rolls_back_memories_is_not_said_to_be_their_authors_equivocation(
        arena, attack, words, hint):
    """A red-team remote with no key wrapped an author's signed memories in new commits (same
    trees), or served an older prefix of the stream: clones said ``failed (equivocation)`` and the
    hint ``stream … of "Alice": equivocation``, blaming the author. The status stays §11(a)'s, and
    its diagnostic; the recovery, the hint and the fetch hook's line say what was seen."""
    remote, alice, bob, f, good = arena
    stream = f.push(f.chain(2))
    assert hn(bob, "replication", "select", "--memory", good["stream"], "--memory", stream).code == 0
    assert hn(bob, "sync").code == 0
    assert hn(bob, "hooks", "install").code == 0
    ref = f"refs/hn/memory/{f.w.actor}/{stream[7:]}"
    accepted = f"refs/hn/remotes/origin/memory/{f.w.actor}/{stream[7:]}"
    old = git(bob, "rev-parse", accepted)
    tip = git(remote, "rev-parse", ref)
    if attack == "rewrapped":  # (what a remote can do without the key: same trees, new commits)
        root = git(remote, "commit-tree", git(remote, "rev-parse", f"{tip}~1^{{tree}}"), "-m", "rewrapped")
        new = git(remote, "commit-tree", git(remote, "rev-parse", f"{tip}^{{tree}}"), "-p", root, "-m", "rewrapped")
    elif attack == "rolled back":
        new = git(remote, "rev-parse", f"{tip}~1")
    else:  # the author's key signed another history: a real equivocation

        def mutate(seq, payload, sig, parents):
            env = json.loads(payload)
            env["record"]["content"] = f"other {seq}"
            payload = canonical(env)
            return payload, f.sign(payload), parents, {}

        new = f.chain(2, mutate=mutate)
        f.push(new)
    git(remote, "update-ref", ref, new)
    r = hn(bob, "sync", "--json")
    out = next(o for o in json.loads(r.out)["outcomes"] if o["id"] == stream)
    assert out["status"] == "equivocation"
    assert out["diagnostic"] == f"selection memory {stream} does not descend from accepted head {old}: advertised={new}"
    assert out["recovery"] == f"inspect both chains; accepted memory history is never rolled back or rewritten; {words}"
    assert f'(stream {stream[7:19]} of "Mallory": {hint}); git hn sync origin says why' in hn(bob, "memory", "recall").err
    git(alice, "commit", "-q", "--allow-empty", "-m", "moves main")
    git(alice, "push", "-q", "origin", "main")
    fetched = subprocess.run(["git", "fetch", "-q", "origin"], cwd=bob, capture_output=True, text=True)
    assert fetched.stderr == (f'git-hn: memory import from origin failed: stream {stream[7:19]} of "Mallory": '
                              f"equivocation: {words}; run git hn sync origin\n")
    assert git(bob, "rev-parse", accepted) == old


@pytest.mark.parametrize("held", ["another actor's commit", "a commit this clone lacks"])
def test_a_remote_that_points_your_stream_at_another_actors_commit_says_so_and_how_to_put_yours_back(
        tmp_path, held):
    """An audit: a hostile remote pointed the user's own stream's ref at another actor's commit;
    the sync's one stderr line and ``--json``'s ``error`` said only "[rejected] (non-fast-forward)"
    (and, for a commit this clone lacked, "[rejected] (fetch first)" with advice to sync with
    --rebase, which cannot help). Both now name the stream, what the remote's ref holds and what to
    do; the push they give puts the user's chain back, and the next sync succeeds."""
    import shlex

    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "replication", "select", "--all").code == 0
    assert hn(alice, "hooks", "install").code == 0
    mine = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
              "descendants", "--content", "mine").json()
    theirs = hn(bob, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
                "descendants", "--content", "theirs").json()
    for repo in (alice, bob, alice):
        assert hn(repo, "sync").code == 0
    ref = f"refs/hn/memory/{mine['actor']}/{mine['stream'][7:]}"
    bobs = git(remote, "rev-parse", f"refs/hn/memory/{theirs['actor']}/{theirs['stream'][7:]}")
    if held == "a commit this clone lacks":
        bobs = git(remote, "commit-tree", git(remote, "rev-parse", f"{bobs}^{{tree}}"), "-m", "not alice's")
    git(remote, "update-ref", ref, bobs)
    before = refs_snapshot(alice)
    status = "[rejected] (non-fast-forward)" if held == "another actor's commit" else "[rejected] (fetch first)"
    words = (f"publication phase failed after replication: replication memory publication failed for remote origin: "
             f"{status}; origin's ref for your stream {mine['stream'][7:19]} holds commit {bobs[:12]}, another "
             f"actor's ({theirs['actor'][:12]}), not a continuation of your stream: it was not imported, and the push "
             f"of yours was refused; your copy here is unchanged: inspect theirs with git ls-remote origin {ref}, "
             f"and tell whoever administers origin, or put yours back: git push --force-with-lease={ref}:{bobs} "
             f"origin {ref}")
    r = hn(alice, "sync")
    assert (r.code, r.err) == (1, f"git-hn: {words}\n")
    r = hn(alice, "sync", "--json")
    assert (r.code, json.loads(r.out)["error"]) == (1, words)
    assert refs_snapshot(alice) == before
    push = subprocess.run(shlex.split(words.rsplit("put yours back: ", 1)[1]), cwd=alice, capture_output=True)
    assert push.returncode == 0, push.stderr
    assert hn(alice, "sync").code == 0
    assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)
