"""Shared test helpers: real Git, git-hn in-process or as a real ``git hn`` subprocess."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "vectors"
# pip's cache of the real user (captured at import, before fixtures replace HOME), so that the
# install test does not download every dependency again
REAL_PIP_CACHE = os.environ.get("PIP_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "pip")


def git(cwd, *args, input: bytes | None = None, check: bool = True, env: dict | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True,
                          env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise AssertionError(f"git {args} failed: {proc.stderr.decode()}")
    return proc.stdout.decode().rstrip("\n")


class Result:
    def __init__(self, code: int, out: bytes, err: bytes):
        self.code, self.out_bytes, self.err_bytes = code, out, err

    @property
    def out(self) -> str:
        return self.out_bytes.decode("utf-8", "replace")

    @property
    def err(self) -> str:
        return self.err_bytes.decode("utf-8", "replace")

    def json(self):
        assert self.code == 0, self.err
        return json.loads(self.out)

    def __repr__(self):
        return f"Result(code={self.code}, out={self.out!r}, err={self.err!r})"


HIDDEN_HINT = "git-hn: hint: memory signed, but recall and the brief leave it out"
# a write before any identity (CONTRACT §0.5's words first; both commands quoted alike: f145)
NO_IDENTITY = ("git-hn: no identity; run 'git hn init'; or, to sign as one you exported in another clone, run "
               "'git hn identity import FILE --activate'\n")
# (a replay signs nothing, and its hint says so)
HIDDEN_HINTS = (HIDDEN_HINT, "git-hn: hint: memory already signed (replayed), but recall and the brief leave it out",
                # (its shorter form, said again within ten minutes: ``store.hints_said``)
                "git-hn: hint: memory signed, still left out of recall and the brief",
                "git-hn: hint: memory already signed (replayed), still left out of recall and the brief")


def unhinted(err: str) -> str:
    """``err`` without the hint a write gets when the trust policy hides it (every write in a
    repository without a policy, a replay too), for tests about the other lines."""
    return "".join(line for line in err.splitlines(keepends=True) if not line.startswith(HIDDEN_HINTS))


# how the way out of an invalid memory ref of this clone begins (``store.source_fault``)
WAY_OUTS = ("; the fetch refspec ", "; this clone's copy from ", "; no identity of this clone signs it",
            "; it is your own stream")


def without_way_out(err: str) -> str:
    """``err`` with each line cut before the way out that follows an invalid memory ref of this
    clone (F100), for tests about the cause it names (tests/adversarial/test_invalid_local_refs.py
    checks the ways out)."""
    out = []
    for line in err.splitlines(keepends=True):
        cut = min((i for i in (line.find(w) for w in WAY_OUTS) if i >= 0), default=-1)
        out.append(line if cut < 0 else line[:cut] + "\n")
    return "".join(out)


# the identities of the verifying code (``statedb.checker``) that ``hn`` computed
_CHECKERS: set = set()


def _code_as_it_is_now() -> None:
    """Have the next in-process command identify the verifying code by its files as they are now
    (``statedb.checker``), as a ``git hn`` process does when it starts. The module keeps the
    first answer for the life of the process, and this process is the whole test session: a
    state an in-process sync wrote then carried the identity of the files as they were when the
    session first asked, and once one of them changed during the run (an edit, a checkout, a
    reinstall), every hook, a process of its own, found that state written by another
    installation and could not read it (the pre-push hook then said that memory this clone had
    just synced was not imported: tests/integration/test_unimported_*.py failed that way). A
    value a test set itself (``monkeypatch``: another installation's) is kept."""
    statedb = sys.modules.get("git_hn.store.statedb")
    if statedb is None or (statedb._checker is not None and statedb._checker not in _CHECKERS):
        return
    statedb._checker = None
    _CHECKERS.add(statedb.checker())


def hn(cwd, *args, input: bytes = b"") -> Result:
    """Run git-hn in-process (fast) with real Git underneath (the verifying code identified as
    a new process would: ``_code_as_it_is_now``)."""
    from git_hn.cli.main import main

    _code_as_it_is_now()
    out, err = io.BytesIO(), io.BytesIO()
    old = (sys.stdin, sys.stdout, sys.stderr, os.getcwd())
    wrappers = (io.TextIOWrapper(io.BytesIO(input), encoding="utf-8"),
                io.TextIOWrapper(out, encoding="utf-8", write_through=True),
                io.TextIOWrapper(err, encoding="utf-8", write_through=True))
    sys.stdin, sys.stdout, sys.stderr = wrappers
    try:
        os.chdir(cwd)
        code = main(list(args))
        sys.stdout.flush()
        sys.stderr.flush()
        result = Result(code, out.getvalue(), err.getvalue())
    finally:
        sys.stdin, sys.stdout, sys.stderr = old[0], old[1], old[2]
        os.chdir(old[3])
        for w in wrappers:
            w.detach()
    return result


def hn_proc(cwd, *args, input: bytes | None = None, env: dict | None = None,
            timeout: float = 120) -> Result:
    """Run ``git hn`` as a real subprocess, through Git's command lookup on PATH."""
    proc = subprocess.run(["git", "hn", *args], cwd=cwd, input=input, capture_output=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def hn_file_limited(cwd, max_file_bytes: int, *args) -> Result:
    """``git-hn`` in a subprocess whose files cannot grow past ``max_file_bytes`` (a full disk:
    writes fail with EFBIG instead of the process being killed)."""
    code = ("import resource, signal, sys\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "limit = int(sys.argv[1])\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))\n"
            "from git_hn.cli.main import main\n"
            "sys.exit(main(sys.argv[2:]))\n")
    proc = subprocess.run([sys.executable, "-c", code, str(max_file_bytes), *args], cwd=cwd,
                          capture_output=True)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def make_repo(path: Path, object_format: str = "sha1", files: dict | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", f"--object-format={object_format}")
    for name, content in (files or {"README.md": "hello\n"}).items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


def shared_remote(root: Path, *names: str) -> tuple[Path, list[Path]]:
    """A bare remote ``root/remote.git`` whose main branch comes from the first repository
    (``make_repo``), and a clone of it for each further name; each repository is
    ``root/<name lowercased>`` with a git-hn identity of that name: (remote, repositories)."""
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", str(remote))
    first = make_repo(root / names[0].lower())
    git(first, "remote", "add", "origin", str(remote))
    git(first, "push", "-q", "origin", "main")
    repos = [first]
    for name in names[1:]:
        git(root, "clone", "-q", str(remote), str(root / name.lower()))
        repos.append(root / name.lower())
    for repo, name in zip(repos, names):
        init_as(repo, name)
    return remote, repos


def init_as(repo, name: str) -> None:
    """``git hn init --name NAME``. A name init refuses for its direction control (U+202E…) is
    what a hostile author signs with through another implementation (the protocol takes it):
    the identity is made under another name, and ``name`` written into its record after."""
    r = hn(repo, "init", "--name", name)
    if r.code == 0:
        return
    assert "direction control" in r.err, r.err
    assert hn(repo, "init", "--name", "placeholder").code == 0
    record = Path(repo) / ".git" / "hn" / "identities" / f"{actor_of(repo)}.json"
    doc = json.loads(record.read_text())
    doc["name"] = name
    record.write_text(json.dumps(doc, indent=2) + "\n")  # (the file keeps its mode, 0600)


def one_identity_in_two_clones(root: Path) -> tuple[Path, Path, Path]:
    """``shared_remote`` with Alice's identity in both clones (``identity export`` from the first,
    ``import --activate`` into the second), each selecting every stream: (remote, a, b)."""
    remote, (a, b) = shared_remote(root, "Alice", "Second")
    for repo in (a, b):
        assert hn(repo, "replication", "select", "--all").code == 0
    key = root / "alice.id"
    assert hn(a, "identity", "export", "--output", str(key)).code == 0
    assert hn(b, "identity", "import", str(key), "--activate").code == 0
    return remote, a, b


def one_stream(tmp_path: Path, n: int) -> Path:
    """A repository ``tmp_path/r`` whose one stream holds ``n`` observations (one import)."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    head = git(repo, "rev-parse", "HEAD")
    lines = [json.dumps({"version": 0, "kind": "observation", "content": f"note {i}",
                         "anchor": {"commit": head}, "applicability": {"mode": "descendants"},
                         "topics": [], "evidence": []}) for i in range(n)]
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n")
    assert hn(repo, "memory", "import", str(tmp_path / "d.jsonl")).code == 0
    return repo


def commit_on(repo, branch: str | None, name: str) -> str:
    """A new commit adding the file ``name`` (its content its name), on a new ``branch`` when
    one is named (checked out), else on the current one: its ID."""
    if branch:
        git(repo, "checkout", "-q", "-b", branch)
    (Path(repo) / name).write_text(f"{name}\n")
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", name)
    return git(repo, "rev-parse", "HEAD")


def refusing(bare, ref: str) -> Path:
    """The ``update`` hook of the bare repository ``bare`` refuses ``ref`` (and takes the rest)."""
    hook = Path(bare) / "hooks" / "update"
    hook.write_text(f'#!/bin/sh\n[ "$1" != "{ref}" ]\n')
    hook.chmod(0o755)
    return hook


def refs_snapshot(path) -> str:
    return git(path, "for-each-ref", "--format=%(refname) %(objectname)")




def actor_of(repo) -> str:
    """The active identity's actor fingerprint."""
    return (Path(repo) / ".git" / "hn" / "active").read_text()[:-1]


def record_doc(repo, *args, kind="decision", content="x", at="HEAD", applies="descendants") -> dict:
    """Record one memory through the CLI and return its JSON answer."""
    r = hn(repo, "memory", "record", "--json", "--kind", kind, "--at", at, "--applies", applies,
           *args, "--content", content)
    assert r.code == 0, r.err
    return r.json()


def record_id(repo, *args, kind="decision", content="x", at="HEAD", applies="descendants") -> str:
    """Record one memory through the CLI and return its ID."""
    return record_doc(repo, *args, kind=kind, content=content, at=at, applies=applies)["memoryId"]


def slow_packing(root: Path, seconds: int = 1) -> None:
    """Every ``git upload-pack`` on this machine's global configuration (the tests' ``HOME``)
    sleeps ``seconds`` before it packs: a fetch that takes that long, from a real remote."""
    hook = root / "slow-pack.sh"
    hook.write_text(f"#!/bin/sh\nsleep {seconds}\nexec \"$@\"\n")
    hook.chmod(0o755)
    git(root, "config", "--global", "uploadpack.packObjectsHook", str(hook))


def recall_json(repo, *args) -> dict:
    r = hn(repo, "memory", "recall", "--json", *args)
    assert r.code == 0, r.err
    return r.json()


def ids(doc: dict) -> list[str]:
    return [m["id"] for m in doc["memories"]]


def tree_entries(repo, commit) -> dict[str, str]:
    """name -> object ID of a commit's top-level tree entries."""
    out = {}
    for line in git(repo, "ls-tree", commit).splitlines():
        meta, name = line.split("\t")
        out[name] = meta.split(" ")[2]
    return out


def read_blob(repo, oid) -> bytes:
    return subprocess.run(["git", "cat-file", "blob", oid], cwd=repo, capture_output=True,
                          check=True).stdout


def write_blob(repo, data: bytes) -> str:
    return git(repo, "hash-object", "-w", "--stdin", input=data)


def forged_commit(repo, tree_lines: str, parents=()) -> str:
    """A commit built with plain plumbing from ``git mktree`` input, for forged streams."""
    tree = git(repo, "mktree", input=tree_lines.encode())
    args = ["commit-tree", tree, "-m", "forged"]
    for p in parents:
        args += ["-p", p]
    return git(repo, *args)


def git_processes(trace: Path) -> list[list[str]]:
    """The argv (after ``git`` and its ``-C``/``-c``/``--git-dir`` options) of every Git process
    that wrote to the ``GIT_TRACE2_EVENT`` directory ``trace``."""
    runs = []
    for name in os.listdir(trace):
        for line in (Path(trace) / name).read_text().splitlines():
            event = json.loads(line)
            if event["event"] == "start":
                argv = event["argv"][1:]
                while argv and (argv[0] in ("-C", "-c") or argv[0].startswith("--git-dir=")):
                    argv = argv[1:] if argv[0].startswith("--") else argv[2:]
                runs.append(argv)
    return runs


def wait_publication(repo, timeout: float = 60.0) -> None:
    """Wait until no background publication (started by the pre-push hook) is in flight."""
    import time

    directory = Path(repo) / ".git" / "hn" / "replication"
    deadline = time.monotonic() + timeout
    while directory.is_dir() and any(p.name.endswith(".running") for p in directory.iterdir()):
        assert time.monotonic() < deadline, "a background publication did not end"
        time.sleep(0.02)


def push_waited(repo, *args) -> subprocess.CompletedProcess:
    """``git push ARGS`` in ``repo`` (text output kept), then ``wait_publication``: what a push
    with hooks installed leaves once its background publication ended."""
    proc = subprocess.run(["git", "push", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    return proc


def hn_lines(stderr: str) -> list[str]:
    """The ``git-hn:`` lines of ``stderr`` (Git's own lines left out)."""
    return [x for x in stderr.splitlines() if x.startswith("git-hn:")]


def push_urls_clone(tmp_path: Path, fetch: str, push: tuple[str, ...]) -> tuple[dict[str, Path], Path]:
    """Alice's clone whose ``origin`` fetches from ``<fetch>.git`` and pushes to each ``<name>.git``
    of ``push`` (``remote set-url --add --push``), every bare repository holding main, main
    tracking origin/main; no identity, no hooks: ({name: bare repository}, alice)."""
    bares = {name: tmp_path / f"{name}.git" for name in dict.fromkeys((fetch, *push))}
    alice = make_repo(tmp_path / "alice")
    for bare in bares.values():
        git(tmp_path, "init", "-q", "--bare", str(bare))
        git(alice, "push", "-q", str(bare), "main")
    git(alice, "remote", "add", "origin", str(bares[fetch]))
    git(alice, "fetch", "-q", "origin")
    git(alice, "branch", "-q", "--set-upstream-to", "origin/main")
    for name in push:
        git(alice, "remote", "set-url", "--add", "--push", "origin", str(bares[name]))
    return bares, alice


def fetch_here_push_there(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``push_urls_clone`` fetching from ``up.git`` and pushing to ``fork.git``: (upstream, fork, alice)."""
    bares, alice = push_urls_clone(tmp_path, "up", ("fork",))
    return bares["up"], bares["fork"], alice


def staged_commits(monkeypatch) -> list:
    """Every memory commit whose objects are read for verification from now on (a real count:
    ``verify.stage_commits`` still runs)."""
    from git_hn.store import verify

    calls: list = []
    real = verify.stage_commits

    def counting(repo, commits, read=None, **kw):
        calls.extend(c for c, _t in commits)
        return real(repo, commits, read, **kw)

    monkeypatch.setattr(verify, "stage_commits", counting)
    return calls


def on_terminal(cwd, argv: list[str], columns: int, env: dict, drop=("NO_COLOR", "COLUMNS", "LINES", "FORCE_COLOR"),
                timeout: float = 60, code: int = 0, both: bool = False, stderr_too: bool = False):
    """Run ``argv`` with stdout on a real pseudo-terminal of ``columns`` columns (24 rows; the
    variables in ``drop`` removed, TERM=xterm-256color unless ``env`` says otherwise) and return
    what it wrote, with the terminal's CRLF as LF (with ``both``: and its stderr). Its stderr is a
    pipe (with ``stderr_too``: the same terminal, its text among what is returned); it must exit
    ``code``."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    full = {k: v for k, v in os.environ.items() if k not in drop}
    full.update({"TERM": "xterm-256color", **env})
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=slave if stderr_too else subprocess.PIPE, env=full)
    os.close(slave)
    written = read_terminal(master, proc, timeout)
    err = b"" if stderr_too else proc.stderr.read()
    assert proc.wait(timeout) == code, err
    out = written.decode("utf-8").replace("\r\n", "\n")
    return (out, err.decode("utf-8", "replace")) if both else out


def read_terminal(master: int, proc, timeout: float = 60, seen=None) -> bytes:
    """Everything written to the pseudo-terminal whose ``master`` end this is, until every
    writer closed it (``proc`` is killed if it writes nothing for ``timeout`` seconds); closes
    ``master``. ``seen(shown)``, when given, is told what has shown so far after each read."""
    import select

    shown = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                proc.kill()
                raise AssertionError(f"{proc.args[1:]} hung on a terminal: {shown[-2000:]!r}")
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not data:
                break
            shown += data
            if seen is not None:
                seen(shown)
    finally:
        os.close(master)
    return shown


def named(actor: str, name: str) -> str:
    """An actor as ``hints.named_actor`` names it: its short ID, then its name quoted."""
    return f'{actor[:12]} ("{name}", a self-chosen name)'


@contextlib.contextmanager
def read_only(directory: Path):
    """``directory`` mode 0500, and for root (whom modes do not stop) immutable too (``chattr
    +i``; skipped where that is not allowed), as ``test_read_only_private`` makes its directories.
    Yields the system's words for the refusal (EACCES's, or EPERM's for an immutable one)."""
    import pytest

    mode = directory.stat().st_mode & 0o7777  # (given back after: a private directory's is 0700)
    directory.chmod(0o500)
    immutable = False
    try:
        if os.geteuid() == 0:
            if subprocess.run(["chattr", "+i", str(directory)], capture_output=True).returncode != 0:
                pytest.skip("root cannot make a directory unwritable here (chattr +i)")
            immutable = True
        yield os.strerror(errno.EPERM if immutable else errno.EACCES)
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(directory)], capture_output=True)
        directory.chmod(mode)


def traced_sync(repo, trace: Path, monkeypatch) -> tuple[dict, list[dict]]:
    """``git hn sync --json`` in ``repo`` with Git's trace2 events written under ``trace`` (made
    here), asserted to have promoted its one selected stream: (the start event of every Git
    process, by session ID; the exit events of its quarantine fetches)."""
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    r = hn(repo, "sync", "--json")
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    assert r.code == 0, r.err
    assert [o["status"] for o in json.loads(r.out)["outcomes"]] == ["promoted"], r.out
    events = [json.loads(line) for name in sorted(trace.iterdir()) for line in name.read_text().splitlines()]
    starts = {e["sid"]: e for e in events if e["event"] == "start"}
    fetches = [e for e in events if e["event"] == "exit" and "fetch" in starts.get(e["sid"], {}).get("argv", [])
               and "/quarantine/" in " ".join(starts[e["sid"]]["argv"])]
    return starts, fetches


def trace2_when(event: dict) -> float:
    """The time of a trace2 event, in seconds since the epoch."""
    from datetime import datetime

    return datetime.fromisoformat(event["time"].replace("Z", "+00:00")).timestamp()
