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


def test_presence_by_listing_holds_no_copy_of_the_names_nor_of_those_found(tmp_path):
    """Asked about every object of a store (a sync of streams this clone authored: 400,000 at
    100,000 memories), the listing's answer kept an encoded copy of each name, a set of them and a
    set of the listed names found (~110 MiB for a moment at 400,000); what is not listed is now
    taken out of one set of the names asked, a megabyte of listing at a time."""
    import subprocess

    repo = tmp_path / "r"
    git(tmp_path, "init", "-q", str(repo))
    stream = b"".join(b"blob\ndata %d\n%s\n" % (len(b"blob %d\n" % i), b"blob %d\n" % i) for i in range(60000))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream, check=True)
    oids = git(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split()
    g = Git(str(repo))
    asked = oids + [o[::-1] for o in oids[:100] if o[::-1] not in set(oids)]
    got, peak = _peak(lambda: g._listed_presence(asked))
    assert got == [True] * len(oids) + [False] * (len(asked) - len(oids))
    assert peak < 10 << 20, peak  # (60,000 names: 16.4 MiB before, 7.4 MiB so)
