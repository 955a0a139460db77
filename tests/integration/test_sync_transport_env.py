"""ssh users can sync (issue 12, item 7): the quarantine keeps the user's transport and credential
settings (``GIT_SSH``, ``GIT_SSH_COMMAND``, ``GIT_SSH_VARIANT``, the user's global config file, the
main repository's ``core.sshCommand``, ``http.*`` and ``credential.*``, ``git -c``) while it still
drops what could redirect its repository, object store, configuration or hooks.

No sshd can be started here, so "ssh" is a stand-in (the fallback the issue allows): a script
that records each call, with the directory it was started in, and runs the remote command
locally. A call from a directory inside ``hn/replication/quarantine/txn-*`` is the quarantine's
fetch; without the settings that fetch would run the real ``ssh localhost`` and fail.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from git_hn.store.git import git_environment
from git_hn.store.quarantine import Quarantine
from git_hn.store.repo import open_repo
from git_hn.core.grammar import default_stream
from helpers import Result, actor_of, git, hn, make_repo

QUARANTINE_DIR = os.sep + os.path.join("hn", "replication", "quarantine", "txn-")

WRAPPER = """#!/bin/sh
# ssh stand-in: record the call, then run the remote command (the last argument) here
if [ "$1" = "-G" ]; then exit 1; fi  # the OpenSSH probe: answer "not OpenSSH"
printf '%s\\t%s\\n' "$(pwd -P)" "$*" >> '{log}'
for last; do :; done
exec sh -c "$last"
"""


class Ssh:
    """The stand-in's path and what it recorded: (directory, arguments) per call."""

    def __init__(self, tmp_path: Path):
        self.log = tmp_path / "ssh.log"
        self.path = tmp_path / "fake-ssh"
        self.path.write_text(WRAPPER.format(log=self.log))
        self.path.chmod(0o755)

    def calls(self) -> list[tuple[str, str]]:
        if not self.log.exists():
            return []
        return [tuple(line.split("\t", 1)) for line in self.log.read_text().splitlines()]

    def quarantine_fetches(self) -> list[str]:
        """The arguments of every upload-pack session the quarantine started."""
        return [args for where, args in self.calls()
                if QUARANTINE_DIR in where and "git-upload-pack" in args]


@pytest.fixture
def ssh(tmp_path) -> Ssh:
    return Ssh(tmp_path)


def _team(tmp_path, bare_remote) -> tuple[Path, Path, str]:
    """Bob's clone, whose ``origin`` is reached over ssh (``ssh://localhost/<path>``), the bare
    remote, and the ID of a memory Alice published there (over a local path)."""
    remote = bare_remote("team.git")
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", str(remote))
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    r = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD",
           "--applies", "descendants", "--content", "carried over ssh")
    assert r.code == 0, r.err
    memory = r.json()["memoryId"]
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", "--no-local", str(remote), str(bob))  # no memory objects
    assert hn(bob, "init", "--name", "Bob").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    git(bob, "remote", "set-url", "origin", f"ssh://localhost{remote}")
    return bob, remote, memory


def _arrived(bob, memory: str) -> bool:
    return hn(bob, "memory", "show", memory, "--json").code == 0


def _synced(r: Result) -> None:
    assert r.code == 0, r.err
    assert "fail" not in r.out.lower(), r.out


