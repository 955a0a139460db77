"""A remote that pushes elsewhere than it fetches (``service.replication.push_targets``): two push
URLs (a team repository and its mirror), or one push URL that is a fork. Real repositories, real
pushes through the installed hooks, real background publications."""

from __future__ import annotations

import subprocess

import pytest

from helpers import fetch_here_push_there, git, hn, make_repo, push_urls_clone, wait_publication


def _push(repo, *args):
    """``git push``, then the background publication its pre-push hook started (if any)."""
    proc = subprocess.run(["git", "push", *args], cwd=repo, capture_output=True, text=True, timeout=120)
    wait_publication(repo)
    return proc


def _record(repo, content: str) -> str:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    doc = r.json()
    return f"refs/hn/memory/{doc['actor']}/{doc['stream'][7:]}"


def _memory_refs(bare) -> str:
    return git(bare, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/")


def _team_and_mirror(tmp_path, mode: str = "warn"):
    """Alice's clone of team.git, pushing to team.git and mirror.git (both holding main), with
    git-hn's hooks installed: (alice, team, mirror)."""
    bares, alice = push_urls_clone(tmp_path, "team", ("team", "mirror"))
    team, mirror = bares["team"], bares["mirror"]
    git(alice, "config", "hn.prePush", mode)
    assert hn(alice, "init", "--name", "Alice").code == 0
    assert hn(alice, "hooks", "install").code == 0
    return alice, team, mirror


@pytest.mark.parametrize("mode", ["warn", "block"])
def test_a_push_url_that_rejected_the_commit_gets_no_memory_anchored_on_it(tmp_path, mode):
    """A trial: the mirror rejected the push of commit two ("fetch first"), the team took it, and
    the background publication still gave the mirror the memory anchored on two (Git moves
    refs/remotes/origin/main once any push URL accepts): the mirror's readers were stopped at it.
    Each push URL is asked what its branches hold; the mirror gets the memory once it has two."""
    alice, team, mirror = _team_and_mirror(tmp_path, mode)
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(mirror), str(other))
    git(other, "-c", "user.name=M", "-c", "user.email=m@e", "commit", "-q", "--allow-empty", "-m", "mirror only")
    git(other, "push", "-q", "origin", "HEAD:main")
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    ref = _record(alice, "anchored on two")
    pushed = _push(alice)
    assert "[rejected]" in pushed.stderr, pushed.stderr
    assert ref in _memory_refs(team)
    assert ref not in _memory_refs(mirror)  # (its readers would stop at a commit it lacks)
    synced = hn(alice, "sync")
    assert "until commit" in synced.out and "is on push URL 2 of origin" in synced.out, synced.out
    assert ref not in _memory_refs(mirror)
    git(alice, "pull", "-q", "--no-rebase", "--no-edit", str(mirror), "main")
    pushed = _push(alice)
    assert pushed.returncode == 0, pushed.stderr
    assert git(mirror, "rev-parse", ref) == git(alice, "rev-parse", ref)


