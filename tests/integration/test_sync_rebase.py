"""One identity in two clones that both appended before syncing (git-hn extension ``git hn sync
--rebase``, docs/decisions.md): the stream forks, the import refuses the remote's chain as an
equivocation (§11(a)) and says how to recover; ``--rebase`` signs the clone's unpublished memories
again on top of the remote's chain, in the promotion's own ref transaction. Real repositories, a
real bare remote, real fetches and pushes."""

from __future__ import annotations

import os

from helpers import git, hn, one_identity_in_two_clones, refs_snapshot


def _record(repo, content, *extra) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", content, *extra)
    assert r.code == 0, r.err
    return r.json()


def _forked(tmp_path):
    """Alice in clone ``a`` and, through ``identity export``/``import``, in clone ``b``: both
    synced one memory, then ``b`` recorded two (the second superseding the first) and ``a`` one,
    which ``a`` published. (remote, a, b, stream ref, b's two memories, a's memory)."""
    remote, a, b = one_identity_in_two_clones(tmp_path)
    first = _record(a, "shared start")
    assert hn(a, "sync").code == 0
    assert hn(b, "sync").code == 0
    b1 = _record(b, "written offline in the second clone")
    b2 = hn(b, "memory", "supersede", b1["memoryId"], "--content", "corrected offline", "--json")
    assert b2.code == 0, b2.err
    a1 = _record(a, "written in the first clone")
    assert hn(a, "sync").code == 0
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    return remote, a, b, ref, [b1, b2.json()], a1


def test_a_forked_own_stream_says_how_to_recover_and_rebase_publishes_it(tmp_path):
    remote, a, b, ref, (b1, b2), a1 = _forked(tmp_path)
    before = refs_snapshot(b)
    refused = hn(b, "sync")
    assert refused.code == 1
    line = next(x for x in refused.out.splitlines() if "failed (equivocation)" in x)
    assert line.endswith(f"diverges from {ref} at sequence 2; inspect both chains; accepted memory history "
                         "is never rolled back or rewritten; your identity appended to this stream in another "
                         "clone too: git hn sync origin --rebase signs your 2 unpublished memories of it again "
                         "on top of origin's chain")
    assert refused.err == ("git-hn: publication phase failed after replication: replication memory "
                           "publication failed for remote origin: [rejected] (fetch first); the remote's copy "
                           "of your stream has memories this clone lacks (did your identity append in another "
                           "clone?): git hn sync origin --rebase, with the stream selected, signs yours again "
                           "on top of them\n")
    assert refs_snapshot(b) == before  # the refused sync changed no ref

    done = hn(b, "sync", "--rebase", "--json")
    assert done.code == 0, done.err
    doc = done.json()
    [rebased] = doc["rebased"]
    assert rebased["ref"] == ref
    assert [r["from"] for r in rebased["renamed"]] == [b1["memoryId"], b2["memoryId"]]
    new1, new2 = (r["to"] for r in rebased["renamed"])
    assert doc["published"] == 1 and doc["promoted"] == 1
    # one chain everywhere: a's memory at sequence 2, b's two above it, published
    assert git(remote, "rev-parse", ref) == git(b, "rev-parse", ref)
    shown = hn(b, "memory", "show", new2, "--json").json()["envelope"]
    assert shown["sequence"] == 4 and shown["target"] == new1  # the supersede follows its target
    shown = hn(b, "memory", "show", new1, "--json").json()
    assert (shown["envelope"]["sequence"], shown["envelope"]["previous"]) == (3, a1["memoryId"])
    assert shown["projection"]["data"]["content"] == "written offline in the second clone"
    assert shown["projection"]["lifecycle"] == "superseded"
    gone = hn(b, "memory", "show", b1["memoryId"])
    assert gone.code != 0 and f"it was signed again as {new1}" in gone.err
    for repo in (a, b):
        if repo == a:
            assert hn(a, "sync").code == 0
        assert hn(repo, "memory", "index", "verify").code == 0
        recalled = hn(repo, "memory", "recall", "--include-untrusted", "--json").json()["memories"]
        contents = {m["data"]["content"] for m in recalled}
        assert {"written in the first clone", "corrected offline"} <= contents
    # nothing left to rebase: the flag is a plain sync
    again = hn(b, "sync", "--rebase", "--json")
    assert again.code == 0 and "rebased" not in again.json()