def test_scrubbing_keeps_transport_settings_and_drops_redirections(monkeypatch, tmp_path):
    kept = {"GIT_SSH": "/bin/my-ssh", "GIT_SSH_COMMAND": "ssh -i key", "GIT_SSH_VARIANT": "ssh",
            "GIT_PROXY_COMMAND": "corkscrew", "GIT_ASKPASS": "/bin/askpass",
            "SSH_AUTH_SOCK": "/run/agent.sock", "SSH_AGENT_PID": "42",
            "http_proxy": "http://proxy:3128", "HTTPS_PROXY": "http://proxy:3128",
            "ALL_PROXY": "socks5://proxy", "NO_PROXY": "localhost",
            "GIT_CONFIG_GLOBAL": str(tmp_path / "ci.gitconfig"), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_SYSTEM": "/dev/null"}
    dropped = {"GIT_DIR": "/x", "GIT_WORK_TREE": "/x", "GIT_OBJECT_DIRECTORY": "/x",
               "GIT_ALTERNATE_OBJECT_DIRECTORIES": "/x", "GIT_INDEX_FILE": "/x",
               "GIT_COMMON_DIR": "/x", "GIT_NAMESPACE": "x", "GIT_EXEC_PATH": "/x",
               "GIT_QUARANTINE_PATH": "/x", "GIT_REPLACE_REF_BASE": "refs/x/",
               "GIT_GRAFT_FILE": "/x", "GIT_SHALLOW_FILE": "/x", "GIT_ALLOW_PROTOCOL": "ext",
               "GIT_PROTOCOL_FROM_USER": "1", "GIT_CONFIG": "/x",
               "GIT_CONFIG_PARAMETERS": "'core.hookspath'='/x'", "GIT_CONFIG_COUNT": "1",
               "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": "/x"}
    for key, value in {**kept, **dropped}.items():
        monkeypatch.setenv(key, value)
    env = git_environment({"GIT_ALLOW_PROTOCOL": "ssh"}, scrub=True)
    assert {k: env.get(k) for k in kept} == kept
    assert [k for k in dropped if k in env] == ["GIT_ALLOW_PROTOCOL"]
    assert env["GIT_ALLOW_PROTOCOL"] == "ssh"
    assert git_environment()["GIT_DIR"] == "/x"  # an unscrubbed runner keeps everything


def test_sync_over_ssh_uses_git_ssh_command(tmp_path, bare_remote, ssh, monkeypatch):
    bob, _remote, memory = _team(tmp_path, bare_remote)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh.path))
    _synced(hn(bob, "sync"))
    assert ssh.calls(), "the ssh stand-in was never used"
    assert ssh.quarantine_fetches(), ssh.calls()
    assert _arrived(bob, memory)


def test_sync_over_scp_like_ssh_uses_git_ssh_and_its_variant(tmp_path, bare_remote, ssh, monkeypatch):
    bob, remote, memory = _team(tmp_path, bare_remote)
    git(bob, "remote", "set-url", "origin", f"localhost:{remote}")
    monkeypatch.setenv("GIT_SSH", str(ssh.path))
    monkeypatch.setenv("GIT_SSH_VARIANT", "ssh")  # OpenSSH: protocol v2 is asked for by SendEnv
    _synced(hn(bob, "sync"))
    fetches = ssh.quarantine_fetches()
    assert fetches and all("SendEnv=GIT_PROTOCOL" in args for args in fetches), ssh.calls()
    assert _arrived(bob, memory)


def test_core_ssh_command_of_the_main_repository_reaches_the_quarantine(tmp_path, bare_remote, ssh):
    bob, _remote, memory = _team(tmp_path, bare_remote)
    git(bob, "config", "core.sshCommand", str(ssh.path))
    _synced(hn(bob, "sync"))
    assert ssh.quarantine_fetches(), ssh.calls()
    assert _arrived(bob, memory)


def test_git_c_ssh_command_reaches_the_quarantine(tmp_path, bare_remote, ssh):
    """``git -c core.sshCommand=… hn sync``: the quarantine drops ``GIT_CONFIG_PARAMETERS``
    but takes over its transport keys."""
    bob, _remote, memory = _team(tmp_path, bare_remote)
    proc = subprocess.run(["git", "-c", f"core.sshCommand={ssh.path}", "hn", "sync"], cwd=bob,
                          capture_output=True, timeout=120)
    _synced(Result(proc.returncode, proc.stdout, proc.stderr))
    assert ssh.quarantine_fetches(), ssh.calls()
    assert _arrived(bob, memory)


def test_http_extra_header_of_the_main_repository_reaches_the_fetch(tmp_path, bare_remote, http_backend):
    """As CI checkouts configure it: a URL-specific ``http.extraHeader`` in the clone's own
    config is sent with every request of the sync, the quarantine's fetch included."""
    bob, remote, memory = _team(tmp_path, bare_remote)
    url = http_backend(remote)
    server = http_backend.servers[url]
    git(bob, "remote", "set-url", "origin", url)
    git(bob, "config", f"http.{url.rsplit('/', 1)[0]}/.extraHeader", "X-Hn-Test: carried")
    start = len(server.requests)
    _synced(hn(bob, "sync"))
    requests = server.requests[start:]
    posts = [r for r in requests if r["method"] == "POST" and r["path"].endswith("/git-upload-pack")]
    assert len(posts) >= 2  # the advertisement and the fetch
    assert [r["path"] for r in requests if r["headers"].get("x-hn-test") != "carried"] == []
    assert _arrived(bob, memory)


