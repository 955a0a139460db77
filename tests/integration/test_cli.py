"""CLI conventions (CONTRACT §0.5, §10.0, §10.1): one error line, exit 1, help, parity of parsers."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from git_hn.cli import app as appmod
from git_hn.cli import options
from helpers import git, hn, hn_proc, refs_snapshot


def test_help_and_version(tmp_path):
    for args in ([], ["help"], ["-h"], ["--help"]):
        r = hn(tmp_path, *args)
        assert r.code == 0 and r.err == ""
        assert r.out.startswith("usage: git hn <command>")
        assert "git hn memory record --kind KIND --at REV --applies MODE [record fields]" in r.out
    assert hn(tmp_path, "version").out.startswith("git-hn ")
    from git_hn.version import VERSION

    doc = hn(tmp_path, "version", "--json").json()
    assert doc == {"version": VERSION, "protocol": "hn-memory/0", "build": doc["build"]}
    # laid out as every other command's -h (it printed a lone lowercase usage line)
    help_text = hn(tmp_path, "version", "-h").out
    assert help_text.startswith("usage: git hn version [OPTIONS]\n\n  Print git-hn's version")
    assert "\nOptions:\n  --json      print one line of JSON\n  -h, --help  Show this message and exit.\n" in help_text
    assert help_text.split("Options:")[1] == hn(tmp_path, "memory", "show", "-h").out.split("Options:")[1].replace(
        "  --no-color  never colour the output on a terminal (also: NO_COLOR set,\n"
        "              TERM=dumb)\n", "")
    r = hn(tmp_path, "version", "--jsn")
    assert (r.code, r.out, r.err) == (1, "", "git-hn: unknown option --jsn; did you mean --json? (usage: git hn "
                                             "version [--json])\n")


def test_help_of_a_command_is_its_dash_h(tmp_path, capsys):
    """An audit: ``git hn help memory`` printed the summary, its argument ignored; ``version``
    (answered before typer loads) had no man section. ``help COMMAND...`` is ``COMMAND... -h``,
    and version's own help is what typer, which writes the man pages, says."""
    for words in (["memory"], ["memory", "recall"], ["version"], ["hooks", "run"], ["sync"]):
        r = hn(tmp_path, "help", *words)
        assert (r.code, r.err) == (0, "") and r.out == hn(tmp_path, *words, "-h").out, words
    assert hn(tmp_path, "help").out == hn(tmp_path, "-h").out
    assert hn(tmp_path, "help", "nope").err == "git-hn: unknown command \"nope\"; run 'git hn help'\n"
    from git_hn.cli.main import VERSION_HELP

    assert appmod.run_app(["version", "--help"]) == 0
    assert capsys.readouterr().out == VERSION_HELP


def test_the_demo_shows_trust_working(tmp_path):
    """A newcomer trial: the demo never ran policy init, printed the same ~400-character trust
    hint after each of its four records and ended on ``Trust: policy-missing``. It now writes and
    commits the policy first, so its memories are qualified and nothing is hinted."""
    r = hn(tmp_path, "demo")
    assert (r.code, r.err) == (0, "")
    assert "\n$ git hn policy init\n" in r.out
    assert "\n$ git add .hn/policy.json && git commit -m 'Trust policy'\n" in r.out
    assert r.out.index("$ git hn policy init") < r.out.index("$ git hn memory record")
    # (identity show, after the commit, says on its hint line that the policy at HEAD trusts it)
    hints = [line for line in r.out.splitlines() if "hint:" in line]
    assert len(hints) == 1 and hints[0].startswith("git-hn: hint: trust: the policy at HEAD (")
    assert "Trust: qualified" in r.out.splitlines()


