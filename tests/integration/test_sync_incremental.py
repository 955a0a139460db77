"""Sync and hooks cost what changed (issue 11, item 3 and 5): one advertisement and one fetch for
any number of changed streams, nothing for streams that did not move, a budget on how many
streams one sync imports, a fresh index after every write, sync and hook import, and pre-push
publishing only what moved. The remote is ``git http-backend`` on loopback, whose request log
says which protocol-v2 commands each sync sent."""

from __future__ import annotations

import json

from helpers import actor_of, git, hn, hn_proc, make_repo, refs_snapshot, staged_commits, wait_publication

STREAMS = ["sha256:" + (f"{i:02d}" * 32) for i in range(1, 6)]


def _rec(repo, content, stream=None, kind="decision", extra=()):
    args = ["memory", "record", "--json", "--kind", kind, "--at", "HEAD", "--applies", "descendants",
            "--content", content, *extra]
    if stream:
        args += ["--stream", stream]
    r = hn(repo, *args)
    assert r.code == 0, r.err
    return r.json()


def _world(tmp_path, bare_remote, http_backend):
    remote = bare_remote("team.git")
    url = http_backend(remote)
    alice, bob = _team(tmp_path, url)
    return remote, url, alice, bob, http_backend.servers[url]


def _team(tmp_path, url):
    """Alice, whose streams are on the remote at ``url``, and Bob, a fresh clone of it."""
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", url)
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    for i, stream in enumerate(STREAMS):
        _rec(alice, f"first memory of stream {i}", stream)
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", url, str(bob))
    assert hn(bob, "init", "--name", "Bob").code == 0
    return alice, bob


class UploadPacks:
    """Counts the upload-pack sessions the remote serves (over file://, each is one process,
    seen through trace2 events), and which protocol-v2 commands each one got."""

    def __init__(self, tmp_path, monkeypatch):
        self.dir = tmp_path / "trace2"
        self.dir.mkdir()
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(self.dir))
        self.seen: set = set()

    def sessions(self) -> list[list[str]]:
        """The commands of each upload-pack process started since the last call."""
        out = []
        for path in sorted(self.dir.iterdir()):
            if path.name in self.seen:
                continue
            self.seen.add(path.name)
            events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            if not any(e.get("event") == "cmd_name" and e.get("name") == "upload-pack" for e in events):
                continue
            children = [" ".join(e.get("argv", [])) for e in events if e.get("event") == "child_start"]
            out.append(children)
        return out


def _fetch_sessions(sessions) -> int:
    """upload-pack sessions that sent objects (a fetch: upload-pack runs pack-objects), as
    opposed to only listing refs."""
    return sum(1 for children in sessions if any("pack-objects" in c for c in children))


def test_one_fetch_for_many_changed_streams_none_when_nothing_moved(tmp_path, bare_remote, monkeypatch):
    # file://, so that each upload-pack session is one process trace2 can see
    alice, bob = _team(tmp_path, f"file://{bare_remote('team.git')}")
    assert hn(bob, "replication", "select", "--all").code == 0
    packs = UploadPacks(tmp_path, monkeypatch)
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert sorted(o["id"] for o in doc["outcomes"] if o["status"] == "promoted") == sorted(STREAMS)
    sessions = packs.sessions()
    assert len(sessions) == 2 and _fetch_sessions(sessions) == 1  # the advertisement, one fetch
    assert hn(bob, "memory", "index", "verify").code == 0  # a fresh index after a first sync
    # nothing moved: one advertisement, no fetch, nothing verified, and it says so
    staged = staged_commits(monkeypatch)
    before = refs_snapshot(bob)
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    sessions = packs.sessions()
    assert len(sessions) == 1 and _fetch_sessions(sessions) == 0  # the advertisement only
    assert "Replication from origin: 5 streams up to date" in r.out.splitlines()
    assert staged == [] and refs_snapshot(bob) == before
    assert not (bob / ".git" / "hn" / "replication" / "quarantine").exists() or \
        list((bob / ".git" / "hn" / "replication" / "quarantine").iterdir()) == []
    doc = hn(bob, "sync", "--json").json()
    assert {o["status"] for o in doc["outcomes"]} == {"up-to-date"}
    assert doc["promoted"] == 0 and "measurements" not in doc["outcomes"][0]
    # two streams moved: one fetch, and only their two new commits are verified
    new = [_rec(alice, "second memory", STREAMS[1]), _rec(alice, "second memory", STREAMS[3])]
    assert hn(alice, "sync").code == 0
    packs.sessions()
    staged.clear()
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.err
    statuses = {o["id"]: o["status"] for o in r.json()["outcomes"]}
    assert statuses == {s: ("promoted" if s in (STREAMS[1], STREAMS[3]) else "up-to-date") for s in STREAMS}
    sessions = packs.sessions()
    assert len(sessions) == 2 and _fetch_sessions(sessions) == 1
    assert len(staged) == 2
    out = hn(bob, "memory", "recall", "--include-untrusted", "--json").json()
    assert {n["memoryId"] for n in new} <= {m["id"] for m in out["memories"]}
    assert hn(bob, "memory", "index", "verify").code == 0