@pytest.mark.parametrize("how", ["parameters", "count"])
def test_a_hostile_environment_still_cannot_configure_the_quarantine(tmp_path, bare_remote, ssh,
                                                                     monkeypatch, how):
    """A caller's environment as a hook's (``GIT_DIR``, ``GIT_WORK_TREE``) with ``git -c``
    settings that are not transport keys: the ssh stand-in is kept, the settings never reach the
    quarantine. ``core.alternateRefsCommand`` would run while the quarantine's fetch negotiates
    against its alternate (the main store); the main repository has no alternates, so only the
    quarantine could run it."""
    bob, _remote, memory = _team(tmp_path, bare_remote)
    marker = tmp_path / "alternate-refs-command-ran"
    command = f"touch {marker}"
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh.path))
    monkeypatch.setenv("GIT_DIR", str(bob / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(bob))
    if how == "parameters":
        monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.alternaterefscommand'='{command}'")
    else:
        monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
        monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.alternateRefsCommand")
        monkeypatch.setenv("GIT_CONFIG_VALUE_0", command)
    assert git(bob, "config", "core.alternateRefsCommand") == command  # main Git sees it
    _synced(hn(bob, "sync"))
    assert ssh.quarantine_fetches(), ssh.calls()
    assert not marker.exists()
    assert _arrived(bob, memory)


def test_only_transport_keys_of_the_main_repository_are_carried(tmp_path, monkeypatch):
    """The copy: the main repository's own and ``git -c`` transport keys, in order, once (the
    global file is read by the quarantine itself); hooks, fsck, remotes never."""
    path = make_repo(tmp_path / "main")
    git(path, "config", "--global", "credential.helper", "global-helper")
    git(path, "config", "--global", "core.sshCommand", "global-ssh")
    for key, value in (("core.sshCommand", "ssh -i 'deploy key'"), ("credential.helper", "local-helper"),
                       ('http.https://ci.example/a"b\\.extraHeader', "Authorization: basic x"),
                       ("core.hooksPath", str(tmp_path)), ("transfer.fsckObjects", "false"),
                       ("remote.origin.uploadpack", "touch /tmp/never"), ("http.sslVerify", "true")):
        git(path, "config", key, value)
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'http.proxy'='http://proxy.invalid:3128' "
                                                "'core.bigfilethreshold'='1k'")
    q = Quarantine(open_repo(str(path)))
    try:
        q.carry_transport()
        q.carry_transport()  # once only
        ask = lambda *a: q.git.run(["config", *a]).stdout.decode().splitlines()  # noqa: E731
        assert ask("--get-all", "credential.helper") == ["global-helper", "local-helper"]
        assert ask("--get-all", "core.sshCommand") == ["global-ssh", "ssh -i 'deploy key'"]
        assert ask("--get", "http.https://ci.example/a\"b\\.extraHeader") == ["Authorization: basic x"]
        assert ask("--get", "http.proxy") == ["http://proxy.invalid:3128"]
        assert ask("--get", "http.sslVerify") == ["true"]
        assert ask("--get", "core.hooksPath") == [q.hooks]
        assert ask("--get", "transfer.fsckObjects") == ["true"]
        assert ask("--get", "remote.origin.uploadpack") == []
        assert ask("--get", "core.bigFileThreshold") == []
        # carried in the environment of the quarantine's processes, never written to a file (a
        # token would outlive a killed sync there)
        held = "".join(open(os.path.join(dirpath, f), errors="replace").read()
                       for dirpath, _dirs, files in os.walk(q.path) for f in files if f != "LOCK")
        assert "Authorization" not in held and "deploy key" not in held and "local-helper" not in held
    finally:
        q.remove()


def test_an_exact_selection_over_ssh_is_learnt_then_fetched_by_name(tmp_path, bare_remote, ssh, monkeypatch):
    """``replication select`` asks the remote over ssh which actor owns the stream; the sync then
    fetches that ref by name through the quarantine, in one ssh session (no advertisement of
    its own)."""
    bob, _remote, memory = _team(tmp_path, bare_remote)
    stream = default_stream(actor_of(tmp_path / "alice"))
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh.path))
    assert hn(bob, "replication", "select", "--memory", stream).code == 0
    owners = bob / ".git" / "hn" / "replication" / "owners" / "b3JpZ2lu.json"
    assert stream in owners.read_text()
    learnt = len(ssh.calls())
    assert learnt == 1  # select's one advertisement
    _synced(hn(bob, "sync"))
    assert _arrived(bob, memory)
    later = ssh.calls()[learnt:]
    assert len(later) == 1 and QUARANTINE_DIR in later[0][0] and "git-upload-pack" in later[0][1]


