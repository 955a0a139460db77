"""Replication over real Git remotes (CONTRACT §9): selection, sync, publication, continuity,
crash seams, fresh clones. Hostile remotes are in tests/adversarial/test_hostile_remotes.py."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from helpers import NO_IDENTITY, git, hn, make_repo, refs_snapshot, refusing, shared_remote, wait_publication


def _actor(repo):
    return (repo / ".git" / "hn" / "active").read_text()[:-1]


def _rec(repo, content, kind="decision"):
    r = hn(repo, "memory", "record", "--json", "--kind", kind, "--at", "HEAD", "--applies",
           "descendants", "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _memory_on_a_new_commit(repo, content: str, push: bool = True) -> str:
    """A new commit (pushed to origin unless ``push`` is false) with an ``exact`` decision
    anchored on it: the commit."""
    (repo / "g").write_text("two\n")
    git(repo, "add", "g")
    git(repo, "commit", "-q", "-m", "c2")
    if push:
        git(repo, "push", "-q", "origin", "main")
    assert hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", content).code == 0
    return git(repo, "rev-parse", "HEAD")


def _sync_stopped_in_a_remote_hook(remote, repo, tmp_path, hook: str, wait: str) -> None:
    """``git hn sync`` in a session of its own, stopped (SIGINT to its process group) once the
    remote's ``hook`` has started; ``wait`` is the hook's shell after that (what it waits for)."""
    import signal
    import subprocess
    import sys
    import time

    started = tmp_path / "started"
    path = remote / "hooks" / hook
    path.write_text(f"#!/bin/sh\ntouch {started}\n{wait}\n")
    path.chmod(0o755)
    proc = subprocess.Popen([sys.executable, "-m", "git_hn", "sync"], cwd=repo, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not started.exists():
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)
    proc.communicate(timeout=60)


def _policy(*actors):
    return json.dumps({"version": "hn.policy/0", "maintainers": [actors[0]],
                       "proposals": {"requiredAccepts": 1},
                       "memory": {"trustedActors": sorted(actors),
                                  "trustedKinds": ["assumption", "attempt", "decision", "handoff",
                                                   "observation", "verification"]}})


@pytest.fixture
def world(tmp_path):
    """A bare remote with a main branch, Alice's clone and Bob's clone, each with an identity."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    return remote, alice, bob


def test_two_actors_exchange_memories_and_trust_follows_policy(world):
    remote, alice, bob = world
    a = _rec(alice, "alice decides")
    b = _rec(bob, "bob observes", kind="observation")
    r = hn(alice, "sync")  # nothing to import yet; publishes Alice's stream
    assert r.code == 0, r.err
    assert r.out.splitlines() == ["Synchronized with origin: published 1 stream"]
    r = hn(bob, "sync")  # no saved selection: compatibility-all imports Alice's stream
    assert r.code == 0, r.err
    # (no selection saved: what was promoted is counted in streams, as the hint below it says)
    assert r.out.splitlines()[-1] == ("Synchronized with origin: imported 1 memory, promoted 1 stream, "
                                      "published 1 stream")
    assert hn(alice, "replication", "select", "origin", "--memory", b["stream"]).code == 0
    assert hn(bob, "replication", "select", "origin", "--memory", a["stream"]).code == 0
    r = hn(alice, "sync")
    assert r.code == 0, r.err
    assert r.out.splitlines() == [f"Replication memory {b['stream']}: promoted",
                                  "Synchronized with origin: imported 1 memory, promoted 1 stream"]
    assert hn(bob, "sync").code == 0
    accepted = f"refs/hn/remotes/origin/memory/{_actor(bob)}/{b['stream'][7:]}"
    assert git(alice, "rev-parse", accepted) == git(bob, "rev-parse", f"refs/hn/memory/{_actor(bob)}/{b['stream'][7:]}")
    # a shared policy trusting both actors, committed and fetched by both
    (alice / ".hn").mkdir()
    (alice / ".hn" / "policy.json").write_text(_policy(_actor(alice), _actor(bob)))
    git(alice, "add", ".hn")
    git(alice, "commit", "-q", "-m", "policy")
    git(alice, "push", "-q", "origin", "main")
    git(bob, "pull", "-q", "--ff-only")
    for who, other in ((alice, b), (bob, a)):
        out = hn(who, "memory", "recall", "--json").json()
        assert other["memoryId"] in [m["id"] for m in out["memories"]]
        row = next(m for m in out["memories"] if m["id"] == other["memoryId"])
        assert row["trust"] == "qualified"
    # publication never pushed the primary branch or accepted refs
    remote_refs = git(remote, "for-each-ref", "--format=%(refname)").split()
    assert not any(r.startswith("refs/hn/remotes/") for r in remote_refs)


def test_sync_never_pushes_the_primary_branch(world):
    remote, alice, _bob = world
    before = git(remote, "rev-parse", "refs/heads/main")
    git(alice, "commit", "-q", "--allow-empty", "-m", "local only")
    _rec(alice, "x")
    assert hn(alice, "sync").code == 0
    assert git(remote, "rev-parse", "refs/heads/main") == before


def test_selection_commands_and_validation(world):
    _remote, alice, _bob = world
    r = hn(alice, "replication", "show")
    assert r.out.splitlines()[:3] == ["remote: origin", "saved: false", "compatibility-all: true"]
    stream = "sha256:" + "a" * 64
    r = hn(alice, "replication", "select", "--memory", stream, "--max-events", "5", "origin")
    assert r.code == 0, r.err
    assert r.out.splitlines()[:4] == ["Saved replication selection for origin", "remote: origin",
                                      "saved: true", "compatibility-all: false"]
    assert f"memory: {stream}" in r.out and "max-events: 5" in r.out
    r2 = hn(alice, "replication", "select", "--all", "origin")  # says what it selects (git-hn's line)
    assert r2.out.splitlines()[1:5] == ["remote: origin", "saved: true", "compatibility-all: false", "all: true"]
    assert "\nall: true" not in hn(alice, "replication", "show", "other").out
    r = hn(alice, "replication", "select", "--memory", stream, "--max-events", "5", "origin")
    # a selection imports nothing by itself: what does (a newcomer's first git fetch moved no branch)
    assert r.err == ("git-hn: hint: a selection imports nothing by itself: git hn sync origin imports what it "
                     "selects now; with git-hn's hooks installed, so does each later git fetch that moves a branch\n")
    # an actor selector is saved as hn saves it, and imports nothing in git-hn (a team trial
    # followed one and the sync said only "skipped"): the selection says so when saved
    r = hn(alice, "replication", "select", "--actor", "b" * 64, "origin")
    assert r.code == 0 and r.err.startswith(
        "git-hn: hint: git-hn imports no stream for an --actor or --proposal selector (saved as hn saves it, "
        "CONTRACT §11(c)): --memory STREAM or --all selects streams\n"), r.err
    r = hn(alice, "replication", "select", "--memory", stream, "--max-events", "5", "origin")
    assert "--actor" not in r.err
    saved = alice / ".git" / "hn" / "replication" / "selections" / "b3JpZ2lu.json"
    doc = json.loads(saved.read_text())
    assert list(doc) == ["version", "remote", "actors", "proposals", "memories", "all", "budgets"]
    assert doc["actors"] is None and doc["proposals"] is None and doc["memories"] == [stream]
    assert oct(os.stat(saved).st_mode & 0o777) == "0o600"
    errors = [
        (["--all", "--memory", stream], "--all is mutually exclusive with actor, proposal, and memory selectors"),
        # §9.1's text, then what selects streams in git-hn (a newcomer trial followed "actor" from it)
        ([], "replication selection requires at least one actor, proposal, or memory, or explicit --all; git hn "
             "replication select --all selects every memory stream, --memory sha256:<stream> one (git-hn imports "
             "no stream for an --actor or --proposal selector)"),
        (["--memory", "abc"], 'memory selector "abc" must be a full memory stream ID'),
        (["--memory", stream, "--memory", stream], f"duplicate memory selector {stream}"),
        (["--actor", "ABC"], 'actor selector "ABC" must be a full actor fingerprint'),
        (["--proposal", "x"], 'proposal selector "x" must be a full event ID'),
        (["--all", "--max-events", "0"], "max-events must be a positive integer; --max-events takes 1 or more"),
        (["--all", "--max-total-bytes", "-1"], "max-total-bytes must be a positive integer; --max-total-bytes takes 1 or more"),
        (["--all", "bad/name"], "invalid replication remote name; a remote git-hn replicates with is named by "
                                "letters, digits and _ (then also . and -; no .., no final ., at most 128): "
                                "git remote rename OLD NEW"),
        (["--all", "a", "b"], "usage: git hn replication select [REMOTE] [--actor ACTOR]... [--proposal ID]... "
                             "[--memory STREAM]... [--all] [budgets]; unexpected argument \"b\""),
    ]
    before = saved.read_bytes()
    for args, message in errors:
        r = hn(alice, "replication", "select", *args)
        assert r.err == f"git-hn: {message}\n", args
    assert saved.read_bytes() == before
    assert hn(alice, "replication").err == ("git-hn: usage: git hn replication <select|show> [REMOTE]; missing the "
                                            "replication command (git hn replication -h also lists forget-anchors)\n")
    assert hn(alice, "replication", "drop").err == \
        'git-hn: unknown replication command "drop"; git hn replication -h lists them\n'


