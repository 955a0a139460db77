"""Memory commits must pass Git's own fsck (issue 12 item 9e): a commit without an author line
verified locally, then every fetch refused it (``transfer.fsckObjects``), so what git-hn accepted
could never replicate. ``chain.fsck_commit_error`` is compared with real ``git fsck`` here."""

from __future__ import annotations

import re
import subprocess

import pytest

from git_hn.core.chain import fsck_commit_error
from helpers import actor_of, git, hn, make_repo

TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # the empty tree (sha1)
PARENT = "1" * 40
IDENT = "A U Thor <a@example.com> 1700000000 +0000"
HEADERS = [
    f"tree {TREE}\nauthor {IDENT}\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nparent {PARENT}\nauthor {IDENT}\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor {IDENT}\nauthor {IDENT}\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor {IDENT}\n\nmsg\n",
    f"author {IDENT}\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE[:-1]}\nauthor {IDENT}\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nparent xyz\nauthor {IDENT}\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor <a@example.com> 1700000000 +0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A>U <a@example.com> 1700000000 +0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A U Thor 1700000000 +0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A U Thor<a@example.com> 1700000000 +0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A U Thor <a@example.com 1700000000 +0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A U Thor <a@example.com>1700000000 +0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A U Thor <a@example.com> 01700000000 +0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A U Thor <a@example.com> 0 +0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A U Thor <a@example.com> 99999999999999999999 +0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A U Thor <a@example.com> x +0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A U Thor <a@example.com> 1700000000 0000\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor A U Thor <a@example.com> 1700000000 +00\ncommitter {IDENT}\n\nmsg\n",
    f"tree {TREE}\nauthor {IDENT}\ncommitter {IDENT}\nencoding UTF-8\n\nmsg\n",
    f"tree {TREE}\nauthor {IDENT}\ncommitter {IDENT}\n",
    f"tree {TREE}\nauthor {IDENT}\ncommitter {IDENT}",
    f"tree {TREE}\nauthor {IDENT}\ncommitter A \x00 <a@b> 1 +0000\n\nmsg\n",
    f"tree {TREE}\nauthor {IDENT}\ncommitter {IDENT}\n\nbody with \x00 is only a warning\n",
]


@pytest.mark.parametrize("raw", HEADERS, ids=range(len(HEADERS)))
def test_the_header_check_agrees_with_git_fsck(tmp_path, raw):
    repo = make_repo(tmp_path / "r")
    oid = git(repo, "hash-object", "--literally", "-t", "commit", "-w", "--stdin", input=raw.encode()).strip()
    fsck = subprocess.run(["git", "fsck", "--no-dangling", "--no-progress"], cwd=repo, capture_output=True,
                          text=True).stderr
    ours = fsck_commit_error(raw.encode())
    assert bool(ours) == (f"error in commit {oid}" in fsck or f"error: {oid}" in fsck
                          or f"bad parents in commit {oid}" in fsck), (ours, fsck)
    found = re.findall(rf"error in commit {oid}: (\w+):", fsck)  # Git names what it could parse
    assert not found or ours == found[0], fsck


def test_a_memory_commit_without_an_author_does_not_verify(tmp_path):
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", "anchored")
    assert r.code == 0, r.err
    mem = r.json()
    ref = f"refs/hn/memory/{actor_of(repo)}/{mem['stream'].split(':')[1]}"
    raw = subprocess.run(["git", "cat-file", "commit", ref], cwd=repo, capture_output=True, check=True).stdout
    forged_raw = re.sub(rb"(?m)^author .*\n", b"", raw)
    assert forged_raw != raw
    forged = git(repo, "hash-object", "--literally", "-t", "commit", "-w", "--stdin", input=forged_raw).strip()
    head = git(repo, "rev-parse", ref)
    git(repo, "update-ref", ref, forged)
    r = hn(repo, "memory", "recall", "--json", "--include-untrusted")
    assert r.code == 1 and r.out == ""
    assert r.err == (f"git-hn: memory source {ref}: memory commit {forged} is malformed (missingAuthor): "
                     f"Git refuses to transfer it; it is your own stream, changed after git-hn last verified it: "
                     f"git update-ref {ref} {head} puts back that tip\n")