PASSPHRASE_SSH = """#!/bin/sh
# ssh stand-in for a key with a passphrase and no agent: it can ask on the terminal of the sync
# it runs under, but not from a fetch into quarantine (a session of its own, without a terminal)
if [ "$1" = "-G" ]; then exit 1; fi
printf '%s\n' "$*" >> "$0.log"
case "$(pwd -P)" in
  *{quarantine}*)
    echo "read_passphrase: can't open /dev/tty: No such device or address" >&2
    echo "git@localhost: Permission denied (publickey)." >&2
    exit 255;;
esac
for last; do :; done
exec sh -c "$last"
"""


def test_a_fetch_that_cannot_ask_for_a_passphrase_says_so_and_what_to_do(tmp_path, bare_remote, monkeypatch):
    """ssh with a passphrase and no agent: the advertisement asks on the terminal, the fetch into
    quarantine cannot. The outcome says why in fixed words (never Git's or ssh's own text) and
    how to give Git the credentials without a prompt; it read as corrupt data before."""
    bob, _remote, memory = _team(tmp_path, bare_remote)
    ssh = tmp_path / "passphrase-ssh"
    ssh.write_text(PASSPHRASE_SSH.replace("{quarantine}", QUARANTINE_DIR))
    ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh))
    r = hn(bob, "sync", "--json")
    assert r.code == 1, r.err
    out = json.loads(r.out)["outcomes"][0]
    assert out["status"] == "structurally-invalid"
    assert out["diagnostic"].endswith(": ssh needs a passphrase or password, and git-hn's own Git processes "
                                      "cannot ask for one"), out
    assert "ssh-add" in out["recovery"] and "credential.helper" not in out["recovery"], out  # (an ssh URL, f59)
    assert out["recovery"].endswith("then git hn sync origin")
    said = hn(bob, "sync").out
    assert "load the ssh key into an agent (ssh-add)" in said and "Permission denied" not in said
    assert not _arrived(bob, memory)
    # a failure git-hn has no words for (a server's, over ssh) points at where Git's own message
    # is (never repeated); ssh's and Git's own lines alone, for a dropped connection, are said so
    ssh.write_text(PASSPHRASE_SSH.replace("{quarantine}", QUARANTINE_DIR).replace(
        "read_passphrase: can't open /dev/tty: No such device or address", "ERROR: upload-pack is off for "
        "maintenance").replace("git@localhost: Permission denied (publickey).", ""))
    out = json.loads(hn(bob, "sync", "--json").out)["outcomes"][0]
    tip = git(tmp_path / "alice", "rev-parse", f"refs/hn/memory/{actor_of(tmp_path / 'alice')}/"
              f"{default_stream(actor_of(tmp_path / 'alice'))[7:]}")
    assert out["diagnostic"].endswith(f"failed exact fetch from remote origin: git fetch origin {tip} shows Git's "
                                      "own message"), out
    assert "recovery" not in out and "maintenance" not in json.dumps(out)
    ssh.write_text(PASSPHRASE_SSH.replace("{quarantine}", QUARANTINE_DIR).replace(
        "read_passphrase: can't open /dev/tty: No such device or address", "kex_exchange_identification: "
        "Connection closed by remote host").replace("git@localhost: Permission denied (publickey).", ""))
    out = json.loads(hn(bob, "sync", "--json").out)["outcomes"][0]
    assert out["diagnostic"].endswith("failed exact fetch from remote origin: the connection to the remote broke "
                                      "off"), out
    assert "recovery" not in out and "kex_exchange" not in json.dumps(out)


def test_a_publication_that_cannot_ask_for_a_passphrase_says_so(tmp_path, bare_remote, monkeypatch):
    """The same for the push (a background publication runs in a session of its own): the
    publication error names the cause in fixed words and the way out."""
    bob, _remote, _memory = _team(tmp_path, bare_remote)
    ssh = tmp_path / "push-passphrase-ssh"
    ssh.write_text(PASSPHRASE_SSH.replace('"$(pwd -P)"', '"$*"').replace("*{quarantine}*", "*git-receive-pack*"))
    ssh.chmod(0o755)
    assert hn(bob, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
              "--content", "bob's").code == 0
    assert hn(bob, "replication", "select", "--memory", default_stream(actor_of(tmp_path / "alice"))).code == 0
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh))
    r = hn(bob, "sync")
    assert r.code == 1
    assert r.err.startswith("git-hn: ") and "ssh needs a passphrase or password" in r.err, r.err
    assert "load the ssh key into an agent (ssh-add)" in r.err and "Permission denied" not in r.err, r.err
    assert r.err.count("ssh-add") == 1 and r.err.count("\n") == 1, r.err  # (one line, the advice once)
    assert r.err.startswith("git-hn: publication phase failed after replication: replication memory "
                            "publication failed for remote origin: ssh needs a passphrase"), r.err


