"""A sync whose objects do not fit one receipt (CONTRACT §9.10–§9.14, §9.17; f115): a scale trial's
sync of 84,000 memories wrote a 19 MB receipt, which every reader refuses (16 MiB), and the clone
failed every read from then on. The promotion is planned in several transactions whose receipts
all fit; here the bound is lowered (the module's constant) so that a few hundred memories need
two or three of them."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

from helpers import git, hn, make_repo

BOUND = 48 << 10  # bytes: ~1,300 object IDs of a receipt's two lists, with the outcomes


def _remote(tmp_path, actors: int, streams: int, memories: int) -> tuple[Path, Path]:
    """A bare remote of ``actors`` x ``streams`` streams of ``memories`` memories each, and a clone
    ``b`` (objects not shared: a ``file://`` clone) that selects them all."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import memgen

    remote = tmp_path / "remote.git"
    src = make_repo(tmp_path / "src")
    memgen.write_streams(str(src), dict(os.environ, HN_HOOK_ACTIVE="1"),
                         [memgen.Actor(bytes([i]) * 32, f"W{i}") for i in range(1, actors + 1)],
                         streams * memories, git(src, "rev-parse", "HEAD"), random.Random(5),
                         streams_per_actor=streams)
    git(tmp_path, "clone", "-q", "--mirror", str(src), str(remote))
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", f"file://{remote}", str(b))
    assert hn(b, "init", "--name", "B").code == 0
    assert hn(b, "replication", "select", "--all").code == 0
    return remote, b


def _heads(repo: Path, prefix: str) -> dict[str, str]:
    out = git(repo, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
    return {"/".join(line.split(" ")[0].split("/")[-2:]): line.split(" ")[1] for line in out.splitlines() if line}


def _receipts(b: Path) -> list[dict]:
    from git_hn.store import replication as rstate
    from git_hn.store.repo import open_repo

    txdir = b / ".git" / "hn" / "replication" / "transactions"
    repo = open_repo(str(b))
    out = []
    for path in sorted(txdir.iterdir()):
        assert path.stat().st_size <= BOUND, path
        out.append(rstate.load_receipt(repo, path.name[:-5]))  # (read with the reader's bound)
    return out


def _converged(remote: Path, b: Path, memories: int) -> None:
    assert _heads(b, "refs/hn/remotes/origin/memory") == _heads(remote, "refs/hn/memory")
    assert os.listdir(b / ".git" / "hn" / "replication" / "anchors") == []
    counts = [git(b, "rev-list", "--count", ref) for ref in _heads(b, "refs/hn/remotes/origin/memory").values()]
    assert sum(map(int, counts)) == memories
    r = hn(b, "memory", "recall", "--include-untrusted", "--json")
    assert r.code == 0 and r.json()["memories"], r.err
    r = hn(b, "memory", "index", "verify")
    assert r.code == 0, r.err


def test_a_sync_too_large_for_one_receipt_promotes_in_several_transactions(tmp_path, monkeypatch):
    remote, b = _remote(tmp_path, 2, 10, 15)  # 300 memories, 20 streams: ~2.5 receipts' worth
    monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", BOUND)
    r = hn(b, "sync")
    assert r.code == 0, r.err
    promoted = [line for line in r.out.splitlines() if line.startswith("Replication memory ")]
    assert len(promoted) == 20 and all(line.endswith(": promoted") for line in promoted)
    assert len(set(promoted)) == 20  # each stream's outcome once
    receipts = _receipts(b)
    assert len(receipts) >= 2
    assert all(rec["state"] == "complete" for rec in receipts)
    receipts.sort(key=lambda rec: rec["promotions"][0]["ref"].split("/")[-1])
    streams = [p["ref"].split("/")[-1] for rec in receipts for p in rec["promotions"]]
    assert streams == sorted(set(streams)) and len(streams) == 20  # whole streams, in (kind, id) order, once
    listed = [o["id"] for rec in receipts for o in rec["outcomes"]]
    assert sorted(listed) == sorted(set(listed)) and len(listed) == 20
    _converged(remote, b, 300)


@pytest.mark.parametrize("seam", ["after-pending-anchor", "after-object-copy", "before-promotion",
                                  "before-completion-receipt"])
def test_a_crash_between_two_transactions_leaves_what_the_next_sync_repairs(tmp_path, monkeypatch, seam):
    """A crash seam stops the last transaction: the earlier ones are complete (their refs
    promoted, their receipts ``complete``), the last is an interrupted transaction as in a sync
    of one, and the next sync converges."""
    remote, b = _remote(tmp_path, 2, 10, 15)
    monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", BOUND)
    monkeypatch.setenv("HN_INTERNAL_TESTING", "1")
    monkeypatch.setenv("HN_TEST_REPLICATION_INTERRUPT_AFTER", seam)
    r = hn(b, "sync")
    assert r.code == 1
    heads = _heads(b, "refs/hn/remotes/origin/memory")
    assert 0 < len(heads) < 20 or seam == "before-completion-receipt"
    assert all(heads[ref] == tip for ref, tip in _heads(remote, "refs/hn/memory").items() if ref in heads)
    complete = [rec for rec in _receipts(b) if rec["state"] == "complete"]
    assert complete and {"/".join(p["ref"].split("/")[-2:]) for rec in complete for p in rec["promotions"]} <= set(heads)
    monkeypatch.delenv("HN_TEST_REPLICATION_INTERRUPT_AFTER")
    r = hn(b, "sync")
    assert r.code == 0, r.err
    _receipts(b)
    _converged(remote, b, 300)


def test_a_stream_too_large_for_one_receipt_is_promoted_in_parts_of_its_chain(tmp_path, monkeypatch):
    remote, b = _remote(tmp_path, 1, 1, 300)
    monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", BOUND)
    r = hn(b, "sync")
    assert r.code == 0, r.err
    stream = next(iter(_heads(remote, "refs/hn/memory"))).split("/")[-1]
    assert [line for line in r.out.splitlines() if line.startswith("Replication ")] == \
        [f"Replication memory sha256:{stream}: promoted"]
    receipts = _receipts(b)
    assert len(receipts) >= 2
    promotions = [p for rec in receipts for p in rec["promotions"]]
    assert len({p["ref"] for p in promotions}) == 1
    after = {p.get("oldOid"): p["newOid"] for p in promotions}  # each part moves the ref up the chain
    tip, moves = None, 0
    while tip in after:
        tip, moves = after[tip], moves + 1
    assert moves == len(promotions) and tip == next(iter(_heads(remote, "refs/hn/memory").values()))
    _converged(remote, b, 300)


def _oversized_clone(tmp_path, monkeypatch, seam: str = "") -> tuple[Path, Path, Path]:
    """A clone whose one receipt is over the (lowered) bound, as an earlier git-hn wrote it: the
    sync ran with the bound as it was (one transaction), then the bound is lowered."""
    remote, b = _remote(tmp_path, 2, 10, 15)
    if seam:
        monkeypatch.setenv("HN_INTERNAL_TESTING", "1")
        monkeypatch.setenv("HN_TEST_REPLICATION_INTERRUPT_AFTER", seam)
    assert hn(b, "sync").code == (1 if seam else 0)
    monkeypatch.delenv("HN_TEST_REPLICATION_INTERRUPT_AFTER", raising=False)
    (receipt,) = (b / ".git" / "hn" / "replication" / "transactions").iterdir()
    assert receipt.stat().st_size > BOUND
    monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", BOUND)
    memo = b / ".git" / "hn" / "replication" / "pending-v0.memo"  # (the finding's clone had none)
    if memo.exists():
        memo.unlink()
    return remote, b, receipt


@pytest.mark.parametrize("seam", ["", "before-completion-receipt"])
def test_a_receipt_over_the_bound_is_named_and_the_next_sync_splits_it(tmp_path, monkeypatch, seam):
    """The finding's clone: every read failed with "state=invalid; recovery=repair the local
    replication transaction record". The line names the file, the bound and the sync that splits
    it; the sync splits a ``complete`` receipt (or a ``validated`` one whose refs moved) into
    receipts within the bound, and everything reads again."""
    remote, b, receipt = _oversized_clone(tmp_path, monkeypatch, seam)
    r = hn(b, "memory", "recall", "--include-untrusted", "--json")
    assert r.code == 1
    assert f"replication record {receipt} is {receipt.stat().st_size} bytes, over the 49152 bytes bound" in r.err
    assert "git hn sync origin splits it into receipts within the bound" in r.err
    r = hn(b, "sync")
    assert r.code == 0, r.err
    assert not receipt.exists()
    receipts = _receipts(b)
    assert len(receipts) >= 3 and all(rec["state"] == "complete" for rec in receipts)
    _converged(remote, b, 300)


def test_a_validated_receipt_over_the_bound_whose_refs_never_moved_says_what_to_check(tmp_path, monkeypatch):
    """Its anchor denies objects no accepted ref reaches: no split keeps that denial, so nothing
    is changed and the line says what to check and move; done so, a sync converges."""
    remote, b, receipt = _oversized_clone(tmp_path, monkeypatch, "before-promotion")
    anchor = b / ".git" / "hn" / "replication" / "anchors" / receipt.name
    r = hn(b, "sync")
    assert r.code == 1
    shown = "$(git rev-parse --git-common-dir)/hn/replication/"
    assert f"replication record {shown}transactions/{receipt.name} is over the 49152 bytes bound" in r.err
    assert f"check that no ref you made points at them, then move it and {shown}anchors/{anchor.name} out of the " \
           "Git directory and run git hn sync origin\n" in r.err
    assert receipt.exists() and anchor.exists()
    aside = tmp_path / "aside"
    aside.mkdir()
    receipt.rename(aside / "receipt.json")
    anchor.rename(aside / "anchor.json")
    r = hn(b, "sync")
    assert r.code == 0, r.err
    _converged(remote, b, 300)