def test_rebase_refuses_memories_another_remote_was_given(tmp_path):
    remote, a, b, ref, (b1, _b2), _a1 = _forked(tmp_path)
    mirror = tmp_path / "mirror.git"
    git(tmp_path, "init", "-q", "--bare", str(mirror))
    git(b, "remote", "add", "mirror", str(mirror))
    git(b, "push", "-q", "mirror", "main")
    assert hn(b, "replication", "select", "mirror", "--all").code == 0
    assert hn(b, "sync", "mirror").code == 0
    assert git(mirror, "rev-parse", ref) == git(b, "rev-parse", ref)
    before = refs_snapshot(b)
    refused = hn(b, "sync", "--rebase")
    assert refused.code == 1
    assert "; not rebased: memory sha256:" in refused.out and " of it was published to mirror" in refused.out
    assert "--rebase signs" not in refused.out
    assert refs_snapshot(b) == before
    assert hn(b, "memory", "show", b1["memoryId"]).code == 0


def test_a_rebase_interrupted_before_its_ref_transaction_changes_nothing_and_a_rerun_completes(tmp_path):
    """The rebuilt memories are written after the object copy and the local ref moves in the
    promotion's own transaction: stopped just before it, no ref moved (the local stream and the
    accepted copy never disagree), and the next ``--rebase`` completes."""
    from helpers import hn_proc

    remote, a, b, ref, (b1, _b2), _a1 = _forked(tmp_path)
    before = refs_snapshot(b)
    stopped = hn_proc(b, "sync", "--rebase", env={"HN_INTERNAL_TESTING": "1",
                                                  "HN_TEST_REPLICATION_INTERRUPT_AFTER": "before-promotion"})
    assert stopped.code == 1 and "accepted refs and trust projection are unchanged" in stopped.err
    assert refs_snapshot(b) == before
    assert hn(b, "memory", "show", b1["memoryId"]).code == 0
    assert hn(b, "memory", "index", "verify").code == 0
    done = hn(b, "sync", "--rebase")
    assert done.code == 0, done.out + done.err
    line = next(x for x in done.out.splitlines() if x.startswith("Rebased "))
    assert line.startswith(f"Rebased 2 unpublished memories of your stream {b1['stream']} on origin's chain "
                           f"(signed again); new IDs: {b1['memoryId'][7:19]} -> ")
    assert git(remote, "rev-parse", ref) == git(b, "rev-parse", ref)
    assert hn(b, "memory", "index", "verify").code == 0


def test_a_rebase_over_a_stopped_publications_offer_says_what_is_known(tmp_path):
    """A reviewer's case: a publication stopped while pushing (its offer recorded), then the same
    identity appended in another clone: whether the remote took that push is not known here (its
    tip is another clone's), and the rebase refused saying the memory *was* published. It says
    what is known, and the way out when the push never arrived."""
    import subprocess

    from git_hn.store import given, private
    from git_hn.store.repo import open_repo

    remote, a, b, ref, (b1, b2), a1 = _forked(tmp_path)
    dead = subprocess.Popen(["true"])
    dead.wait()
    head = git(b, "rev-parse", ref)
    repo = open_repo(str(b))
    path = given.offered_path(repo)
    private.ensure_dirs(repo.hn_dir, os.path.dirname(path))
    with open(path, "w") as fh:
        fh.write(f"origin {ref} {head} {dead.pid}-ab {dead.pid} 1000000\n")
    os.chmod(path, 0o600)
    repo.close()
    r = hn(b, "sync", "--rebase")
    assert r.code == 1
    assert (f"of it may have been published to origin by a publication that was stopped while pushing; what "
            f"origin holds of it is not known here (if that push never reached origin, remove its line from "
            f"{path})") in r.out, r.out
    os.unlink(path)
    assert hn(b, "sync", "--rebase").code == 0


