"""Shell completion and help that work (issue 14, item 7).

Completion is exercised the way a person meets it: a real bash or zsh on a real pseudo-terminal,
with the generated script loaded, keys typed (TAB), and the command line read back from the
shell's own line editor (a key bound to write ``$READLINE_LINE`` / ``$BUFFER`` to a file). Memory
IDs come from the real ``git-hn`` on PATH, in a real repository. Help is checked for every
command of the CLI's own command tree.
"""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from git_hn import docgen
from git_hn.cli import app, main
from helpers import hn, record_id

ROOT = Path(__file__).resolve().parents[2]
BASH_SCRIPT = ROOT / "completion" / "git-hn.bash"
ZSH_DIR = ROOT / "completion"
GIT_BASH_COMPLETION = next((p for p in ("/usr/share/bash-completion/completions/git",
                                        "/etc/bash_completion.d/git",
                                        "/usr/local/etc/bash_completion.d/git-completion.bash")
                            if os.path.isfile(p)), None)
HEX64 = re.compile(r"[0-9a-f]{64}")


# -- a shell on a pseudo-terminal --------------------------------------------------------------


class Terminal:
    """An interactive shell on a pty. ``line_after(keys)`` types ``keys`` then Ctrl-T, a key the
    setup binds to write the editor's current line to a file, and returns that line (then Ctrl-U
    clears it for the next one)."""

    def __init__(self, argv: list[str], cwd: Path, env: dict, setup: str, tmp: Path):
        self.dump, ready = tmp / "line", tmp / "ready"
        pid, fd = pty.fork()
        if pid == 0:  # the child: the shell, with the pty as its controlling terminal
            try:
                os.chdir(cwd)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd, self.screen = pid, fd, b""
        self._send(setup.replace("{DUMP}", str(self.dump)).replace("{READY}", str(ready)) + "\n")
        self._wait_for(ready)

    def _send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def _drain(self) -> None:
        while select.select([self.fd], [], [], 0.02)[0]:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            self.screen += data

    def _wait_for(self, path: Path, timeout: float = 30) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self._drain()
            if path.exists():
                time.sleep(0.05)  # the redirection has been opened; let the write finish
                return path.read_text()
        raise AssertionError(f"the shell did not answer; its screen ends with {self.screen[-1500:]!r}")

    def line_after(self, keys: str) -> str:
        if self.dump.exists():
            self.dump.unlink()
        self._send(keys + "\x14")
        line = self._wait_for(self.dump).rstrip("\n")
        self._send("\x15")
        return line

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def _env(tmp: Path) -> dict:
    env = dict(os.environ)  # the hermetic HOME, Git config and PATH (this checkout's git-hn)
    env.update(TERM="dumb", INPUTRC="/dev/null", ZDOTDIR=str(tmp), PS1="$ ", HISTFILE=str(tmp / "hist"))
    for var in ("EDITOR", "VISUAL", "BASH_ENV", "ENV", "PROMPT_COMMAND"):
        env.pop(var, None)
    return env


def bash(cwd: Path, tmp: Path, with_git: bool = False) -> Terminal:
    setup = (f"source {GIT_BASH_COMPLETION}; " if with_git else "") + \
        (f"source {BASH_SCRIPT}; _dump() {{ printf '%s\\n' \"$READLINE_LINE\" > {{DUMP}}; }}; "
         "bind -x '\"\\C-t\": _dump'; touch {READY}")
    return Terminal(["bash", "--norc", "--noprofile", "-i"], cwd, _env(tmp), setup, tmp)


def zsh(cwd: Path, tmp: Path) -> Terminal:
    setup = (f"fpath=({ZSH_DIR} $fpath); autoload -Uz compinit; compinit -u -D; "
             "_dump() { print -r -- \"$BUFFER\" > {DUMP} }; zle -N _dump; bindkey '^T' _dump; "
             "touch {READY}")
    return Terminal(["zsh", "-f", "-i"], cwd, _env(tmp), setup, tmp)


# -- a repository with memories ----------------------------------------------------------------


@pytest.fixture
def memories(inited):
    """Three decisions and one retraction; returns (repo, record IDs, retraction ID), bare hex."""
    records = [record_id(inited, content=f"decision {i}")[len("sha256:"):] for i in range(3)]
    r = hn(inited, "memory", "retract", records[2], "--reason", "obsolete", "--json")
    assert r.code == 0, r.err
    return inited, records, r.json()["memoryId"][len("sha256:"):]