def test_sync_argument_and_remote_errors(world):
    _remote, alice, _bob = world
    usage = "git-hn: usage: git hn sync [REMOTE] [--recover-shallow] [--rebase] [--json]\n"
    assert hn(alice, "sync", "a", "b").err == usage[:-1] + '; unexpected argument "b"\n'
    for args in (["--json", "--json"], ["--rebase", "--rebase"]):
        assert hn(alice, "sync", *args).err == f"{usage[:-1]}; {args[0]} was given twice\n", args
    assert hn(alice, "sync", "--force").err == usage[:-1] + "; unknown option --force\n"
    assert hn(alice, "sync", "nope").err == ('git-hn: remote "nope" does not exist (the remotes here: origin); '
                                             'name one of them (git hn sync origin), or add it with git remote '
                                             'add nope URL\n')
    git(alice, "remote", "add", "a/b", "file:///nowhere")  # (a name git-hn refuses is never offered)
    assert "(git hn sync origin)" in hn(alice, "sync", "nope").err
    assert hn(alice, "sync", "-bad").err == usage[:-1] + "; unknown option -bad\n"
    assert hn(alice, "sync", "--", "..x").err == ('git-hn: invalid remote name "..x"; a remote git-hn replicates '
                                                  "with is named by letters, digits and _ (then also . and -; no "
                                                  ".., no final ., at most 128): git remote rename OLD NEW\n")


@pytest.mark.parametrize("url", ["ext::sh -c touch% /tmp/hn-pwned-%p", "fd::3", "foo::bar",
                                 "gopher://example.com/x"])
def test_refused_transports_never_contact_the_remote(world, url, tmp_path):
    _remote, alice, _bob = world
    git(alice, "remote", "add", "evil", url)
    git(alice, "config", "protocol.allow", "always")
    before = refs_snapshot(alice)
    r = hn(alice, "sync", "evil", "--json")
    assert (r.code, r.out, r.err) == (1, "", 'git-hn: remote "evil" uses a refused transport\n')
    assert not any(p.startswith("hn-pwned") for p in os.listdir("/tmp"))
    assert refs_snapshot(alice) == before
    assert not (alice / ".git" / "hn" / "replication" / "quarantine").exists() or \
        os.listdir(alice / ".git" / "hn" / "replication" / "quarantine") == []


def test_json_output_and_independent_outcomes(world):
    remote, alice, bob = world
    a = _rec(alice, "alice")
    assert hn(alice, "sync").code == 0
    missing = "sha256:" + "e" * 64
    assert hn(bob, "replication", "select", "--memory", a["stream"], "--memory", missing,
              "--actor", _actor(alice)).code == 0
    r = hn(bob, "sync", "--json")
    assert r.code == 1
    assert r.err == ("git-hn: replication import phase failed for one or more exact selections; "
                     f"independently valid selections were promoted; memory {missing} failed (dependency-missing): "
                     "verify the full selection ID and retry when the exact ref is advertised (the outcomes of the "
                     "JSON on stdout say why)\n")
    doc = json.loads(r.out)
    assert list(doc) == ["version", "remote", "outcomes", "verifiedEvents", "promoted", "importedMemories",
                         "published", "error"]
    assert doc["error"] == ("replication import phase failed for one or more exact selections; "
                            "independently valid selections were promoted")  # (§9.15's text: no pointer)
    kinds = [(o["kind"], o["id"], o["status"]) for o in doc["outcomes"]]
    assert kinds == sorted(kinds)
    by_id = {o["id"]: o for o in doc["outcomes"]}
    assert by_id[a["stream"]]["status"] == "promoted"
    assert by_id[a["stream"]]["measurements"] == {"Events": 1, "Objects": 4, "LargestObjectBytes":
                                                  by_id[a["stream"]]["measurements"]["LargestObjectBytes"],
                                                  "LargestAttachmentBytes": 0,
                                                  "TotalBytes": by_id[a["stream"]]["measurements"]["TotalBytes"]}
    assert by_id[missing]["status"] == "dependency-missing"
    assert by_id[missing]["diagnostic"] == f"selected memory {missing} is not advertised by remote origin"
    assert by_id[missing]["recovery"] == "verify the full selection ID and retry when the exact ref is advertised"
    assert by_id[_actor(alice)] == {"kind": "actor", "id": _actor(alice), "status": "skipped",
                                    "diagnostic": "unsupported"}
    assert doc["promoted"] == 1 and doc["verifiedEvents"] == 0 and doc["importedMemories"] == 1
    human = hn(bob, "sync")
    assert f"Replication actor {_actor(alice)}: skipped (unsupported)" in human.out


def test_fresh_clone_workflow(world, tmp_path):
    remote, alice, _bob = world
    a = _rec(alice, "published decision")
    assert hn(alice, "memory", "index", "rebuild").code == 0
    assert hn(alice, "replication", "select", "--all").code == 0
    assert hn(alice, "sync").code == 0
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(remote), str(fresh))
    hn_dir = fresh / ".git" / "hn"
    assert not hn_dir.exists()  # no key, no index, no selection of the publisher
    r = hn(fresh, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", "x")
    assert r.err == NO_IDENTITY
    assert hn(fresh, "replication", "select", "origin", "--memory", a["stream"]).code == 0
    r = hn(fresh, "sync")
    assert r.code == 0, r.err
    out = hn(fresh, "memory", "recall", "--include-untrusted", "--json").json()
    assert [m["id"] for m in out["memories"]] == [a["memoryId"]]
    assert out["memories"][0]["trust"] == "policy-missing"
    assert not (hn_dir / "identities").exists()
    assert hn(fresh, "init").code == 0


def test_rewritten_stream_after_acceptance_is_equivocation(world, tmp_path):
    remote, alice, bob = world
    a = _rec(alice, "first")
    _rec(alice, "second")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    assert hn(bob, "sync").code == 0
    accepted = f"refs/hn/remotes/origin/memory/{_actor(alice)}/{a['stream'][7:]}"
    old = git(bob, "rev-parse", accepted)
    # Alice's stream is force-pushed back to its first memory (a rollback)
    local = f"refs/hn/memory/{_actor(alice)}/{a['stream'][7:]}"
    first = git(alice, "rev-parse", f"{local}^")
    git(alice, "push", "-q", "--force", "origin", f"{first}:{local}")
    r = hn(bob, "sync", "--json")
    doc = json.loads(r.out)
    out = next(o for o in doc["outcomes"] if o["id"] == a["stream"])
    assert out["status"] == "equivocation"
    assert out["diagnostic"] == (f"selection memory {a['stream']} does not descend from accepted head "
                                 f"{old}: advertised={first}")
    assert git(bob, "rev-parse", accepted) == old


SEAMS = ["after-fetch", "after-measure", "after-pending-anchor", "after-object-copy",
         "before-promotion", "before-completion-receipt"]


@pytest.mark.parametrize("seam", SEAMS)
def test_interruption_at_each_seam_then_rerun_converges(world, seam, tmp_path):
    remote, alice, bob = world
    a = _rec(alice, "interrupted import")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    accepted = f"refs/hn/remotes/origin/memory/{_actor(alice)}/{a['stream'][7:]}"
    env = {"HN_INTERNAL_TESTING": "1", "HN_TEST_REPLICATION_INTERRUPT_AFTER": seam}
    from helpers import hn_proc

    r = hn_proc(bob, "sync", env=env)
    assert r.code == 1
    promoted = git(bob, "rev-parse", "--verify", "-q", accepted, check=False)
    if seam == "before-completion-receipt":
        assert promoted and "completion recording failed" in r.err
        assert "retry git hn sync origin --recover-shallow" in r.err
    else:
        assert promoted == "", seam  # unchanged, never half done
    if seam in ("after-pending-anchor", "after-object-copy", "before-promotion"):
        assert "accepted refs and trust projection are unchanged" in r.err
    quarantine = bob / ".git" / "hn" / "replication" / "quarantine"
    assert not quarantine.exists() or os.listdir(quarantine) == []
    assert list((bob / ".git" / "refs").rglob("*.lock")) == []  # the prepared transaction aborted
    # a rerun converges to the uninterrupted result
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    assert git(bob, "rev-parse", accepted) == git(alice, "rev-parse", f"refs/hn/memory/{_actor(alice)}/{a['stream'][7:]}")
    out = hn(bob, "memory", "recall", "--include-untrusted", "--json").json()
    assert [m["id"] for m in out["memories"]] == [a["memoryId"]]
    assert os.listdir(bob / ".git" / "hn" / "replication" / "anchors") == []


STOPPED = {
    "after-fetch": "; its quarantine was removed and nothing was promoted: run git hn sync origin again",
    "after-pending-anchor": "; its quarantine was removed and nothing was promoted: run git hn sync origin again",
    "after-object-copy": "; its quarantine was removed and nothing was promoted: run git hn sync origin again",
    "before-completion-receipt": " after it promoted 1 stream; the rest of the sync did not run: run git hn sync "
                                 "origin again",
}


@pytest.mark.parametrize("seam", list(STOPPED))
def test_ctrl_c_during_promotion_never_leaves_reads_waiting_for_a_sync(world, seam):
    """A trial: Ctrl-C between the pending anchor and its receipt, or between the ref transaction
    and the completion receipt, said "nothing was half promoted", and every read then failed
    with "replication acceptance pending" until the next sync. A stopping signal is held across
    those two steps (it lands before or after them), and the line says what the sync left."""
    remote, alice, bob = world
    a = _rec(alice, "stopped import")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    accepted = f"refs/hn/remotes/origin/memory/{_actor(alice)}/{a['stream'][7:]}"
    from helpers import hn_proc

    r = hn_proc(bob, "sync", env={"HN_INTERNAL_TESTING": "1", "HN_TEST_REPLICATION_SIGNAL_AT": seam})
    assert (r.code, r.err) == (130, f"git-hn: sync with origin stopped by SIGINT{STOPPED[seam]}\n")
    promoted = git(bob, "rev-parse", "--verify", "-q", accepted, check=False)
    assert bool(promoted) == (seam == "before-completion-receipt")
    quarantine = bob / ".git" / "hn" / "replication" / "quarantine"
    assert not quarantine.exists() or os.listdir(quarantine) == []
    # reads never wait for a sync: the state is consistent, and nothing a ref reaches is denied
    r = hn(bob, "memory", "recall", "--include-untrusted", "--json")
    assert r.code == 0, r.err
    assert [m["id"] for m in r.json()["memories"]] == ([a["memoryId"]] if promoted else [])
    assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "still records").code == 0
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    assert git(bob, "rev-parse", accepted) == git(alice, "rev-parse", f"refs/hn/memory/{_actor(alice)}/{a['stream'][7:]}")
    assert os.listdir(bob / ".git" / "hn" / "replication" / "anchors") == []