def test_a_stream_budget_bounds_a_remote_advertising_too_many_streams(tmp_path, bare_remote, http_backend):
    _remote, _url, _alice, bob, server = _world(tmp_path, bare_remote, http_backend)
    r = hn(bob, "replication", "select", "--all", "--max-streams", "3")
    assert r.code == 0, r.err
    assert r.out.splitlines()[-1] == "max-streams: 3"
    saved = json.loads(next((bob / ".git" / "hn" / "replication" / "selections").iterdir()).read_text())
    assert saved["budgets"]["maxStreams"] == 3
    before = refs_snapshot(bob)
    start = len(server.requests)
    r = hn(bob, "sync")
    assert r.code == 1
    assert r.err == ("git-hn: import phase failed (publication phase completed): replication max-streams "
                     "budget exceeded for remote origin: configured=3 requested=5; select exact streams "
                     "or raise it with git hn replication select origin --max-streams N\n")
    assert "Replication memory" not in r.out, r.out  # one line for the budget, none for each stream
    assert [r for r in server.requests[start:] if r.get("command") == "command=fetch"] == []
    assert refs_snapshot(bob) == before
    # the default budget is not written: the file stays exactly what upstream writes
    assert hn(bob, "replication", "select", "--all").code == 0
    saved = json.loads(next((bob / ".git" / "hn" / "replication" / "selections").iterdir()).read_text())
    assert "maxStreams" not in saved["budgets"]
    assert hn(bob, "replication", "select", "--all", "--max-streams", "0").err == \
        "git-hn: max-streams must be a positive integer; --max-streams takes 1 or more\n"
    r = hn(bob, "sync")
    assert r.code == 0, r.err


def test_a_remote_advertising_junk_refs_is_read_no_further_than_the_stream_budget(tmp_path, bare_remote):
    """80,000 long junk names under refs/hn/zz/ (36 MB of listing, held whole in memory before):
    the sync stops reading at 2 KiB for each stream ``max-streams`` allows (32 MiB by default),
    says so in one line and changes nothing; a raised budget reads it all."""
    remote = bare_remote("junk.git")
    alice, bob = _team(tmp_path, str(remote))
    tip = git(alice, "rev-parse", "main").strip()
    packed = remote / "packed-refs"
    lines = packed.read_text().splitlines()[1:] if packed.exists() else []
    lines += [f"{tip} refs/hn/zz/{i:06d}{'j' * 440}" for i in range(80_000)]
    packed.write_text("# pack-refs with: peeled fully-peeled sorted \n"
                      + "".join(line + "\n" for line in sorted(lines, key=lambda l: l.split(" ")[1])))
    assert hn(bob, "replication", "select", "--all").code == 0
    before = refs_snapshot(bob)
    r = hn(bob, "sync")
    assert r.code == 1
    assert r.err == ("git-hn: import phase failed (publication phase completed): replication max-streams "
                     "budget exceeded for remote origin: its advertisement of refs/hn/ is over 33554432 bytes "
                     "(2048 for each of 16384 streams); select exact streams or raise it with "
                     "git hn replication select origin --max-streams N\n")
    assert refs_snapshot(bob) == before
    assert hn(bob, "replication", "select", "--all", "--max-streams", "20000").code == 0
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    accepted = git(bob, "for-each-ref", "--format=%(refname)", "refs/hn/remotes/origin/memory/").split()
    assert len(accepted) == len(STREAMS)


def test_the_index_is_fresh_after_every_write_command(tmp_path):
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Writer").code == 0
    a = _rec(repo, "a decision")["memoryId"]
    assert hn(repo, "memory", "index", "verify").code == 0
    steps = [
        ["memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "end",
         "--next-action", "go on"],
        ["memory", "supersede", a, "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
         "--content", "a better decision"],
        ["memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
         "--content", "to be retracted"],
    ]
    for args in steps:
        r = hn(repo, *args)
        assert r.code == 0, r.err
        v = hn(repo, "memory", "index", "verify")
        assert v.code == 0, (args, v.err)
    last = hn(repo, "memory", "recall", "--include-untrusted", "--json", "--kind", "observation").json()
    assert hn(repo, "memory", "retract", last["memories"][0]["id"], "--reason", "obsolete").code == 0
    assert hn(repo, "memory", "index", "verify").code == 0
    # a challenge needs another actor
    from agent_helpers import second_identity, switch

    me = (repo / ".git" / "hn" / "active").read_text()[:-1]
    bob = second_identity(repo)
    switch(repo, bob)
    assert hn(repo, "memory", "challenge", a, "--reason", "unconvinced").code == 0
    assert hn(repo, "memory", "index", "verify").code == 0
    switch(repo, me)