def test_the_demo_shows_the_reading_side(tmp_path):
    """A trial: the demo (the README's first command) recorded, handed off and showed one memory,
    but never read memory back as a reader does. It ends with a recall by query, which finds the
    failed attempt, and the first lines of the brief, a session's start."""
    r = hn(tmp_path, "demo")
    assert (r.code, r.err) == (0, "")
    blocks = r.out.split("\n\n")
    recall = next(b for b in blocks if b.startswith("$ git hn memory recall --query caching"))
    assert r.out.index(recall) > r.out.index("$ git hn memory handoff")
    assert recall.splitlines()[2] == "Matched: 1; returned: 1; truncated: false"
    assert "kind=attempt" in recall and "  Tried caching parsed envelopes across runs; invalidation was unsafe." in recall
    brief_at = r.out.index("$ git hn memory brief | head -n 13")
    brief = r.out[brief_at:r.out.index("\nMemory refs written")].rstrip("\n").splitlines()
    assert len(brief) == 1 + 13 and brief[3].startswith("Brief at commit ") and "## Handoffs" in brief
    assert brief[-1] == "```" and "Session handoff: codec and store are done." in brief
    assert r.out.index("$ git hn memory brief") > r.out.index(recall)
    # a handoff with no blocker gives no --blocker (a newcomer trial: the demo's "--blocker none"
    # signed a blocker named "none", which the brief counted and listed as one)
    handoff = next(line for line in r.out.splitlines() if line.startswith("$ git hn memory handoff"))
    assert "--blocker" not in handoff and "--next-action 'write the recall command'" in handoff


def test_plugin_is_found_by_git(repo):
    r = hn_proc(repo, "-h")
    assert r.code == 0 and r.out.startswith("usage: git hn <command>")
    r = subprocess.run(["git-hn", "--help"], cwd=repo, capture_output=True)
    assert r.returncode == 0 and r.stdout.startswith(b"usage: git hn <command>")


def test_summary_starts_a_newcomer_with_commands_that_exist(tmp_path):
    """``git hn -h`` opens with where to start; every command it names there has its own help."""
    out = hn(tmp_path, "-h").out
    start = out.split("\n\n")[1]
    assert start.startswith("Start here: 'git hn demo'")
    named = re.findall(r"'git hn ([a-z]+(?: [a-z]+)?)(?: --all)?'", start)
    assert named == ["demo", "init", "hooks install", "replication select", "sync", "policy init", "setup claude"]
    for command in ("init", "hooks install", "replication select", "sync", "policy init", "setup"):
        r = hn(tmp_path, *command.split(), "-h")
        assert r.code == 0 and "usage" in r.out.lower(), (command, r.err)


def test_summary_and_demo_say_a_selection_imports_only_with_sync_and_list_help(tmp_path):
    """An audit: ``git hn -h`` and the demo's last line said ``replication select --all``
    imports teammates' memory, though select's own hint says a selection imports nothing by
    itself (sync does, or a fetch with the hooks); and the synopsis left out ``git hn help
    [COMMAND]``, which the README's table and the completion offer."""
    out = hn(tmp_path, "-h").out
    start = " ".join(out.split("\n\n")[1].split())
    assert "'git hn replication select --all' chooses your teammates' memory and 'git hn sync' imports it" in start
    assert "select --all' imports" not in start
    assert "\ngit hn help [COMMAND]\n" in out
    assert hn(tmp_path, "help", "memory", "recall").out == hn(tmp_path, "memory", "recall", "-h").out
    demo = hn(tmp_path, "demo")
    assert demo.code == 0, demo.err
    assert "git hn replication select --all, then git hn sync (to import teammates' memory)" in demo.out


def test_summary_names_the_manual_and_its_pages_exist(tmp_path):
    """A newcomer trial: ``git hn -h`` never said there is a manual (``man git-hn``, ``git help hn``
    and ``git hn --help`` open it once installed); only the README did. Its last paragraph names
    it, and every page it names is one ``./install.sh`` installs from ``man/``."""
    out = hn_proc(tmp_path, "-h").out
    last = out.rstrip("\n").split("\n\n")[-1]
    assert last.startswith("The manual: man git-hn (or git help hn, git hn --help)"), last
    root = pathlib.Path(__file__).resolve().parents[2]
    pages = re.findall(r"man (?:(7) )?([a-z0-9-]+)", last)
    assert pages == [("", "git-hn"), ("", "git-hn-memory"), ("7", "hn-memory")]
    for section, name in pages:
        assert (root / "man" / f"{name}.{section or 1}").is_file(), name


