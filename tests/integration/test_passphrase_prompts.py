"""git-hn never asks for an ssh passphrase (F67, a trial): with a passphrase key and no agent, a
hooked ``git fetch`` asked a second time, for the import's advertisement, whose fetch into
quarantine (a session of its own) could not use the answer; unanswered, the fetch hung 60 s and
blamed the remote. Every Git process of git-hn's that may contact a remote now runs without a
controlling terminal (and ``SSH_ASKPASS_REQUIRE=never``): it fails at once, and git-hn says to
load the key into an agent. (But for a publication push that runs the team's pre-push hook: it
keeps the terminal, where such a hook may ask.)

No sshd runs in the tests: "ssh" is a stand-in that behaves as OpenSSH 9 does for such a key. It
asks on ``/dev/tty`` (the controlling terminal) and, with none, says only "Permission denied";
with ``AGENT=1`` (an agent holding the key) it never asks. Git and git-hn are real, and each
command runs at a pseudo-terminal that is its controlling terminal, so a prompt would show.
"""

from __future__ import annotations

import os
import select
import time
from pathlib import Path

from helpers import git, hn, make_repo

PROMPT = b"Enter passphrase for key"
STAND_IN = """#!/bin/sh
if [ "$1" = "-G" ]; then exit 1; fi  # the OpenSSH probe: answer "not OpenSSH"
printf '%s\\n' "$SSH_ASKPASS_REQUIRE" >> "$0.askpass"
if [ "$AGENT" != 1 ]; then
  use=  # OpenSSH's askpass rule (readpass.c): its program with no terminal and DISPLAY set, unless never
  case "$SSH_ASKPASS_REQUIRE" in
    force) use=1 ;;
    prefer) [ -z "$DISPLAY" ] || use=1 ;;
    never) ;;
    *) ( : </dev/tty ) 2>/dev/null || [ -z "$DISPLAY" ] || use=1 ;;
  esac
  if [ -n "$use" ]; then  # (the compiled-in program when SSH_ASKPASS is unset: none here)
    typed=$("${SSH_ASKPASS:-/nonexistent/ssh-askpass}" "Enter passphrase for key '/home/bob/.ssh/id_ed25519': " \
      2>/dev/null)
  elif ! ( : </dev/tty ) 2>/dev/null; then  # (no controlling terminal)
    echo "git@localhost: Permission denied (publickey)." >&2
    exit 255
  else
    exec 3<>/dev/tty
    printf "Enter passphrase for key '/home/bob/.ssh/id_ed25519': " >&3
    IFS= read -r typed <&3 || exit 255
    exec 3>&-
  fi
  if [ "$typed" != secret ]; then echo "git@localhost: Permission denied (publickey)." >&2; exit 255; fi
fi
for last; do :; done
exec sh -c "$last"
"""
WAY_OUT = ("give Git the credentials without a prompt: load the ssh key into an agent (ssh-add), or let ssh ask in "
           "a desktop dialog (export SSH_ASKPASS_REQUIRE=prefer), then git hn sync origin")


def _team(tmp_path: Path, bare_remote) -> tuple[Path, Path, dict]:
    """Bob's clone (hooks installed, every stream selected) whose ``origin`` is reached over ssh
    through the stand-in, and Alice's, who published a memory there; the stand-in's environment."""
    remote = bare_remote("team.git")
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", str(remote))
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "carried over ssh").code == 0
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", "--no-local", str(remote), str(bob))
    for args in (("init", "--name", "Bob"), ("replication", "select", "--all"), ("hooks", "install")):
        assert hn(bob, *args).code == 0
    git(bob, "remote", "set-url", "origin", f"ssh://localhost{remote}")
    git(bob, "config", "hn.syncStallTimeout", "10")  # (a prompt left unanswered holds no test 60 s)
    ssh = tmp_path / "passphrase-ssh"
    ssh.write_text(STAND_IN)
    ssh.chmod(0o755)
    env = {"GIT_SSH_COMMAND": str(ssh), "DISPLAY": ":0"}  # (a desktop whose askpass the user did not choose)
    for name in ("SSH_AUTH_SOCK", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", "AGENT"):
        env[name] = ""
    return bob, alice, env


def _moved(alice: Path, note: str) -> None:
    git(alice, "commit", "-q", "--allow-empty", "-m", note)
    git(alice, "push", "-q", "origin", "main")


def _at_terminal(cwd: Path, argv: list[str], env: dict, answers: int, timeout: float = 60,
                 prompt: bytes = PROMPT, answer: bytes = b"secret\n") -> tuple[int, str, float]:
    """``argv`` run with a pseudo-terminal as its controlling terminal (as a user's shell runs it),
    the passphrase typed at the first ``answers`` prompts (``prompt``): (exit code, what was
    written there, seconds taken). Variables set to "" in ``env`` are removed."""
    import pty

    full = {k: v for k, v in {**os.environ, **env}.items() if v != "" or k not in env}
    start = time.monotonic()
    pid, master = pty.fork()
    if pid == 0:  # pragma: no cover (the child)
        try:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, full)
        finally:
            os._exit(127)
    written, typed = bytearray(), 0
    try:
        while time.monotonic() - start < timeout:
            if not select.select([master], [], [], 0.5)[0]:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not data:
                break
            written += data
            if typed < answers and written.count(prompt) > typed:
                typed += 1
                os.write(master, answer)
        else:
            os.kill(pid, 9)
    finally:
        os.close(master)
    _pid, status = os.waitpid(pid, 0)
    return (os.waitstatus_to_exitcode(status), written.decode("utf-8", "replace").replace("\r\n", "\n"),
            time.monotonic() - start)


