"""A locale whose encoding is not UTF-8 (a trial with awkward text): ISO-8859-1, built with
``localedef`` into the test's own directory (the machine may have only C and C.UTF-8), and C
without Python's UTF-8 mode. Real ``git-hn`` processes on a real pseudo-terminal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from helpers import hn, read_terminal

LATIN1 = "en_US.ISO-8859-1"
DASH = "the codec \u2014 pure, \u201bquoted\u2019 and caf\u00e9"


@pytest.fixture(scope="module")
def locales(tmp_path_factory):
    if shutil.which("localedef") is None:
        pytest.skip("no localedef")
    where = tmp_path_factory.mktemp("locales")
    made = subprocess.run(["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(where / LATIN1)],
                          capture_output=True)
    if not (where / LATIN1).exists():
        pytest.skip(f"localedef failed: {made.stderr!r}")
    return where


def latin1(locales) -> dict:
    return {"LOCPATH": str(locales), "LC_ALL": LATIN1, "PYTHONUTF8": "0"}


def terminal_bytes(cwd, args, env, columns=200) -> tuple[int, bytes]:
    """``git-hn args`` with stdout and stderr on one pseudo-terminal: its exit status and every byte."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES", "LANG", "LC_CTYPE")}
    full.update({"TERM": "dumb", "GIT_PAGER": "cat", **env})
    proc = subprocess.Popen([sys.executable, "-m", "git_hn", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave, env=full)
    os.close(slave)
    written = read_terminal(master, proc)
    return proc.wait(60), written


def _trusted_memory(repo) -> str:
    assert hn(repo, "policy", "init").code == 0
    subprocess.run(["git", "add", ".hn"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "policy"], cwd=repo, check=True)
    r = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", DASH + " " + "x" * 300)
    assert r.code == 0, r.err
    return hn(repo, "memory", "recall", "--json").json()["memories"][0]["id"]


def test_human_views_on_a_latin1_terminal_spell_what_it_cannot_show_instead_of_crashing(inited, locales):
    mid = _trusted_memory(inited)
    for args in (["memory", "recall"], ["memory", "show", mid], ["memory", "log"], ["memory", "digest"],
                 ["memory", "brief"], ["memory", "export", "--format", "markdown"]):
        code, out = terminal_bytes(inited, args, latin1(locales))
        assert code == 0 and b"internal error" not in out, (args, out)
        # what Latin-1 has, in Latin-1; what it lacks, spelled; never a UTF-8 byte sequence (the
        # brief wrote its UTF-8 as is: U+201B's 0x9B is CSI on an 8-bit terminal)
        assert b"\\u{2014} pure, \\u{201b}quoted\\u{2019} and caf\xe9" in out, (args, out)
        assert not any(0x80 <= b < 0xa0 for b in out), (args, out)
    # the log through a pager: given the terminal's encoding too (it was given UTF-8)
    code, out = terminal_bytes(inited, ["memory", "log"], {**latin1(locales), "GIT_PAGER": "tee /dev/null"})
    assert code == 0 and b"\\u{2014} pure, \\u{201b}quoted\\u{2019} and caf\xe9" in out, out


def test_cut_lines_end_in_three_dots_and_pipes_keep_utf8(inited, locales):
    _trusted_memory(inited)
    code, out = terminal_bytes(inited, ["memory", "recall"], latin1(locales), columns=80)
    assert code == 0 and b"...\r\n" in out and b"internal error" not in out, out
    for env in (latin1(locales), {"LC_ALL": "C", "PYTHONUTF8": "0"}):
        for args in (["memory", "recall"], ["memory", "log"], ["memory", "recall", "--json"]):
            piped = subprocess.run([sys.executable, "-m", "git_hn", *args], cwd=inited, capture_output=True,
                                   env={**os.environ, **env})
            assert piped.returncode == 0 and DASH.encode() in piped.stdout, (args, piped)


def _record(cwd, env, *args: bytes):
    return subprocess.run([sys.executable.encode(), b"-m", b"git_hn", b"memory", b"record", b"--kind", b"decision",
                           b"--at", b"HEAD", b"--applies", b"descendants", *args], cwd=cwd, capture_output=True,
                          env={**os.environ, **env})


@pytest.mark.parametrize("which", ["latin1", "c"])
def test_arguments_are_read_as_utf8_whatever_the_locale_never_signed_altered(inited, locales, which):
    """*Altered input signed*: under ISO-8859-1 Python read argv's UTF-8 ``café.txt`` as
    ``cafÃ©.txt`` (recorded absent) and signed ``naÃ¯ve cafÃ©``; under C, ``é`` was refused."""
    env = latin1(locales) if which == "latin1" else {"LC_ALL": "C", "PYTHONUTF8": "0"}
    (inited / "café.txt").write_text("x\n")
    (inited / "nöte.txt").write_text("naïve from a file\n")
    subprocess.run(["git", "add", "café.txt"], cwd=inited, check=True)
    subprocess.run(["git", "commit", "-qm", "café"], cwd=inited, check=True)
    given = _record(inited, env, b"--content", "naïve café".encode(), b"--path", "café.txt".encode(),
                    b"--topic", "thé".encode())
    assert given.returncode == 0 and b"absent" not in given.stderr, given
    from_file = _record(inited, env, b"--content-file", "nöte.txt".encode())
    assert from_file.returncode == 0, from_file
    memories = {m["data"]["content"]: m for m in hn(inited, "memory", "recall", "--json",
                                                      "--include-untrusted").json()["memories"]}
    assert set(memories) == {"naïve café", "naïve from a file\n"}, memories
    assert memories["naïve café"]["anchor"]["paths"][0]["path"] == "café.txt"
    assert memories["naïve café"]["anchor"]["paths"][0].get("blob"), memories  # (present, not absent)
    assert memories["naïve café"]["data"]["topics"] == ["thé"]
    # bytes that are not UTF-8 are refused, as in a UTF-8 locale: never signed
    refused = _record(inited, env, b"--content", b"caf\xe9")
    assert refused.returncode == 1 and refused.stderr.startswith(b"git-hn: memory record content is invalid")
    assert len(hn(inited, "memory", "recall", "--json", "--include-untrusted").json()["memories"]) == 2


def test_a_repository_at_a_path_that_is_not_utf8_installs_hooks_and_imports(tmp_path):
    """A repository in ``…/caf\\xe9``: hooks install failed in its record (after writing the
    wrappers: status then said not installed), sync and the fetch hook's import failed on the
    quarantine's alternates, and init named the key file ``caf?``."""
    from helpers import git, shared_remote

    root = tmp_path / os.fsdecode(b"caf\xe9")
    root.mkdir()
    remote, (alice, bob) = shared_remote(root, "Alice", "Bob")
    git(root, "init", "-q", "carol")
    made = subprocess.run([sys.executable, "-m", "git_hn", "init", "--name", "Carol"], capture_output=True,
                          cwd=root / "carol")
    assert made.returncode == 0, made
    stored = [line for line in made.stdout.split(b"\n") if line.startswith(b"Private identity stored in ")]
    assert stored and b"caf\\xe9/carol/.git/hn/identities/" in stored[0], made.stdout
    r = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "from alice")
    assert r.code == 0, r.err
    assert hn(alice, "sync").code == 0
    installed = hn(bob, "hooks", "install")
    assert installed.code == 0, installed.err
    assert hn(bob, "hooks", "status").out.count(": installed") == 3
    assert hn(bob, "replication", "select", "--all").code == 0
    synced = hn(bob, "sync")
    assert synced.code == 0, synced.err
    assert [m["data"]["content"] for m in hn(bob, "memory", "recall", "--json", "--include-untrusted")
            .json()["memories"]] == ["from alice"]
    # the fetch-side hook imports a newer one (a real git fetch, the hooks installed above)
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "second").code == 0
    assert hn(alice, "sync").code == 0
    git(alice, "commit", "-q", "--allow-empty", "-m", "moved")
    git(alice, "push", "-q", "origin", "main")
    fetched = subprocess.run(["git", "fetch", "-q", "origin"], cwd=bob, capture_output=True)
    assert fetched.returncode == 0 and b"error" not in fetched.stderr, fetched
    assert sorted(m["data"]["content"] for m in hn(bob, "memory", "recall", "--json", "--include-untrusted")
                  .json()["memories"]) == ["from alice", "second"]
