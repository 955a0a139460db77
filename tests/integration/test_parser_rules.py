"""One rule for the values of options on both command-line parsers (CONTRACT §10.1; a differential
trial of the fast path, ``cli/options.parse``, and the typer app): an empty value and a value given
twice are usage errors on every command, whichever parser reads them, in real git-hn processes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import Result, git, hn, hn_proc, refs_snapshot

# git-hn's own main(), its dispatch sending every argv to the typer app (the trial's harness)
_TYPER = ("import sys\n"
          "from git_hn.cli import app, main as M\n"
          "M.dispatch = app.run_app\n"
          "sys.exit(M.main(sys.argv[1:]))\n")


def typer_proc(cwd, *args) -> Result:
    proc = subprocess.run([sys.executable, "-c", _TYPER, *args], cwd=cwd, capture_output=True, timeout=120)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def _both(cwd, *args) -> list[Result]:
    return [hn_proc(cwd, *args), typer_proc(cwd, *args)]


def _refused(results, reason: str) -> None:
    for r in results:
        assert (r.code, r.out) == (1, ""), r.err
        assert r.err.count("\n") == 1 and r.err.startswith("git-hn: ") and reason in r.err, r.err


@pytest.fixture
def attempt(inited):
    r = hn(inited, "memory", "record", "--kind", "attempt", "--at", "HEAD", "--applies", "exact",
           "--outcome", "failed", "--content", "t", "--json")
    return r.json()["memoryId"]


@pytest.mark.parametrize("args,option,what", [
    (["memory", "recall", "--path", ""], "--path", "a path"),
    (["memory", "recall", "--subject="], "--subject", "an ID"),
    (["memory", "recall", "--at", ""], "--at", "a revision"),
    (["memory", "recall", "--cursor", ""], "--cursor", "a cursor"),
    (["memory", "recall", "--rank", ""], "--rank", "default or relevance"),
    (["memory", "recall", "--max-records", ""], "--max-records", "a number"),
    (["memory", "log", "--path", ""], "--path", "a path"),
    (["memory", "brief", "--at", ""], "--at", "a revision"),
    (["memory", "brief", "--base", ""], "--base", "a revision"),
    (["memory", "view", "--at", ""], "--at", "a revision"),
    (["memory", "export", "--at", ""], "--at", "a revision"),
    (["memory", "export", "--format", ""], "--format", "jsonl or markdown"),
    (["memory", "record", "--kind", "decision", "--at", "", "--applies", "exact", "--content", "x"], "--at",
     "a revision"),
    (["init", "--name", ""], "--name", "a name"),
    (["identity", "export", "--output", ""], "--output", "a file name"),
    (["mcp", "--repo="], "--repo", "a path"),
])
def test_an_empty_value_is_refused_not_taken_as_not_given(inited, args, option, what):
    """``--at "$REV"`` with REV unset meant HEAD, an unfiltered recall, or user.name as the
    signed display name: now the option is named, on both parsers."""
    before = refs_snapshot(inited)
    results = [hn_proc(inited, *args)] + ([] if args[0] == "mcp" else [typer_proc(inited, *args)])
    _refused(results, f"{option} is empty: give {what}, or leave the option out")
    assert refs_snapshot(inited) == before


@pytest.mark.parametrize("field", ["--kind", "--applies", "--at"])
def test_supersede_refuses_an_empty_field_rather_than_signing_the_targets(inited, attempt, field):
    """``supersede ID --kind '' --at ''`` signed the target's kind and anchor: the empty value
    counted as not given, for good."""
    before = refs_snapshot(inited)
    _refused(_both(inited, "memory", "supersede", attempt, field, "", "--content", "new"), f"{field} is empty: ")
    assert refs_snapshot(inited) == before
    # --subject "" is a value there: it clears the target's subject (docs/decisions.md, f26)
    assert hn_proc(inited, "memory", "supersede", attempt, "--subject", "", "--content", "new").code == 0


def test_policy_show_of_an_empty_revision_is_refused(inited):
    _refused(_both(inited, "policy", "show", ""), "REV is empty: give a revision, or leave it out")


@pytest.mark.parametrize("name", ["   ", "\u200b", "\u2060\u200b", " \u200b "])
def test_init_refuses_a_blank_or_invisible_name_instead_of_user_name(repo, name):
    """``--name '   '`` signed as git config user.name; an invisible name was signed as it was."""
    git(repo, "config", "user.name", "Configured")
    r = hn_proc(repo, "init", "--name", name)
    assert (r.code, r.err) == (1, "git-hn: identity name cannot be signed: it holds control characters or no "
                                  "visible text; choose another with --name NAME\n")
    assert not (repo / ".git" / "hn" / "active").exists()


@pytest.mark.parametrize("args,reason", [
    (["init", "--name", "A", "--name", "B"], "--name was given twice: it takes one value (give the one you mean)"),
    (["memory", "record", "--kind", "decision", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
      "--content", "x"], "--kind was given twice: it takes one value (a signed memory cannot be changed later"),
    (["memory", "recall", "--query", "a", "--query", "b"], "--query was given twice: it takes one value (put"),
    (["memory", "recall", "--at", "HEAD", "--at", "HEAD"], "--at was given twice: it takes one value (give the one"),
    (["memory", "brief", "--at", "HEAD", "--at=HEAD"], "--at was given twice: it takes one value"),
    (["memory", "view", "--at", "HEAD", "--at", "HEAD"], "--at was given twice: it takes one value"),
    (["memory", "export", "--format", "jsonl", "--format", "markdown"], "--format was given twice: it takes one"),
    (["memory", "export", "--output", "f", "--output", "-"], "--output was given twice: it takes one value"),
    (["memory", "recall", "--max-records", "1", "--max-records", "2"], "--max-records was given twice: it takes"),
    (["replication", "select", "--max-events", "5", "--max-events", "6"], "--max-events was given twice: it takes"),
    # a switch, the same everywhere (sync, mcp and version refused it; show and select did not)
    (["memory", "show", "deadbeef", "--json", "--json"], "--json was given twice"),
    (["memory", "recall", "--json", "--json"], "--json was given twice"),
    (["replication", "select", "--all", "--all"], "--all was given twice"),
    (["sync", "--json", "--json"], "--json was given twice"),
    (["version", "--json", "--json"], "--json was given twice"),
])
def test_a_value_given_twice_is_refused_on_both_parsers(inited, args, reason):
    """One rule: ``init --name A --name B`` signed B and ``export --output F --output -`` wrote to
    stdout (the last one won, silently), while ``record --kind a --kind b`` was refused."""
    before = refs_snapshot(inited)
    results = [hn_proc(inited, *args)] + ([] if args[0] in ("sync", "version") else [typer_proc(inited, *args)])
    _refused(results, reason)
    assert refs_snapshot(inited) == before
    assert not (inited / "f").exists()


BIG = "1" + "0" * 4400  # (past Python's 4,300-digit int() limit)


@pytest.mark.parametrize("args,reason", [
    (["memory", "recall", "-n", BIG], "-n takes a whole number up to 2^63-1"),
    (["memory", "recall", "--max-records", BIG], "--max-records takes a whole number up to 2^63-1"),
    (["memory", "recall", "--max-bytes", BIG], "--max-bytes takes a whole number up to 2^63-1"),
    (["memory", "recall", "--max-content-bytes", BIG], "--max-content-bytes takes a whole number up to 2^63-1"),
    (["memory", "brief", "--max-bytes", BIG], "--max-bytes takes a whole number up to 2^63-1"),
    (["memory", "log", "-n", BIG], "-n takes a whole number up to 2^63-1"),
    (["memory", "log", "-" + BIG], "-n takes a whole number up to 2^63-1"),
    (["memory", "log", "-n" + BIG], "-n takes a whole number up to 2^63-1"),
    (["replication", "select", "--max-events", BIG], "--max-events takes a whole number up to 2^63-1"),
    (["hooks", "run", "publish", "origin", "\u00b2"], "the publisher's last argument is the push's process ID"),
    (["hooks", "run", "publish", "origin", "9" * 20], "the publisher's last argument is the push's process ID"),
])
def test_a_number_of_thousands_of_digits_is_a_usage_error_not_an_internal_one(inited, args, reason):
    r = hn_proc(inited, *args, input=b"")
    _refused([r], reason)
    assert "internal error" not in r.err


def test_identity_import_refuses_an_invisible_name(inited, tmp_path):
    """The same check at ``identity import`` (a file written by hand, or by another tool)."""
    import json

    exported = tmp_path / "id.json"
    assert hn_proc(inited, "identity", "export", "--output", str(exported)).code == 0
    doc = json.loads(exported.read_text())
    doc["name"] = "\u200b"
    exported.write_text(json.dumps(doc))
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", str(other))
    r = hn_proc(other, "identity", "import", str(exported))
    assert (r.code, r.out) == (1, ""), r.err
    assert "identity name cannot be signed: it holds control characters or no visible text; no memory could be " \
           "recorded with this identity, so it is not imported" in r.err, r.err


@pytest.mark.parametrize("args", [
    ["memory", "view", "--output"], ["memory", "export", "--output"], ["identity", "export", "--output"],
    ["mcp", "--repo"],
])
@pytest.mark.parametrize("where", ["", "/nonexistent/"])
def test_an_error_cuts_a_long_path_it_repeats(inited, args, where):
    """(a 100,000-character --output made a 100,013-character error line; everything else cuts what
    it repeats at 80 characters and "…", docs/decisions.md)"""
    r = hn_proc(inited, *args, where + "a" * 100_000, input=b"")
    assert r.code == 1 and r.err.count("\n") == 1 and "aaaa…" in r.err, r.err[:300]
    assert len(r.err) < 400, r.err[:300]


@pytest.mark.parametrize("args,reason", [
    (["memory", "recall", "-5"], 'unknown option "-5"'),
    (["memory", "brief", "-5"], 'unknown option "-5"'),
    (["memory", "recall", "--\x1bx"], "unknown option"),
    (["memory", "log", "-\uff15"], "unknown option"),
    (["version", "-5"], 'unknown option "-5"'),
    (["mcp", "-5"], 'unknown option "-5"'),
])
def test_a_command_without_operands_is_not_told_to_put_an_argument_after_dashes(inited, args, reason):
    """``recall -5`` was told "an argument that starts with - goes after --", and ``recall -- -5``
    then said "unexpected argument", naming nothing: advice that cannot work."""
    for r in [hn_proc(inited, *args)] + ([] if args[0] in ("version", "mcp") else [typer_proc(inited, *args)]):
        _refused([r], reason)
        assert "goes after --" not in r.err and "\x1b" not in r.err
    # a command that takes a word keeps the advice, and it works there
    _refused([hn_proc(inited, "memory", "show", "-5")], 'unknown option "-5"; an argument that starts with - goes '
                                                          "after --")


def test_an_unexpected_dash_number_is_named(inited):
    for args in (["memory", "log", "--", "-5"], ["memory", "recall", "--", "-5"]):
        _refused([hn_proc(inited, *args)], 'unexpected argument "-5"')


@pytest.mark.parametrize("args,usage", [
    (["memory", "recall", "--bogus", "-h"], "usage: git hn memory recall [OPTIONS]"),
    (["memory", "recall", "-h", "--bogus"], "usage: git hn memory recall [OPTIONS]"),
    (["init", "--bogus", "--help"], "usage: git hn init [OPTIONS]"),
    (["version", "--json", "-h"], "usage: git hn version [OPTIONS]"),
    (["memory", "index", "bogus", "-h"], "usage: git hn memory index <command> [options]"),
    (["-h", "memory"], "usage: git hn memory <command> [options]"),
    (["--help", "memory", "recall"], "usage: git hn memory recall [OPTIONS]"),
    (["help", "--no-color", "memory"], "usage: git hn memory <command> [options]"),
])
def test_dash_h_anywhere_before_dashes_prints_that_commands_help(inited, args, usage):
    """(``recall --bogus -h`` failed "unknown option --bogus", ``version --json -h`` "unknown
    option -h", and ``git hn -h memory`` printed the top summary, while ``recall extra -h`` and
    ``git hn help memory`` printed the command's help.) Run as git-hn itself: ``git hn --help``
    is Git's (it opens the manual page)."""
    proc = subprocess.run(["git-hn", *args], cwd=inited, capture_output=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (0, b""), proc.stderr
    assert proc.stdout.decode().startswith(usage + "\n"), proc.stdout[:200]


@pytest.mark.parametrize("args,reason", [
    (["-n", "9" * 20], "-n takes a whole number up to 2^63-1"),  # (log said "0 or more"; recall this)
    (["--max-count", "9" * 20], "--max-count takes a whole number up to 2^63-1"),
    (["-n-1"], "-n takes 0 or more"),  # (was "unknown option -n-1", while -n -1 was a count)
    (["-n", "-1"], "-n takes 0 or more"),
    (["-nx"], "-n takes a whole number"),
    (["-1", "-2"], "give -n N, -N or --max-count N once"),
])
def test_log_counts_follow_recalls_rule(inited, args, reason):
    _refused([hn_proc(inited, "memory", "log", *args)], f"git-hn: {reason}; git hn memory log -h shows the options")
    # git's strtol takes these, and so does every count of git-hn's
    assert hn_proc(inited, "memory", "log", "-n", "+5").code == hn_proc(inited, "memory", "log", "-n", " 5").code == 0


@pytest.mark.parametrize("args,message", [
    # a question, then what follows: in parentheses (a "?;" was misread, mistyped.choice says)
    (["version", "--jsn"], "unknown option --jsn; did you mean --json? (usage: git hn version [--json])"),
    (["memory", "log", "--knd", "x"], "unknown option --knd; did you mean --kind? (git hn memory log -h shows the "
                                      "options)"),
    # which option, with its dashes, after the contract's text
    (["memory", "brief", "--max-bytes", "0"], "brief bound must be positive; --max-bytes takes 1 or more"),
    (["replication", "select", "--all", "--max-events", "0"],
     "max-events must be a positive integer; --max-events takes 1 or more"),
    # a byte that is not UTF-8, as Git and a shell spell it
    (["memory", "show", "\udcffaa"], "memory \\xffaa was not found"),
    (["\udcff"], 'unknown command "\\xff"'),
])
def test_error_wording(inited, args, message):
    r = hn_proc(inited, *[a.encode("utf-8", "surrogateescape") for a in args])
    _refused([r], f"git-hn: {message}")