def test_a_remote_that_cannot_be_reached_is_not_published_to(tmp_path, bare_remote, monkeypatch):
    """The advertisement could not reach the remote: no publication is tried (it would meet the
    same refusal, and its "waits until commit … is on origin" lines would only say what this
    clone cannot see); one line says so after the cause."""
    bob, _remote, _memory = _team(tmp_path, bare_remote)
    ssh = tmp_path / "passphrase-ssh"
    ssh.write_text(PASSPHRASE_SSH.replace("*{quarantine}*", "*"))  # (asked from everywhere: no terminal)
    ssh.chmod(0o755)
    assert hn(bob, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
              "--content", "bob's").code == 0
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh))
    r = hn(bob, "sync")
    assert r.code == 1
    assert r.out == "Sync with origin incomplete: origin could not be reached\n", r.out
    assert r.err.startswith("git-hn: import phase failed: replication advertisement failed for remote origin; "
                            "ssh needs a passphrase"), r.err
    assert r.err.endswith("; publication phase failed: replication memory publication failed for remote "
                          "origin: not tried, the remote could not be reached\n"), r.err
    assert r.err.count("ssh-add") == 1, r.err
    calls = (tmp_path / "passphrase-ssh.log").read_text()
    assert "git-upload-pack" in calls and "git-receive-pack" not in calls, calls


def test_the_fetch_hook_says_why_an_import_cannot_ask_for_a_passphrase(tmp_path, bare_remote, monkeypatch):
    """With the hooks, a ``git fetch`` whose import cannot prompt says so and what to do, on its one
    line (``run git hn sync`` would fail the same way)."""
    bob, _remote, _memory = _team(tmp_path, bare_remote)
    ssh = tmp_path / "passphrase-ssh"
    ssh.write_text(PASSPHRASE_SSH.replace("{quarantine}", QUARANTINE_DIR))
    ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh))
    assert hn(bob, "hooks", "install").code == 0
    alice = tmp_path / "alice"
    git(alice, "commit", "-q", "--allow-empty", "-m", "moves main")
    git(alice, "push", "-q", "origin", "main")
    proc = subprocess.run(["git", "fetch", "-q", "origin"], cwd=bob, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("git-hn:")]
    assert lines == ["git-hn: memory import from origin failed: ssh needs a passphrase or password, and git-hn's "
                     "own Git processes cannot ask for one; give Git the credentials without a prompt: load the "
                     "ssh key into an agent (ssh-add), then git hn sync origin"], proc.stderr


TERMINAL_SSH = """#!/bin/sh
# ssh stand-in for a key with a passphrase and no agent: it asks on a terminal (and gets the
# passphrase), and without one fails as OpenSSH does ({said})
if [ "$1" = "-G" ]; then exit 1; fi
if ! ( : </dev/tty ) 2>/dev/null; then
  {said}
  echo "git@localhost: Permission denied (publickey)." >&2
  exit 255
fi
for last; do :; done
exec sh -c "$last"
"""


def _at_terminal(cwd, argv: list[str], env: dict) -> tuple[int, str]:
    """``argv`` run in a session of its own with a pseudo-terminal as its controlling terminal
    (as a user's shell runs it); its exit code and what it wrote there."""
    import pty

    from helpers import read_terminal

    pid, master = pty.fork()
    if pid == 0:  # pragma: no cover (the child)
        try:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, {**os.environ, **env})
        finally:
            os._exit(127)
    written = read_terminal(master, subprocess.Popen(["true"]), 120)
    _pid, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), written.decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.mark.parametrize("said", ["", "echo \"read_passphrase: can't open /dev/tty: No such device or address\" >&2"])