@pytest.mark.parametrize("command", ["recall", "log", "export"])
def test_filter_help_lists_the_lifecycle_and_trust_classes(tmp_path, command):
    """A newcomer trial: ``recall -h`` and ``log -h`` said only "lifecycle class" and "trust
    class"; the values showed only in the error a wrong one gets. -h lists each class (those the
    filters take: ``limits.LIFECYCLES``, ``TRUSTS``) and the command's default."""
    from git_hn.core.limits import LIFECYCLES, TRUSTS

    r = hn_proc(tmp_path, "memory", command, "-h")
    assert r.code == 0, r.err
    text = " ".join(r.out.split())
    lifecycle = re.search(r"--lifecycle L (.*?) --trust T (.*?) --", text)
    for values, said in ((LIFECYCLES, lifecycle.group(1)), (TRUSTS, lifecycle.group(2))):
        listed = re.search(r"class: (.*?) \(repeatable", said).group(1)
        assert re.split(r", | or ", listed) == list(values), said
    default = {"recall": ("default: active", "default: qualified"),
               "log": ("default: all", "default: all"), "export": ("default: all", "default: all")}[command]
    assert default[0] in lifecycle.group(1) and default[1] in lifecycle.group(2)


def test_the_filter_help_takes_its_classes_from_the_one_list_of_them():
    """A reread: ``cli.options`` restated the lifecycle and trust classes in its own string, which
    the test above compared after the fact. The help is now made from ``limits.LIFECYCLES`` and
    ``TRUSTS`` (the same text, "a, b or c"), and options.py lists no classes itself."""
    from pathlib import Path

    from git_hn.cli import options
    from git_hn.core.gostr import or_joined
    from git_hn.core.limits import LIFECYCLES, TRUSTS

    assert or_joined(["a"]) == "a" and or_joined(["a", "b", "c"]) == "a, b or c"
    assert options.LIFECYCLE_VALUES == "active, superseded, retracted, branching or dependency-missing" \
        == or_joined(LIFECYCLES)
    assert options.TRUST_VALUES == "qualified, actor-untrusted, kind-untrusted or policy-missing" == or_joined(TRUSTS)
    source = Path(options.__file__).read_text()
    listed = [(a, b) for values in (LIFECYCLES, TRUSTS) for a, b in zip(values, values[1:])]
    assert [pair for pair in listed if f"{pair[0]}, {pair[1]}" in source or f"{pair[0]} or {pair[1]}" in source] == []


def test_every_help_fits_an_80_column_terminal(tmp_path):
    """A newcomer trial: ``git hn -h`` (static text) was wrapped at ~95 columns, so an 80-column
    terminal split it mid-word ("In you" / "r project"), and usage lines ran past 100 columns.
    Every line of every help, the summary's and each command's and group's, is at most 79."""
    from git_hn import docgen

    paths = [[], ["help"], ["memory"]] + [path for path, _cmd, _usage in docgen.tree()]
    paths += sorted({tuple(path[:1]) for path in paths if len(path) > 1})
    for path in paths:
        r = hn(tmp_path, *path, *(["-h"] if path not in ([], ["help"], ["memory"]) else []))
        assert r.code == 0 and r.out.startswith("usage: "), (path, r.err)
        wide = [line for line in r.out.splitlines() if len(line) > 79]
        assert not wide, (path, wide)


def test_command_help_lists_options(repo):
    r = hn(repo, "memory", "record", "--help")
    assert r.code == 0, r.err
    for opt in options.RECORD_OPTS:
        assert opt.name in r.out
    r = hn(repo, "memory", "show", "-h")
    assert r.code == 0 and "MEMORY" in r.out


@pytest.mark.parametrize("args,message", [
    (["frobnicate"], "unknown command \"frobnicate\"; run 'git hn help'"),
    (["identity"], "usage: git hn identity <show|list|public>; missing the identity command (git hn identity -h "
                   "also lists export, import, remove, use)"),
    (["policy"], "usage: git hn policy show [REV] [--json]; missing the policy command (git hn policy -h also lists "
                 "init, trust, untrust)"),
    (["memory", "frob"], 'unknown memory command "frob"; git hn memory -h lists them'),
    (["memory", "show", "--bogus"], "usage: git hn memory show MEMORY [--json]; unknown option --bogus"),
    (["memory", "show", "a", "b"], 'usage: git hn memory show MEMORY [--json]; unexpected argument "b"'),
    (["memory", "record", "--bogus"], "usage: git hn memory record --kind KIND --at REV --applies MODE --content TEXT; unknown option --bogus"),
    (["memory", "record", "--kind"], "usage: git hn memory record --kind KIND --at REV --applies MODE --content TEXT; --kind needs a value KIND"),
    (["memory", "record", "--json=yes"], "usage: git hn memory record --kind KIND --at REV --applies MODE --content TEXT; --json takes no value"),
    (["memory", "handoff", "--kind", "x"], "usage: git hn memory handoff --at REV --applies MODE --input FILE|- --json; "
                                           "unknown option --kind for this command (other git hn commands take it)"),
    (["memory", "handoff", "--at", "HEAD", "--applies", "descendants"],
     "usage: git hn memory handoff --at REV --applies MODE --content TEXT [record fields]; missing content "
     "(--content TEXT, --content-file PATH or one positional argument)"),
    (["init", "--name"], "usage: git hn init [--name NAME]; --name needs a value NAME"),
    (["identity", "list", "--x"], "usage: git hn identity list; unknown option --x"),
])
def test_usage_errors_are_one_line(inited, args, message):
    before = refs_snapshot(inited)
    r = hn(inited, *args)
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: {message}\n")
    assert refs_snapshot(inited) == before