def test_a_hook_import_leaves_a_fresh_index(tmp_path, bare_remote, http_backend):
    _remote, _url, alice, bob, _server = _world(tmp_path, bare_remote, http_backend)
    assert hn(bob, "replication", "select", "--all").code == 0
    r = hn_proc(bob, "hooks", "install")
    assert r.code == 0, r.err
    git(alice, "commit", "-q", "--allow-empty", "-m", "move the branch")
    git(alice, "push", "-q", "origin", "main")
    git(bob, "fetch", "-q")  # moves refs/remotes/origin/main: the hook imports the selection
    out = hn(bob, "memory", "recall", "--include-untrusted", "--json").json()
    assert out["matched"] == len(STREAMS)
    v = hn(bob, "memory", "index", "verify")
    assert v.code == 0, v.err


def test_pre_push_publishes_only_the_streams_that_moved(tmp_path, bare_remote, http_backend):
    remote, _url, alice, _bob, server = _world(tmp_path, bare_remote, http_backend)
    r = hn_proc(alice, "hooks", "install")
    assert r.code == 0, r.err
    git(alice, "commit", "-q", "--allow-empty", "-m", "first push with hooks")
    git(alice, "push", "-q", "origin", "main")  # every stream published by sync already
    wait_publication(alice)
    start = len(server.requests)
    moved = _rec(alice, "only this stream moved", STREAMS[2])
    git(alice, "commit", "-q", "--allow-empty", "-m", "second push")
    git(alice, "push", "-q", "origin", "main")
    wait_publication(alice)
    updated = [ref for req in server.requests[start:] for ref in req.get("updated", [])]
    memory_refs = [ref for ref in updated if ref.startswith("refs/hn/memory/")]
    assert memory_refs == [f"refs/hn/memory/{moved['actor']}/{STREAMS[2][7:]}"], updated
    assert git(remote, "rev-parse", memory_refs[0]) == \
        git(alice, "rev-parse", f"refs/hn/memory/{moved['actor']}/{STREAMS[2][7:]}")
    # nothing moved: the hook pushes nothing at all
    start = len(server.requests)
    git(alice, "commit", "-q", "--allow-empty", "-m", "third push")
    git(alice, "push", "-q", "origin", "main")
    wait_publication(alice)
    updated = [ref for req in server.requests[start:] for ref in req.get("updated", [])]
    assert [ref for ref in updated if ref.startswith("refs/hn/")] == []


def test_pre_push_finds_what_moved_from_the_listing_text_as_a_full_reading_does(tmp_path, bare_remote,
                                                                              monkeypatch):
    """``publish.moved_since_given`` (the pre-push hook's usual case) compares the listing's lines
    with the bookkeeping's text and reads only what moved: the same sources, tips and bases as
    the full listing and bookkeeping give for those streams; and it declines (None: the hook
    then reads everything, which words each problem) for a moved ref that is not a stream's,
    an unreadable ref, too many moved streams and a missing state."""
    from git_hn.service.replication import publish
    from git_hn.store import state as statemod
    from git_hn.store import statedb, streams
    from git_hn.store.repo import open_repo

    alice, _bob = _team(tmp_path, f"file://{bare_remote('team.git')}")
    assert hn(alice, "replication", "select", "--all").code == 0
    assert hn(alice, "sync").code == 0  # her streams come back as accepted copies too

    def quick():
        repo = open_repo(str(alice))
        return publish.moved_since_given(repo, "origin", streams.listing_text(repo))

    def full(moved_streams):
        repo = open_repo(str(alice))
        listing = [s for s in streams.list_sources(repo) if s.stream in moved_streams]
        heads = {s.ref: s.head for s in listing if s.remote is None}
        published = publish.published_heads(repo, "origin")
        return listing, heads, {r: h for r, h in published.items() if r in heads}

    def lines_kept():
        repo = open_repo(str(alice))
        conn = statedb.open_sealed(repo, readonly=True)
        try:
            return statemod.published_lines(conn, "origin") == {
                f"{r} {h}" for r, h in statemod.published_heads(conn, "origin").items()}
        finally:
            conn.close()

    assert quick() == ([], {}, {})  # everything was given at its tip
    assert lines_kept()
    _rec(alice, "moved", STREAMS[2])
    _rec(alice, "moved too", STREAMS[4])
    got = quick()
    assert got == full({STREAMS[2], STREAMS[4]})
    assert len(got[0]) == 4 and sorted(s.remote for s in got[0] if s.remote) == ["origin", "origin"]
    assert set(got[2]) == set(got[1]) and all(got[1][r] != got[2][r] for r in got[1])
    assert hn(alice, "sync").code == 0  # publishes both: nothing moved since
    assert quick() == ([], {}, {}) and lines_kept()

    _rec(alice, "one", STREAMS[0])
    _rec(alice, "two", STREAMS[1])
    monkeypatch.setattr(publish, "QUICK_MOVED", 1)
    assert quick() is None  # too many
    monkeypatch.setattr(publish, "QUICK_MOVED", 16)
    assert quick() == full({STREAMS[0], STREAMS[1]})
    actor = actor_of(alice)
    head = git(alice, "rev-parse", "HEAD")
    git(alice, "update-ref", f"refs/hn/memory/{actor}/not-a-stream", head)
    assert quick() is None  # a moved line that is not a stream's
    git(alice, "update-ref", "-d", f"refs/hn/memory/{actor}/not-a-stream")
    broken = alice / ".git" / "refs" / "hn" / "memory" / actor / ("ab" * 32)
    broken.write_text("not an object ID\n")
    assert quick() is None  # a ref Git does not list
    broken.unlink()
    assert quick() == full({STREAMS[0], STREAMS[1]})
    for name in ("state-v0.sqlite", "state-v0.seal"):
        (alice / ".git" / "hn" / "memory" / name).unlink()
    assert quick() is None  # no state, no bookkeeping