def test_a_hooked_fetch_asks_for_the_passphrase_once(tmp_path, bare_remote):
    """The trial's case: the user's fetch asks (and gets the passphrase); the fetch hook's import
    asked again and, unanswered, held the fetch until the stall bound. Its Git processes now run
    without a terminal: one prompt, and the import fails at once."""
    bob, alice, env = _team(tmp_path, bare_remote)
    _moved(alice, "moves main")
    code, said, took = _at_terminal(bob, ["git", "fetch", "origin"], env, answers=1)
    assert code == 0, said
    assert said.count(PROMPT.decode()) == 1 and took < 8, (took, said)
    assert [line for line in said.splitlines() if line.startswith("git-hn:")] == [
        f"git-hn: memory import from origin failed: the remote refused access; {WAY_OUT}"], said
    assert git(bob, "rev-parse", "origin/main") == git(alice, "rev-parse", "main")
    # and no askpass program was offered (a desktop's dialog would pop up: DISPLAY is set)
    assert set((tmp_path / "passphrase-ssh.askpass").read_text().split()) == {"never"}


def test_a_sync_at_a_terminal_does_not_ask_for_a_passphrase_it_cannot_use(tmp_path, bare_remote):
    """git hn sync at a terminal asked for the passphrase for its advertisement, then failed its
    fetch into quarantine, which has no terminal, anyway. It asks nothing and fails at once."""
    bob, _alice, env = _team(tmp_path, bare_remote)
    code, said, took = _at_terminal(bob, ["git", "hn", "sync", "origin"], env, answers=1)
    assert code == 1 and PROMPT.decode() not in said and took < 8, (took, said)
    assert f"replication advertisement failed for remote origin; the remote refused access; {WAY_OUT}" in said, said
    assert not git(bob, "for-each-ref", "refs/hn/remotes/origin/memory/")


def test_the_fetch_wrappers_own_question_does_not_ask_for_a_passphrase(tmp_path, bare_remote):
    """A clone that imported with an agent has the quiet record, so the reference-transaction
    wrapper asks the remote itself (``git ls-remote``) before it starts git-hn. Without the agent
    that question asked for the passphrase a second time (held up to 300 s unanswered); it now
    fails at once, and git-hn, started, says what to do."""
    bob, alice, env = _team(tmp_path, bare_remote)
    for note in ("moves main", "moves main again"):  # (an import, then a fetch that finds it quiet)
        _moved(alice, note)
        code, said, _took = _at_terminal(bob, ["git", "fetch", "origin"], {**env, "AGENT": "1"}, answers=0)
        assert code == 0 and "git-hn:" not in said, said
    assert git(bob, "for-each-ref", "--format=%(refname)", "refs/hn/remotes/origin/memory/")
    assert list((bob / ".git" / "hn" / "replication" / "quiet").iterdir())
    _moved(alice, "moves main once more")
    code, said, took = _at_terminal(bob, ["git", "fetch", "origin"], env, answers=1, timeout=30)
    assert code == 0 and said.count(PROMPT.decode()) == 1 and took < 8, (took, said)
    assert f"git-hn: memory import from origin failed: the remote refused access; {WAY_OUT}\n" in said, said


ASKING_HOOK = ("#!/bin/sh\nexec </dev/tty\nprintf 'Push memory to %s? ' \"$1\" >/dev/tty\nread -r answer\n"
               "[ \"$answer\" = secret ]\n")


def _asking_hook(bob: Path) -> None:
    """A team's pre-push hook that asks on the terminal, as a confirmation prompt does, chained."""
    assert hn(bob, "hooks", "uninstall").code == 0
    hook = bob / ".git" / "hooks" / "pre-push"
    hook.write_text(ASKING_HOOK)
    hook.chmod(0o755)
    assert hn(bob, "hooks", "install").code == 0
    assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "asked for").code == 0