def test_usage_error_through_real_process_has_no_click_hint(inited):
    r = hn_proc(inited, "memory", "show", "--bogus")
    assert (r.code, r.err) == (1, "git-hn: usage: git hn memory show MEMORY [--json]; unknown option --bogus\n")
    assert b"Try" not in r.err_bytes and b"Usage:" not in r.err_bytes


def _typer_parse(argv):
    """Parse with the typer/click command of ``memory record`` and return its values."""
    cmd = appmod.click_command().commands["memory"].commands["record"]
    ctx = cmd.make_context("record", list(argv))
    params = dict(ctx.params)
    positional = params.pop("positional") or []
    for o in options.RECORD_OPTS:
        if o.multiple:
            params[o.dest] = list(params[o.dest] or [])
    return params, list(positional)


@pytest.mark.parametrize("argv", [
    ["--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "x"],
    ["--kind=decision", "--at=HEAD", "--applies=exact", "positional"],
    ["positional", "--kind", "decision", "--topic", "a", "--topic", "b", "--json"],
    ["--kind", "a", "--", "--not-an-option"],
    ["--evidence", "git:1", "--path", "p", "--blob", "b", "--next-action", "n", "--allow-secret-shaped"],
    ["--input", "-", "--json"],
    ["-"],
])
def test_fast_parser_matches_typer(argv):
    fast_values, fast_pos = options.parse(argv, options.RECORD_OPTS, "usage")
    typer_values, typer_pos = _typer_parse(argv)
    assert fast_values == typer_values
    assert fast_pos == typer_pos


@pytest.mark.parametrize("argv", [["--content", "--json", "--kind", "k"], ["--topic", "--content=x"],
                                  ["--at", "-h"], ["--kind", "--"]])
def test_both_parsers_refuse_an_option_as_a_value(argv):
    """(``--content --json`` was the content "--json" in both; now a missing value in both.)"""
    from git_hn.errors import UsageError

    with pytest.raises(UsageError) as fast:
        options.parse(argv, options.RECORD_OPTS, "usage")
    with pytest.raises(UsageError) as typer_:
        _typer_parse(argv)
    reason = fast.value.message.partition("; ")[2]
    assert "needs a value" in reason and typer_.value.message.endswith(reason)


TABLES = {"record": options.RECORD_OPTS, "handoff": options.HANDOFF_OPTS, "recall": options.RECALL_OPTS,
          "show": options.SHOW_OPTS, "brief": options.BRIEF_OPTS, "digest": options.DIGEST_OPTS,
          "retract": options.RETRACT_OPTS, "challenge": options.CHALLENGE_OPTS,
          "supersede": options.SUPERSEDE_OPTS}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_fast_and_typer_option_tables_agree(name):
    """Every ``git hn memory`` command parsed without typer declares the same options to typer
    (both take the global ones, ``options.GLOBAL_OPTS``, whether its table lists them or not)."""
    opts = TABLES[name]
    cmd = appmod.click_command().commands["memory"].commands[name]
    names = sorted(n for p in cmd.params for n in getattr(p, "opts", []) if n.startswith("-"))
    assert names == sorted({o.name for o in (*opts, *options.GLOBAL_OPTS)})
    assert options.parse([], opts, "usage")[0]["no_color"] is False  # (the fast parser's too)
    multiple = sorted(p.opts[0] for p in cmd.params if getattr(p, "multiple", False))
    assert multiple == sorted(o.name for o in opts if o.multiple)


@pytest.mark.parametrize("args", [
    ["memory", "show"], ["memory", "show", "a", "b"], ["memory", "show", "--bogus", "x"],
    ["memory", "brief", "--max-bytes"], ["memory", "brief", "extra"], ["memory", "brief", "--json", "--markdown"],
    ["memory", "digest", "--month"], ["memory", "digest", "x"], ["memory", "retract", "a", "b"],
    ["memory", "retract", "--reason"], ["memory", "challenge", "--evidence"], ["memory", "supersede"],
    ["memory", "brief", "--max-bytes", "many"],
])
def test_typer_free_commands_fail_as_the_typer_commands_do(inited, args):
    """The same usage errors whichever parser ran (typer runs for the -h path only)."""
    from git_hn.cli import app as appmod_

    fast = hn(inited, *args)
    try:
        appmod_.run_app(list(args))
        typer_err = None
    except Exception as exc:  # noqa: BLE001 - the usage error both must raise
        typer_err = getattr(exc, "message", str(exc))
    assert fast.code == 1 and fast.err == f"git-hn: {typer_err}\n", (fast.err, typer_err)


def test_internal_error_prints_no_key_material(inited):
    """An unexpected exception prints one line with its type only: no locals, no secrets."""
    hn_dir = inited / ".git" / "hn"
    actor = (hn_dir / "active").read_text()[:-1]
    secret = json.loads((hn_dir / "identities" / f"{actor}.json").read_text())["privateKey"]
    code = (
        "import sys\n"
        "from git_hn.store import append\n"
        "def boom(*a, **k):\n"
        "    seed = a[1].private_key\n"
        "    raise RuntimeError('leak ' + seed)\n"
        "append.append = boom\n"
        "import git_hn.service.memory as m; m.append = boom\n"
        "from git_hn.cli.main import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, "memory", "record", "--kind", "decision",
                           "--at", "HEAD", "--applies", "exact", "--content", "x"],
                          cwd=inited, capture_output=True, env=dict(os.environ))
    assert proc.returncode == 1
    assert proc.stderr == b"git-hn: internal error: RuntimeError\n"
    assert secret.encode() not in proc.stdout + proc.stderr
    assert b"Traceback" not in proc.stderr