def test_a_quarantine_that_cannot_be_made_fails_only_a_sync_with_work(tmp_path, bare_remote):
    """The quarantine is made only when something is to be fetched: when it cannot be made, a
    sync with nothing to fetch still succeeds, and one with work fails with the phase's one line
    and changes no ref."""
    alice, bob = _team(tmp_path, f"file://{bare_remote('team.git')}")
    assert hn(bob, "replication", "select", "--memory", STREAMS[0]).code == 0
    assert hn(bob, "sync").code == 0  # the stream is accepted
    root = bob / ".git" / "hn" / "replication" / "quarantine"
    for entry in root.iterdir() if root.exists() else ():
        entry.rmdir()
    if root.exists():
        root.rmdir()
    root.write_text("not a directory\n")  # nothing can be made under it
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    assert "Synchronized with origin: up to date" in r.out
    _rec(alice, "second memory", STREAMS[0])
    assert hn(alice, "sync").code == 0
    before = refs_snapshot(bob)
    r = hn(bob, "sync")
    assert r.code != 0
    assert r.err == ("git-hn: import phase failed (publication phase completed): "
                     "replication quarantine setup failed for remote origin\n")
    assert refs_snapshot(bob) == before and root.read_text() == "not a directory\n"


def _receive_packs(packs) -> int:
    """receive-pack sessions (pushes) among the trace2 files not yet read by ``sessions``."""
    count = 0
    for path in sorted(packs.dir.iterdir()):
        if path.name in packs.seen:
            continue
        events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        if any(e.get("event") == "cmd_name" and e.get("name") == "receive-pack" for e in events):
            count += 1
    return count


def _owners(repo) -> dict:
    path = repo / ".git" / "hn" / "replication" / "owners" / "b3JpZ2lu.json"
    return json.loads(path.read_text())["owners"] if path.exists() else {}


def test_an_exact_selection_is_fetched_by_name_in_one_session(tmp_path, bare_remote, monkeypatch):
    """``replication select`` learns each selected stream's owner; a sync then asks for exactly
    those refs in one fetch (no listing of the remote's other refs: one upload-pack session in
    all), a no-op sync fetches nothing, and a moved stream is the only one verified."""
    alice, bob = _team(tmp_path, f"file://{bare_remote('team.git')}")
    chosen = STREAMS[:3]
    assert hn(bob, "replication", "select", *[a for s in chosen for a in ("--memory", s)]).code == 0
    assert _owners(bob) == {s: actor_of(alice) for s in chosen}
    packs = UploadPacks(tmp_path, monkeypatch)
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.err
    assert {o["id"]: o["status"] for o in r.json()["outcomes"]} == {s: "promoted" for s in chosen}
    sessions = packs.sessions()
    assert len(sessions) == 1 and _fetch_sessions(sessions) == 1  # no advertisement of its own
    assert hn(bob, "memory", "index", "verify").code == 0
    staged = staged_commits(monkeypatch)
    before = refs_snapshot(bob)
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    sessions = packs.sessions()
    assert len(sessions) == 1 and _fetch_sessions(sessions) == 0  # the refs' names only
    assert "Replication from origin: 3 streams up to date" in r.out.splitlines()
    assert staged == [] and refs_snapshot(bob) == before
    assert list((bob / ".git" / "hn" / "replication" / "quarantine").iterdir()) == []
    new = _rec(alice, "second memory", chosen[1])
    _rec(alice, "a stream bob did not select", STREAMS[4])
    assert hn(alice, "sync").code == 0
    packs.sessions()
    staged.clear()
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.err
    assert {o["id"]: o["status"] for o in r.json()["outcomes"]} == \
        {s: ("promoted" if s == chosen[1] else "up-to-date") for s in chosen}
    sessions = packs.sessions()
    assert len(sessions) == 1 and _fetch_sessions(sessions) == 1
    assert len(staged) == 1
    out = hn(bob, "memory", "show", new["memoryId"], "--json")
    assert out.code == 0, out.err
    assert hn(bob, "memory", "index", "verify").code == 0