def unique_prefix(target: str, others: list[str], at_least: int = 2) -> str:
    n = at_least
    while any(o != target and o.startswith(target[:n]) for o in others):
        n += 1
    return target[:n]


# -- help --------------------------------------------------------------------------------------

LEAKS = ("[]...", "<list[", "<str>", "<int>", "[extra]", "[[", "]]")


@pytest.mark.parametrize("path", [p for p, _c, _u in docgen.tree()], ids=" ".join)
def test_every_command_help_has_a_clean_usage_line(tmp_path, path):
    r = hn(tmp_path, *path, "-h")
    assert (r.code, r.err) == (0, "")
    usage = r.out.splitlines()[0]
    assert usage.startswith("usage: git hn " + " ".join(path) + " [OPTIONS]")
    for leak in LEAKS:
        assert leak not in r.out, (leak, r.out)
    cmd = dict((tuple(p), c) for p, c, _u in docgen.tree())[tuple(path)]
    shown = [p.metavar for p in cmd.params if p.param_type_name == "argument" and not p.hidden and p.metavar]
    assert usage == " ".join(["usage: git hn", *path, "[OPTIONS]", *shown])
    for metavar in shown:  # every operand the usage line names is explained under Arguments
        assert re.search(rf"^Arguments:\n(  .*\n)*  {re.escape(metavar)}  \S", r.out, re.M), r.out


@pytest.mark.parametrize("path", [p for p, _c, _u in docgen.tree()], ids=" ".join)
def test_help_never_breaks_a_word_at_its_hyphen(tmp_path, path):
    """A newcomer trial read ``--allow-`` / ``write`` in ``mcp -h``, ``post-`` / ``rewrite`` in
    ``hooks -h``: click's wrapper broke words at hyphens. Every line break of a help is at a
    space, for commands and for groups."""
    for args in ([*path, "-h"], [path[0], "-h"]):
        out = hn(tmp_path, *args).out
        assert not re.search(r"\w-\n", out), (args, out)
    assert "--allow-write" in " ".join(hn(tmp_path, "mcp", "-h").out.split())
    assert "(post-rewrite)" in hn(tmp_path, "hooks", "-h").out


def test_help_says_what_record_and_handoff_require(tmp_path):
    """``record -h`` did not say --kind, --at and --applies are required, and ``handoff -h``
    listed --outcome, which a handoff refuses."""
    def said(*args) -> str:  # (the help as words: where a line wraps does not matter here)
        return " ".join(hn(tmp_path, "memory", *args, "-h").out.split())

    record = said("record")
    for name in ("--kind KIND", "--at REV", "--applies MODE"):
        assert f" {name} required without --input: " in record, name
    handoff = said("handoff")
    assert "--outcome" not in handoff
    for name in ("--at REV", "--applies MODE"):
        assert f" {name} required, unless the --input request has it: " in handoff, name
    supersede = said("supersede")
    assert "required" not in supersede and "Every record field not given is the superseded" in supersede


def test_commands_without_operands_show_none(tmp_path):
    for path in (["memory", "recall"], ["memory", "brief"], ["memory", "log"], ["policy", "init"],
                 ["init"], ["identity", "export"]):
        out = hn(tmp_path, *path, "-h").out
        assert out.splitlines()[0] == f"usage: git hn {' '.join(path)} [OPTIONS]"
        assert "Arguments:" not in out


def test_bare_memory_prints_the_groups_help(tmp_path, repo):
    for cwd in (tmp_path, repo):  # no repository needed, as for any help
        r = hn(cwd, "memory")
        assert (r.code, r.err) == (0, "")
        assert r.out == hn(cwd, "memory", "-h").out
        assert r.out.startswith("usage: git hn memory <command> [options]\n")
        commands = r.out.split("Commands:\n", 1)[1]
        for name, cmd in app.click_command().commands["memory"].commands.items():
            first = (cmd.help or "").split("\n\n")[0].split()
            # one entry per subcommand, with its whole first paragraph (wrapped, never cut)
            entry = re.search(rf"^  {name} +(.*(\n {{5,}}\S.*)*)", commands, re.M)
            assert entry is not None, name
            assert entry.group(1).split() == first, name
    r = hn(repo, "identity")  # the other bare groups keep their usage line (CONTRACT §10.1)
    assert (r.code, r.out, r.err) == (1, "", "git-hn: usage: git hn identity <show|list|public>; missing the identity "
                                            "command (git hn identity -h also lists export, import, remove, use)\n")


