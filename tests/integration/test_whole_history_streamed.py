"""The commands whose output is the whole history, verified and written a page at a time (issue 11:
at 100k memories ``memory log``, ``export`` and ``view`` held every memory at once, 0.5–0.9 GiB,
and ``index verify`` held two whole copies of the state, 1.6 GiB, to print one line).

A history of several pages (``BATCH`` is 256 memories) from ``bench/memgen.py``, with a
supersession and a retraction of the clone's own: the output of each command equals, byte for
byte, what the unstreamed renderers make of a full projection; the held pages go to a temporary
file (a small ``IN_MEMORY``) as they would at scale. A larger history bounds the peak memory.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import git, hn
from helpers import record_id as _rec

MEMORIES = 320  # of each of two writers, in 80 streams: 640, three pages of 256


@pytest.fixture
def big(inited, monkeypatch):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import memgen

    from git_hn.store import spool

    head = git(inited, "rev-parse", "HEAD")
    writers = [memgen.Actor(bytes([i]) * 32, f"Writer {i}") for i in (3, 4)]
    memgen.write_streams(str(inited), dict(os.environ, HN_HOOK_ACTIVE="1"), writers, MEMORIES, head,
                         random.Random(3), streams_per_actor=40)
    old = _rec(inited, content="first take")
    r = hn(inited, "memory", "supersede", old, "--json", "--kind", "decision", "--at", "HEAD",
           "--applies", "descendants", "--content", "second take")
    assert r.code == 0, r.err
    gone = _rec(inited, kind="observation", content="seen once")
    assert hn(inited, "memory", "retract", gone, "--reason", "incorrect").code == 0
    monkeypatch.setattr(spool, "IN_MEMORY", 4096)  # (the held pages go to a file)
    return inited


def _in(repo, fn):
    from git_hn.store.repo import open_repo

    old = os.getcwd()
    os.chdir(repo)
    try:
        r = open_repo()
        try:
            return fn(r)
        finally:
            r.close()
    finally:
        os.chdir(old)


def test_a_log_of_several_pages_equals_the_unstreamed_log(big):
    """Guard (byte identity): it passes before the change too, where the log was one list."""
    from git_hn.core import canonical
    from git_hn.core import log as core
    from git_hn.service import log as service
    from git_hn.service.names import known_authors

    items, known = _in(big, lambda r: (service.log_full(r, service.request()), known_authors(r)))
    assert len(items) == 2 * MEMORIES + 3
    r = hn(big, "memory", "log", "--json")
    assert r.code == 0, r.err
    assert r.out.encode() == canonical.compact_line(core.document(items))
    for graph in (False, True):
        r = hn(big, "memory", "log", *(["--graph"] if graph else []))
        assert r.code == 0, r.err
        assert r.out == "".join(line + "\n" for line in core.lines(items, graph, known=known))
    r = hn(big, "memory", "log", "-n", "300", "--json")
    assert r.out.encode() == canonical.compact_line(core.document(items[:300]))


def test_an_export_of_several_pages_equals_the_unstreamed_export(big):
    """Guard (byte identity): it passes before the change too, where the export was one list."""
    from git_hn.core import export as core
    from git_hn.service import export as service
    from git_hn.service.secretscan import shaped

    head = git(big, "rev-parse", "HEAD")
    items = _in(big, lambda r: service.export_full(r, service.request(), head))
    assert sum(it.row is None for it in items) == 1  # the retraction, beside its record
    r = hn(big, "memory", "export")
    assert r.code == 0, r.err
    assert r.out.encode() == b"".join(core.export_line(it, head) for it in items)
    r = hn(big, "memory", "export", "--format", "markdown")
    assert r.code == 0, r.err
    assert r.out == "".join(line + "\n" for line in core.markdown(items, shaped))


def test_a_page_of_several_pages_equals_the_unstreamed_page(big, tmp_path):
    """Guard (byte identity): it passes before the change too, where the page was one string."""
    from collections import Counter

    from git_hn.core import view_page as core
    from git_hn.service import view as service
    from git_hn.service.policy_drift import hint

    def reference(r):
        doc = service.document_full(r)
        drift = hint(r, doc["atCommit"], {(m["actor"], m["kind"]) for m in doc["memories"] if m["trust"] == "qualified"})
        untrusted = Counter(m["actor"] for m in doc["memories"] if m["trust"] == "actor-untrusted")
        notice = "; ".join(filter(None, (drift, service._revoked_notice(r, doc["atCommit"], untrusted))))
        shown = {**doc, "notice": core.inert_line(notice[:1].upper() + notice[1:])} if notice else doc
        return service.render(shown).encode("utf-8"), len(doc["memories"]), len(doc["events"])

    page, count, events = _in(big, reference)
    assert (count, events) == (2 * MEMORIES + 3, 1)
    r = hn(big, "memory", "view", "--output", str(tmp_path / "page.html"))
    assert r.code == 0, r.err
    assert (tmp_path / "page.html").read_bytes() == page


def _peak_mib(repo, *args) -> float:
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "git_hn", *args], cwd=repo,
                         capture_output=True, text=True, check=True).stdout
    return int(out) / 1024


@pytest.mark.bench
def test_a_whole_history_costs_no_memory_per_memory(inited):
    """At 20,000 memories each whole-history command stays within 40 MiB of what it takes at
    one page (before: about 5 KiB a memory for log, 8 for export and view). Not ``index verify``,
    which still holds a full collection (about 5 KiB a memory) to re-derive the state from."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import memgen

    head = git(inited, "rev-parse", "HEAD")
    writers = [memgen.Actor(bytes([i]) * 32, f"Writer {i}") for i in (5, 6)]
    memgen.write_streams(str(inited), dict(os.environ, HN_HOOK_ACTIVE="1"), writers, 100, head,
                         random.Random(5), streams_per_actor=4)
    commands = (("memory", "log", "--json"), ("memory", "log"), ("memory", "export"),
                ("memory", "export", "--format", "markdown"), ("memory", "view"))
    small = {c: _peak_mib(inited, *c) for c in commands}
    writers = [memgen.Actor(bytes([i]) * 32, f"Writer {i}") for i in (7, 8)]  # (streams of their own)
    memgen.write_streams(str(inited), dict(os.environ, HN_HOOK_ACTIVE="1"), writers, 10_000, head,
                         random.Random(6), streams_per_actor=4)
    assert subprocess.run([sys.executable, "-m", "git_hn", "memory", "recall"], cwd=inited,
                          capture_output=True).returncode == 0  # (the state, built once)
    large = {c: _peak_mib(inited, *c) for c in commands}
    assert {c: large[c] - small[c] for c in commands if large[c] - small[c] > 40} == {}