def test_a_sync_without_known_owners_reads_the_advertisement(tmp_path, bare_remote, monkeypatch):
    """Owners not learnt (or a damaged owners file): the whole advertisement, as the contract
    words it; once accepted, the accepted ref names the owner. A stream gone from the remote
    makes the fetch by name fail: the sync falls back and says it is not advertised."""
    remote = bare_remote("team.git")
    alice, bob = _team(tmp_path, f"file://{remote}")
    assert hn(bob, "replication", "select", "--memory", STREAMS[0], "--memory", STREAMS[1]).code == 0
    owners = bob / ".git" / "hn" / "replication" / "owners" / "b3JpZ2lu.json"
    owners.write_text('{"version":0,"remote":"origin","owners":{"x":"y"}}\n')
    packs = UploadPacks(tmp_path, monkeypatch)
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    sessions = packs.sessions()
    assert len(sessions) == 2 and _fetch_sessions(sessions) == 1  # the advertisement, one fetch
    owners.unlink()
    r = hn(bob, "sync")  # the accepted refs name the owners
    assert r.code == 0, r.err
    assert len(packs.sessions()) == 1
    git(remote, "update-ref", "-d", f"refs/hn/memory/{actor_of(alice)}/{STREAMS[1][7:]}")
    before = refs_snapshot(bob)
    r = hn(bob, "sync", "--json")
    assert r.code == 1
    outcomes = {o["id"]: o for o in json.loads(r.out)["outcomes"]}
    assert outcomes[STREAMS[0]]["status"] == "up-to-date"
    assert outcomes[STREAMS[1]]["status"] == "dependency-missing"
    assert outcomes[STREAMS[1]]["diagnostic"] == f"selected memory {STREAMS[1]} is not advertised by remote origin"
    assert refs_snapshot(bob) == before
    assert list((bob / ".git" / "hn" / "replication" / "quarantine").iterdir()) == []