def test_a_push_url_that_refuses_memory_refs_is_said_and_tried_again(tmp_path):
    """A trial: the mirror's pre-receive refused refs/hn/*; Git runs pre-push once per push URL, so
    two background publications ran, and the second (finding the stream given to origin, since
    the team took it) erased the first one's failure: never said, never tried again. The failure
    names the push URL by its place, the stream is offered again until that URL takes it, and
    the advice does not stop publishing to the team (``hnPublish false`` would)."""
    alice, team, mirror = _team_and_mirror(tmp_path)
    hook = mirror / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nif grep -q refs/hn/; then echo 'no memory refs here' >&2; exit 1; fi\n")
    hook.chmod(0o755)
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    ref = _record(alice, "anchored on two")
    first = _push(alice)
    assert first.returncode == 0, first.stderr
    assert git(team, "rev-parse", ref) == git(alice, "rev-parse", ref)
    assert ref not in _memory_refs(mirror)
    git(alice, "commit", "-q", "--allow-empty", "-m", "three")
    second = _push(alice)
    said = [line for line in second.stderr.splitlines() if "the last background publication to origin failed" in line]
    assert len(said) == 1, second.stderr
    assert "at push URL 2 of 2" in said[0] and "no memory refs here" in said[0], said[0]
    assert str(mirror) not in said[0], said[0]
    # (a refusal of memory refs: the way out that fits one push URL of several, at once, as sync's, f144)
    assert said[0].endswith("(git remote set-url --delete --push origin URL)"), said[0]
    synced = hn(alice, "sync")
    assert synced.code == 1 and "at push URL 2 of 2" in synced.err, synced.err
    hook.unlink()  # (the mirror takes memory now: the next push gives it what it lacks)
    git(alice, "commit", "-q", "--allow-empty", "-m", "four")
    third = _push(alice)
    assert "the last background publication to origin failed again" in third.stderr, third.stderr  # (the retry's)
    # (refused the same way twice: "again", with the advice that fits one push URL of several)
    again = next(line for line in third.stderr.splitlines() if line.startswith("git-hn: the last background"))
    assert "set-url --delete --push origin" in again and str(mirror) not in again, again
    assert git(mirror, "rev-parse", ref) == git(alice, "rev-parse", ref)
    fourth = _push(alice)
    assert "failed" not in fourth.stderr, fourth.stderr


def test_a_push_to_two_push_urls_warns_once(tmp_path):
    """The same trial: Git runs pre-push once for each push URL, and every warning of git-hn's
    was said twice. The first push URL's run says them (and its publication asks and gives
    every push URL); the others' say nothing."""
    alice, team, mirror = _team_and_mirror(tmp_path)
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    ref = _record(alice, "anchored on two")
    tip = git(alice, "rev-parse", ref)  # (what may be published: the next memory waits for feature)
    git(alice, "checkout", "-q", "-b", "feature")
    git(alice, "commit", "-q", "--allow-empty", "-m", "not pushed yet")
    _record(alice, "anchored on a commit no push carries yet")
    git(alice, "checkout", "-q", "main")
    pushed = _push(alice, "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert pushed.stderr.count("waits until commit") == 1, pushed.stderr
    assert git(team, "rev-parse", ref) == tip and git(mirror, "rev-parse", ref) == tip


def test_a_fork_push_url_keeps_a_published_memory_published_after_a_fetch(tmp_path):
    """A trial: fetch from upstream, push to your fork (``set-url --push``). The push gave the fork
    the memory, but after ``git fetch`` every sync said it "waits until commit … is on origin"
    and "1 stream held back" (the fetch moved refs/remotes/origin/main back to upstream's), and
    the next push said it was up to date again. The fork is asked what it holds."""
    upstream, fork, alice = fetch_here_push_there(tmp_path)
    assert hn(alice, "init", "--name", "Alice").code == 0
    assert hn(alice, "hooks", "install").code == 0
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    ref = _record(alice, "anchored on two")
    assert _push(alice).returncode == 0
    assert git(fork, "rev-parse", ref) == git(alice, "rev-parse", ref)
    git(alice, "fetch", "-q", "origin")  # (upstream lacks two)
    for _ in range(2):
        synced = hn(alice, "sync")
        assert synced.code == 0 and "held back" not in synced.out and "waits" not in synced.out, synced.out
    # a memory on a commit only the fork has goes there by the sync alone
    git(alice, "commit", "-q", "--allow-empty", "-m", "three")
    git(alice, "push", "-q", "--no-verify", "origin", "main")
    git(alice, "fetch", "-q", "origin")
    _record(alice, "anchored on three")
    synced = hn(alice, "sync")
    assert synced.code == 0 and "published 1 stream" in synced.out, synced.out
    assert git(fork, "rev-parse", ref) == git(alice, "rev-parse", ref)
    assert ref not in _memory_refs(upstream)


def test_a_mirror_push_that_deletes_memory_at_push_url_2_is_said(tmp_path):
    """A review: ``git push --mirror`` to a remote with two push URLs deleted the memory refs the
    second held with no warning under warn: the run for push URL 2 returned before its deletion
    check, the only one that asks that URL. It is said, naming the push URL by its place."""
    alice, team, mirror = _team_and_mirror(tmp_path)
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(mirror), str(bob))
    assert hn(bob, "init", "--name", "Bob").code == 0
    ref = _record(bob, "bob's")
    git(bob, "push", "-q", "--no-verify", "origin", f"{ref}:{ref}")
    pushed = _push(alice, "--mirror")
    said = [line for line in pushed.stderr.splitlines() if "deletes 1 memory ref" in line]
    assert len(said) == 1 and "at push URL 2 of origin" in said[0] and ref in said[0], pushed.stderr