def test_a_sync_at_a_terminal_lets_a_chained_pre_push_hook_ask_there(tmp_path, bare_remote):
    """A review of F67: every Git process of git-hn's that may contact a remote ran without a
    terminal, the publication push of git hn sync included, so a team's pre-push hook that asks
    on the terminal failed every sync at one ("cannot open /dev/tty"). That push keeps the
    terminal; the advertisement before it still asks nothing."""
    bob, _alice, env = _team(tmp_path, bare_remote)
    _asking_hook(bob)
    code, said, _took = _at_terminal(bob, ["git", "hn", "sync", "origin"], {**env, "AGENT": "1"}, answers=1,
                                     prompt=b"Push memory to origin? ")
    assert code == 0 and said.count("Push memory to origin? ") == 1, said
    assert "git-hn:" not in said, said
    remote = git(bob, "remote", "get-url", "origin").removeprefix("ssh://localhost")
    assert git(bob, "for-each-ref", "refs/hn/memory/") in git(remote, "for-each-ref", "refs/hn/memory/")


def test_a_chained_hook_that_cannot_ask_on_a_terminal_is_said_so(tmp_path, bare_remote):
    """Without a terminal (a sync from a script), the same hook cannot ask: the line said a
    pre-push hook "may have refused" the push by policy and quoted the wrapper's shell error; it
    says plainly that the hook could not ask on the terminal, and how to let it."""
    import subprocess

    bob, _alice, env = _team(tmp_path, bare_remote)
    _asking_hook(bob)
    full = {k: v for k, v in {**os.environ, **env, "AGENT": "1"}.items() if v != "" or k not in env}
    proc = subprocess.run(["git", "hn", "sync", "origin"], cwd=bob, env=full, capture_output=True, text=True,
                          start_new_session=True, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.endswith(
        "memory publication failed for remote origin: a pre-push hook could not ask its question on the terminal "
        "(/dev/tty): git-hn's push has none here; run git hn sync origin at a terminal, or let the hook skip its "
        "question when HN_HOOK_ACTIVE=1 is set\n"), proc.stderr
    assert "eval" not in proc.stderr and "may have refused" not in proc.stderr, proc.stderr


def test_an_askpass_program_the_user_chose_answers_for_git_hn(tmp_path, bare_remote):
    """A review of F67: ``SSH_ASKPASS_REQUIRE=never`` was forced unless set, so a user whose
    desktop's askpass or wallet (``SSH_ASKPASS``, ``DISPLAY``) gave ssh the passphrase lost a setup
    that worked. That program answers each ssh process on its own; git-hn lets ssh use it."""
    bob, _alice, env = _team(tmp_path, bare_remote)
    wallet = tmp_path / "wallet-askpass"
    wallet.write_text('#!/bin/sh\necho asked >> "$0.log"\necho secret\n')
    wallet.chmod(0o755)
    code, said, _took = _at_terminal(bob, ["git", "hn", "sync", "origin"], {**env, "SSH_ASKPASS": str(wallet)},
                                     answers=0)
    assert code == 0 and PROMPT.decode() not in said and "git-hn:" not in said, said
    assert git(bob, "for-each-ref", "refs/hn/remotes/origin/memory/")
    assert (tmp_path / "wallet-askpass.log").read_text().count("asked") >= 2  # (the advertisement, the fetch)
    # and the fetch wrapper's own question (a quiet record: the second sync found nothing new)
    code, said, _took = _at_terminal(bob, ["git", "hn", "sync", "origin"], {**env, "SSH_ASKPASS": str(wallet)},
                                     answers=0)
    assert code == 0, said
    assert list((bob / ".git" / "hn" / "replication" / "quiet").iterdir())
    _moved(_alice, "moves main")
    code, said, _took = _at_terminal(bob, ["git", "fetch", "origin"], {**env, "SSH_ASKPASS": str(wallet)}, answers=1)
    assert code == 0 and said.count(PROMPT.decode()) == 1 and "git-hn:" not in said, said  # (the user's own ssh)
    assert "never" not in (tmp_path / "passphrase-ssh.askpass").read_text().split()


def test_with_an_agent_a_refused_key_is_not_advised_an_agent(tmp_path, bare_remote):
    """A review: "load the ssh key into an agent (ssh-add)" was said also when an agent's socket is
    set and the key is simply not authorised there. Then the remote refused the keys ssh offered,
    and the user's own git fetch shows ssh's reason."""
    bob, _alice, env = _team(tmp_path, bare_remote)
    code, said, _took = _at_terminal(bob, ["git", "hn", "sync", "origin"],
                                     {**env, "SSH_AUTH_SOCK": str(tmp_path / "agent.sock")}, answers=0)
    assert code == 1 and "ssh-add" not in said and "SSH_ASKPASS" not in said, said
    assert ("replication advertisement failed for remote origin; the remote refused access; the remote accepted none "
            "of the keys ssh offered (your agent's included): git fetch origin shows ssh's own reason") in said, said