def test_handoff_synopsis_shows_its_flag_form():
    flag_form = "git hn memory handoff --at REV --applies MODE [record fields]"
    assert flag_form + "\n" in main.SUMMARY
    page = docgen.pages()["git-hn-memory.1"]
    synopsis = page.split(".SH SYNOPSIS\n", 1)[1].split(".SH ", 1)[0]
    assert docgen.esc(flag_form) in synopsis
    # --input needs neither --at nor --applies (they fill the request's when it has none)
    assert docgen.esc("git hn memory handoff --input FILE|- --json [--at REV] [--applies MODE]") in synopsis
    for lines in app.SYNOPSIS.values():  # the man page and the summary say the same
        for line in lines:
            assert line + "\n" in main.SUMMARY


@pytest.mark.parametrize("op", ["retract", "challenge"])
def test_lifecycle_usage_and_help_agree_on_evidence(memories, op):
    repo, records, _retraction = memories
    listed = "--evidence" in hn(repo, "memory", op, "-h").out
    assert listed == (op == "challenge")
    usage = app.USAGE[f"git hn memory {op}"]
    assert ("--evidence" in usage) == listed
    # the usage line of an error, from the parser that really runs, is the same text
    err = hn(repo, "memory", op, records[0], "--reason", "x", "extra").err
    assert err == f'git-hn: {usage}; unexpected argument "extra"\n'
    man = docgen.pages()["git-hn-memory.1"].split(".SH DESCRIPTION", 1)[0]
    assert docgen.esc(usage[len("usage: "):]) in man


# -- the hidden memory-ID completion entry ----------------------------------------------------