def test_a_background_publication_without_a_terminal_says_how_to_give_the_passphrase(tmp_path, bare_remote, said):
    """A trial: a hooked push at a terminal went through, its background publication (no terminal:
    ssh cannot ask for the key's passphrase, and OpenSSH then says only "Permission denied") failed,
    and the next push said "the remote refused access; if you only read from origin, stop publishing
    there". It now says what works: ssh-add (git hn sync at a terminal does not ask either, F67)."""
    from helpers import wait_publication

    bob, _remote, _memory = _team(tmp_path, bare_remote)
    ssh = tmp_path / "terminal-ssh"
    ssh.write_text(TERMINAL_SSH.replace("{said}", said))
    ssh.chmod(0o755)
    env = {"GIT_SSH_COMMAND": str(ssh)}
    assert hn(bob, "hooks", "install").code == 0
    git(bob, "commit", "-q", "--allow-empty", "-m", "bob's work")
    assert hn(bob, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
              "--content", "bob's").code == 0
    code, said_first = _at_terminal(bob, ["git", "push", "-q", "origin", "main"], env)
    assert code == 0, said_first
    wait_publication(bob)
    git(bob, "commit", "-q", "--allow-empty", "-m", "more")
    code, said_next = _at_terminal(bob, ["git", "push", "-q", "origin", "main"], env)
    assert code == 0, said_next
    wait_publication(bob)
    line = next(s for s in said_next.splitlines() if "last background publication" in s)
    assert "stop publishing there" not in line and "hnPublish" not in line, line
    assert "runs without a terminal" in line and "ssh-add" in line, line
    assert line.endswith("load the ssh key into an agent (ssh-add), then git hn sync origin"), line
    # git hn sync at a terminal does not ask either (F67: every Git process of git-hn's that may
    # contact a remote runs without a terminal, and its quarantine fetch could not use an answer)
    mine = f"refs/hn/memory/{actor_of(bob)}/{default_stream(actor_of(bob))[7:]}"
    assert git(bob, "ls-remote", str(_remote), mine) == ""
    code, said_sync = _at_terminal(bob, ["git", "hn", "sync", "origin"], env)
    assert code == 1 and "load the ssh key into an agent (ssh-add), then git hn sync origin" in said_sync, said_sync
    assert git(bob, "ls-remote", str(_remote), mine) == ""


def test_a_server_gone_mid_sync_is_not_blamed_on_the_stream(tmp_path, bare_remote, monkeypatch):
    """A trial: the server went away between the advertisement and the exact fetch, and the stderr
    advice read "whoever pushed it can push a valid one in its place, or one git hn replication
    select …". It now says the remote could not be reached and to sync again; §9's outcome (status,
    diagnostic, no recovery) is unchanged."""
    bob, _remote, _memory = _team(tmp_path, bare_remote)
    ssh = tmp_path / "gone-ssh"
    ssh.write_text(PASSPHRASE_SSH.replace("{quarantine}", QUARANTINE_DIR).replace(
        "read_passphrase: can't open /dev/tty: No such device or address",
        "ssh: connect to host localhost port 22: Connection refused").replace(
        "git@localhost: Permission denied (publickey).", ""))
    ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh))
    out = json.loads(hn(bob, "sync", "--json").out)["outcomes"][0]
    assert out["status"] == "structurally-invalid" and "recovery" not in out, out
    assert out["diagnostic"].endswith("failed exact fetch from remote origin: the remote's server refused the "
                                      "connection"), out
    r = hn(bob, "sync")
    assert r.code == 1
    assert "whoever pushed it" not in r.err and "replication select" not in r.err, r.err
    assert r.err.rstrip("\n").endswith("failed (structurally-invalid): the remote's server refused the connection; "
                                       "its fetch from origin failed, not the stream: run git hn sync origin again "
                                       "once it can be reached (the Replication line above says why)"), r.err
    assert len(r.err) < 420, r.err  # (f59: "1 of origin's streams failed" in place of "no selection was promoted")


STALLING_SSH = """#!/bin/sh
# ssh stand-in for a server that never answers: ssh waits on its ProxyCommand, which sleeps
if [ "$1" = "-G" ]; then exit 1; fi
sleep 100077 &
echo $! >> '{pids}'
echo $$ >> '{pids}'
wait
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_an_advertisement_past_the_stall_timeout_leaves_no_ssh_running(tmp_path, bare_remote, monkeypatch):
    """A trial: with hn.syncStallTimeout 3 and a server that never answered, the sync said so,
    but ``sh -c ssh …``, ssh and its ProxyCommand ran on, reparented to init (the fetch phase
    kills its whole process group; the advertisement killed only git)."""
    import time

    bob, _remote, _memory = _team(tmp_path, bare_remote)
    pids = tmp_path / "ssh-pids"
    ssh = tmp_path / "stalling-ssh"
    ssh.write_text(STALLING_SSH.replace("{pids}", str(pids)))
    ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh))
    git(bob, "config", "hn.syncStallTimeout", "3")
    started = time.monotonic()
    r = hn(bob, "sync")
    assert r.code == 1 and time.monotonic() - started < 30, r.err
    assert "did not answer within 3 s" in r.err, r.err
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2, started
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in started if _alive(p)]
    for pid in left:  # (no test leaves them behind)
        os.kill(pid, 9)
    assert not left, "the advertisement's ssh and its child outlived the sync"


DROPPING_SSH = """#!/bin/sh
# ssh stand-in: fetches work, and a push is dropped before it logs in (sshd's MaxStartups, a
# firewall), in ssh's own words or a server's
if [ "$1" = "-G" ]; then exit 1; fi
for last; do :; done
case "$last" in
  git-receive-pack*) {said}
                     exit 255 ;;