def _alice_on(tmp_path, *bares):
    """Alice's clone of the first of ``bares`` (each holding main), git-hn's hooks installed."""
    alice = make_repo(tmp_path / "alice")
    for bare in bares:
        git(tmp_path, "init", "-q", "--bare", str(bare))
        git(alice, "push", "-q", str(bare), "main")
    git(alice, "remote", "add", "origin", str(bares[0]))
    git(alice, "fetch", "-q", "origin")
    git(alice, "branch", "-q", "--set-upstream-to", "origin/main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    assert hn(alice, "hooks", "install").code == 0
    return alice


@pytest.mark.parametrize("how", ["mirror added", "fork"])
def test_a_push_url_added_after_a_publication_gets_the_memory_at_the_next_push(tmp_path, how):
    """A review: a mirror added as a second push URL after a publication (or a fork set as the
    only push URL) never got the memory on later pushes, until ``git hn sync``: the hook's
    bookkeeping read the record under the remote's name ("given"), written while the remote
    pushed to the team repository alone. The record of what every push URL holds is keyed by the
    set of push URLs, so a changed set asks each URL again."""
    team, other = tmp_path / "team.git", tmp_path / "other.git"
    alice = _alice_on(tmp_path, team, other)
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    ref = _record(alice, "anchored on two")
    assert _push(alice).returncode == 0
    assert git(team, "rev-parse", ref) == git(alice, "rev-parse", ref)
    if how == "mirror added":
        git(alice, "remote", "set-url", "--add", "--push", "origin", str(team))
    git(alice, "remote", "set-url", "--add", "--push", "origin", str(other))
    for n in (3, 4):
        git(alice, "commit", "-q", "--allow-empty", "-m", f"c{n}")
        assert _push(alice).returncode == 0
    assert git(other, "rev-parse", ref) == git(alice, "rev-parse", ref)


def test_a_push_url_that_refuses_the_password_is_said_so(tmp_path, http_backend):
    """A review: a push URL over HTTP with a wrong password was said to have "not answered git
    ls-remote (within 60 s), or its transport is one git-hn does not use" (the reason Git gave
    was thrown away). Its reason is said in git-hn's own words, the URL never."""
    alice, team, mirror = _team_and_mirror(tmp_path)
    url = http_backend(mirror, basic="alice:right").replace("http://", "http://alice:wrong@")
    git(alice, "remote", "set-url", "--push", "origin", url, str(mirror))
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    _record(alice, "anchored on two")
    synced = hn(alice, "sync")
    assert synced.code == 1 and "at push URL 2 of 2" in synced.err, synced.err
    assert "the remote refused the credentials given" in synced.err and "did not answer" not in synced.err, synced.err
    assert "wrong" not in synced.err, synced.err


def test_a_partial_clone_asks_a_fork_without_fetching_its_branches(tmp_path):
    """A review: a partial clone (blob:none) publishing to a fork made one lazy fetch for each of
    the fork's branch tips it lacked (the tips were looked up on the runner that fetches missing
    objects). They are asked of the view that never fetches: the commit stays missing here."""
    upstream, fork = tmp_path / "up.git", tmp_path / "fork.git"
    seed = make_repo(tmp_path / "seed")
    for bare in (upstream, fork):
        git(tmp_path, "init", "-q", "--bare", str(bare))
        git(bare, "config", "uploadpack.allowFilter", "true")
        git(seed, "push", "-q", str(bare), "main")
    alice = tmp_path / "alice"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{upstream}", str(alice))
    git(alice, "remote", "set-url", "--push", "origin", str(fork))
    assert hn(alice, "init", "--name", "Alice").code == 0
    git(seed, "commit", "-q", "--allow-empty", "-m", "elsewhere")
    git(seed, "push", "-q", str(fork), "HEAD:refs/heads/other")
    git(seed, "push", "-q", str(upstream), "HEAD:refs/kept/other")  # (a lazy fetch would find it; no fetch does)
    git(upstream, "config", "uploadpack.allowAnySHA1InWant", "true")
    lacking = git(seed, "rev-parse", "HEAD")
    _record(alice, "on main")
    synced = hn(alice, "sync")
    assert synced.code == 0, synced.err
    view = tmp_path / "view"  # (a repository with no promisor, reading alice's objects: nothing fetched)
    git(tmp_path, "init", "-q", str(view))
    import os

    looked = subprocess.run(["git", "cat-file", "-e", lacking], cwd=view,
                            env={**os.environ, "GIT_OBJECT_DIRECTORY": str(alice / ".git" / "objects")})
    assert looked.returncode != 0


def test_a_stream_two_of_three_push_urls_wait_for_is_counted_once(tmp_path):
    """A review: with three push URLs, two of which lacked the anchor commit, the sync said "2
    streams held back" for one stream, and --json's heldBack had two identical entries. One line
    names both push URLs; the stream is counted and listed once."""
    one, two, three = tmp_path / "one.git", tmp_path / "two.git", tmp_path / "three.git"
    alice = _alice_on(tmp_path, one, two, three)
    for bare in (one, two, three):
        git(alice, "remote", "set-url", "--add", "--push", "origin", str(bare))
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    git(alice, "push", "-q", "--no-verify", str(one), "main")
    ref = _record(alice, "anchored on two")
    synced = hn(alice, "sync")
    assert "is on push URLs 2 and 3 of origin" in synced.out and "1 stream held back" in synced.out, synced.out
    doc = hn(alice, "sync", "--json").json()
    assert [h["ref"] for h in doc["heldBack"]] == [ref], doc
    assert git(one, "rev-parse", ref) == git(alice, "rev-parse", ref)


@pytest.mark.parametrize("mode", ["warn", "block"])
def test_a_quiet_push_asks_git_for_no_push_url(tmp_path, mode):
    """A review: the push-URL question (``git remote get-url --push --all``, then ``git remote
    get-url``) cost every push two Git processes in the hook or the publisher, though the hook's
    one ``git config`` had read the remote's url and pushurl already."""
    import json
    import os

    remote = tmp_path / "origin.git"
    alice = _alice_on(tmp_path, remote)
    git(alice, "config", "hn.prePush", mode)
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    _record(alice, "anchored on two")
    trace = tmp_path / "trace.json"
    proc = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=alice, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    wait_publication(alice)
    assert proc.returncode == 0, proc.stderr
    starts = [e["argv"] for e in map(json.loads, trace.read_text().splitlines()) if e["event"] == "start"]
    assert not [a for a in starts if "get-url" in a], starts
    assert git(remote, "for-each-ref", "refs/hn/memory")


def test_a_push_to_a_fork_carries_the_remotes_receivepack(tmp_path):
    """A review: publication to a fork pushed by URL, so ``remote.<name>.receivepack`` (and proxy)
    were dropped. The push URL is pushed to as a remote carrying them."""
    upstream, fork = tmp_path / "up.git", tmp_path / "fork.git"
    alice = _alice_on(tmp_path, upstream, fork)
    git(alice, "remote", "set-url", "--push", "origin", str(fork))
    mark = tmp_path / "receive-pack-ran"
    wrapper = tmp_path / "receive-pack"
    wrapper.write_text(f"#!/bin/sh\ntouch '{mark}'\nexec git-receive-pack \"$@\"\n")
    wrapper.chmod(0o755)
    git(alice, "config", "remote.origin.receivepack", str(wrapper))
    ref = _record(alice, "on main")
    synced = hn(alice, "sync")
    assert synced.code == 0, synced.err
    assert git(fork, "rev-parse", ref) == git(alice, "rev-parse", ref)
    assert mark.exists()


def test_block_mode_asks_each_push_url_once_and_says_its_failure_once(tmp_path):
    """A review: in block mode Git runs pre-push once per push URL and each run asked and gave
    every push URL: with three, nine ``ls-remote``s, and push URL 2's refusal said three times.
    Each run asks and gives the push URL Git is about to push to."""
    import json
    import os

    one, two, three = tmp_path / "one.git", tmp_path / "two.git", tmp_path / "three.git"
    alice = _alice_on(tmp_path, one, two, three)
    for bare in (one, two, three):
        git(alice, "remote", "set-url", "--add", "--push", "origin", str(bare))
    git(alice, "config", "hn.prePush", "block")
    hook = two / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nif grep -q refs/hn/; then echo 'no memory refs here' >&2; exit 1; fi\n")
    hook.chmod(0o755)
    _record(alice, "on main")
    trace = tmp_path / "trace.json"
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=alice, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    wait_publication(alice)
    assert proc.stderr.count("at push URL 2 of 3") == 1, proc.stderr
    starts = [e["argv"] for e in map(json.loads, trace.read_text().splitlines()) if e["event"] == "start"]
    assert len([a for a in starts if "ls-remote" in a and "refs/heads/*" in a]) == 3, starts


def test_a_sync_of_a_clone_without_streams_of_its_own_asks_no_push_url(tmp_path):
    """The publication phase of a clone that only imports (the import listed no stream of its
    own) publishes nothing; it asked Git for the remote's push URLs all the same (two Git
    processes on every such sync: ``git config`` and ``git remote get-url --push --all``)."""
    import json
    import os

    from helpers import record_id, shared_remote

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    record_id(alice, content="from alice")
    assert hn(alice, "sync", "origin").code == 0
    assert hn(bob, "replication", "select", "origin", "--all").code == 0
    trace = tmp_path / "trace.json"
    proc = subprocess.run(["git", "hn", "sync", "origin"], cwd=bob, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    assert proc.returncode == 0, proc.stderr
    assert "promoted 1 stream" in proc.stdout, proc.stdout
    starts = [e["argv"] for e in map(json.loads, trace.read_text().splitlines()) if e["event"] == "start"]
    assert not [a for a in starts if "--push" in a], starts


def test_block_mode_starts_one_publisher_per_push_and_says_a_first_refusal_once(tmp_path):
    """A review: in block mode Git runs pre-push once per push URL, and each run that left a
    memory waiting for the push started a background publisher; each asked and gave every push
    URL (two URLs: six ``ls-remote``s), and the second compared its refusal with the first's, so a
    mirror's very first refusal of memory refs was said as one "failed again", with the advice to
    stop publishing there. One publisher per push: each URL asked once by the hook, once by it."""
    import json
    import os

    alice, team, mirror = _team_and_mirror(tmp_path, "block")
    hook = mirror / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nif grep -q refs/hn/; then echo 'no memory refs here' >&2; exit 1; fi\n")
    hook.chmod(0o755)
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    ref = _record(alice, "anchored on two")
    trace = tmp_path / "trace.json"
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=alice, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    wait_publication(alice)
    assert proc.returncode == 0, proc.stderr
    starts = [e["argv"] for e in map(json.loads, trace.read_text().splitlines()) if e["event"] == "start"]
    assert len([a for a in starts if "ls-remote" in a and "refs/heads/*" in a]) == 4, starts
    assert git(team, "rev-parse", ref) == git(alice, "rev-parse", ref)
    git(alice, "commit", "-q", "--allow-empty", "-m", "three")
    second = _push(alice, "origin", "main")
    said = [line for line in second.stderr.splitlines() if "the last background publication to origin" in line]
    assert len(said) == 1 and "failed (publishing again now)" in said[0], second.stderr
    assert said[0].endswith("(git remote set-url --delete --push origin URL)"), said[0]  # (at once, f144)


def test_a_remote_that_pushes_where_it_fetches_again_gets_the_memory_its_fork_took(tmp_path):
    """A review: after pushing to a fork (``set-url --push``) and unsetting the push URL, no push
    ever gave upstream the memory the fork took: what every push URL held was recorded under the
    remote's own name too, which the hook reads as what the fetch URL was given. A fork's record
    stays its own; the next push publishes to upstream."""
    upstream, fork = tmp_path / "up.git", tmp_path / "fork.git"
    alice = _alice_on(tmp_path, upstream, fork)
    git(alice, "remote", "set-url", "--push", "origin", str(fork))
    ref = _record(alice, "on one")
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    assert _push(alice, "origin", "main").returncode == 0
    assert git(fork, "rev-parse", ref) == git(alice, "rev-parse", ref)
    git(alice, "config", "--unset", "remote.origin.pushurl")
    git(alice, "commit", "-q", "--allow-empty", "-m", "three")
    pushed = _push(alice, "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert git(upstream, "rev-parse", ref) == git(alice, "rev-parse", ref)


class _ForkProxy:
    """An HTTP proxy (``remote.<name>.proxy``) that alone reaches ``http://fork.invalid/``: it
    forwards there to ``target`` (host:port) and refuses every other host."""

    def __init__(self, target: str):
        import http.server
        import socketserver
        import threading
        import urllib.error
        import urllib.parse
        import urllib.request

        class Handler(http.server.BaseHTTPRequestHandler):
            def forward(self):
                split = urllib.parse.urlsplit(self.path)
                if split.netloc != "fork.invalid":
                    self.send_error(502)
                    return
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if self.command == "POST" else None
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("host", "proxy-connection", "connection", "content-length")}
                query = f"?{split.query}" if split.query else ""
                request = urllib.request.Request(f"http://{target}{split.path}{query}", data=body, headers=headers,
                                                 method=self.command)
                try:
                    with urllib.request.urlopen(request, timeout=60) as answer:
                        code, data, got = answer.status, answer.read(), answer.headers
                except urllib.error.HTTPError as exc:
                    code, data, got = exc.code, exc.read(), exc.headers
                self.send_response(code)
                for k, v in got.items():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = forward

            def log_message(self, *args):
                pass

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


@pytest.mark.parametrize("way", ["proxy", "uploadpack"])
def test_a_fork_reached_through_the_remotes_own_settings_gets_the_memory(tmp_path, http_backend, way):
    """A review: the push to a fork carried ``remote.<name>.receivepack`` and ``.proxy``, but the
    question before it (``ls-remote`` of the push URL) carried neither, nor ``uploadpack``: a fork
    reached only through them never got memory ("no Git repository is at the remote's URL").
    The push URL is asked as it is pushed to."""
    upstream, fork = tmp_path / "up.git", tmp_path / "fork.git"
    alice = _alice_on(tmp_path, upstream, fork)
    proxy = None
    try:
        if way == "proxy":
            proxy = _ForkProxy(http_backend(fork).split("/")[2])
            git(alice, "remote", "set-url", "--push", "origin", "http://fork.invalid/fork.git")
            git(alice, "config", "remote.origin.proxy", proxy.url)
        else:
            git(alice, "remote", "set-url", "--push", "origin", str(tmp_path / "alias.git"))
            git(alice, "config", "remote.origin.receivepack", f"git-receive-pack {fork} #")
            git(alice, "config", "remote.origin.uploadpack", f"git-upload-pack {fork} #")
        git(alice, "commit", "-q", "--allow-empty", "-m", "two")
        ref = _record(alice, "on two")
        pushed = _push(alice, "origin", "main")
        assert pushed.returncode == 0, pushed.stderr
        assert git(fork, "rev-parse", ref) == git(alice, "rev-parse", ref)
        later = _record(alice, "on two, later")
        synced = hn(alice, "sync")
        assert synced.code == 0, synced.err
        assert git(fork, "rev-parse", later) == git(alice, "rev-parse", later)
    finally:
        if proxy is not None:
            proxy.close()


def test_a_push_url_respelled_by_push_instead_of_is_the_fetch_urls_repository(tmp_path):
    """A review: with ``url.<base>.pushInsteadOf`` (fetch over one URL, push over another to the
    same repository), the push URL was asked as a fork's: once a teammate had pushed since the
    last fetch, its branch tip was a commit this clone lacked, so nothing counted there, no memory
    was published, and the sync said the anchor was missing there though it was not. Without
    ``pushurl`` the one push URL is the fetch URL's repository: its tracking refs count."""
    team = tmp_path / "team.git"
    alice = _alice_on(tmp_path, team)
    git(alice, "remote", "set-url", "origin", f"file://{team}")
    git(alice, "config", f"url.{tmp_path}/.pushInsteadOf", f"file://{tmp_path}/")
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(team), str(bob))
    git(bob, "-c", "user.name=B", "-c", "user.email=b@e", "commit", "-q", "--allow-empty", "-m", "bob's")
    git(bob, "push", "-q", "origin", "HEAD:main")
    ref = _record(alice, "on one")
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    pushed = _push(alice, "origin", "main")
    assert "[rejected]" in pushed.stderr, pushed.stderr
    assert git(team, "rev-parse", ref) == git(alice, "rev-parse", ref)


def test_a_fork_whose_branch_this_clone_lacks_says_so_and_how_to_fetch_it(tmp_path):
    """The same review: a fork's branch tip this clone lacks (pushed from another clone) counts for
    nothing, since what it holds cannot be walked here; the sync said "until commit … is on
    origin's push URL (push a branch that contains it …)" though that branch contained it. The
    line says the fork names commits this clone lacks and how to fetch them; then it publishes."""
    upstream, fork = tmp_path / "up.git", tmp_path / "fork.git"
    alice = _alice_on(tmp_path, upstream, fork)
    git(alice, "remote", "set-url", "--push", "origin", str(fork))
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(fork), str(other))
    git(other, "-c", "user.name=A", "-c", "user.email=a@e", "commit", "-q", "--allow-empty", "-m", "elsewhere")
    git(other, "push", "-q", "origin", "HEAD:main")
    ref = _record(alice, "on one")
    synced = hn(alice, "sync")
    assert "whose branches name commits this clone lacks" in synced.out, synced.out
    assert "git remote get-url --push --all origin" in synced.out and "push a branch" not in synced.out, synced.out
    git(alice, "remote", "add", "fork", str(fork))
    git(alice, "fetch", "-q", "fork")
    synced = hn(alice, "sync")
    assert synced.code == 0 and "waits" not in synced.out, synced.out
    assert git(fork, "rev-parse", ref) == git(alice, "rev-parse", ref)


