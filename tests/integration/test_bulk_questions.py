"""Questions about many objects at once (``Git.infos_bulk``, ``Git.presence``) are asked
``BULK_NAMES`` names a process (f120): a 100,000-memory sync asked about 200,000 objects in one
``cat-file --batch-check`` and parsed every answer into tuples at once, ~180 MiB for a moment,
for a list of booleans. The answers are those of one process, in order, for present and missing
objects alike."""

from __future__ import annotations

import os
import tracemalloc

from git_hn.store.git import Git
from helpers import git, make_repo


def _asked(tmp_path) -> tuple[Git, list[str], set[str]]:
    repo = make_repo(tmp_path / "r")
    blobs = git(repo, "hash-object", "-w", "--stdin-paths",
                input="".join(f"{p}\n" for p in _files(repo, 60)).encode()).split()
    missing = [os.urandom(20).hex() for _ in range(1500)]
    asked = [b for _ in range(40) for b in blobs] + missing  # 3,900 names, a third missing
    return Git(str(repo)), asked, set(blobs)


def _files(repo, n: int) -> list[str]:
    out = []
    for i in range(n):
        path = os.path.join(repo, f"f{i}.txt")
        with open(path, "w") as fh:
            fh.write(f"file {i}\n")
        out.append(path)
    return out


def _peak(fn):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_many_questions_are_asked_a_part_at_a_time_with_the_same_answers(tmp_path, monkeypatch):
    runner, asked, present = _asked(tmp_path)
    whole_infos = runner.infos_bulk(asked, oneshot=True)
    whole, whole_peak = _peak(lambda: runner.presence(asked, expected=True))
    monkeypatch.setattr(Git, "BULK_NAMES", 256, raising=False)
    parted, parted_peak = _peak(lambda: runner.presence(asked, expected=True))
    assert whole == parted == [o in present for o in asked]
    assert runner.infos_bulk(asked, oneshot=True) == whole_infos
    assert [i is not None for i in whole_infos] == whole
    assert whole_peak > 1_000_000 > 3 * parted_peak, (whole_peak, parted_peak)