def test_index_verify_of_an_unsealed_state_names_the_sync_a_pending_acceptance_waits_for(world):
    """A trial: with an acceptance pending (a promotion cut before its completion receipt) and
    the state unsealed, ``index verify`` advised ``index rebuild``, which failed with the pending
    line; it names the sync that completes the acceptance."""
    remote, alice, bob = world
    a = _rec(alice, "pending")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    assert hn(bob, "memory", "recall", "--json").code == 0  # the state exists
    from helpers import hn_proc

    env = {"HN_INTERNAL_TESTING": "1", "HN_TEST_REPLICATION_INTERRUPT_AFTER": "before-completion-receipt"}
    assert hn_proc(bob, "sync", env=env).code == 1
    seal = bob / ".git" / "hn" / "memory" / "state-v0.seal"
    seal.write_text("interrupted\n")
    r = hn(bob, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index corrupt: memory state is unsealed: a write of it was "
                                  "interrupted, it was changed after it was written, or the repository was copied "
                                  "or moved; a replication acceptance "
                                  "from origin is pending, which git hn sync origin completes; then git hn memory "
                                  "index rebuild replaces it\n")
    assert hn(bob, "memory", "index", "rebuild").code == 1  # as the line says: not before the sync
    assert hn(bob, "sync").code == 0
    assert hn(bob, "memory", "index", "rebuild").code == 0
    assert hn(bob, "memory", "index", "verify").code == 0


def test_objects_copied_but_not_accepted_are_denied_to_trust_reads(world):
    remote, alice, bob = world
    a = _rec(alice, "pending")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    from helpers import hn_proc

    env = {"HN_INTERNAL_TESTING": "1", "HN_TEST_REPLICATION_INTERRUPT_AFTER": "before-promotion"}
    assert hn_proc(bob, "sync", env=env).code == 1
    commit = git(alice, "rev-parse", f"refs/hn/memory/{_actor(alice)}/{a['stream'][7:]}")
    assert git(bob, "cat-file", "-t", commit) == "commit"  # the object is in the store...
    # ...but a ref pointing at it cannot be read for trust until the transaction completes
    git(bob, "update-ref", f"refs/hn/remotes/other/memory/{_actor(alice)}/{a['stream'][7:]}", commit)
    r = hn(bob, "memory", "show", a["memoryId"])
    assert r.code == 1
    assert "replication acceptance pending; transaction=txn-" in r.err
    assert f"object={commit}" in r.err and "recovery=retry git hn sync origin --recover-shallow" in r.err
    git(bob, "update-ref", "-d", f"refs/hn/remotes/other/memory/{_actor(alice)}/{a['stream'][7:]}")
    assert hn(bob, "sync").code == 0
    assert hn(bob, "memory", "show", a["memoryId"]).code == 0


@pytest.mark.parametrize("tamper", ["duplicate-key", "newline-in-oid", "float-version", "bad-json"])
def test_tampered_receipt_fails_closed(world, tamper):
    """A state file git-hn would not have written is read strictly and judged invalid."""
    _remote, alice, bob = world
    a = _rec(alice, "receipt")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    assert hn(bob, "sync").code == 0
    txdir = bob / ".git" / "hn" / "replication" / "transactions"
    (path,) = list(txdir.iterdir())
    text = path.read_text()
    doc = json.loads(text)
    assert doc["state"] == "complete" and doc["acceptedObjects"]
    oid = doc["acceptedObjects"][0]
    if tamper == "duplicate-key":
        text = text.replace('"state": "complete"', '"state": "validated",\n  "state": "complete"', 1)
    elif tamper == "newline-in-oid":
        text = text.replace(f'"{oid}"', json.dumps(oid + "\n" + oid), 1)
    elif tamper == "float-version":
        text = text.replace('"version": 2', '"version": 2.0', 1)
    else:
        text = text[:-3]
    path.write_text(text)
    r = hn(bob, "memory", "show", a["memoryId"])
    assert r.code == 1
    assert "state=invalid" in r.err, r.err


def test_one_recover_shallow_run_fetches_every_missing_anchor(tmp_path):
    """Classification names one missing anchor per selection; recovery still fetches them all."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    alice = make_repo(tmp_path / "alice")
    for i in range(4):
        git(alice, "commit", "-q", "--allow-empty", "-m", f"c{i}")
    git(alice, "remote", "add", "origin", str(remote))
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init").code == 0
    olds = [git(alice, "rev-parse", f"HEAD~{n}") for n in (4, 3, 2)]
    for n, old in enumerate(olds):
        r = hn(alice, "memory", "record", "--kind", "decision", "--at", old, "--applies", "exact",
               "--content", f"anchored at old commit {n}", "--json")
        assert r.code == 0, r.err
    stream = r.json()["stream"]
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(bob))
    assert hn(bob, "replication", "select", "--memory", stream).code == 0
    shallow_before = set((bob / ".git" / "shallow").read_text().split())
    r = hn(bob, "sync", "--recover-shallow")
    assert r.code == 0, r.err
    assert f"Replication memory {stream}: promoted" in r.out
    assert set((bob / ".git" / "shallow").read_text().split()) == shallow_before | set(olds)
    assert git(bob, "rev-list", "--count", "HEAD") == "1"
    for old in olds:
        assert git(bob, "cat-file", "-t", old) == "commit"


def test_one_recover_shallow_run_promotes_a_stream_that_failed_only_by_a_recovered_one(tmp_path):
    """A trial: Bob's stream challenges Alice's memory, anchored beyond a shallow clone's
    boundary; ``--recover-shallow`` fetched the anchor and promoted Alice's stream, but Bob's,
    which had failed only because Alice's did (§9.9 step 6), was not judged again and failed
    until a second run. Both are promoted by the one run, Bob's with its memory before the
    challenge too."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", str(remote))
    assert hn(alice, "init", "--name", "Alice").code == 0
    old = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
             "--content", "anchored at the first commit", "--json").json()
    git(alice, "commit", "-q", "--allow-empty", "-m", "later")
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(remote), str(bob))
    assert hn(bob, "init", "--name", "Bob").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "sync").code == 0
    hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
       "--content", "Bob's own, before his challenge", "--json").json()
    mine = hn(bob, "memory", "challenge", old["memoryId"], "--reason", "needs-benchmark", "--json").json()
    assert hn(bob, "sync").code == 0
    sam = tmp_path / "sam"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(sam))
    assert hn(sam, "replication", "select", "--memory", old["stream"], "--memory", mine["stream"]).code == 0
    r = hn(sam, "sync", "--recover-shallow")
    assert r.code == 0, r.out + r.err
    assert f"Replication memory {old['stream']}: promoted" in r.out and f"Replication memory {mine['stream']}: promoted" in r.out
    assert r.out.splitlines()[-1] == "Synchronized with origin: imported 3 memories, promoted 2 streams", r.out
    assert git(sam, "rev-list", "--count", "HEAD") == "1"