def _new_pid_namespaces() -> bool:
    import shutil

    return shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _new_pid_namespaces(), reason="needs unshare --pid --fork --mount-proc")
def test_a_publisher_killed_with_its_push_stops_no_later_push_given_the_same_process_id(tmp_path):
    """A review: the running marker held the push's process ID alone, and a publisher killed with
    its push (a container's PID namespace ends with it) left it; in a container or CI job process
    IDs repeat, so the next push with that ID counted as "started already" and no publisher ever
    ran again. Each push here runs in a PID namespace of its own, as process 2."""
    alice, team, mirror = _team_and_mirror(tmp_path, "block")
    slow = tmp_path / "slow"
    hook = team / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nif grep -q refs/hn/ && [ -e '{slow}' ]; then sleep 30; fi\nexit 0\n")
    hook.chmod(0o755)
    slow.write_text("")  # (the first publisher is still pushing when its namespace ends)
    git(alice, "commit", "-q", "--allow-empty", "-m", "two")
    _record(alice, "anchored on two")
    first = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", "git push -q origin main; true"],
                           cwd=alice, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    [marker] = (alice / ".git" / "hn" / "replication").glob("*.running")
    assert marker.read_text().split()[0] == "2"  # (left by the killed publisher)
    slow.unlink()
    git(alice, "commit", "-q", "--allow-empty", "-m", "three")
    ref = _record(alice, "anchored on three")
    # (the namespace lives on until the marker is gone: a publisher started there may end)
    second = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "sh", "-c",
                             'git push -q origin main; n=0; while [ -e "$1" ] && [ $n -lt 300 ]; do '
                             'sleep 0.1; n=$((n+1)); done', "sh", str(marker)],
                            cwd=alice, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert not marker.exists()
    assert git(team, "rev-parse", ref) == git(mirror, "rev-parse", ref) == git(alice, "rev-parse", ref)