def test_typer_pretty_exceptions_are_off():
    assert appmod.app.pretty_exceptions_enable is False
    assert appmod.app.pretty_exceptions_show_locals is False


def test_json_output_is_one_compact_line(inited):
    r = hn(inited, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "exact", "--content", "x")
    assert r.out.count("\n") == 1 and r.out.endswith("}\n") and ": " not in r.out
    doc = json.loads(r.out)
    assert list(doc) == ["version", "memoryId", "stream", "actor", "anchor"]
    assert doc["anchor"] == {"commit": git(inited, "rev-parse", "HEAD")}


def test_recall_fast_and_typer_option_tables_agree():
    cmd = appmod.click_command().commands["memory"].commands["recall"]
    names = sorted(n for p in cmd.params for n in getattr(p, "opts", []) if n.startswith("-"))
    assert names == sorted(o.name for o in options.RECALL_OPTS)
    argv = ["--topic", "a", "--max-records=5", "--include-untrusted", "--kind", "x", "--kind", "y"]
    fast, pos = options.parse(argv, options.RECALL_OPTS, "usage")
    ctx = cmd.make_context("recall", list(argv))
    params = dict(ctx.params)
    params.pop("positional")
    for o in options.RECALL_OPTS:
        if o.multiple:
            params[o.dest] = list(params[o.dest] or [])
    assert fast == params and pos == []


@pytest.mark.parametrize("args", [("memory", "recall", "--json"), ("memory", "export"), ("memory", "log")])
def test_a_full_output_device_is_one_line_not_an_internal_error(inited, args):
    assert hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "something to print").code == 0
    with open("/dev/full", "w") as full:
        proc = subprocess.run(["git-hn", *args], cwd=inited, stdout=full, stderr=subprocess.PIPE, timeout=60)
    assert (proc.returncode, proc.stderr) == (1, b"git-hn: cannot write the output: No space left on device\n")