esac
exec sh -c "$last"
"""


@pytest.mark.parametrize("said, end", [
    ('echo "kex_exchange_identification: Connection closed by remote host" >&2\n'
     'echo "Connection closed by 127.0.0.1 port 22" >&2', "the connection to the remote broke off"),
    ('echo "ERROR: this repository is read-only for maintenance" >&2',
     "git push --dry-run --no-verify origin 'refs/hn/memory/*:refs/hn/memory/*' shows Git's own message")])
def test_a_push_ssh_dropped_is_not_blamed_on_a_hook(tmp_path, bare_remote, monkeypatch, said, end):
    """A review: ssh dropping git-hn's push (``kex_exchange_identification: Connection closed by
    remote host``) was said as "its git push said last: and the repository exists.; a pre-push hook
    (core.hooksPath) may have refused it": Git's own trailer quoted as a hook's words. Only a push
    with the form of a hook's refusal is blamed on one; a connection that only Git's and ssh's
    lines say was dropped is said so, and text of anyone else's is pointed at, never quoted."""
    bob, _remote, _memory = _team(tmp_path, bare_remote)
    ssh = tmp_path / "dropping-ssh"
    ssh.write_text(DROPPING_SSH.replace("{said}", said))
    ssh.chmod(0o755)
    assert hn(bob, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
              "--content", "bob's").code == 0
    assert hn(bob, "replication", "select", "--memory", default_stream(actor_of(tmp_path / "alice"))).code == 0
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh))
    r = hn(bob, "sync")
    assert r.code == 1
    assert r.err == ("git-hn: publication phase failed after replication: replication memory publication failed "
                     f"for remote origin: {end}\n"), r.err


def _answered_at_terminal(cwd, argv: list[str], answers: list[tuple[bytes, bytes]], timeout: float = 120) -> str:
    """``argv`` run with a pseudo-terminal as its controlling terminal (as a user's shell runs
    it), typing each answer once its prompt was written there (Git's prompts for a user name and
    password read ``/dev/tty``); what was written there. It must exit 0."""
    import pty
    import select
    import time

    pid, master = pty.fork()
    if pid == 0:  # pragma: no cover (the child)
        try:
            os.chdir(cwd)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    written, seen, todo = bytearray(), 0, list(answers)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not select.select([master], [], [], 1)[0]:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not data:
                break
            written += data
            if todo and todo[0][0] in written[seen:]:
                seen = len(written)
                os.write(master, todo.pop(0)[1] + b"\n")
    finally:
        os.close(master)
    _pid, status = os.waitpid(pid, 0)
    said = written.decode("utf-8", "replace").replace("\r\n", "\n")
    assert os.waitstatus_to_exitcode(status) == 0 and not todo, said
    return said