def _complete(cwd, *args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(["git-hn", "__complete", "memory-ids", *args], cwd=cwd, capture_output=True,
                          env={**os.environ, **(env or {})}, timeout=60)


def test_memory_id_completion_prints_verified_ids_only(memories):
    repo, records, retraction = memories
    every = sorted(records + [retraction])
    r = _complete(repo, "")
    assert (r.returncode, r.stderr) == (0, b"")
    assert r.stdout.decode().splitlines() == every
    assert all(HEX64.fullmatch(line) for line in r.stdout.decode().splitlines())
    prefix = unique_prefix(records[1], every)
    assert _complete(repo, prefix).stdout.decode() == records[1] + "\n"
    assert _complete(repo, "sha256:" + prefix).stdout.decode() == f"sha256:{records[1]}\n"
    # what supersede, retract and challenge can target: records and supersedes, not retractions
    assert _complete(repo, "--targets", "").stdout.decode().splitlines() == sorted(records)
    assert _complete(repo, "--targets", unique_prefix(retraction, every)).stdout == b""
    for bad in ("XYZ", prefix.upper() if prefix.upper() != prefix else "G", "sha256:-x", "0" * 65, "--x"):
        r = _complete(repo, bad)
        assert (r.returncode, r.stdout, r.stderr) == (0, b"", b""), bad


def test_memory_id_completion_is_silent_outside_a_repository(tmp_path):
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    r = _complete(outside, "", env={"GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
    r = subprocess.run(["git-hn", "__complete", "bogus"], cwd=outside, capture_output=True,
                       env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")


def test_memory_id_completion_costs_the_same_git_processes_for_more_memories(memories, tmp_path):
    """Served from the verified state: at most the ref listing (discovery reads the file system),
    never a process per memory."""
    repo, _records, _retraction = memories

    def processes() -> int:
        trace = tmp_path / "trace"
        trace.unlink(missing_ok=True)
        assert _complete(repo, "", env={"GIT_TRACE": str(trace)}).returncode == 0
        return trace.read_text().count("trace: built-in: git ") if trace.exists() else 0  # none started

    _complete(repo, "")  # the state is current from here on
    few = processes()
    for i in range(6):
        record_id(repo, content=f"more {i}")
    _complete(repo, "")
    assert len(_complete(repo, "").stdout.splitlines()) == 10
    assert processes() == few <= 3


def test_the_hidden_entry_is_used_by_both_scripts_and_named_in_no_help(tmp_path):
    assert "__complete memory-ids" in docgen.completion_bash()
    assert "__complete memory-ids" in docgen.completion_zsh()
    assert "__complete" not in "".join(docgen.pages().values()) + main.SUMMARY + hn(tmp_path, "memory").out


# -- bash on a pty -----------------------------------------------------------------------------


def test_bash_standalone_completes_words_with_their_space(memories, tmp_path):
    repo, records, retraction = memories
    every = records + [retraction]
    term = bash(repo, tmp_path)
    try:
        assert term.line_after("git-hn memory reco\t") == "git-hn memory record "
        assert term.line_after("git-hn memory record --kind dec\t") == "git-hn memory record --kind decision "
        assert term.line_after("git-hn memory record --kind=veri\t") == \
            "git-hn memory record --kind=verification "
        assert term.line_after("git-hn memory record --applies desc\t") == \
            "git-hn memory record --applies descendants "
        assert term.line_after("git-hn memory record --kind attempt --outcome ab\t") == \
            "git-hn memory record --kind attempt --outcome abandoned "
        assert term.line_after("git-hn memory recall --lifecycle al\t") == "git-hn memory recall --lifecycle all "
        assert term.line_after("git-hn memory recall --max-rec\t") == "git-hn memory recall --max-records "
        assert term.line_after("git-hn setup cod\t") == "git-hn setup codex "
        # memory IDs: a unique hex prefix becomes the full ID, bare or after sha256:
        show = unique_prefix(retraction, every)
        assert term.line_after(f"git-hn memory show {show}\t") == f"git-hn memory show {retraction} "
        pre = unique_prefix(records[0], every)
        assert term.line_after(f"git-hn memory show sha256:{pre}\t") == \
            f"git-hn memory show sha256:{records[0]} "
        for op in ("supersede", "retract", "challenge"):
            assert term.line_after(f"git-hn memory {op} {pre}\t") == f"git-hn memory {op} {records[0]} "
        # a retraction is not something to retract: nothing is completed
        assert term.line_after(f"git-hn memory retract {show}\t") == f"git-hn memory retract {show}"
        # options after an operand, and after an option's value
        assert term.line_after(f"git-hn memory show {records[0]} --j\t") == \
            f"git-hn memory show {records[0]} --json "
        # only the first operand is a memory: supersede's second is its content
        assert term.line_after(f"git-hn memory supersede {records[0]} {pre}\t") == \
            f"git-hn memory supersede {records[0]} {pre}"
        assert term.line_after(f"git-hn memory supersede --kind decision sha256:{pre}\t") == \
            f"git-hn memory supersede --kind decision sha256:{records[0]} "
    finally:
        term.close()


def test_hooks_run_is_in_the_summary_and_completion_follows_help_and_hooks_run(tmp_path):
    """A review (S73): ``git hn -h`` listed only ``hooks install|uninstall|status``, and
    completion offered nothing after ``help GROUP`` nor after ``hooks run``."""
    assert "\ngit hn hooks run pre-push|post-rewrite|reference-transaction [ARGS]...\n" in hn(tmp_path, "-h").out
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    term = bash(repo, tmp_path)
    try:
        assert term.line_after("git-hn help memory reco\t") == "git-hn help memory record "
        assert term.line_after("git-hn help hooks ru\t") == "git-hn help hooks run "
        assert term.line_after("git-hn hooks run pre-\t") == "git-hn hooks run pre-push "
        assert term.line_after("git-hn hooks run post-\t") == "git-hn hooks run post-rewrite "
    finally:
        term.close()


def test_bash_completion_prints_nothing_outside_a_repository(tmp_path):
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "0-notes.txt").write_text("a file whose name starts like an ID\n")
    term = bash(outside, tmp_path)
    try:
        # no ID matches, and bash's file-name fallback is off where a memory ID goes
        assert term.line_after("git-hn memory show 0\t") == "git-hn memory show 0"
        assert term.line_after("git-hn memory reco\t") == "git-hn memory record "
        assert b"git-hn:" not in term.screen and b"Traceback" not in term.screen
    finally:
        term.close()


@pytest.mark.skipif(GIT_BASH_COMPLETION is None, reason="git's bash completion is not installed")
def test_bash_completes_git_hn_through_gits_completion(memories, tmp_path):
    """git's completion runs with -o nospace and calls _git_hn: words still get their space."""
    repo, records, retraction = memories
    term = bash(repo, tmp_path, with_git=True)
    try:
        assert term.line_after("git hn memory reco\t") == "git hn memory record "
        assert term.line_after("git hn memory record --kind dec\t") == "git hn memory record --kind decision "
        assert term.line_after("git hn memory record --applies=sub\t") == "git hn memory record --applies=subject "
        assert term.line_after("git hn memory record --outcome fa\t") == "git hn memory record --outcome failed "
        assert term.line_after("git hn hooks st\t") == "git hn hooks status "
        pre = unique_prefix(records[1], records + [retraction])
        assert term.line_after(f"git hn memory show {pre}\t") == f"git hn memory show {records[1]} "
        assert term.line_after(f"git -C {repo} hn memory challenge {pre}\t") == \
            f"git -C {repo} hn memory challenge {records[1]} "
    finally:
        term.close()


# -- zsh on a pty ------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed (install.sh --dev installs it)")
def test_zsh_completes_git_hn_and_git_hn_subcommand(memories, tmp_path):
    repo, records, retraction = memories
    term = zsh(repo, tmp_path)
    try:
        assert term.line_after("git-hn memory reco\t") == "git-hn memory record "
        assert term.line_after("git-hn memory record --kind dec\t") == "git-hn memory record --kind decision "
        assert term.line_after("git-hn memory record --kind=assu\t") == "git-hn memory record --kind=assumption "
        assert term.line_after("git-hn memory handoff --applies ex\t") == "git-hn memory handoff --applies exact "
        assert term.line_after("git-hn memory record --outcome par\t") == "git-hn memory record --outcome partial "
        assert term.line_after("git-hn setup cur\t") == "git-hn setup cursor "
        pre = unique_prefix(records[2], records + [retraction])
        assert term.line_after(f"git-hn memory show {pre}\t") == f"git-hn memory show {records[2]} "
        assert term.line_after(f"git-hn memory supersede sha256:{pre}\t") == \
            f"git-hn memory supersede sha256:{records[2]} "
        show = unique_prefix(retraction, records + [retraction])
        assert term.line_after(f"git-hn memory retract {show}\t") == f"git-hn memory retract {show}"
        assert term.line_after(f"git-hn memory supersede {records[0]} {pre}\t") == \
            f"git-hn memory supersede {records[0]} {pre}"
        # `git hn`: zsh's own git completion calls _git-hn
        assert term.line_after("git hn memory reco\t") == "git hn memory record "
        assert term.line_after("git hn memory record --applies desc\t") == \
            "git hn memory record --applies descendants "
        assert term.line_after(f"git hn memory retract {pre}\t") == f"git hn memory retract {records[2]} "
        git_hn = shutil.which("git-hn")  # git-hn by its full path
        assert term.line_after(f"{git_hn} memory show {pre}\t") == f"{git_hn} memory show {records[2]} "
    finally:
        term.close()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    term = zsh(elsewhere, tmp_path)
    try:  # IDs of the repository `git -C` names
        assert term.line_after(f"git -C {repo} hn memory show {pre}\t") == \
            f"git -C {repo} hn memory show {records[2]} "
    finally:
        term.close()


def test_memory_id_completion_never_waits_nor_builds(memories):
    """Completion answers at once: a state another process holds (a long sync, a first build)
    gives nothing rather than a frozen shell, and a missing state is not built for a TAB."""
    import fcntl
    import time

    repo, records, retraction = memories
    assert _complete(repo, "").stdout.decode().splitlines() == sorted(records + [retraction])
    lock = repo / ".git" / "hn" / "locks" / "state.lock"
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        started = time.monotonic()
        r = _complete(repo, "")
        assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
        assert time.monotonic() - started < 5  # not the state's 120 s lock wait
    finally:
        os.close(fd)
    memory = repo / ".git" / "hn" / "memory"
    for name in os.listdir(memory):
        if name.startswith("state-"):
            os.unlink(memory / name)
    r = _complete(repo, "")
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
    assert not any(n.startswith("state-") for n in os.listdir(memory))  # nothing was built
    assert hn(repo, "memory", "recall", "--json").code == 0  # the next command builds it
    assert _complete(repo, "").stdout.decode().splitlines() == sorted(records + [retraction])