def test_select_learns_no_owner_for_an_ambiguous_stream(tmp_path, bare_remote):
    """Two actors advertise one stream: ``select`` records no owner for it, and the sync reports
    the ambiguity exactly as before (CONTRACT §9.4)."""
    url = f"file://{bare_remote('team.git')}"
    alice, bob = _team(tmp_path, url)
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", url, str(carol))
    assert hn(carol, "init", "--name", "Carol").code == 0
    _rec(carol, "carol's memory in alice's stream", STREAMS[0])
    assert hn(carol, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", STREAMS[0], "--memory", STREAMS[1]).code == 0
    assert _owners(bob) == {STREAMS[1]: actor_of(alice)}
    r = hn(bob, "sync", "--json")
    assert r.code == 1
    outcomes = {o["id"]: o for o in json.loads(r.out)["outcomes"]}
    assert outcomes[STREAMS[0]]["status"] == "structurally-invalid"
    assert outcomes[STREAMS[0]]["diagnostic"] == f"selected memory {STREAMS[0]} has ambiguous owners on remote origin"
    assert outcomes[STREAMS[1]]["status"] == "promoted"


def test_a_sync_by_name_still_publishes_the_users_own_streams(tmp_path, bare_remote, monkeypatch):
    """The fetch by name also reads the remote's copies of the user's own streams (one ref
    prefix per local actor), so publication pushes what moved and nothing else."""
    remote = bare_remote("team.git")
    alice, bob = _team(tmp_path, f"file://{remote}")
    assert hn(bob, "replication", "select", "--memory", STREAMS[0]).code == 0
    mine = _rec(bob, "bob's own memory")
    packs = UploadPacks(tmp_path, monkeypatch)
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.err
    assert r.json()["published"] == 1
    ref = git(bob, "for-each-ref", "--format=%(refname) %(objectname)", f"refs/hn/memory/{actor_of(bob)}")
    assert ref and git(remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory/" + actor_of(bob)) == ref
    assert _receive_packs(packs) == 1
    packs.sessions()
    r = hn(bob, "sync", "--json")  # nothing moved on either side
    assert r.code == 0, r.err
    assert r.json()["published"] == 1 and _receive_packs(packs) == 0
    sessions = packs.sessions()
    assert len(sessions) == 1 and _fetch_sessions(sessions) == 0
    second = _rec(bob, "bob's second memory")
    r = hn(bob, "sync", "--json")
    assert r.code == 0 and r.json()["published"] == 1 and _receive_packs(packs) == 1
    assert hn(alice, "sync").code == 0
    shown = hn(alice, "memory", "show", second["memoryId"], "--json")
    assert shown.code == 0, shown.err
    assert mine["memoryId"] != second["memoryId"]


def test_a_publishing_sync_lists_the_memory_refs_once_per_phase(tmp_path, bare_remote, monkeypatch):
    """The refs under ``refs/hn/memory`` are listed three times in a sync by name that imports and
    publishes: the user's own streams' names (for the exact fetch), the import's state listing,
    and the publication's, which serves its verification, its tips and its gate (each of those
    listed again before, and publication listed the user's streams' names a second time)."""
    remote = bare_remote("team.git")
    alice, bob = _team(tmp_path, f"file://{remote}")
    assert hn(bob, "replication", "select", "--memory", STREAMS[0]).code == 0
    _rec(bob, "bob's own memory")
    packs = UploadPacks(tmp_path, monkeypatch)
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.err
    assert r.json()["published"] == 1 and _receive_packs(packs) == 1
    assert r.json()["promoted"] == 1
    listings = []
    for path in packs.dir.iterdir():
        for line in path.read_text().splitlines():
            event = json.loads(line) if line.strip() else {}
            argv = event.get("argv", []) if event.get("event") == "start" else []
            if "for-each-ref" in argv and any(a.startswith("refs/hn/memory") for a in argv):
                listings.append(argv[argv.index("for-each-ref"):])
    # (the names come with the remote's accepted refs, in one listing of both: ``store.shared_early``)
    names = [a for a in listings if "refs/hn/memory/" in a]
    assert len(listings) == 3 and len(names) == 1, listings
    assert names[0][-2:] == ["refs/hn/memory/", "refs/hn/remotes/origin/memory/"], names


def test_an_exact_selection_over_its_stream_budget_fetches_nothing(tmp_path, bare_remote, monkeypatch):
    """More selected streams than ``max-streams``: no fetch by name (it would fetch them all);
    the advertisement counts the changed ones and the budget's line names the command."""
    alice, bob = _team(tmp_path, f"file://{bare_remote('team.git')}")
    assert hn(bob, "replication", "select", *[a for s in STREAMS[:3] for a in ("--memory", s)],
              "--max-streams", "2").code == 0
    assert len(_owners(bob)) == 3
    packs = UploadPacks(tmp_path, monkeypatch)
    before = refs_snapshot(bob)
    r = hn(bob, "sync")
    assert r.code == 1
    assert "replication max-streams budget exceeded for remote origin: configured=2 requested=3" in r.err
    sessions = packs.sessions()
    assert len(sessions) == 1 and _fetch_sessions(sessions) == 0  # the advertisement only
    assert refs_snapshot(bob) == before


def test_an_exact_selection_over_http_is_one_listing_of_its_refs_then_the_fetch(tmp_path, bare_remote, http_backend):
    """Over smart HTTP (protocol v2): a sync by name sends one ``ls-refs`` (the selected refs'
    prefixes only), then its fetch; a no-op sends the ``ls-refs`` alone."""
    _remote, _url, alice, bob, server = _world(tmp_path, bare_remote, http_backend)
    assert hn(bob, "replication", "select", "--memory", STREAMS[0], "--memory", STREAMS[2]).code == 0
    assert set(_owners(bob)) == {STREAMS[0], STREAMS[2]}
    start = len(server.requests)
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.err
    assert [o["status"] for o in r.json()["outcomes"]] == ["promoted", "promoted"]
    commands = [q.get("command") for q in server.requests[start:] if q.get("command")]
    # one listing, then the fetch's requests (stateless HTTP negotiates in more than one)
    assert commands[0] == "command=ls-refs" and set(commands[1:]) == {"command=fetch"}
    start = len(server.requests)
    assert hn(bob, "sync").code == 0
    assert [q.get("command") for q in server.requests[start:] if q.get("command")] == ["command=ls-refs"]


def test_a_malformed_local_ref_stops_publication_with_one_error(tmp_path, bare_remote):
    """Publication reads the user's refs as one block when they all have the usual shape; any
    other name under ``refs/hn/memory`` is still caught ref by ref, and nothing is pushed."""
    remote = bare_remote("team.git")
    _alice, bob = _team(tmp_path, f"file://{remote}")
    _rec(bob, "bob's own memory")
    git(bob, "update-ref", f"refs/hn/memory/{actor_of(bob)}/NOTHEX", git(bob, "rev-parse", "HEAD").strip())
    r = hn(bob, "sync", "--json")
    assert r.code == 1
    doc = json.loads(r.out)
    assert doc["error"] == ("publication phase failed after replication: replication memory "
                            "publication inspection failed for remote origin")
    assert doc["published"] == 0 and r.err == f"git-hn: {doc['error']}\n"
    assert git(remote, "for-each-ref", f"refs/hn/memory/{actor_of(bob)}") == ""


def test_measurement_reads_blobs_in_chunks_and_keeps_at_most_its_byte_budget(tmp_path, monkeypatch):
    """``measure._sizes`` sizes every object exactly as ``git cat-file -s`` does, hands on the
    whole content of the small blobs it read while its held-bytes budget lasts (validation then
    reads nothing twice), and sizes the rest with one batch-check once the budget is spent;
    a blob over ``PREREAD_BYTES`` is sized, never held."""
    from types import SimpleNamespace

    from git_hn.service.replication import measure
    from git_hn.store.git import Git

    repo = tmp_path / "r"
    assert Git(str(tmp_path)).run(["init", "-q", str(repo)]).returncode == 0
    g = Git(str(repo))
    blobs = []
    for i in range(40):
        body = (b"%03d " % i) * (2000 if i % 9 == 4 else 10 + i)  # every 9th is 8,000 bytes
        blobs.append(g.run(["hash-object", "-w", "--stdin"], input=body).stdout.decode().strip())
    truth = {b: int(g.run(["cat-file", "-s", b]).stdout) for b in blobs}
    q = SimpleNamespace(git=g)

    read: dict = {}
    assert measure._sizes(q, blobs, {}, {}, read) == truth  # the defaults: everything read at once
    assert set(read) == {b for b in blobs if truth[b] <= measure.PREREAD_BYTES}
    assert all(read[b] == ("blob", truth[b], g.run(["cat-file", "blob", b]).stdout) for b in read)

    monkeypatch.setattr(measure, "PREREAD_CHUNK", 7)
    monkeypatch.setattr(measure, "PREREAD_HELD", 300)
    read = {}
    assert measure._sizes(q, blobs, {}, {}, read) == truth
    expected, kept, at = [], 0, 0
    while at < len(blobs) and kept < 300:  # whole chunks of 7 until 300 bytes are held
        for b in blobs[at:at + 7]:
            if truth[b] <= measure.PREREAD_BYTES:
                expected.append(b)
                kept += truth[b]
        at += 7
    assert 0 < at < len(blobs)  # some chunks read, the rest sized by the batch-check
    assert [b for b in blobs if b in read] == expected
    assert all(read[b][2] == g.run(["cat-file", "blob", b]).stdout for b in expected)


_PENDING_UNREAD = r'''
import sys
from git_hn.store.pending import NONE
from git_hn.store.repo import open_repo
got = open_repo().pending()
# the remembered answer is taken without loading the replication state's code (nor reading receipts)
print(got is NONE, got.ok, len(got.denied), "git_hn.store.replication" in sys.modules)
'''


def _pending_in_a_new_process(repo) -> str:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _PENDING_UNREAD], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def test_a_sync_leaves_nothing_pending_remembered_for_the_next_command(tmp_path, bare_remote):
    """Every command asks whether anything is pending; after a sync the answer ("nothing") is
    remembered by the sync itself, so the next command does not read the receipt it wrote. The
    answer is the one the receipts give, and a sync that cannot be sure leaves it uncomputed."""
    from git_hn.store import pending as pendingmod
    from git_hn.store.repo import open_repo

    alice, bob = _team(tmp_path, f"file://{bare_remote('team.git')}")
    assert hn(bob, "replication", "select", "--all").code == 0
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    receipts = list((bob / ".git" / "hn" / "replication" / "transactions").iterdir())
    assert len(receipts) == 1 and b'"complete"' in receipts[0].read_bytes()
    # the next command takes the remembered answer, and reading the receipts gives the same one
    assert _pending_in_a_new_process(bob) == "True True 0 False"
    memo = bob / ".git" / "hn" / "replication" / pendingmod.MEMO
    memo.unlink()
    assert _pending_in_a_new_process(bob) == "False True 0 True"
    # what the sync checks before it remembers (by hand, on the files as they are now): it started
    # from a remembered "nothing pending", and only its own receipt came since
    import os

    os.chdir(bob)
    memo.unlink()
    repo = open_repo()
    txn = receipts[0].name[:-5]
    assert pendingmod.nothing_pending_files(repo) is None  # no memo: not known to be clean
    pendingmod.remember_completed(repo, None, txn)
    assert not memo.exists()
    pendingmod.remember_completed(repo, [], "txn-" + "0" * 24)  # a receipt that is not this sync's
    assert not memo.exists()
    pendingmod.remember_completed(repo, pendingmod.memo_files(repo), txn)  # nothing new at all
    assert not memo.exists()
    pendingmod.remember_completed(repo, [], txn)
    assert memo.exists() and _pending_in_a_new_process(bob) == "True True 0 False"
    # the next sync, importing more, leaves it remembered too
    _rec(alice, "second memory", STREAMS[2])
    assert hn(alice, "sync").code == 0
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    assert len(list((bob / ".git" / "hn" / "replication" / "transactions").iterdir())) == 2
    assert _pending_in_a_new_process(bob) == "True True 0 False"


def test_a_promotion_of_many_new_refs_packs_them_in_the_background(tmp_path, bare_remote, monkeypatch):
    """Past ``PACK_REFS_FROM`` new accepted refs in one promotion, the sync packs the refs (every
    later listing reads one file instead of one per ref) in a detached ``git pack-refs``, as
    ``git gc --auto`` would: the sync's answers and refs are the same, and once it ends the
    accepted refs are all in ``packed-refs``, none left loose. The packing runs no hook: Git
    deletes each packed loose ref in a transaction of its own, and a reference-transaction
    hook (git-hn's wrapper or any other) would run twice per ref."""
    from git_hn.service.replication import promote
    from git_hn.store.git import Git

    alice, bob = _team(tmp_path, f"file://{bare_remote('team.git')}")
    assert hn(bob, "replication", "select", "--all").code == 0
    log = tmp_path / "transactions.log"
    hook = bob / ".git" / "hooks" / "reference-transaction"
    hook.write_text(f'#!/bin/sh\nwhile read -r old new ref; do echo "$1 $new $ref" >> "{log}"; done\n')
    hook.chmod(0o755)
    monkeypatch.setattr(promote, "PACK_REFS_FROM", len(STREAMS))
    started = len(Git.DETACHED)
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.err
    assert r.json()["promoted"] == len(STREAMS)
    packing = Git.DETACHED[started:]
    assert len(packing) == 1 and packing[0].args[-2:] == ["pack-refs", "--all"]
    assert packing[0].wait(timeout=60) == 0
    promoted = [line.split() for line in log.read_text().splitlines()]
    # the promotion's own transaction ran the hook (prepared, committed: one line per ref each);
    # the packing, which would add a deletion per ref, ran none
    assert {(state, ref) for state, _new, ref in promoted if ref.startswith("refs/hn/remotes/")} == {
        (state, ref) for state in ("prepared", "committed")
        for ref in git(bob, "for-each-ref", "--format=%(refname)", "refs/hn/remotes").split()}
    assert not [line for line in promoted if set(line[1]) == {"0"}]
    accepted = git(bob, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/remotes").splitlines()
    assert len(accepted) == len(STREAMS)
    packed = (bob / ".git" / "packed-refs").read_text()
    assert all(f"{line.split()[1]} {line.split()[0]}" in packed for line in accepted)
    loose = [p for p in (bob / ".git" / "refs" / "hn").rglob("*") if p.is_file()]
    assert loose == []
    assert hn(bob, "memory", "index", "verify").code == 0
    # a promotion below the count packs nothing, and what it wrote loose is counted on: the next
    # promotion that brings the count since the last packing to PACK_REFS_FROM packs (many small
    # syncs leave no ever-growing set of loose refs behind)
    count = bob / ".git" / "hn" / "replication" / "loose-refs"
    assert count.read_text() == "0\n"
    for n, stream in enumerate(STREAMS[:2], 1):
        _rec(alice, f"memory {n}", stream)
        monkeypatch.setattr(promote, "PACK_REFS_FROM", 100)  # (Alice's syncs import her streams back)
        assert hn(alice, "sync").code == 0
        monkeypatch.setattr(promote, "PACK_REFS_FROM", 2)
        before = list(Git.DETACHED)
        r = hn(bob, "sync", "--json")
        assert r.code == 0, r.err
        assert r.json()["promoted"] == 1
        packing = [p for p in Git.DETACHED if p not in before]
        loose = [p for p in (bob / ".git" / "refs" / "hn").rglob("*") if p.is_file()]
        if n == 1:
            assert packing == [] and count.read_text() == "1\n"
            assert len(loose) == 1 and loose[0].read_text().strip() == git(bob, "rev-parse", str(
                loose[0].relative_to(bob / ".git")))
        else:
            assert len(packing) == 1 and packing[0].args[-2:] == ["pack-refs", "--all"]
            assert packing[0].wait(timeout=60) == 0
            assert count.read_text() == "0\n"
            assert [p for p in (bob / ".git" / "refs" / "hn").rglob("*") if p.is_file()] == []
    assert hn(bob, "memory", "index", "verify").code == 0
    # a count that is not a number packs at the next promotion (once more is harmless)
    count.write_text("many\n")
    _rec(alice, "memory 3", STREAMS[2])
    monkeypatch.setattr(promote, "PACK_REFS_FROM", 100)
    assert hn(alice, "sync").code == 0
    before = list(Git.DETACHED)
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.err
    packing = [p for p in Git.DETACHED if p not in before]
    assert len(packing) == 1 and packing[0].wait(timeout=60) == 0
    assert count.read_text() == "0\n"