def test_a_background_publication_to_https_without_credentials_says_to_store_them(tmp_path, bare_remote,
                                                                                   http_backend):
    """A review: a push to an HTTPS remote whose password the user typed at Git's prompt went
    through, its background publication (no terminal, Git's prompts off) found no credentials, and
    the next push said "ssh cannot ask for a key's passphrase (nor Git for a password): add the key
    to ssh-agent (ssh-add), or run git hn sync origin at a terminal" - where git hn sync cannot ask
    either (every Git process of git-hn's runs with GIT_TERMINAL_PROMPT=0). It gives the way that
    works: a credential helper (or an agent), then git hn sync."""
    from helpers import make_repo, wait_publication

    bare = bare_remote()
    url = http_backend(bare, basic="u:pw")
    bob = make_repo(tmp_path / "bob")
    git(bob, "push", "-q", str(bare), "main")
    git(bob, "remote", "add", "origin", url)
    git(bob, "fetch", "-q", url.replace("http://", "http://u:pw@"), "main:refs/remotes/origin/main")
    assert hn(bob, "init", "--name", "Bob").code == 0
    assert hn(bob, "hooks", "install").code == 0
    typed = [(b"Username for", b"u"), (b"Password for", b"pw")]
    for n in (1, 2):
        git(bob, "commit", "-q", "--allow-empty", "-m", f"bob's work {n}")
        assert hn(bob, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
                  "--content", f"bob's {n}").code == 0
        said = _answered_at_terminal(bob, ["git", "push", "-q", "origin", "main"], typed)
        wait_publication(bob)
    lines = [s for s in said.splitlines() if "last background publication" in s]
    assert lines == ["git-hn: the last background publication to origin failed (publishing again now): "
                     "replication memory publication "
                     "failed for remote origin: the remote needs credentials and none were given; set a credential "
                     "helper (git config --global credential.helper cache) and fetch from that remote once at a "
                     "terminal so it saves the password, then git hn sync origin"], said  # (an HTTP URL: no ssh
    # advice, f59)


def test_a_stream_the_remote_cannot_serve_is_not_said_unreached(tmp_path, bare_remote):
    """A review: a memory's blob deleted from the remote's objects (Git: "aborting due to possible
    repository corruption on the remote side") was advised "its fetch from origin failed, not the
    stream: run git hn sync origin again once it can be reached": the remote was reached, and
    a sync again fails the same way. It is said in fixed words, with the stream's advice."""
    bob, remote, memory = _team(tmp_path, bare_remote)
    git(bob, "remote", "set-url", "origin", str(remote))
    ref = git(remote, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    blob = git(remote, "rev-parse", f"{ref}:memory.json")
    loose = remote / "objects" / blob[:2] / blob[2:]
    assert loose.is_file()
    loose.unlink()
    out = json.loads(hn(bob, "sync", "--json").out)["outcomes"][0]
    assert out["diagnostic"].endswith("failed exact fetch from remote origin: the remote's server could not read "
                                      "objects of its repository (possible repository corruption on the remote "
                                      "side)"), out
    assert "recovery" not in out and not _arrived(bob, memory)
    r = hn(bob, "sync")
    assert r.code == 1 and "once it can be reached" not in r.err, r.err
    assert "(possible repository corruption on the remote side); whoever pushed it can push a valid one in its " \
           "place, or one git hn replication select origin --memory STREAM... leaves it out" in r.err, r.err


def test_a_fetch_refused_access_after_the_advertisement_gets_the_credentials_advice(tmp_path, bare_remote,
                                                                                     monkeypatch):
    """A review: with a passphrase key and no agent, a sync at a terminal got its advertisement
    (ssh asked there) but not its fetch into quarantine (a session of its own: OpenSSH 9 then says
    only "Permission denied (publickey)"), and the advice was "its fetch from origin failed, not the
    stream: run git hn sync origin again once it can be reached", which fails the same way. A
    refusal of access gets the credentials advice, in sync's line, its JSON and the fetch hook's."""
    bob, _remote, _memory = _team(tmp_path, bare_remote)
    ssh = tmp_path / "passphrase-ssh"
    ssh.write_text(PASSPHRASE_SSH.replace("{quarantine}", QUARANTINE_DIR).replace(
        "read_passphrase: can't open /dev/tty: No such device or address", "debug1: no terminal"))
    ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh))
    way_out = "give Git the credentials without a prompt: load the ssh key into an agent (ssh-add), then git hn sync origin"
    out = json.loads(hn(bob, "sync", "--json").out)["outcomes"][0]
    assert out["diagnostic"].endswith("failed exact fetch from remote origin: the remote refused access"), out
    assert out["recovery"] == way_out, out
    r = hn(bob, "sync")
    assert r.code == 1 and "once it can be reached" not in r.err, r.err
    assert r.err.rstrip("\n").endswith(f"failed (structurally-invalid): {way_out} (the Replication line above says "
                                       "why)"), r.err
    assert hn(bob, "hooks", "install").code == 0
    alice = tmp_path / "alice"
    git(alice, "commit", "-q", "--allow-empty", "-m", "moves main")
    git(alice, "push", "-q", "origin", "main")
    proc = subprocess.run(["git", "fetch", "-q", "origin"], cwd=bob, capture_output=True, text=True, timeout=120)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("git-hn:")]
    assert len(lines) == 1 and lines[0].endswith(": the remote refused access; " + way_out), proc.stderr