def test_recover_shallow_fetches_under_the_byte_budget(tmp_path):
    """An audit's case: the recovery fetch of missing anchors ran outside the import's watchdog
    (no byte budget, no stall timeout: a stalling server held the sync, and the state's lock that
    every read waits for, for 300 s). It runs under both now: an anchor commit whose tree exceeds
    the selection's byte budget is not fetched, and the recovery says why."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    alice = make_repo(tmp_path / "alice")
    (alice / "big.bin").write_bytes(os.urandom(3 << 20))
    git(alice, "add", "big.bin")
    git(alice, "commit", "-q", "-m", "big")
    old = git(alice, "rev-parse", "HEAD")
    git(alice, "rm", "-q", "big.bin")
    git(alice, "commit", "-q", "-m", "small again")
    git(alice, "remote", "add", "origin", str(remote))
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init").code == 0
    r = hn(alice, "memory", "record", "--kind", "decision", "--at", old, "--applies", "exact",
           "--content", "anchored at the big commit", "--json")
    assert r.code == 0, r.err
    stream = r.json()["stream"]
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(bob))
    assert hn(bob, "replication", "select", "--memory", stream, "--max-total-bytes", "65536").code == 0
    r = hn(bob, "sync", "--recover-shallow", "--json")
    assert r.code == 1, r.err
    [out] = [o for o in json.loads(r.out)["outcomes"] if o.get("id") == stream]
    assert out["status"] == "dependency-missing", out
    assert "recovery fetch stopped: the missing objects exceed the byte budget (65536 bytes a selection" \
        in out["diagnostic"], out
    assert subprocess.run(["git", "cat-file", "-e", old], cwd=bob).returncode != 0
    assert hn(bob, "replication", "select", "--memory", stream).code == 0  # (the default budget)
    assert hn(bob, "sync", "--recover-shallow").code == 0
    assert git(bob, "cat-file", "-t", old) == "commit"


def test_promotion_keeps_the_verified_state_fresh(world):
    """After a promotion the state serves the new refs at once (index verify passes right after
    it, also for a clone's first sync), and a stale export is removed, never left behind."""
    _remote, alice, bob = world
    a = _rec(alice, "indexed after promotion")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    index = bob / ".git" / "hn" / "memory" / "index-v0.json"
    assert hn(bob, "memory", "index", "rebuild").code == 0 and index.exists()
    assert hn(bob, "sync").code == 0
    assert not index.exists()  # the export described the old refs
    r = hn(bob, "memory", "index", "verify")
    assert r.code == 0, r.err
    out = hn(bob, "memory", "recall", "--include-untrusted", "--json").json()
    assert [m["id"] for m in out["memories"]] == [a["memoryId"]]
    # a clone without any private state: its first sync leaves a fresh one
    b = _rec(alice, "second")
    assert hn(alice, "sync").code == 0
    for private in index.parent.iterdir():
        private.unlink()
    assert hn(bob, "sync").code == 0
    r = hn(bob, "memory", "index", "verify")
    assert r.code == 0, r.err
    assert r.out.endswith(", records 2\n")
    out = hn(bob, "memory", "recall", "--include-untrusted", "--json").json()
    assert b["memoryId"] in [m["id"] for m in out["memories"]]


def test_failed_index_rebuild_after_promotion_warns_and_keeps_the_outcome(world):
    _remote, alice, bob = world
    a = _rec(alice, "promoted while the policy is broken")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    assert hn(bob, "memory", "index", "rebuild").code == 0
    # the index is current; the rebuild after the promotion then fails for want of space (a
    # file-size limit small enough for the fetched objects and receipts, not for the database)
    from helpers import hn_file_limited

    r = hn_file_limited(bob, 16384, "sync")
    assert r.code == 0, r.err
    assert f"Replication memory {a['stream']}: promoted" in r.out
    assert r.err.startswith("git-hn: warning: memory index removed: ") and r.err.count("\n") == 1
    assert not (bob / ".git" / "hn" / "memory" / "index-v0.json").exists()
    assert a["memoryId"] in hn(bob, "memory", "recall", "--include-untrusted", "--json").out


def _sync_on_pty(repo, *args) -> tuple[int, str, bytes]:
    """``git hn sync`` with stderr on a pseudo-terminal: (status, stdout, terminal bytes)."""
    import pty
    import select
    import subprocess

    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"}
    proc = subprocess.Popen(["git", "hn", "sync", *args], cwd=repo, stdout=subprocess.PIPE,
                            stderr=slave, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    seen = b""
    while True:
        ready, _w, _x = select.select([master], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    out = proc.stdout.read().decode()
    proc.wait()
    os.close(master)
    return proc.returncode, out, seen


def test_progress_is_drawn_on_a_terminal_and_never_in_json_or_pipes(world):
    _remote, alice, bob = world
    a = _rec(alice, "progress")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    code, out, terminal = _sync_on_pty(bob)
    assert code == 0
    assert b"git hn sync" in terminal  # the rich status line, on the terminal only
    assert f"Replication memory {a['stream']}: promoted" in out and "git hn sync" not in out
    _rec(alice, "json run")
    assert hn(alice, "sync").code == 0
    code, out, terminal = _sync_on_pty(bob, "--json")
    assert code == 0 and terminal == b""
    assert json.loads(out)["outcomes"][0]["status"] == "promoted"
    _rec(alice, "piped run")
    assert hn(alice, "sync").code == 0
    r = hn(bob, "sync")  # stderr is a pipe: no progress at all
    assert r.code == 0 and r.err == ""


def test_recover_shallow_checks(world):
    _remote, alice, _bob = world
    assert hn(alice, "sync", "--recover-shallow").err == \
        "git-hn: repository is not shallow; run git hn sync origin\n"


def _old_anchor_and_shallow_clone(tmp_path):
    """Alice's memory anchored three commits back, published; Bob's clone of depth 1 lacks that
    commit: (remote, alice, the anchor, the record's JSON, bob)."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    alice = make_repo(tmp_path / "alice")
    for i in range(3):
        git(alice, "commit", "-q", "--allow-empty", "-m", f"c{i}")
    git(alice, "remote", "add", "origin", str(remote))
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init").code == 0
    old = git(alice, "rev-parse", "HEAD~3")
    r = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", old, "--applies", "exact",
           "--content", "anchored at an old commit")
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(bob))
    return remote, alice, old, r.json(), bob


def test_shallow_clone_gap_and_recover_shallow(tmp_path):
    remote, alice, old, a, bob = _old_anchor_and_shallow_clone(tmp_path)
    assert (bob / ".git" / "shallow").exists()
    assert hn(bob, "sync", "--recover-shallow").err == \
        "git-hn: --recover-shallow requires a saved exact replication selection for origin; save the streams to " \
        "recover by name (git hn replication select origin --memory STREAM), or fetch the whole history " \
        "instead: git fetch --unshallow origin, then git hn sync origin\n"
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    r = hn(bob, "sync", "--json")
    out = json.loads(r.out)["outcomes"][0]
    assert out["status"] == "dependency-missing"
    assert out["missingId"] == old and len(old) == 40 and out["dependencyKind"] == "anchor-commit"
    assert out["recovery"] == "git hn sync origin --recover-shallow"
    line = hn(bob, "sync").out.splitlines()[0]  # the human line names the recovery once
    assert line.endswith(": anchor-commit-unavailable; recovery: git hn sync origin --recover-shallow"), line
    assert line.count("--recover-shallow") == 1
    gap = json.loads((bob / ".git" / "hn" / "shallow-gap.json").read_text())
    assert gap["version"] == 2 and gap["gap"]["missingID"] == old
    assert gap["gap"]["recovery"] == "git hn sync origin --recover-shallow"
    shallow_before = (bob / ".git" / "shallow").read_text().split()
    selection_before = (bob / ".git" / "hn" / "replication" / "selections" / "b3JpZ2lu.json").read_bytes()
    r = hn(bob, "sync", "--recover-shallow")
    assert r.code == 0, r.err
    assert f"Replication memory {a['stream']}: promoted" in r.out
    shallow_after = (bob / ".git" / "shallow").read_text().split()
    assert set(shallow_after) == set(shallow_before) | {old}  # deepened exactly the anchor
    assert git(bob, "rev-list", "--count", "HEAD") == "1"  # never unshallowed
    assert (bob / ".git" / "hn" / "replication" / "selections" / "b3JpZ2lu.json").read_bytes() == selection_before
    shown = hn(bob, "memory", "show", a["memoryId"], "--json").json()
    assert shown["projection"]["data"]["anchor"]["commit"] == old
    # imported, yet left out at HEAD (its descent from the anchor cannot be checked): recall
    # says why, --json too (a team trial found it empty with nothing said)
    said = ("git-hn: hint: nothing matched, and this clone is shallow: a memory anchored on a commit beyond its "
            "history is left out (HEAD's descent from it cannot be checked); git fetch --unshallow, or "
            "--deepen=N, brings that history\n")
    for args in ((), ("--json",)):
        r = hn(bob, "memory", "recall", "--include-untrusted", *args)
        assert r.code == 0 and r.err == said, r.err
    git(bob, "fetch", "-q", "--unshallow", "origin")
    r = hn(bob, "memory", "recall", "--include-untrusted", "--json")
    # (applies exactly at its anchor: still not at HEAD, and now that is what recall says)
    assert r.code == 0 and r.err.startswith("git-hn: hint: 1 matching memory does not apply at this commit"), r.err


@pytest.mark.parametrize("select", [["--all"], None])
def test_a_shallow_clone_without_an_exact_selection_is_told_to_deepen(tmp_path, select):
    """§9.18 refuses --recover-shallow for --all and for no saved selection, so the recovery of a
    missing anchor there names what works (git-hn): deepening the clone, then a plain sync."""
    _remote, _alice, old, _a, bob = _old_anchor_and_shallow_clone(tmp_path)
    if select:
        assert hn(bob, "replication", "select", *select).code == 0
    r = hn(bob, "sync", "--json")
    assert r.code == 1
    recovery = (f"deepen this shallow clone until it has {old} (git fetch --deepen=N, or --unshallow), "
                "then git hn sync origin")
    assert json.loads(r.out)["outcomes"][0]["recovery"] == recovery
    assert "--recover-shallow" not in r.out
    git(bob, "fetch", "-q", "--deepen=3")
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    assert "promoted 1 stream" in r.out.splitlines()[-1]


def test_a_killed_writes_temporary_beside_anchors_and_receipts_is_not_a_record(world):
    """A sync killed while writing an anchor or a receipt leaves a ``.hn-private-*`` temporary
    in that directory; it was read as a record, so every read failed ("replication acceptance
    pending … state=invalid") and every sync refused, for good, and a concurrent command failed
    the same way while a live sync wrote one. It is no record: commands ignore it, and a sync
    removes it once it is old (a young one may be a live write)."""
    import time

    remote, alice, bob = world
    _rec(alice, "before the kill")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "sync").code == 0
    replication = bob / ".git" / "hn" / "replication"
    old = replication / "transactions" / ".hn-private-00112233aabbccdd"
    young = replication / "anchors" / ".hn-private-8899aabbccddeeff"
    for path in (old, young):
        path.parent.mkdir(exist_ok=True)
        path.write_text('{"version":1}')
    hours_ago = time.time() - 7200
    os.utime(old, (hours_ago, hours_ago))
    r = hn(bob, "memory", "recall", "--include-untrusted", "--json")
    assert r.code == 0 and [m["id"] for m in r.json()["memories"]]
    assert hn(bob, "memory", "index", "verify").code == 0
    _rec(alice, "after the kill")
    assert hn(alice, "sync").code == 0
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.err
    assert r.json()["importedMemories"] == 1
    assert not old.exists() and young.exists()
    assert _rec(bob, "bob still writes")["memoryId"]


def test_a_ref_lock_a_stopped_git_left_is_named_with_the_way_out(world):
    """A crash auditor's case: a group signal reached Git's ref transaction while it created its
    lock files, and the ``.lock`` it left made every later sync fail with no cause shown. The
    transaction runs in a session of its own now; a lock left anyway is named."""
    import os

    from git_hn.store.git import Git

    _remote, alice, bob = world
    _rec(alice, "alice decides")
    assert hn(alice, "sync").code == 0
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    accepted = ref.replace("refs/hn/memory/", "refs/hn/remotes/origin/memory/")
    lock = bob / ".git" / (accepted + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")
    r = hn(bob, "sync")
    assert r.code == 1
    assert (f"; Git could not lock a ref: {lock} exists (another Git command holds it, or one that was stopped "
            "left it); if no Git command is running in this repository, delete it and sync again") in r.err, r.err
    assert git(bob, "for-each-ref", "refs/hn/remotes") == ""
    lock.unlink()
    assert hn(bob, "sync").code == 0 and git(bob, "rev-parse", accepted) == git(alice, "rev-parse", ref)
    # the transaction is out of reach of the command's process group (Ctrl-C, kill -TERM -PGID)
    prepared = Git(str(bob)).prepare([])
    try:
        assert os.getsid(prepared.proc.pid) == prepared.proc.pid != os.getsid(0)
    finally:
        prepared.abort()


def test_a_publication_stopped_while_its_push_went_on_is_never_signed_again(tmp_path):
    """A crash auditor's case: Ctrl-C on ``sync`` while the remote took the push (its
    ``git push`` ran on). The journal never heard of it, so re-anchoring after an amend signed
    the published memory again at its sequence, the clone equivocated, and ``sync --rebase``
    then held it twice. The tips a push sends are recorded as offered until its answer is read."""
    import time

    remote, (alice,) = shared_remote(tmp_path, "Alice")
    c2 = _memory_on_a_new_commit(alice, "second memory on c2")
    go = tmp_path / "go"
    _sync_stopped_in_a_remote_hook(remote, alice, tmp_path, "post-receive",
                                   f"while [ ! -e {go} ]; do sleep 0.05; done")
    go.write_text("")
    (remote / "hooks" / "post-receive").unlink()
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    deadline = time.monotonic() + 30
    while git(remote, "for-each-ref", "--format=%(objectname)", ref) != git(alice, "rev-parse", ref):
        assert time.monotonic() < deadline, "the remote never took the push"
        time.sleep(0.05)
    git(alice, "commit", "-q", "--amend", "-m", "c2b")
    r = hn(alice, "memory", "reanchor", c2, "HEAD")
    assert r.code == 1 and "no unpublished memory of yours names commit" in r.err, (r.out, r.err)
    r = hn(alice, "sync")
    assert r.code == 0, r.err
    assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)


def test_what_a_stopped_push_offered_settles_only_by_the_remote_once_its_processes_ended(tmp_path):
    """Reviewers' cases: a push refused because a stopped push still held the server's lock
    erased that push's offer (and the published memory was signed again); an offer that never
    reached the remote stayed for ever (re-anchoring refused it for good); a server still taking
    a push its dead client sent. A push settles only its own offers; what a stopped publication
    offered is settled by an advertisement read once its git-hn and its ``git push`` have
    ended: given where the remote holds the tip (or more); dropped where it does not, but only
    ``SETTLE_AFTER`` seconds after the offer; kept while undecided. A damaged record never
    stops a push."""
    import subprocess
    import sys

    from git_hn.errors import LocalStateError
    from git_hn.store import given, private
    from git_hn.store.reanchor import given as given_rows
    from git_hn.store.repo import open_repo

    repo_dir = make_repo(tmp_path / "r")
    repo = open_repo(str(repo_dir))
    dead = subprocess.Popen(["true"])
    dead.wait()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)  # git-hn"])
    ref1, ref2, ref3, ref4, ref5 = ("refs/hn/memory/" + "a" * 64 + "/" + c * 64 for c in "12345")
    h1, h2, h3 = "1" * 40, "2" * 40, "3" * 40
    path = given.offered_path(repo)
    private.ensure_dirs(repo.hn_dir, os.path.dirname(path))
    old, recent = 1_000_000, 1_000_000 + given.SETTLE_AFTER
    stopped = f"{dead.pid}-ab"
    with open(path, "w") as fh:  # publications that were stopped, and one still running
        fh.write(f"origin {ref1} {h1} {stopped} 0 {old}\norigin {ref2} {h1} {stopped} {dead.pid} {old}\n"
                 f"origin {ref3} {h1} {stopped} 0 {old}\norigin {ref4} {h1} {alive.pid}-cd 0 {old}\n"
                 f"origin {ref5} {h1} {stopped} 0 {recent}\nother {ref1} {h1} {stopped} 0 {old}\n")
    os.chmod(path, 0o600)
    given.offer(repo, "origin", {ref1: h2})
    given.settled(repo, "origin", {}, None)  # this push refused: only its own offer is settled
    assert given.offered(repo) == sorted([("origin", ref1, h1), ("origin", ref2, h1), ("origin", ref3, h1),
                                          ("origin", ref4, h1), ("origin", ref5, h1), ("other", ref1, h1)])
    verdicts = {h2: False, h3: None}  # tip h2 does not contain h1; h3 is not known here
    found = given.settle_stopped(repo, "origin", {ref1: h1, ref2: h2, ref3: h3, ref4: h2},
                                 lambda pairs: {(t, h): True if t == h else verdicts[t] for t, h in pairs}, now=recent + 1)
    assert found == {ref1: h1}  # given: the journal gets it
    # ref2 (the remote below it) and ref5 (absent there) were not given, but ref5's offer is recent
    assert given.offered(repo) == sorted([("origin", ref3, h1), ("origin", ref4, h1), ("origin", ref5, h1),
                                          ("other", ref1, h1)])
    given.settled(repo, "other", {ref1: h3}, None)  # a tip given settles another's offer of that very tip only
    assert ("other", ref1, h1) in given.offered(repo)
    given.settled(repo, "other", {ref1: h1}, None)
    assert ("other", ref1, h1) not in given.offered(repo)
    alive.kill()
    alive.wait()
    given.settle_stopped(repo, "origin", {ref3: h3}, lambda pairs: dict.fromkeys(pairs), now=recent + given.SETTLE_AFTER)
    assert given.offered(repo) == [("origin", ref3, h1)]  # (undecided stays)
    given.settle_stopped(repo, "origin", {}, lambda pairs: dict.fromkeys(pairs), now=recent + given.SETTLE_AFTER)
    assert given.offered(repo) == [] and not os.path.exists(path)
    # an offer made while the clock was ahead is counted from when it is first seen, not dropped
    # at once nor kept for as long as the clock was wrong
    with open(path, "w") as fh:
        fh.write(f"origin {ref1} {h1} {stopped} 0 {recent + 10 * given.SETTLE_AFTER}\n")
    os.chmod(path, 0o600)
    given.settle_stopped(repo, "origin", {}, lambda pairs: dict.fromkeys(pairs), now=recent)
    assert given.offered(repo) == [("origin", ref1, h1)]
    given.settle_stopped(repo, "origin", {}, lambda pairs: dict.fromkeys(pairs), now=recent + given.SETTLE_AFTER)
    assert given.offered(repo) == []
    with open(path, "w") as fh:
        fh.write("damaged\n")
    os.chmod(path, 0o600)
    given.offer(repo, "origin", {ref1: h1})  # (never raises: the publication goes on)
    try:
        given_rows(repo)
        raise AssertionError("a damaged record was read as nothing offered")
    except LocalStateError as exc:
        assert "is damaged" in exc.message
    repo.close()


def test_an_offer_the_remote_never_took_is_settled_by_the_next_sync(tmp_path):
    """A reviewer's case: a sync stopped (with its whole process group) while the remote's
    pre-receive ran: the remote never took the tip, yet the offer stayed for ever, and re-
    anchoring refused that memory while every sync advised re-anchoring it. The next sync reads
    the remote's tip once the stopped processes have ended, and drops the offer."""
    import time

    remote, (alice,) = shared_remote(tmp_path, "Alice")
    _rec(alice, "first")
    assert hn(alice, "sync").code == 0
    c2 = _memory_on_a_new_commit(alice, "second on c2")
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    before = git(remote, "rev-parse", ref)
    _sync_stopped_in_a_remote_hook(remote, alice, tmp_path, "pre-receive", "sleep 30")
    (remote / "hooks" / "pre-receive").unlink()
    assert git(remote, "rev-parse", ref) == before  # (the remote never took it)
    git(alice, "commit", "-q", "--amend", "-m", "c2b")
    git(alice, "push", "-q", "-f", "origin", "main")
    r = hn(alice, "memory", "reanchor", c2, "HEAD")
    assert r.code == 1 and "a publication to origin was stopped while pushing" in r.err, r.err
    offered = alice / ".git" / "hn" / "replication" / "offered-v0"
    r = hn(alice, "sync")
    assert offered.exists()  # (the remote holds less, but a server may still be taking that push)
    from git_hn.store import given

    lines = [line.rsplit(" ", 1)[0] + f" {int(time.time()) - given.SETTLE_AFTER}" for line in
             offered.read_text().splitlines()]
    offered.write_text("".join(line + "\n" for line in lines))  # (ten minutes later)
    deadline = time.monotonic() + 60
    while True:  # (once the stopped push's processes have ended)
        r = hn(alice, "sync")
        if not offered.exists():
            break
        assert time.monotonic() < deadline, r.err
        time.sleep(0.5)
    assert f"git hn memory reanchor {c2[:12]} NEW" in r.out, r.out
    assert hn(alice, "memory", "reanchor", c2, "HEAD").code == 0
    assert hn(alice, "sync").code == 0
    assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)
    contents = [m["summary"] for m in json.loads(hn(alice, "memory", "log", "--json").out)["memories"]]
    assert sorted(contents) == ["first", "second on c2"]


def test_a_sync_after_an_interrupted_state_write_leaves_a_verified_state(world):
    """A crash reviewer's case: a sync killed while it wrote the verified state left it unsealed;
    the next sync found everything up to date and left it so, and ``index verify`` failed until
    some read rebuilt it. A sync now brings an interrupted state back to the refs first."""
    from git_hn.store import statedb
    from git_hn.store.repo import open_repo

    _remote, alice, bob = world
    _rec(alice, "alice decides")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "sync").code == 0
    repo = open_repo(str(bob))
    seal = statedb.paths(repo)[2]
    repo.close()
    os.unlink(seal)  # (what a write cut short leaves: a file git-hn did not seal)
    assert hn(bob, "memory", "index", "verify").code == 1
    from git_hn.service.replication import promote

    repo = open_repo(str(bob))
    with statedb.locked(repo, exclusive=True):  # (a command writing it now: not an interrupted write)
        assert not promote.state_interrupted(repo)
    assert promote.state_interrupted(repo)
    repo.close()
    r = hn(bob, "sync")
    assert r.code == 0 and r.out.endswith("up to date\n"), r.out
    r = hn(bob, "memory", "index", "verify")
    assert r.code == 0, r.err


def test_a_push_that_timed_out_keeps_its_offer_and_publication_off_still_settles(tmp_path):
    """Reviewers' cases: a push that timed out (its git killed, the server still applying it)
    settled its offer at once, and the published memory was signed again; with
    ``remote.<name>.hnPublish false`` a stopped offer was never settled (the sync that could
    read the remote skipped publication)."""
    import time

    from git_hn.errors import HnError
    from git_hn.service import replication as service
    from git_hn.store import given
    from git_hn.store.repo import open_repo

    remote, (alice,) = shared_remote(tmp_path, "Alice")
    _rec(alice, "first")
    assert hn(alice, "sync").code == 0
    _rec(alice, "second")
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nsleep 6\nexit 1\n")  # (slow, and in the end it takes nothing)
    hook.chmod(0o755)
    repo = open_repo(str(alice))
    repo.git.timeout = 2.0
    try:
        service.sync(repo, "origin")
        raise AssertionError("the push did not time out")
    except HnError as exc:
        assert "timed out" in exc.message, exc.message
    assert len(given.offered(repo)) == 1  # (the server may still be taking it)
    repo.close()
    time.sleep(5)
    hook.unlink()
    path = alice / ".git" / "hn" / "replication" / "offered-v0"
    import subprocess

    dead = subprocess.Popen(["true"])  # (the sync that timed out was this test's process: as another's)
    dead.wait()
    remote_name, ref, head, _owner, push, _when = path.read_text().split()
    path.write_text(f"{remote_name} {ref} {head} {dead.pid}-ab {push} {int(time.time()) - given.SETTLE_AFTER}\n")
    git(alice, "config", "remote.origin.hnPublish", "false")
    r = hn(alice, "sync")
    assert r.code == 0 and "Publication to origin: off" in r.out, r.out
    assert not path.exists()  # the remote holds less: not given


@pytest.mark.parametrize("said", ["", 'echo "curl: (6) Could not resolve host: ci.internal" >&2\n'])
def test_a_push_that_fails_after_the_server_took_it_keeps_its_offer(tmp_path, said):
    """A reviewer's case: the server updated the memory ref, then the connection was lost before
    the client read the answer (here the server's receive-pack is killed right after the ref
    moved): the push failed without naming the ref, its offer was settled anyway, and an amend
    then signed the published memory again. Another: the server's hook said "Could not resolve
    host" first (a CI hook's curl), and Git's words for a push that never left were found in it."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    c2 = _memory_on_a_new_commit(alice, "on c2")
    hook = remote / "hooks" / "reference-transaction"
    hook.write_text('#!/bin/sh\n[ "$1" = committed ] || exit 0\n'
                    f'grep -q refs/hn/memory || exit 0\n{said}kill -9 $PPID\n')
    hook.chmod(0o755)
    r = hn(alice, "sync")
    assert r.code == 1, r.out
    hook.unlink()
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)  # (the server took it)
    assert (alice / ".git" / "hn" / "replication" / "offered-v0").exists()
    git(alice, "commit", "-q", "--amend", "-m", "c2b")
    r = hn(alice, "memory", "reanchor", c2, "HEAD")
    assert r.code == 1 and "a publication to origin was stopped while pushing" in r.err, r.err
    assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)


def test_memory_refs_pushed_by_hand_count_as_offered(tmp_path):
    """A reviewer's case: ``git push origin 'refs/hn/memory/*:refs/hn/memory/*'`` with the hooks
    installed gave the remote a memory that nothing journalled, and the post-rewrite hook's
    re-anchoring then signed it again on the next amend."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    _memory_on_a_new_commit(alice, "on c2", push=False)
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    git(alice, "push", "-q", "origin", f"{ref}:{ref}")  # (c2 is not on the remote: no publication journals it)
    wait_publication(alice)
    assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)
    git(alice, "commit", "-q", "--amend", "-m", "c2b")  # (the post-rewrite hook runs)
    assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)  # not signed again


def test_memory_refs_pushed_by_hand_stay_offered_through_a_block_mode_hooks_own_publication(tmp_path):
    """A reviewer's case: with ``hn.prePush block`` the hook's own publication (nothing to
    publish here) settled every offer its process owned, the hand-pushed memory refs' too,
    before the user's push was even sent; the amend that followed signed the published memory
    again, and the next sync failed as an equivocation."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    git(alice, "config", "hn.prePush", "block")
    _memory_on_a_new_commit(alice, "on c2", push=False)
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    git(alice, "push", "-q", "origin", "refs/hn/memory/*:refs/hn/memory/*")
    published = git(alice, "rev-parse", ref)
    assert git(remote, "rev-parse", ref) == published
    assert ref in (alice / ".git" / "hn" / "replication" / "offered-v0").read_text()
    git(alice, "commit", "-q", "--amend", "-m", "c2b")  # (the post-rewrite hook runs)
    assert git(alice, "rev-parse", ref) == published  # not signed again
    git(alice, "push", "-q", "origin", "HEAD:refs/heads/main")
    r = hn(alice, "sync")
    assert "equivocation" not in r.out, r.out


def _stopped_offer(repo, remote_name: str, ref: str, head: str, age: int) -> None:
    """An offered-record line as a publication stopped ``age`` seconds ago leaves it (its git-hn
    and its push ended)."""
    import subprocess
    import time

    dead = subprocess.Popen(["true"])
    dead.wait()
    path = repo / ".git" / "hn" / "replication" / "offered-v0"
    path.parent.mkdir(mode=0o700, exist_ok=True)
    path.write_text(f"{remote_name} {ref} {head} {dead.pid}-ab {dead.pid} {int(time.time()) - age}\n")
    path.chmod(0o600)


def test_a_stopped_offer_to_a_push_url_is_not_settled_by_the_fetch_url(tmp_path):
    """A reviewer's case: with ``remote.origin.pushurl`` another repository, the push URL took a
    memory whose publication was stopped, and the next sync settled that offer by the fetch
    URL's advertisement (which lacks it): dropped, and re-anchoring signed the published memory
    again. Offers settle by the fetch URL's advertisement only where the remote pushes there;
    else the push URL is asked (here it holds the memory: given, for good)."""
    from git_hn.store import given

    remote, (alice,) = shared_remote(tmp_path, "Alice")
    elsewhere = tmp_path / "push-here.git"
    git(tmp_path, "init", "-q", "--bare", str(elsewhere))
    git(alice, "config", "remote.origin.pushurl", str(elsewhere))
    c2 = _memory_on_a_new_commit(alice, "on c2", push=False)
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    git(alice, "push", "-q", str(elsewhere), "HEAD:refs/heads/main", f"{ref}:{ref}")  # (what went there)
    _stopped_offer(alice, "origin", ref, git(alice, "rev-parse", ref), given.SETTLE_AFTER + 5)
    git(alice, "commit", "-q", "--amend", "-m", "c2b")
    hn(alice, "sync")  # (origin's fetch URL lacks the memory; its anchor c2 is on no remote branch)
    r = hn(alice, "memory", "reanchor", c2, "HEAD")
    assert r.code == 1 and "no unpublished memory of yours names commit" in r.err, r.err
    assert git(elsewhere, "rev-parse", ref) == git(alice, "rev-parse", ref)  # never signed again


def test_one_push_urls_refusal_does_not_settle_what_another_took(tmp_path):
    """A reviewer's case: two push URLs; the first refuses memory refs, the second takes the
    memory and loses the connection before it answers. The first's refusal named the ref, so
    its offer was settled as not given, and an amend then signed the published memory again."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    refusing, taking = tmp_path / "refusing.git", tmp_path / "taking.git"
    for bare in (refusing, taking):
        git(tmp_path, "init", "-q", "--bare", str(bare))
    hook = refusing / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\n! grep -q refs/hn/memory\n")
    hook.chmod(0o755)
    hook = taking / "hooks" / "reference-transaction"
    hook.write_text('#!/bin/sh\n[ "$1" = committed ] || exit 0\ngrep -q refs/hn/memory && kill -9 $PPID\nexit 0\n')
    hook.chmod(0o755)
    git(alice, "config", "remote.origin.pushurl", str(refusing))
    git(alice, "config", "--add", "remote.origin.pushurl", str(taking))
    c2 = _memory_on_a_new_commit(alice, "on c2")
    r = hn(alice, "sync")
    assert r.code == 1, r.out
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    assert git(taking, "rev-parse", ref) == git(alice, "rev-parse", ref)  # (the second URL took it)
    git(alice, "commit", "-q", "--amend", "-m", "c2b")
    r = hn(alice, "memory", "reanchor", c2, "HEAD")
    assert r.code == 1 and "a publication to origin was stopped while pushing" in r.err, r.err


def test_memory_refs_pushed_by_hand_to_a_remotes_url_count_as_offered(tmp_path):
    """A reviewer's case: ``git push /path/of/origin REF:REF`` gave origin a memory (the hook said
    "publishes no memory") that nothing recorded, and the next amend signed it again."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    _memory_on_a_new_commit(alice, "on c2", push=False)
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    import subprocess

    pushed = subprocess.run(["git", "push", "-q", str(remote), f"{ref}:{ref}"], cwd=alice, capture_output=True,
                            text=True)
    assert pushed.returncode == 0 and "publishes no memory" not in pushed.stderr, pushed.stderr
    assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)
    git(alice, "commit", "-q", "--amend", "-m", "c2b")  # (the post-rewrite hook runs)
    assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)  # not signed again
    # a URL that is no remote here cannot be settled: said at push time
    other = tmp_path / "other.git"
    git(tmp_path, "init", "-q", "--bare", str(other))
    pushed = subprocess.run(["git", "push", "-q", str(other), f"{ref}:{ref}"], cwd=alice, capture_output=True,
                            text=True)
    assert pushed.returncode == 0 and "sends memory refs to a URL that is no remote here" in pushed.stderr


def test_sync_rebase_holds_the_publication_of_the_other_remotes(tmp_path):
    """A reviewer's case: between ``sync --rebase``'s check that a tail was never given and the
    transaction that signs it again, a publication to another remote (a push's background
    publisher) gave that tail away. The rebase now holds every other remote's publication lock."""
    import subprocess
    import sys
    import time

    from git_hn.service.replication import serial
    from git_hn.store.repo import open_repo

    remote, (alice,) = shared_remote(tmp_path, "Alice")
    git(alice, "remote", "add", "mirror", str(remote))
    _rec(alice, "first")
    repo = open_repo(str(alice))
    with serial.publishing(repo, "mirror", 0):
        proc = subprocess.Popen([sys.executable, "-m", "git_hn", "sync", "--rebase"], cwd=alice,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(2)
        assert proc.poll() is None  # waiting for the publication to mirror
    out, err = proc.communicate(timeout=120)
    repo.close()
    assert proc.returncode == 0, err
    assert hn(alice, "sync").code == 0  # (and without --rebase, no wait: done above already)


def test_a_damaged_offered_record_is_named_never_an_internal_error(tmp_path):
    """A reviewer's case: a Unicode digit ("²") in the offered record passed ``isdigit`` and then
    failed ``int``: every re-anchoring and sync said ``internal error: ValueError``."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    c2 = _memory_on_a_new_commit(alice, "on c2", push=False)
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    path = alice / ".git" / "hn" / "replication" / "offered-v0"
    path.parent.mkdir(mode=0o700, exist_ok=True)
    path.write_text(f"origin {ref} {git(alice, 'rev-parse', ref)} 1-ab 0 1\u00b2\n")
    path.chmod(0o600)
    git(alice, "commit", "-q", "--amend", "-m", "c2b")
    r = hn(alice, "memory", "reanchor", c2, "HEAD")
    assert r.code == 1 and r.err.startswith(f"git-hn: publication record {path} is damaged"), r.err
    r = hn(alice, "sync")
    assert "internal error" not in r.err, r.err


def test_settling_many_stopped_offers_starts_no_process_per_offer(tmp_path, monkeypatch):
    """A reviewer's case: 200 stopped offers cost one ``merge-base`` (and one object lookup) each,
    on every sync for ten minutes. One ``cat-file`` and one ``rev-list`` answer them all."""
    from git_hn.service.replication.given_record import contains
    from git_hn.store.repo import open_repo
    from helpers import git_processes

    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    for n in range(3):
        _rec(alice, f"m{n}")
        assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
                  "--content", f"b{n}", "--stream", "sha256:" + "b" * 64).code == 0
    refs = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()
    a, b = (git(alice, "rev-list", ref).split() for ref in sorted(refs, key=lambda r: r.endswith("b" * 64)))
    trace = tmp_path / "trace"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    repo = open_repo(str(alice))
    missing = "e" * 40
    pairs = [(a[0], a[2]), (b[2], b[0]), (a[1], a[1]), (missing, a[1]), (b[1], b[2])] * 40  # (tip, head)
    verdicts = contains(repo, pairs)
    repo.close()
    assert verdicts == {(a[0], a[2]): True, (b[2], b[0]): False, (a[1], a[1]): True, (missing, a[1]): None,
                        (b[1], b[2]): True}
    assert sorted(argv[0] for argv in git_processes(trace)) == ["cat-file", "rev-list"]


def test_a_state_read_between_a_running_syncs_two_writes_is_read_again(world):
    """A race auditor's case: a sync writes its pending anchor and then its receipt; a command of
    another process that read between the two saw an anchor without a receipt, a state that was
    never meant, and failed with ``state=invalid`` (once in ~50 during syncs). While that remote's
    sync runs (its import lock held), an invalid state is read again until it is consistent; with
    no sync running it is a crash's, and fails at once (CONTRACT §9.17)."""
    import subprocess
    import sys
    import time

    from git_hn.store import replication as rstate
    from git_hn.service.replication.serial import lock_path
    from git_hn.store.repo import open_repo
    from helpers import hn_proc

    _remote, alice, bob = world
    a = _rec(alice, "pending")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    env = {"HN_INTERNAL_TESTING": "1", "HN_TEST_REPLICATION_INTERRUPT_AFTER": "after-pending-anchor"}
    assert hn_proc(bob, "sync", env=env).code == 1  # (an anchor and no receipt: the first of the two writes)
    repo = open_repo(str(bob))
    (txn, (owner, objs)), = rstate.load_anchors(repo).items()
    lock = lock_path(repo, "origin", "import")
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
                               "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)", lock],
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"held\n"  # a sync with origin is running
        reader = subprocess.Popen([sys.executable, "-m", "git_hn", "memory", "recall", "--json"], cwd=bob,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(0.3)
        rstate.write_receipt(repo, txn, owner, "validated", [], [], objs, objs)  # (its second write)
        out, err = reader.communicate(timeout=60)
        assert reader.returncode == 0, err
    finally:
        holder.kill()
        holder.wait()
    os.unlink(rstate.receipt_path(repo, txn))  # no sync running: a crash's state, said at once
    repo.close()
    started = time.monotonic()
    r = hn(bob, "memory", "recall", "--json")
    assert r.code == 1 and "state=invalid" in r.err and time.monotonic() - started < 5, r.err
    assert hn(bob, "sync").code == 0 and hn(bob, "memory", "recall", "--json").code == 0


def test_a_stopped_offer_settles_where_push_instead_of_spells_the_url_otherwise(tmp_path):
    """A reviewer's case: with ``url.<base>.pushInsteadOf`` the push URL is the same repository
    spelled otherwise (``file://``), so the fetch URL's advertisement was never taken for it and
    a stopped publication's offer stayed for good: re-anchoring refused that memory for ever.
    The push URL is asked itself."""
    from git_hn.store import given

    remote, (alice,) = shared_remote(tmp_path, "Alice")
    git(alice, "config", f"url.file://{remote}.pushInsteadOf", str(remote))
    c2 = _memory_on_a_new_commit(alice, "on c2", push=False)
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    _stopped_offer(alice, "origin", ref, git(alice, "rev-parse", ref), given.SETTLE_AFTER + 5)
    git(alice, "commit", "-q", "--amend", "-m", "c2b")
    hn(alice, "sync")  # (the remote never took it; c2 is on no remote branch: nothing is pushed)
    assert not (alice / ".git" / "hn" / "replication" / "offered-v0").exists()
    assert hn(alice, "memory", "reanchor", c2, "HEAD").code == 0


def test_a_memory_waits_for_the_memory_of_another_stream_it_cites(tmp_path):
    """A reviewer's case: a retraction recorded with ``--stream`` was published while the memory
    it retracts waited for its commit: every clone that imported the retraction failed with
    dependency-missing, and once that memory was re-anchored (an amend), for good. The
    retraction now waits for it, and says so."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(bob, "replication", "select", "--all").code == 0
    (alice / "g").write_text("two\n")
    git(alice, "add", "g")
    git(alice, "commit", "-q", "-m", "c2")  # (not pushed)
    made = _rec(alice, "made at a commit the remote lacks")
    other = "sha256:" + "1" * 64
    r = hn(alice, "memory", "retract", made["memoryId"], "--reason", "obsolete", "--stream", other, "--json")
    assert r.code == 0, r.err
    retraction = r.json()["memoryId"]
    retractions = f"refs/hn/memory/{made['actor']}/{'1' * 64}"
    r = hn(alice, "sync")
    assert r.code == 0, r.err
    assert f"Publication of stream {'1' * 12}: 1 memory waits until memory {made['memoryId'][7:19]}, which memory " \
           f"{retraction[7:19]} cites, is on origin" in r.out, r.out
    assert git(remote, "rev-parse", "--verify", "-q", retractions, check=False) == ""
    assert retractions in {h["ref"] for h in json.loads(hn(alice, "sync", "--json").out)["heldBack"]}
    git(alice, "push", "-q", "origin", "main")
    r = hn(alice, "sync")
    assert r.code == 0 and "waits" not in r.out, r.out
    assert git(remote, "rev-parse", retractions) == git(alice, "rev-parse", retractions)
    git(bob, "fetch", "-q", "origin")
    r = hn(bob, "sync")
    assert r.code == 0, r.out
    assert hn(bob, "memory", "show", made["memoryId"], "--json").json()["projection"]["lifecycle"] == "retracted"


def test_a_memory_is_pushed_after_the_stream_it_cites_and_not_when_that_stream_is_refused(tmp_path):
    """A reviewer's case: the gate let a retraction go in the same publication as the memory it
    retracts (the remote would hold both), but a push is not atomic: the server refused the
    retracted stream and took the retraction alone, and every importer failed with
    dependency-missing. What cites another stream of the same publication is pushed after it,
    and only once that push was taken."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(bob, "replication", "select", "--all").code == 0
    made = _rec(alice, "retracted in another stream")
    other = "sha256:" + "1" * 64
    assert hn(alice, "memory", "retract", made["memoryId"], "--reason", "obsolete", "--stream", other).code == 0
    first = f"refs/hn/memory/{made['actor']}/{made['stream'][7:]}"
    retractions = f"refs/hn/memory/{made['actor']}/{'1' * 64}"
    hook = refusing(remote, first)
    r = hn(alice, "sync")
    assert r.code == 1 and "hook declined" in r.err, r.out + r.err
    assert git(remote, "for-each-ref", "refs/hn") == ""  # the retraction did not go alone
    hook.unlink()
    r = hn(alice, "sync")
    assert r.code == 0, r.out + r.err
    assert git(remote, "rev-parse", retractions) == git(alice, "rev-parse", retractions)
    assert git(remote, "rev-parse", first) == git(alice, "rev-parse", first)
    assert hn(bob, "sync").code == 0
    assert hn(bob, "memory", "show", made["memoryId"], "--json").json()["projection"]["lifecycle"] == "retracted"


def test_a_refused_stream_holds_back_only_what_cites_it(tmp_path):
    """A review's case: a refusal in the first push of a publication stopped the later pushes too,
    so a stream citing another that the remote took waited for the next publication."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    first = _rec(alice, "in the default stream, refused by the server")
    two, three = "sha256:" + "2" * 64, "sha256:" + "3" * 64
    r = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", "in stream two", "--stream", two)
    assert r.code == 0, r.err
    assert hn(alice, "memory", "retract", r.json()["memoryId"], "--reason", "obsolete", "--stream", three).code == 0
    refs = {n: f"refs/hn/memory/{first['actor']}/{n * 64}" for n in "23"}
    refused = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    refusing(remote, refused)
    r = hn(alice, "sync")
    assert r.code == 1 and "hook declined" in r.err, r.out + r.err
    for ref in refs.values():  # the citing stream went after the one it cites, which was taken
        assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)
    assert git(remote, "rev-parse", "--verify", "-q", refused, check=False) == ""


def test_two_streams_citing_each_others_new_memories_go_out_in_order_and_none_alone(tmp_path):
    """An audit's case: stream S1 holds A1; S2's B1 cites A1; S1's A2 cites B1. The publication
    saw each stream relying on the other and pushed both together, and a server that refused S1
    took S2 alone (importers failed with dependency-missing). The circle is broken: S1 goes up to
    A1 first, then S2; A2 waits for the next publication, and nothing goes while S1 is refused."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(bob, "replication", "select", "--all").code == 0
    a1 = _rec(alice, "A1")
    s2 = "sha256:" + "2" * 64

    def rec(content, stream, cites):
        r = hn(alice, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD", "--applies",
               "descendants", "--content", content, "--evidence", f"memory:{cites}", *(("--stream", stream) if stream
                                                                                      else ()))
        assert r.code == 0, r.err
        return r.json()

    b1 = rec("B1 cites A1", s2, a1["memoryId"])
    a2 = rec("A2 cites B1", None, b1["memoryId"])
    s1_ref = f"refs/hn/memory/{a1['actor']}/{a1['stream'][7:]}"
    s2_ref = f"refs/hn/memory/{a1['actor']}/{'2' * 64}"
    hook = refusing(remote, s1_ref)
    r = hn(alice, "sync")
    assert r.code == 1 and "hook declined" in r.err, r.out + r.err
    assert git(remote, "for-each-ref", "refs/hn") == ""  # S2 did not go alone, and that is said
    assert f"; 1 stream waits for the next publication, since it cites what was refused ({s2_ref})" in r.err, r.err
    hook.unlink()
    r = hn(alice, "sync")
    assert r.code == 0, r.out + r.err
    assert git(remote, "rev-parse", s2_ref) == git(alice, "rev-parse", s2_ref)
    assert "waits" in r.out  # A2, held for the next publication
    r = hn(alice, "sync")
    assert r.code == 0, r.out + r.err
    assert git(remote, "rev-parse", s1_ref) == git(alice, "rev-parse", s1_ref)
    r = hn(bob, "sync")
    assert r.code == 0, r.out + r.err
    assert hn(bob, "memory", "show", a2["memoryId"]).code == 0


def test_a_pending_state_that_cannot_be_read_safely_is_not_waited_for(tmp_path, monkeypatch):
    """A review's case: a replication directory with unsafe permissions gives no file list
    (``memo_files`` None) before and after; that was taken for a state being changed, and every
    command read it again for a second before failing. It is read once more at most."""
    from git_hn.store import pending as pendingmod
    from git_hn.store import replication as rstate
    from git_hn.store.repo import open_repo

    repo_dir = make_repo(tmp_path / "r")
    repo = open_repo(str(repo_dir))
    reads = []
    invalid = rstate.Pending({}, False, "txn-1", "", {}, {})
    monkeypatch.setattr(pendingmod, "memo_files", lambda _repo: None)
    monkeypatch.setattr(rstate, "_load_pending", lambda _repo: reads.append(1) or invalid)
    assert rstate._settled(repo, invalid, None) is invalid and reads == []
    repo.close()


def test_a_sync_without_a_saved_selection_says_it_imported_every_stream(world):
    """A newcomer's case: ``hooks install`` and an empty recall say that without a saved
    selection a fetch imports no memory, and then ``git hn sync`` imported everything, saying
    nothing of why. It says so (compatibility-all, CONTRACT §9.1) and how to save a selection."""
    _remote, alice, bob = world
    _rec(alice, "alice decides")
    assert hn(alice, "sync").code == 0
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    assert r.err == ("git-hn: hint: no replication selection is saved for origin, so this sync imported every "
                     "stream it advertises; git hn replication select --memory sha256:<stream> (or --all) saves "
                     "one, which the fetch hook follows too\n")
    assert hn(bob, "replication", "select", "--all").code == 0
    _rec(alice, "alice decides again")
    assert hn(alice, "sync").code == 0
    r = hn(bob, "sync")
    assert r.code == 0 and r.err == "", r.err


def test_an_unsafe_replication_record_directory_is_named_with_its_chmod(tmp_path):
    """A review's case: ``anchors`` (or ``transactions``) with mode 0777 was read as
    ``state=invalid; recovery=repair the local replication transaction record``, which said
    nothing of what to repair; their parent's was already named with its ``chmod``."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init").code == 0
    anchors = repo / ".git" / "hn" / "replication" / "anchors"
    anchors.mkdir(parents=True, mode=0o700)
    (repo / ".git" / "hn" / "replication").chmod(0o700)
    anchors.chmod(0o777)
    r = hn(repo, "memory", "log")
    assert (r.code, r.err) == (1, f"git-hn: private identity directory {anchors} has unsafe permissions; git-hn's "
                                  "replication state must be closed to group and others (mode 0700, or 0500 "
                                  f"read-only; it has 0777): chmod 700 {anchors}\n")
