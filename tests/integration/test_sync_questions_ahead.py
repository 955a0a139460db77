"""A sync starts the Git processes it will ask next while it waits for, or writes, something else
(issue 11, sync-100): the quarantine's object reader while the quarantine fetch runs, and the
tracking-ref check's questions while the promotion writes its completion receipt. Each is still
one process, asked once, and the answers are the ones asked after. Real repositories, a real
remote (slowed by a ``uploadpack.packObjectsHook``, protected global configuration, where the
order must not depend on timing), real Git processes seen in Git's own trace
(``GIT_TRACE2_EVENT``)."""

from __future__ import annotations

from pathlib import Path

from helpers import git, git_processes, hn, record_doc, shared_remote, slow_packing, trace2_when, traced_sync


def test_the_quarantine_reader_starts_while_the_fetch_runs(tmp_path, monkeypatch):
    """The quarantine's ``cat-file --batch-command`` (measurement's first question) is started
    while the quarantine fetch runs, not after it: with a remote that takes a second to pack,
    it is running before the fetch ends, and measurement reads the pack the fetch installed
    after it started (Git looks its packs up again for an object it does not find)."""
    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    mem = record_doc(alice, content="alice decides")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", mem["stream"]).code == 0
    slow_packing(tmp_path)
    starts, fetches = traced_sync(bob, tmp_path / "trace2", monkeypatch)
    readers = [e for e in starts.values() if e["argv"][-3:] == ["cat-file", "--batch-command", "--buffer"]
               and "/quarantine/" in " ".join(e["argv"])]
    assert len(fetches) == 1 and len(readers) == 1, (fetches, readers)
    assert trace2_when(readers[0]) < trace2_when(fetches[0]) - 0.5  # (the pack took a second)
    assert hn(bob, "memory", "show", mem["memoryId"]).code == 0


def test_the_tracking_ref_check_is_asked_while_the_completion_receipt_is_written(tmp_path, monkeypatch):
    """After the ref transaction, the sync starts the questions its check of the remote's
    tracking refs asks (``tracked.ask_ahead``): the listing, and on a first check the remote's
    URL. They are running when the completion receipt is written, and each is one process,
    collected by the check (a second sync that promotes, with the record made, asks the listing
    alone)."""
    from git_hn.store import replication as rstate

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    first = record_doc(alice, content="alice decides")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", first["stream"]).code == 0
    asked: list = []
    real = rstate.write_receipt

    def spy(repo, txn, remote, state, *rest):
        if state == "complete":
            if Path(repo.common_dir).resolve() == (bob / ".git").resolve():  # (not Alice's own syncs)
                asked.append(sorted(key[0] for key in repo.git._early))
        return real(repo, txn, remote, state, *rest)

    monkeypatch.setattr(rstate, "write_receipt", spy)
    listing = ("for-each-ref", "--format=%(objectname) %(refname)", "--end-of-options", "refs/remotes/origin/")
    url = ("config", "--get", "remote.origin.url")
    for round_, expected in enumerate(([listing, url], [listing])):
        if round_:
            record_doc(alice, content="alice decides again")
            assert hn(alice, "sync").code == 0
        trace = tmp_path / f"trace2-{round_}"
        traced_sync(bob, trace, monkeypatch)
        assert asked == [sorted(expected)], asked
        runs = [tuple(a) for a in git_processes(trace)]
        assert runs.count(listing) == 1 and runs.count(url) == (1 if round_ == 0 else 0), runs
        asked.clear()
    # the check recorded the tips it was answered with
    tips = git(bob, "for-each-ref", "--format=%(objectname)", "refs/remotes/origin/").split()
    record = [p for p in (bob / ".git" / "hn" / "replication").iterdir() if p.name.startswith("tracked-")]
    assert len(record) == 1 and set(tips) <= set(record[0].read_text().split())


def _argv(event: dict) -> list[str]:
    argv = event["argv"][1:]
    while argv and (argv[0] in ("-C", "-c") or argv[0].startswith("--git-dir=")):
        argv = argv[1:] if argv[0].startswith("--") else argv[2:]
    return argv


def _started_before(a: dict, b: dict) -> bool:
    """Whether git-hn started the process of trace2 ``start`` event ``a`` before that of ``b``: by
    their process IDs (each session ID ends ``-P<pid in hex>``), which the kernel gives in the order
    processes are made (modulo ``pid_max``), not by the times they wrote, which a loaded machine
    (the suite's two workers) put in either order when the two were started together."""
    def pid(e: dict) -> int:
        return int(e["sid"].rsplit("/", 1)[-1].rsplit("-P", 1)[1], 16)

    try:
        with open("/proc/sys/kernel/pid_max") as fh:
            most = int(fh.read())
    except OSError:
        most = 1 << 22
    return 0 < (pid(b) - pid(a)) % most < most // 2


def test_the_state_listing_after_the_fetch_starts_before_the_promotion_is_prepared(tmp_path, monkeypatch):
    """After the quarantine fetch, the memory ref listing that the accepted set's opening asks
    (``stateview.current``) is started under the acceptance lock before the promotion's ref
    transaction is prepared (``update-ref --stdin``), so that Git lists while that process starts
    (f133); it is one process, collected by the opening (no second listing after the fetch)."""
    from git_hn.store.git import MEMORY_LISTING

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    mem = record_doc(alice, content="alice decides")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", mem["stream"]).code == 0
    starts, fetches = traced_sync(bob, tmp_path / "trace2", monkeypatch)
    assert len(fetches) == 1
    ended = trace2_when(fetches[0])
    after = sorted((e for e in starts.values() if trace2_when(e) > ended), key=trace2_when)
    listings = [e for e in after if _argv(e) == list(MEMORY_LISTING)]
    prepared = [e for e in after if _argv(e)[-2:] == ["update-ref", "--stdin"]]
    assert len(listings) == 1 and prepared, [_argv(e) for e in after]
    assert _started_before(listings[0], prepared[0])
    assert hn(bob, "memory", "show", mem["memoryId"]).code == 0
