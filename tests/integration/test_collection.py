"""Collection over local and accepted refs, divergence, and terminal rendering (CONTRACT §4.3,
§11(a), §0.5)."""

from __future__ import annotations

import os
import pty
import subprocess

from helpers import git, hn, refs_snapshot
from independent import Writer


def _record(repo, content):
    r = hn(repo, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD",
           "--applies", "exact", "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def test_accepted_copies_are_collected_and_deduplicated(inited):
    a = _record(inited, "one")
    b = _record(inited, "two")
    ref = git(inited, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    actor, hexs = ref.split("/")[3:5]
    first = git(inited, "rev-list", "--reverse", ref).split()[0]
    git(inited, "update-ref", f"refs/hn/remotes/origin/memory/{actor}/{hexs}", first)
    for mid in (a, b):
        assert hn(inited, "memory", "show", mid).code == 0
    # an append still continues the local chain, which is the longest
    c = _record(inited, "three")
    assert hn(inited, "memory", "show", c, "--json").json()["envelope"]["sequence"] == 3


def test_append_continues_a_longer_accepted_chain(inited):
    """§11(a) item 3: a fresh clone's writer continues its own accepted stream, never forks it."""
    _record(inited, "one")
    _record(inited, "two")
    ref = git(inited, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    actor, hexs = ref.split("/")[3:5]
    head = git(inited, "rev-parse", ref)
    git(inited, "update-ref", f"refs/hn/remotes/origin/memory/{actor}/{hexs}", head)
    git(inited, "update-ref", "-d", ref)
    c = _record(inited, "three")
    env = hn(inited, "memory", "show", c, "--json").json()["envelope"]
    assert env["sequence"] == 3
    assert git(inited, "rev-parse", f"{ref}^") == head


def test_divergent_chains_fail_closed(inited, tmp_path):
    mid = _record(inited, "one")
    ref = git(inited, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    actor, hexs = ref.split("/")[3:5]
    # a second chain for the same stream, validly signed by the same key, that disagrees at 1
    import json

    from independent import unb64

    doc = json.loads((inited / ".git" / "hn" / "identities" / f"{actor}.json").read_text())
    w = Writer(unb64(doc["privateKey"])[:32], doc["name"])
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(inited), str(other))
    head = git(other, "rev-parse", "HEAD")
    rec = {"kind": "observation", "content": "forked", "anchor": {"commit": head},
           "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    _id, commit = w.write(other, w.envelope(1, "", "2026-01-01T00:00:00Z", rec))
    git(inited, "fetch", "-q", str(other), f"{commit}")
    accepted = f"refs/hn/remotes/origin/memory/{actor}/{hexs}"
    git(inited, "update-ref", accepted, commit)
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "show", mid)
    assert r.err == (f"git-hn: memory stream sha256:{hexs} of actor {actor} has divergent chains: "
                     f"{ref} and {accepted} differ at sequence 1\n")
    r = hn(inited, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
           "--content", "refused")
    assert r.code == 1 and "has divergent chains" in r.err
    assert refs_snapshot(inited) == before


def test_terminal_output_never_carries_author_escapes(inited):
    mid = _record(inited, "\x1b[2J\x1b]8;;http://evil\x07click\x1b]8;;\x07 [bold]markup[/bold] :smile:")
    pid, fd = pty.fork()
    if pid == 0:  # child: run git hn with a real terminal on stdout
        os.chdir(inited)
        os.execvp("git", ["git", "hn", "memory", "show", mid])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _pid, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    text = out.decode("utf-8", "replace")
    assert "Content (inert):" in text
    assert "\x1b[2J" not in text and "\x1b]8" not in text and "\x07" not in text
    assert "[bold]markup[/bold] :smile:" in text  # shown literally, never interpreted


def test_reading_never_writes_refs(inited):
    mid = _record(inited, "x")
    before = refs_snapshot(inited)
    for args in (["memory", "show", mid], ["memory", "show", mid, "--json"], ["identity", "list"]):
        assert hn(inited, *args).code == 0
    assert refs_snapshot(inited) == before
    assert subprocess.run(["git", "fsck", "--no-progress"], cwd=inited, capture_output=True).returncode == 0
