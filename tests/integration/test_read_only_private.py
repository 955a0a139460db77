"""A private directory its owner made read-only (``chmod a-w``: mode 0500) is still private: the
read commands answer from it (a newcomer trial found log, recall, show and brief refused it as
"unsafe permissions"), the derived state that cannot be written is not used or rebuilt, and
what must be written says where else it can go. Group- or other-accessible modes stay refused
(*key disclosure*), naming what the directory holds."""

from __future__ import annotations

import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from helpers import hn, record_id


@contextmanager
def read_only(directory: Path):
    """Every directory under ``directory`` (itself included) mode 0500, and, for root (whom
    modes do not stop), immutable too (``chattr +i``; skipped where that is not allowed)."""
    dirs = [directory, *(p for p in directory.rglob("*") if p.is_dir() and not p.is_symlink())]
    for d in dirs:
        d.chmod(0o500)
    immutable = []
    try:
        if os.geteuid() == 0:
            for d in dirs:
                if subprocess.run(["chattr", "+i", str(d)], capture_output=True).returncode != 0:
                    pytest.skip("root cannot make a directory unwritable here (chattr +i)")
                immutable.append(d)
        yield
    finally:
        for d in immutable:
            subprocess.run(["chattr", "-i", str(d)], capture_output=True)
        for d in dirs:
            d.chmod(0o700)


def test_read_commands_answer_from_a_read_only_hn_directory(inited, tmp_path):
    first = record_id(inited, content="first memory")
    assert hn(inited, "memory", "log").code == 0  # the state is built and sealed
    hn_dir = inited / ".git" / "hn"
    with read_only(hn_dir):
        assert hn(inited, "memory", "index", "verify").code == 0
        # a memory the state does not have yet: it cannot be updated, the answer comes from Git
        second = record_id(inited, content="second memory")
        r = hn(inited, "memory", "log")
        assert (r.code, r.err) == (0, "")
        assert [line.split()[0] for line in r.out.splitlines()] == [second[7:19], first[7:19]]
        r = hn(inited, "memory", "recall", "--include-untrusted", "--json")
        assert r.code == 0 and {m["id"] for m in r.json()["memories"]} == {first, second}
        assert hn(inited, "memory", "show", first[7:19]).code == 0
        assert hn(inited, "memory", "brief").code == 0
        assert hn(inited, "identity", "show").code == 0
        # the default page is private, under .git/hn: the error says where else it can go
        r = hn(inited, "memory", "view")
        assert r.code == 1
        assert r.err.endswith("; git hn memory view --output FILE writes the page elsewhere\n"), r.err
        out = tmp_path / "page.html"
        assert hn(inited, "memory", "view", "--output", str(out)).code == 0 and out.exists()
    assert hn(inited, "memory", "log").out.count("\n") == 2


@pytest.mark.parametrize(("where", "what", "command"), [
    ("", "git-hn's private directory (its keyring, state and caches)", "identity show"),
    ("identities", "git-hn's keyring", "identity show"),
    ("replication", "git-hn's replication state", "memory log")])
def test_a_directory_others_can_reach_is_refused_naming_what_it_holds(inited, where, what, command):
    directory = inited / ".git" / "hn" / where if where else inited / ".git" / "hn"
    directory.mkdir(mode=0o700, exist_ok=True)
    directory.chmod(0o750)
    r = hn(inited, *command.split())
    assert (r.code, r.err) == (1, f"git-hn: private identity directory {directory} has unsafe permissions; "
                                  f"{what} must be closed to group and others (mode 0700, or 0500 "
                                  f"read-only; it has 0750): chmod 700 {directory}\n")


@pytest.fixture
def synced(tmp_path):
    """Bob's clone after a sync that imported Alice's memory: it holds a receipt."""
    from helpers import shared_remote

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    record_id(alice, content="alice decides")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "sync").code == 0
    (receipt,) = (bob / ".git" / "hn" / "replication" / "transactions").iterdir()
    return bob, receipt


def test_read_only_private_files_are_read(synced):
    """A trial's ``chmod -R a-w .git/hn``: every private file 0400. They are read as 0600 ones are
    (0400 is as closed to others); the receipts were read as "state=invalid; recovery=repair the
    local replication transaction record before retrying sync", which named no file."""
    bob, _receipt = synced
    for path in (bob / ".git" / "hn").rglob("*"):
        if path.is_file():
            path.chmod(0o400)
    for command in ("memory log", "memory recall --include-untrusted", "replication show", "identity show"):
        r = hn(bob, *command.split())
        assert (r.code, "state=invalid" in r.err) == (0, False), (command, r.err)
    assert "alice decides" in hn(bob, "memory", "recall", "--include-untrusted").out


def test_a_receipt_others_can_read_is_named_with_its_chmod(synced):
    bob, receipt = synced
    receipt.chmod(0o640)
    r = hn(bob, "memory", "log")
    assert (r.code, r.err) == (1, f"git-hn: private identity file {receipt} has unsafe permissions; it must be "
                                  f"closed to group and others (mode 0600, or 0400 read-only; it has 0640): "
                                  f"chmod 600 {receipt} (a private file of git-hn's, not a key)\n")