@pytest.mark.parametrize("command,option", [("recall", "--path"), ("recall", "--query"), ("recall", "--subject"),
                                            ("log", "--path"), ("log", "--query"), ("export", "--subject")])
def test_a_one_value_filter_given_twice_is_refused(inited, command, option):
    """``--path a --path b`` kept only the last one, silently (``--topic`` and ``--kind`` repeat,
    so neither AND nor OR could be assumed): one usage line says what to do instead."""
    value = {"--path": "a.py", "--query": "word", "--subject": "issue:sha256:" + "a" * 64}[option]
    r = hn(inited, "memory", command, option, value, f"{option}={value}")
    assert r.code == 1 and r.out == "", r.out  # (git-hn's usage errors exit 1)
    assert r.err.count("\n") == 1 and f"{option} was given twice: it takes one value (" in r.err, r.err
    # the contract's usage text first for recall; git-hn's own commands say the reason first
    assert r.err.startswith("git-hn: usage: " if command == "recall" else f"git-hn: {option} was given twice"), r.err
    if option == "--query":
        assert "--query 'a OR b' (either)" in r.err
    assert hn(inited, "memory", command, option, value).code == 0


@pytest.mark.parametrize("args", [
    ["record", "--kind", "observation", "--kind", "decision", "--at", "HEAD", "--applies", "exact"],
    ["record", "--kind", "decision", "--at", "HEAD", "--at=HEAD~1", "--applies", "exact"],
    ["record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--applies", "descendants"],
    ["record", "--kind", "attempt", "--outcome", "failed", "--outcome", "succeeded", "--at", "HEAD",
     "--applies", "exact"],
    ["handoff", "--at", "HEAD", "--applies", "exact", "--stream", "sha256:" + "1" * 64,
     "--stream", "sha256:" + "2" * 64],
])
def test_a_signed_value_given_twice_is_refused_and_nothing_is_signed(inited, args):
    """``--kind observation --kind decision`` signed a decision: the last value won, silently, in a
    memory that can never be changed. One usage line now, and no ref moves."""
    before = refs_snapshot(inited)
    r = hn(inited, "memory", *args, "--content", "x")
    assert r.code == 1 and r.out == "" and r.err.count("\n") == 1, r.err
    assert "was given twice: it takes one value (a signed memory cannot be changed later: give the one " \
           "you mean)" in r.err
    assert refs_snapshot(inited) == before


def test_a_lifecycle_reason_given_twice_is_refused(inited):
    mid = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
             "--content", "x", "--json").json()["memoryId"]
    before = refs_snapshot(inited)
    for op in ("retract", "challenge"):
        r = hn(inited, "memory", op, mid, "--reason", "incorrect", "--reason", "obsolete")
        assert r.code == 1 and "; --reason was given twice: it takes one value" in r.err, r.err
    assert refs_snapshot(inited) == before


def test_version_names_a_build_that_changes_with_the_code_alone(tmp_path):
    """Upgrade trial S100 #2: every build said ``git-hn 0.1.0``, so nobody could confirm an
    upgrade took effect. The build is a digest of the package's bytes: a copy (a reinstall of the
    same code: new files, new times) keeps it, one changed byte changes it; ``--json`` and the
    human line say the same build."""
    import shutil
    import sys

    import git_hn

    def build(where):
        env = {**os.environ, "PYTHONPATH": str(where)}
        human = subprocess.run([sys.executable, "-m", "git_hn", "version"], env=env, cwd=tmp_path,
                               capture_output=True, text=True, check=True).stdout
        doc = json.loads(subprocess.run([sys.executable, "-m", "git_hn", "version", "--json"], env=env,
                                        cwd=tmp_path, capture_output=True, text=True, check=True).stdout)
        assert human == f"git-hn {doc['version']} (build {doc['build']})\n"
        return doc["build"]

    src = pathlib.Path(git_hn.__file__).parent
    for name in ("a", "b"):
        shutil.copytree(src, tmp_path / name / "git_hn", ignore=shutil.ignore_patterns("__pycache__"))
    assert build(tmp_path / "a") == build(tmp_path / "b")
    hooks = tmp_path / "b" / "git_hn" / "hookscripts.py"
    hooks.write_text(hooks.read_text() + "\n# a fix\n")
    assert build(tmp_path / "a") != build(tmp_path / "b")