def test_a_rebase_also_signs_again_what_cites_the_rebased_memories_from_another_stream(tmp_path):
    """The second clone retracted its own forked memory with ``--stream`` into another stream:
    rebased alone, the retraction named an ID that no longer exists, and the publication gate
    held it for good. The citing stream is rebuilt with the rebase, in its ref transaction, and
    both publish; every clone then sees the rebased memory retracted."""
    remote, a, b, ref, (b1, b2), _a1 = _forked(tmp_path)
    other = "sha256:" + "7" * 64
    r = hn(b, "memory", "retract", b2["memoryId"], "--reason", "wrong-after-all", "--stream", other, "--json")
    assert r.code == 0, r.err
    retraction = r.json()["memoryId"]
    other_ref = f"refs/hn/memory/{b1['actor']}/{'7' * 64}"
    old_other = git(b, "rev-parse", other_ref)
    done = hn(b, "sync", "--rebase", "--json")
    assert done.code == 0, done.out + done.err
    rebased, followed = done.json()["rebased"]
    assert rebased["ref"] == ref and "citesRebased" not in rebased
    new2 = rebased["renamed"][1]["to"]
    assert followed == {"ref": other_ref, "renamed": [{"from": retraction, "to": followed["renamed"][0]["to"]}],
                        "citesRebased": True}
    new_retraction = followed["renamed"][0]["to"]
    env = hn(b, "memory", "show", new_retraction, "--json").json()["envelope"]
    assert (env["target"], env["sequence"], env.get("previous")) == (new2, 1, None)
    assert git(b, "rev-parse", other_ref) != old_other
    human = hn(b, "sync", "--rebase")  # (nothing left: no line)
    assert human.code == 0 and "Signed again" not in human.out
    # both streams reached the remote, and the first clone sees the rebased memory retracted
    assert git(remote, "rev-parse", other_ref) == git(b, "rev-parse", other_ref)
    assert hn(a, "replication", "select", "origin", "--all").code == 0
    assert hn(a, "sync").code == 0
    assert hn(a, "memory", "show", new2, "--json").json()["projection"]["lifecycle"] == "retracted"
    for repo in (a, b):
        assert hn(repo, "memory", "index", "verify").code == 0


def test_a_rebase_follows_citations_that_go_through_another_stream_and_back(tmp_path):
    """A review's case: a rebased memory cited a memory of another stream that cited a rebased
    one in turn. Planned apart, the citing stream followed the rebase, but the rebased memory
    kept naming the other stream's old ID; once published, every import of the stream failed
    with dependency-missing, for good. One plan for both, until no ID changes."""
    remote, a, b, ref, (b1, b2), _a1 = _forked(tmp_path)
    other = "sha256:" + "7" * 64
    r = hn(b, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
           "--content", "x1 cites b2", "--stream", other, "--evidence", f"memory:{b2['memoryId']}")
    assert r.code == 0, r.err
    x1 = r.json()["memoryId"]
    b3 = _record(b, "b3 cites x1", "--evidence", f"memory:{x1}")
    done = hn(b, "sync", "--rebase", "--json")
    assert done.code == 0, done.out + done.err
    renamed = {p["from"]: p["to"] for r in done.json()["rebased"] for p in r["renamed"]}
    assert set(renamed) == {b1["memoryId"], b2["memoryId"], b3["memoryId"], x1}
    data = hn(b, "memory", "show", renamed[b3["memoryId"]], "--json").json()["projection"]["data"]
    assert data["evidence"] == [f"memory:{renamed[x1]}"]
    data = hn(b, "memory", "show", renamed[x1], "--json").json()["projection"]["data"]
    assert data["evidence"] == [f"memory:{renamed[b2['memoryId']]}"]
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(remote), str(fresh))
    assert hn(fresh, "init", "--name", "Fresh").code == 0
    assert hn(fresh, "replication", "select", "--all").code == 0
    r = hn(fresh, "sync")
    assert r.code == 0 and "dependency-missing" not in r.out, r.out
    assert hn(b, "memory", "index", "verify").code == 0
