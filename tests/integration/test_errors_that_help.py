"""Errors that say what to do (issue 14 item 4; CONTRACT §0.5, §10.1).

Each error keeps the text the contract fixes first and appends the help after ``; ``: the unknown
option and the closest known one, the missing option, the valid values of an enumeration with the
closest one, the server's reason for refusing a publication and the ways out. Every error stays
one line on stderr with exit status 1, and echoes no secret the user typed.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from helpers import (actor_of, git, hn, named, record_doc, record_id, refs_snapshot, shared_remote, unhinted,
                     wait_publication)

RECORD_USAGE = "usage: git hn memory record --kind KIND --at REV --applies MODE --content TEXT"
RECALL_USAGE = "usage: git hn memory recall [filters] [bounds] [--json]"
SUPERSEDE_USAGE = "usage: git hn memory supersede MEMORY [record fields]"
KINDS = "observation, decision, assumption, attempt, verification, handoff"
OUTCOMES = "succeeded, failed, partial, abandoned"
BASE = ["memory", "record", "--at", "HEAD", "--content", "x"]

WAY = ("; git hn memory log lists the IDs this clone holds, and git hn sync REMOTE imports a "
       "teammate's")


def _fails_with(repo, args, message, input: bytes = b""):
    before = refs_snapshot(repo)
    r = hn(repo, *args, input=input)
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: {message}\n"), args
    assert refs_snapshot(repo) == before
    return r


@pytest.mark.parametrize("args,message", [
    (["memory", "recall", "--qurey", "x"], f"{RECALL_USAGE}; unknown option --qurey; did you mean --query?"),
    (["memory", "record", "--kidn", "decision"], f"{RECORD_USAGE}; unknown option --kidn; did you mean --kind?"),
    (["memory", "show", "--jsn"], "usage: git hn memory show MEMORY [--json]; unknown option --jsn; "
                                  "did you mean --json?"),
    (["memory", "brief", "--bogus"], "usage: git hn memory brief [--at REV] [--max-bytes N] [--include-untrusted] "
                                     "[--json|--markdown]; unknown option --bogus"),
    (["sync", "--recover-shalow"], "usage: git hn sync [REMOTE] [--recover-shallow] [--rebase] [--json]; unknown option "
                                   "--recover-shalow; did you mean --recover-shallow?"),
])
def test_unknown_option_is_named_with_the_closest_known_one(inited, args, message):
    _fails_with(inited, args, message)


@pytest.mark.parametrize("args,message", [
    (["policy", "show", "--jsn"], "usage: git hn policy show [REV] [--json]; unknown option --jsn; "
                                  "did you mean --json?"),
    (["init", "--nmae", "x"], "usage: git hn init [--name NAME]; unknown option --nmae; did you mean --name?"),
    (["replication", "select", "--al"], "usage: git hn replication select [REMOTE] [--actor ACTOR]... "
     "[--proposal ID]... [--memory STREAM]... [--all] [budgets]; unknown option --al; did you mean --all?"),
    (["init", "--name"], "usage: git hn init [--name NAME]; --name needs a value NAME"),
])
def test_commands_parsed_by_typer_say_the_same_in_one_line(inited, args, message):
    _fails_with(inited, args, message)


SHOW_USAGE = "usage: git hn memory show MEMORY [--json]"
BRIEF_USAGE = "usage: git hn memory brief [--at REV] [--max-bytes N] [--include-untrusted] [--json|--markdown]"
SYNC_USAGE = "usage: git hn sync [REMOTE] [--recover-shallow] [--rebase] [--json]"


@pytest.mark.parametrize("args,message", [
    (["memory", "recall", "--max-records", "abc"], f"{RECALL_USAGE}; --max-records takes a whole number"),
    (["memory", "recall", "--max-records=1.5"], f"{RECALL_USAGE}; --max-records takes a whole number"),
    (["memory", "recall", "--max-content-bytes", "1e3"], f"{RECALL_USAGE}; --max-content-bytes takes a whole number"),
    (["memory", "recall", "--max-records", "9" * 20], f"{RECALL_USAGE}; --max-records takes a whole number up to 2^63-1"),
    (["memory", "brief", "--max-bytes", "abc"], f"{BRIEF_USAGE}; --max-bytes takes a whole number"),
    (["replication", "select", "--all", "--max-events", "ten"],
     "usage: git hn replication select [REMOTE] [--actor ACTOR]... [--proposal ID]... [--memory STREAM]... "
     "[--all] [budgets]; --max-events takes a whole number"),
    (["memory", "show", "0123abcd", "extra"], f'{SHOW_USAGE}; unexpected argument "extra"'),
    (["memory", "show", "0123abcd", "extra", "more"], f'{SHOW_USAGE}; unexpected argument "extra" and 1 more'),
    (["memory", "show"], f"{SHOW_USAGE}; missing MEMORY"),
    (["memory", "recall", "extra"], f'{RECALL_USAGE}; unexpected argument "extra"'),
    (["memory", "brief", "main"], f'{BRIEF_USAGE}; unexpected argument "main"'),
    (["memory", "brief", "--json", "--markdown"],
     f"{BRIEF_USAGE}; --json and --markdown exclude each other (the brief is one or the other)"),
    (["memory", "recall", "--trust", "trusted"], "invalid trust filter; did you mean qualified? (valid: qualified, "
                                                 "actor-untrusted, kind-untrusted, policy-missing)"),
    (["memory", "recall", "--topic", "a\x01b"], "invalid topic filter; a topic holds no control characters"),
    (["memory", "retract", "0123abcd", "obsolete", "--reason", "obsolete"],
     'usage: git hn memory retract MEMORY --reason REASON; unexpected argument "obsolete"'),
    (["sync", "origin", "upstream"], f'{SYNC_USAGE}; unexpected argument "upstream"'),
    (["init", "alice"], 'usage: git hn init [--name NAME]; unexpected argument "alice"'),
    # parsed by typer (click): its reason, in the same words
    (["identity", "show", "extra"], 'usage: git hn identity show; unexpected argument "extra"'),
    (["policy", "show", "HEAD", "extra"], 'usage: git hn policy show [REV] [--json]; unexpected argument "extra"'),
    (["hooks", "install", "a", "b"], "usage: git hn hooks install|uninstall|status [--global]; unexpected arguments"),
])
def test_a_usage_error_says_what_was_wrong(inited, args, message):
    _fails_with(inited, args, message)


def test_an_error_repeats_at_most_a_short_prefix_of_an_argument(inited):
    """A trial's case: ``memory show`` given 100,000 characters answered with a 100,170-byte
    error line, and ``recall --topic`` of that length said only ``invalid topic filter``. An
    error repeats at most 80 characters of an argument, then "…", and says why a topic is
    refused without repeating it."""
    huge = 100_000
    _fails_with(inited, ["memory", "show", "a" * huge], f"memory {'a' * 80}… was not found in verified local or "
                "accepted streams; a memory is named by its ID (sha256: and 64 lowercase hex digits) or by at least "
                f"8 of its first ones (this one has {huge} digits)")
    _fails_with(inited, ["memory", "recall", "--at", "r" * huge], f"revision {'r' * 80}… is not a commit")
    _fails_with(inited, ["memory", "brief", "--at", "r" * huge], f"revision {'r' * 80}… is not a commit")
    _fails_with(inited, ["memory", "recall", "--topic", "t" * huge],
                f"invalid topic filter; a topic is at most 128 bytes (this one is {huge})")
    _fails_with(inited, ["nonsense" * 20], f'unknown command "{("nonsense" * 20)[:80]}…"; run \'git hn help\'')
    full = "sha256:" + "0" * 64  # (a full memory ID is never cut)
    _fails_with(inited, ["memory", "show", full], f"memory {full} was not found in verified local or accepted "
                                                   f"streams{WAY}")


@pytest.mark.parametrize("args", [
    ["memory", "recall", "--max-records", "{secret}"],
    ["memory", "brief", "--max-bytes={secret}"],
    ["memory", "show", "0123abcd", "{secret}"],
    ["memory", "recall", "{secret}"],
    ["identity", "show", "{secret}"],
    ["sync", "origin", "{secret}"],
])
@pytest.mark.parametrize("secret", ["ghp_" + "A1b2C3d4" * 5, "hunter2password", "a1b2c3d4e5f6a7b8c9d0e1f2"])
def test_a_bad_value_or_stray_argument_is_never_echoed(inited, args, secret):
    """A token or password pasted where a number or nothing belongs is not repeated into a
    terminal log (a review: a lowercase password with a digit, and a hex key, were quoted)."""
    r = hn(inited, *[a.format(secret=secret) for a in args])
    assert r.code == 1 and r.err.count("\n") == 1 and r.err.startswith("git-hn: usage: ")
    assert secret not in r.err and secret.lower() not in r.err.lower()
    assert r.err.rstrip("\n").endswith(("takes a whole number", "unexpected argument"))


@pytest.mark.parametrize("args,message", [
    (["memroy", "recall"], "unknown command \"memroy\"; run 'git hn help'; did you mean memory?"),
    (["memory", "recal"], 'unknown memory command "recal"; did you mean recall?'),
    (["policy", "shwo"], 'unknown policy command "shwo"; did you mean show?'),
    (["memory", "frob"], 'unknown memory command "frob"; git hn memory -h lists them'),  # nothing close
    # a group's command without its group: the group named (memory's first, where two have it)
    (["log"], "unknown command \"log\"; run 'git hn help'; did you mean git hn memory log?"),
    (["recal"], "unknown command \"recal\"; run 'git hn help'; did you mean git hn memory recall?"),
    (["show", "abc"], "unknown command \"show\"; run 'git hn help'; did you mean git hn memory show?"),
    (["status"], "unknown command \"status\"; run 'git hn help'; did you mean git hn hooks status?"),
    (["fetch"], "unknown command \"fetch\"; run 'git hn help'; did you mean git hn sync?"),
])
def test_unknown_commands_suggest_the_closest(inited, args, message):
    _fails_with(inited, args, message)


def test_an_unknown_option_never_echoes_its_value(inited):
    """A token pasted as ``--tokn=<secret>`` is not repeated into a terminal log or CI output."""
    secret = "ghp_" + "A1b2C3d4" * 5
    r = _fails_with(inited, ["memory", "recall", f"--tokn={secret}"], f"{RECALL_USAGE}; unknown option --tokn")
    assert secret not in r.err
    r = hn(inited, "policy", "show", f"--jsn={secret}")
    assert r.code == 1 and secret not in r.err and r.err.count("\n") == 1
    # content or a token that starts with "-" is not an option name: not echoed, and the way to
    # pass it is said
    r = _fails_with(inited, [*BASE, "--kind", "decision", "--applies", "exact", "-" + secret],
                    f"{RECORD_USAGE}; unknown option; an argument that starts with - goes after --")
    assert secret not in r.err


def test_an_option_value_problem_names_the_option(inited):
    _fails_with(inited, ["memory", "record", "--kind"], f"{RECORD_USAGE}; --kind needs a value KIND")
    _fails_with(inited, ["memory", "record", "--json=yes"], f"{RECORD_USAGE}; --json takes no value")


def test_missing_required_options_are_named(inited):
    _fails_with(inited, [*BASE, "--kind", "decision"], f"{RECORD_USAGE}; missing --applies")
    _fails_with(inited, ["memory", "record", "--content", "x"], f"{RECORD_USAGE}; missing --kind, --at, --applies")
    _fails_with(inited, ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact"],
                f"{RECORD_USAGE}; missing content (--content TEXT, --content-file PATH or one positional "
                "argument)")
    # an unsupported --kind or --applies is said with what is missing (a trial: "--kind note" was
    # told of the missing --at, then of the kind on the next try); the value is not repeated
    r = _fails_with(inited, ["memory", "record", "--kind", "note", "--content", "x"],
                    f"{RECORD_USAGE}; missing --at, --applies; also, that --kind is unsupported: valid: {KINDS}")
    assert "note" not in r.err
    _fails_with(inited, ["memory", "record", "--kind", "decison", "--applies", "exac"],
                f"{RECORD_USAGE}; missing --at, content (--content TEXT, --content-file PATH or one positional "
                f"argument); also, that --kind is unsupported: did you mean decision? (valid: {KINDS}); also, that "
                "--applies is unsupported: did you mean exact? (valid: exact, descendants, subject)")


@pytest.mark.parametrize("args,message", [
    (["--kind", "decison", "--applies", "exact"],
     f"memory record kind is unsupported; did you mean decision? (valid: {KINDS})"),
    (["--kind", "rumour", "--applies", "exact"], f"memory record kind is unsupported; valid: {KINDS}"),
    (["--kind", "decision", "--applies", "descendant"],
     "memory applicability mode is unsupported; did you mean descendants? (valid: exact, descendants, subject)"),
    (["--kind", "attempt", "--applies", "exact", "--outcome", "maybe"],
     f"memory attempt outcome is unsupported; valid: {OUTCOMES}"),
    (["--kind", "attempt", "--applies", "exact", "--outcome", "fail"],
     f"memory attempt outcome is unsupported; did you mean failed? (valid: {OUTCOMES})"),
    (["--kind", "decision", "--applies", "exact", "--outcome", "failed"],
     "memory decision record has invalid fields; --outcome is only for kind attempt"),
])
def test_record_enumerations_list_the_valid_values_and_suggest(inited, args, message):
    _fails_with(inited, [*BASE, *args], message)


def test_a_verification_without_evidence_gets_an_example(inited):
    """A trial: ``needs --evidence TYPED-ID`` alone left the form to guess (and ``git:HEAD`` is
    no typed ID: evidence is signed as given). The example is the --at commit's full typed ID."""
    head = git(inited, "rev-parse", "HEAD")
    _fails_with(inited, [*BASE, "--kind", "verification", "--applies", "exact"],
                "memory verification record has invalid fields; kind verification needs --evidence TYPED-ID, "
                f"such as --evidence git:{head} (the --at commit) or --evidence memory:<memory ID>")
    request = {"version": 0, "kind": "verification", "content": "x", "anchor": {"commit": head},
               "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    _fails_with(inited, ["memory", "record", "--input", "-", "--json"],
                "memory verification record has invalid fields; kind verification needs evidence (at least one "
                f'typed ID), such as "evidence": ["git:{head}"]', input=json.dumps(request).encode())
    r = hn(inited, *BASE, "--kind", "verification", "--applies", "exact", "--evidence", f"git:{head}")
    assert r.code == 0, r.err  # (the example works)


def test_attempt_without_outcome_says_so(inited):
    _fails_with(inited, [*BASE, "--kind", "attempt", "--applies", "exact"],
                f"memory attempt record has invalid fields; kind attempt needs --outcome ({OUTCOMES})")
    ok = hn(inited, *BASE, "--kind", "attempt", "--applies", "exact", "--outcome", "failed")
    assert ok.code == 0, ok.err


@pytest.mark.parametrize("args,message", [
    (["--kind", "decison"], f"invalid kind filter; did you mean decision? (valid: {KINDS})"),
    (["--lifecycle", "activ"], "invalid lifecycle filter; did you mean active? (valid: active, superseded, "
                               "retracted, branching, dependency-missing, all)"),
    (["--trust", "qualifed"], "invalid trust filter; did you mean qualified? (valid: qualified, "
                              "actor-untrusted, kind-untrusted, policy-missing)"),
])
def test_recall_filters_list_the_valid_values_and_suggest(inited, args, message):
    _fails_with(inited, ["memory", "recall", *args], message)


def test_supersede_errors_show_the_supersede_usage(inited):
    target = hn(inited, *BASE, "--kind", "decision", "--applies", "exact", "--json").json()["memoryId"]
    for args in ([target, "--kind", "decision"], [target, "--kidn", "decision"], ["abc"]):
        r = hn(inited, "memory", "supersede", *args)
        assert r.code == 1 and r.err.count("\n") == 1, args
        assert "memory record" not in r.err, (args, r.err)
    _fails_with(inited, ["memory", "supersede", target, "--kidn", "decision"],
                f"{SUPERSEDE_USAGE}; unknown option --kidn; did you mean --kind?")


def test_unborn_head_says_to_make_a_first_commit(tmp_path):
    repo = tmp_path / "new"
    git(tmp_path, "init", "-q", str(repo))
    assert hn(repo, "init").code == 0
    message = "revision HEAD is not a commit; HEAD has no commit yet: make a first commit (git commit)"
    _fails_with(repo, [*BASE, "--kind", "decision", "--applies", "exact"], message)
    _fails_with(repo, ["memory", "recall"], message)
    git(repo, "commit", "-q", "--allow-empty", "-m", "first")
    assert hn(repo, *BASE, "--kind", "decision", "--applies", "exact").code == 0
    # a revision that does not resolve keeps the contract's text alone: HEAD is born
    _fails_with(repo, ["memory", "record", "--content", "x", "--kind", "decision", "--applies", "exact", "--at", "nope"],
                "revision nope is not a commit")


def test_policy_show_of_no_revision_says_what_rev_takes_and_names_the_remote_branch(inited, tmp_path):
    """A newcomer trial (f146): ``policy show nosuchbranch`` said ``revision nosuchbranch is not a
    commit`` and no more. The contract's text stays first; after it, what REV takes, and when a
    remote-tracking branch has that name (a teammate's branch not checked out here), that one."""
    git(inited, "branch", "trust-nico")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(inited), str(clone))
    _fails_with(clone, ["policy", "show", "nosuchbranch"], "revision nosuchbranch is not a commit; REV is a branch, "
                "tag or commit, e.g. git hn policy show origin/main")
    _fails_with(clone, ["policy", "show", "trust-nico"], "revision trust-nico is not a commit; REV is a branch, tag "
                "or commit, e.g. git hn policy show origin/trust-nico (the remote-tracking branch of that name)")
    _fails_with(clone, ["policy", "show", "trust-*"], "revision trust-* is not a commit; REV is a branch, tag or "
                "commit, e.g. git hn policy show origin/main")  # (a glob in REV names no branch)
    assert hn(clone, "policy", "show", "origin/trust-nico").code == 0
    _fails_with(clone, ["memory", "recall", "--at", "trust-nico"], "revision trust-nico is not a commit")  # (unchanged)


@pytest.fixture
def refusing_remote(tmp_path):
    """A clone with git-hn's hooks in block mode, and a server whose pre-receive hook refuses
    memory refs with a message of its own."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    guard = remote / "hooks" / "pre-receive"
    guard.write_text("#!/bin/sh\nwhile read old new ref; do\n  case $ref in refs/hn/*)\n"
                     "    echo \"memory refs need approval from \\033[31mops\\033[0m\"; exit 1;;\n"
                     "  esac\ndone\nexit 0\n")
    guard.chmod(0o755)
    work = tmp_path / "work"
    git(tmp_path, "init", "-q", str(work))
    git(work, "commit", "-q", "--allow-empty", "-m", "first")
    git(work, "remote", "add", "origin", str(remote))
    git(work, "push", "-q", "-u", "origin", "main")
    assert hn(work, "init", "--name", "A").code == 0
    assert hn(work, "hooks", "install").code == 0
    git(work, "config", "hn.prePush", "block")
    assert hn(work, *BASE, "--kind", "decision", "--applies", "exact").code == 0
    git(work, "commit", "-q", "--allow-empty", "-m", "second")
    return remote, work


def test_a_refused_publication_says_why_and_the_ways_out(refusing_remote):
    remote, work = refusing_remote
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=work, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0  # block: the refusal stops the push
    lines = [line for line in proc.stderr.splitlines() if line.startswith("git-hn: ")]
    assert lines == [
        "git-hn: replication memory publication failed for remote origin: [remote rejected] "
        "(pre-receive hook declined); the server said: memory refs need approval from  [31mops [0m; "
        "if origin never accepts memory refs, stop publishing there: git config remote.origin.hnPublish "
        "false; to push the code without publishing memory: git config hn.prePush warn (publish in the "
        "background), or git push --no-verify (this push only)"], proc.stderr
    assert "\x1b" not in lines[0]  # the server's terminal escapes are not passed on
    assert git(remote, "for-each-ref", "refs/heads") .count("refs/heads/main") == 1
    assert git(remote, "rev-parse", "main") != git(work, "rev-parse", "main")
    # the ways out work as they say
    assert subprocess.run(["git", "push", "--no-verify", "origin", "main"], cwd=work,
                          capture_output=True).returncode == 0
    assert git(remote, "rev-parse", "main") == git(work, "rev-parse", "main")


def test_sync_publication_refused_by_the_server_says_why(refusing_remote):
    _remote, work = refusing_remote
    r = hn(work, "sync")
    assert r.code == 1 and r.err.count("\n") == 1
    assert r.err.startswith("git-hn: publication phase failed after replication: replication memory "
                            "publication failed for remote origin: [remote rejected] (pre-receive hook "
                            "declined); the server said: memory refs need approval from"), r.err
    # nothing to import, nothing published: the summary does not say "Synchronized ... up to date"
    assert r.out.splitlines()[-1] == "Sync with origin incomplete: nothing to import, publication failed"


def test_a_remote_that_refuses_memory_refs_can_be_left_out_of_publication(refusing_remote):
    """``remote.<name>.hnPublish false`` (the refusal's advice): sync imports and says publication is
    off; a push with the hooks (block mode) goes through, publishing nothing and saying nothing."""
    remote, work = refusing_remote
    r = hn(work, "sync")
    assert "git config remote.origin.hnPublish false" in r.err, r.err
    git(work, "config", "remote.origin.hnPublish", "false")
    r = hn(work, "sync")
    assert r.code == 0, r.err
    assert r.out.splitlines()[-2:] == ["Publication to origin: off (git config remote.origin.hnPublish is false)",
                                       "Synchronized with origin: up to date"], r.out
    doc = hn(work, "sync", "--json").json()
    assert doc["publicationOff"] is True and doc["published"] == 0
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=work, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and "git-hn" not in proc.stderr, proc.stderr
    assert git(remote, "rev-parse", "main") == git(work, "rev-parse", "main")
    assert git(remote, "for-each-ref", "refs/hn") == ""
    git(work, "config", "remote.origin.hnPublish", "true")  # on again: the refusal is back
    assert "pre-receive hook declined" in hn(work, "sync").err


def test_publication_off_is_read_as_git_reads_a_boolean_and_skips_the_lint(refusing_remote):
    """A bare ``hnPublish`` key is true for the hook and the sync alike; with publication off, a
    secret-shaped memory (signed deliberately) does not stop a push in block mode (nothing of it
    would be published there), and a push to that remote's URL gives no advice to publish."""
    remote, work = refusing_remote
    config = work / ".git" / "config"
    config.write_text(config.read_text() + '[remote "origin"]\n\thnPublish\n')
    assert git(work, "config", "--type=bool", "--get", "remote.origin.hnPublish") == "true"
    assert "pre-receive hook declined" in hn(work, "sync").err  # (on: tried, and refused)
    git(work, "config", "--replace-all", "remote.origin.hnPublish", "off")
    assert hn(work, "memory", "record", "--at", "HEAD", "--kind", "decision", "--applies", "exact", "--content",
              "token ghp_" + "a1B2" * 9, "--allow-secret-shaped").code == 0
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=work, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "git-hn" not in proc.stderr, proc.stderr
    git(work, "commit", "-q", "--allow-empty", "-m", "third")
    proc = subprocess.run(["git", "push", str(remote), "main"], cwd=work, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "git-hn" not in proc.stderr, proc.stderr


def test_with_publication_off_an_earlier_background_failure_is_not_reported(refusing_remote):
    """warn mode: the background publication the server refused is reported by the next push, with
    the advice to turn publication off there; once it is off, that old failure is not repeated."""
    _remote, work = refusing_remote
    git(work, "config", "hn.prePush", "warn")
    subprocess.run(["git", "push", "-q", "origin", "main"], cwd=work, capture_output=True, timeout=120)
    wait_publication(work)
    git(work, "config", "remote.origin.hnPublish", "false")
    git(work, "commit", "-q", "--allow-empty", "-m", "third")
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=work, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "git-hn" not in proc.stderr, proc.stderr


def test_an_unreachable_fetch_url_does_not_stop_publication_to_a_push_url(tmp_path):
    """``pushurl`` elsewhere: the import cannot reach the fetch URL, the push URL still gets the
    memory, as before the sync learnt to skip publication to a remote it could not reach."""
    pushed = tmp_path / "pushed.git"
    git(tmp_path, "init", "-q", "--bare", str(pushed))
    work = tmp_path / "work"
    git(tmp_path, "init", "-q", str(work))
    git(work, "commit", "-q", "--allow-empty", "-m", "first")
    git(work, "remote", "add", "pu", str(tmp_path / "nowhere.git"))
    git(work, "remote", "set-url", "--push", "pu", str(pushed))
    git(work, "push", "-q", "pu", "main")
    assert hn(work, "init", "--name", "A").code == 0
    assert hn(work, *BASE, "--kind", "decision", "--applies", "exact").code == 0
    assert hn(work, "replication", "select", "pu", "--all").code == 0
    r = hn(work, "sync", "pu")
    assert r.code == 1 and "replication advertisement failed for remote pu" in r.err, r.err
    assert "not tried" not in r.err
    assert git(pushed, "for-each-ref", "refs/hn/memory") != ""


def test_evidence_errors_say_what_an_evidence_item_is(inited):
    """``--evidence git:HEAD`` (``--at`` takes a revision) names the full commit ID to give; any
    other malformed item gets the typed forms; the item itself is not repeated."""
    head = git(inited, "rev-parse", "HEAD")
    verification = ["memory", "record", "--kind", "verification", "--at", "HEAD", "--applies", "descendants",
                    "--content", "Ran the suite"]
    _fails_with(inited, [*verification, "--evidence", "git:HEAD"],
                f"memory record evidence is invalid; --evidence takes a full commit ID, not a revision name "
                f"(evidence is signed as given): git:{head}")
    typed = ("--evidence is git:<full commit ID>, memory:sha256:<64 hex digits> or "
             "event:sha256:<64 hex digits>")
    r = _fails_with(inited, [*verification, "--evidence", "ghp_notarealtoken123"],
                    f"memory record evidence is invalid; {typed}")
    assert "ghp_" not in r.err
    _fails_with(inited, [*verification, "--evidence", "git:no-such-branch"], f"memory record evidence is invalid; {typed}")
    _fails_with(inited, [*verification, "--evidence", f"git:{head}", "--evidence", f"git:{head}"],
                "memory record evidence is invalid; each --evidence item once")
    assert hn(inited, *verification, "--evidence", f"git:{head}").code == 0
    _fails_with(inited, ["memory", "challenge", "sha256:" + "a" * 64, "--reason", "wrong", "--evidence", "git:HEAD"],
                f"memory challenge evidence is invalid; --evidence takes a full commit ID, not a revision name "
                f"(evidence is signed as given): git:{head}")


def test_a_reason_that_is_a_sentence_gets_a_token_made_of_its_words(inited):
    target = hn(inited, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
                "descendants", "--content", "x").json()["memoryId"]
    _fails_with(inited, ["memory", "retract", target, "--reason", "Not flaky after all."],
                "memory retract operation has invalid fields; a reason is one token of a-z and 0-9 joined "
                "by -, at most 128 bytes, such as not-flaky-after-all")
    token = "ghp_" + "aB3" * 12  # secret-shaped: never repeated, not even lowercased
    r = _fails_with(inited, ["memory", "retract", target, "--reason", token],
                    "memory retract operation has invalid fields; a reason is one token of a-z and 0-9 joined "
                    "by -, at most 128 bytes, such as incorrect")
    assert "ab3ab3" not in r.err.lower()
    assert hn(inited, "memory", "retract", target, "--reason", "not-flaky-after-all").code == 0


def test_an_actor_filter_takes_a_name_or_a_prefix_as_policy_trust_does(tmp_path):
    """A trial: ``recall --actor claude-a`` was refused by an error that resolved the name to its
    ID itself. ``recall``/``log``/``export --actor`` (flags; §7.3's request keeps the full ID) take
    a display name or a unique prefix of a known actor, as ``policy trust`` does; an ambiguous
    name lists the actors it matches, an unknown one says how a teammate becomes known."""
    from agent_helpers import second_identity
    from helpers import make_repo

    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    actor = actor_of(repo)
    mid = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
             "--content", "x").json()["memoryId"]
    for command in (["memory", "recall", "--include-untrusted", "--json"], ["memory", "log", "--json"],
                    ["memory", "export"]):
        full = hn(repo, *command, "--actor", actor)
        assert full.code == 0 and mid in full.out, full.err
        for given in ("Alice", "alice", actor[:8], actor[:8].upper()):
            assert hn(repo, *command, "--actor", given).out == full.out, given
        # a full-length ID in uppercase is refused, as CONTRACT §7.4 refuses it (a review: it was
        # lowercased), naming the ID it takes
        _fails_with(repo, [*command, "--actor", actor.upper()], "invalid actor filter; --actor takes a full actor "
                    f"ID, such as {actor} (Alice)")
        _fails_with(repo, [*command, "--actor", "Bob"], "invalid actor filter; no known actor matches Bob: a "
                    "teammate is known once their memory is here (git hn sync; git hn memory recall "
                    "--include-untrusted lists it), or use the full actor ID their git hn identity public prints")
    from agent_helpers import switch

    other = second_identity(repo, "alice")
    switch(repo, other)  # (it signs too: an identity that signed nothing here is no match, see below)
    assert hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "y").code == 0
    switch(repo, actor)
    first, second = sorted([actor, other], key=lambda a: ("alice", a))
    names = {actor: "Alice", other: "alice"}
    _fails_with(repo, ["memory", "recall", "--actor", "ALICE"], "invalid actor filter; actor ALICE is ambiguous: "
                f'it matches 2 known actors ({first[:12]} ("{names[first]}", a self-chosen name), {second[:12]} '
                f'("{names[second]}", a self-chosen name)); use a '
                "longer prefix or the full actor ID")


def test_an_empty_actor_filter_matches_no_name_that_folds_to_nothing(tmp_path):
    """A review: ``--actor ""`` matched an actor whose display name folds to "" (invisible
    characters only)."""
    from helpers import make_repo

    repo = make_repo(tmp_path / "r")
    r = hn(repo, "init", "--name", "\u200b\u200d")
    if r.code != 0:  # (a name of invisible characters alone is refused at init: nothing to match)
        assert hn(repo, "init", "--name", "Alice").code == 0
    assert hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "x").code == 0
    for command in (["memory", "recall", "--include-untrusted", "--json"], ["memory", "log", "--json"],
                    ["memory", "export"]):
        r = hn(repo, *command, "--actor", "")
        assert r.code == 1 and r.err.startswith("git-hn: invalid actor filter; "), (command, r.err)
        # (a review: "no known actor matches : a teammate …", the empty name before the colon)
        assert r.err == ("git-hn: invalid actor filter; an empty actor (or one of invisible characters alone) "
                         "names no one; give a display name, a prefix of at least 8 hex digits of the actor "
                         "ID, or the full actor ID\n"), (command, r.err)


def test_selecting_for_a_remote_that_does_not_exist_saves_and_hints(inited):
    """§9.2: the remote need not exist, so the selection is saved (exit 0, the usual output);
    one hint line says the sync will need it, so a typo does not wait for the first sync."""
    r = hn(inited, "replication", "select", "orgin", "--all")
    assert r.code == 0
    assert r.out.startswith("Saved replication selection for orgin\n")
    # in sync's words (a trial: select said "git remote add NAME URL", sync "git remote add origin URL")
    assert r.err == ('git-hn: hint: remote "orgin" does not exist yet; git hn sync orgin needs it: add it with '
                     "git remote add orgin URL\n")
    assert hn(inited, "sync", "orgin").err == \
        'git-hn: remote "orgin" does not exist; add it with git remote add orgin URL\n'
    git(inited, "remote", "add", "upstream", str(inited))  # a typo beside a remote: the remotes are named
    assert hn(inited, "replication", "select", "orgin", "--all").err == (
        'git-hn: hint: remote "orgin" does not exist yet (the remotes here: upstream); git hn sync orgin needs it: '
        "add it with git remote add orgin URL\n")
    git(inited, "remote", "remove", "upstream")
    assert hn(inited, "replication", "show", "orgin").out.startswith("remote: orgin\n")
    git(inited, "remote", "add", "orgin", str(inited))
    r = hn(inited, "replication", "select", "orgin", "--all")
    assert (r.code, r.err) == (0, "git-hn: hint: a selection imports nothing by itself: git hn sync orgin imports "
                                  "what it selects now; with git-hn's hooks installed, so does each later git fetch "
                                  "that moves a branch\n")


def test_showing_the_selection_of_a_remote_that_does_not_exist_says_so(inited):
    """A newcomer trial (f142): ``replication show`` of a typo, or of the name ``git remote rename``
    left behind, printed the defaults (``saved: false``) as if they were a remote's, silently, where
    select and sync name the remotes here. Its lines stay; one hint says the remote does not exist."""
    git(inited, "remote", "add", "upstream", str(inited))
    r = hn(inited, "replication", "show", "orgin")
    assert r.code == 0 and r.out.startswith("remote: orgin\nsaved: false\ncompatibility-all: true\n")
    assert r.err == ('git-hn: hint: remote "orgin" does not exist (the remotes here: upstream), and nothing is saved '
                     "for it (the lines above are the defaults); name one of them (git hn replication show upstream), "
                     "or add it with git remote add orgin URL\n")
    r = hn(inited, "replication", "show")  # (the default name is origin, no remote here)
    assert r.code == 0 and r.err.startswith('git-hn: hint: remote "origin" does not exist (the remotes here: upstream)')
    assert hn(inited, "replication", "select", "orgin", "--all").code == 0
    r = hn(inited, "replication", "show", "orgin")  # (saved before its remote, as §9.2 allows: select's words)
    assert r.code == 0 and "\nsaved: true\n" in r.out
    assert r.err == ('git-hn: hint: remote "orgin" does not exist yet (the remotes here: upstream); git hn sync orgin '
                     "needs it: add it with git remote add orgin URL\n")
    assert hn(inited, "replication", "show", "upstream").err == ""  # (a remote that exists: no hint)
    git(inited, "remote", "remove", "upstream")
    assert hn(inited, "replication", "show", "other").err == (
        'git-hn: hint: remote "other" does not exist, and nothing is saved for it (the lines above are the '
        "defaults); add it with git remote add other URL\n")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a repository to another user needs root")
def test_a_repository_of_another_user_is_named_as_such(tmp_path):
    """Git refuses a repository another user owns (safe.directory); git-hn used to say only "not
    a git repository". The user's own HOME has no safe.directory entry (an empty HOME)."""
    import shutil

    repo = tmp_path / "theirs"
    repo.mkdir()
    git(repo, "init", "-q")
    shutil.chown(repo, user="nobody")
    for path in repo.rglob("*"):
        shutil.chown(path, user="nobody")
    r = hn(repo, "memory", "log")
    assert r.code == 1
    assert r.err == ("git-hn: not a git repository: Git refuses one owned by another user here "
                     "(git config --global --add safe.directory DIR trusts it, if you do)\n")


def test_a_topic_with_a_control_character_is_named_as_such(inited):
    """The topics rule has three parts (count, length, no control character): the hint names the
    one a topic broke, not the bounds (a robustness audit typed an escape into a topic)."""
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--topic", "t\x1b[31m", "--content", "x")
    assert r.err == ("git-hn: memory record topics are invalid; a --topic value contains a control character "
                     "(an escape, a newline, a tab)\n")
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--topic", "t" * 200, "--content", "x")
    assert r.err == "git-hn: memory record topics are invalid; at most 32 --topic values, each at most 128 bytes\n"
    assert refs_snapshot(inited) == before


def test_a_remote_that_cannot_be_reached_is_said_in_fixed_words_never_its_url(inited, tmp_path):
    """Git's own message quotes the URL (which may carry credentials) and server text: the sync
    names the cause in git-hn's words instead, for each way a remote is out of reach."""
    import socket

    with socket.socket() as s:  # a loopback port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cases = {"nothere": (str(tmp_path / "nope.git"), "no Git repository is at the remote's URL"),
             "closed": (f"http://user:s3cret-token@127.0.0.1:{port}/x.git",
                        "the remote's server refused the connection")}
    before = refs_snapshot(inited)
    for name, (url, why) in cases.items():
        git(inited, "remote", "add", name, url)
        assert hn(inited, "replication", "select", name, "--all").code == 0
        r = hn(inited, "sync", name)
        assert r.code == 1
        assert r.err.endswith(f"replication advertisement failed for remote {name}; {why}\n"), r.err
        assert "s3cret" not in r.out + r.err and url not in r.out + r.err
    assert refs_snapshot(inited) == before


def test_a_mistyped_http_url_is_said_to_have_no_repository(inited, bare_remote, http_backend, git_daemon):
    """A newcomer trial (f142): over HTTP, a URL the server has no repository at (a 404, which Git
    words "repository '<url>' not found", the URL between its words) read "git ls-remote <remote>
    shows Git's own message", a placeholder to fill in; it is said in the fixed words of a hosting
    service's "Repository not found", still without the URL; so is a git daemon's with
    --informative-errors ("remote error: no such repository: /path")."""
    before = refs_snapshot(inited)
    for name, url in (("typo", http_backend(bare_remote())), ("mistyped", git_daemon(bare_remote("served.git")))):
        wrong = url.rsplit("/", 1)[0] + "/no-such-repository.git"
        git(inited, "remote", "add", name, wrong)
        r = hn(inited, "sync", name)
        assert r.code == 1
        assert r.err.endswith(f"replication advertisement failed for remote {name}; the server has no repository "
                              "at the remote's URL\n"), r.err
        assert wrong not in r.out + r.err and "no-such" not in r.out + r.err
    assert refs_snapshot(inited) == before


def _alice_published(root):
    """A remote shared by Alice and Bob (``shared_remote``) where Alice's sync published one memory:
    (remote, alice, bob)."""
    remote, (alice, bob) = shared_remote(root, "Alice", "Bob")
    assert hn(alice, "replication", "select", "--all").code == 0
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Alice's").code == 0
    assert hn(alice, "sync").code == 0
    return remote, alice, bob


def _refused_after_the_advertisement(tmp_path, remote, bob, refusal: str, name: str = "origin", **daemon):
    """Bob's two syncs of ``remote`` (``--json``, then the lines), served by a git daemon whose
    access hook lets the advertisement's connection through and then refuses (``refusal``: the
    shell's words after that check): (the JSON document's outcome, the lines' result). Bob's
    remote is ``name``. Nothing of Bob's changes."""
    from servers import GitDaemon

    count = tmp_path / "connections"
    hook = tmp_path / "access-hook"
    hook.write_text(f'#!/bin/sh\nn=$(($(cat "{count}" 2>/dev/null || echo 0) + 1))\necho $n > "{count}"\n'
                    f'[ "$n" -lt 2 ]{refusal}\n')
    hook.chmod(0o755)
    with GitDaemon(remote, tmp_path, (f"--access-hook={hook}",), **daemon) as served:
        git(bob, "remote", "set-url", name, served.url)
        assert hn(bob, "replication", "select", name, "--all").code == 0
        before = refs_snapshot(bob)
        out = json.loads(hn(bob, "sync", name, "--json").out)["outcomes"][0]
        count.unlink()
        r = hn(bob, "sync", name)
    assert refs_snapshot(bob) == before
    return out, r


def test_a_git_daemon_without_informative_errors_is_said_to_refuse_or_lack_the_path(inited, bare_remote, git_daemon,
                                                                                    tmp_path):
    """A newcomer trial: a git daemon started without --informative-errors (its default) answers a
    mistyped path with "access denied or repository not exported", as it answers a path it does
    not export, and git-hn said "the remote refused access". The line says both, and what to check,
    claiming neither: for the sync's advertisement, and for its fetch into quarantine (here an
    access hook lets the advertisement's connection through and refuses the next), where it gets
    no credentials advice (git:// has none). The URL is not repeated; nothing changes."""
    from servers import GitDaemon

    both = ("the remote's git daemon refused access or has no repository at that path (it does not say which: check "
            "the path in the remote's URL, and that the server exports that repository)")
    wrong = git_daemon(bare_remote("served.git"), informative=False).rsplit("/", 1)[0] + "/no-such-repository.git"
    git(inited, "remote", "add", "mistyped", wrong)
    before = refs_snapshot(inited)
    r = hn(inited, "sync", "mistyped")
    assert r.code == 1
    assert r.err.endswith(f"replication advertisement failed for remote mistyped; {both}\n"), r.err
    assert "no-such" not in r.out + r.err and "refused access;" not in r.err
    assert refs_snapshot(inited) == before

    (tmp_path / "team").mkdir()
    remote, alice, bob = _alice_published(tmp_path / "team")
    out, r = _refused_after_the_advertisement(tmp_path, remote, bob, "", informative=False)
    assert out["diagnostic"].endswith(f"failed exact fetch from remote origin: {both}"), out
    assert "recovery" not in out, out
    assert r.code == 1 and f"failed exact fetch from remote origin: {both}" in r.out, r.out
    assert f"failed (structurally-invalid): {both}; its fetch from origin failed, not the stream: run git hn sync " \
           "origin again once it can be reached (the Replication line above says why)\n" in r.err, r.err
    assert "credentials" not in r.out + r.err and "ssh" not in r.out + r.err, (r.out, r.err)

    git(tmp_path, "clone", "-q", "--bare", str(remote), str(tmp_path / "read-only.git"))  # (main's commit there)
    with GitDaemon(tmp_path / "read-only.git", tmp_path, ("--disable=receive-pack",), informative=False) as daemon:
        git(alice, "remote", "add", "ro", daemon.url)  # (the same words for a push it does not take)
        before = refs_snapshot(alice)
        r = hn(alice, "sync", "ro")
    assert r.code == 1 and f"publication failed for remote ro: {both}; if you only read from ro, stop publishing " \
                           "there: git config remote.ro.hnPublish false" in r.err, r.err
    assert refs_snapshot(alice) == before


def test_a_git_daemon_that_refuses_a_fetch_gets_advice_for_git_not_credentials(tmp_path):
    """f154: a server's own "access denied" (a git daemon's access hook, with --informative-errors)
    over git:// got the credentials advice of ssh and HTTPS (an ssh key, a credential helper) in the
    stream's failure, though git:// carries none. Its advice says the server refused and what to
    check; the stream is not blamed; nothing changes."""
    remote, alice, bob = _alice_published(tmp_path)
    way = ("git:// has no credentials: the server refused the fetch itself (check the path in the remote's URL, and "
           "ask whoever runs it to let you read that repository), then git hn sync origin")
    # (then the server's own words)
    out, r = _refused_after_the_advertisement(tmp_path, remote, bob, ' || { echo "access denied"; exit 1; }')
    assert out["diagnostic"].endswith("failed exact fetch from remote origin: the remote refused access"), out
    assert out["recovery"] == way, out
    assert r.code == 1 and "failed exact fetch from remote origin: the remote refused access" in r.out, r.out
    assert f"failed (structurally-invalid): {way} (the Replication line above says why)\n" in r.err, r.err
    assert "credential helper" not in r.out + r.err and "ssh" not in r.out + r.err, (r.out, r.err)


def as_a_user_files_refuse(argv: list[str]) -> list[str]:
    """``argv`` run so that file modes refuse it: for root (whom modes do not stop, as in CI)
    without the capabilities that override them (``setpriv``; skipped where it cannot drop them)."""
    if os.geteuid() != 0:
        return argv
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all"]
    if subprocess.run([*drop, "true"], capture_output=True).returncode != 0:
        pytest.skip("root cannot drop the capabilities that override file modes here (setpriv)")
    return [*drop, *argv]


def test_a_local_repository_that_refuses_a_fetch_gets_advice_for_its_files_not_credentials(tmp_path):
    """f156: a local remote whose objects this user may not read (a shared repository another
    user pushed to with a strict umask) fails the stream's fetch with Git's "Permission denied",
    which got the credentials advice of ssh and HTTPS (an ssh key, a credential helper), though a
    path on this machine has none. Its advice names the files' permissions; nothing changes."""
    remote, alice, bob = _alice_published(tmp_path)
    out, r = _refused_by_its_files(remote, bob)
    way = ("a local repository has no credentials: this user may not read some of its files (check their "
           "permissions with ls -l, its objects' too, or ask their owner), then git hn sync origin")
    assert out["diagnostic"].endswith("failed exact fetch from remote origin: the remote refused access"), out
    assert out["recovery"] == way, out
    assert r.code == 1 and f"failed (structurally-invalid): {way} (the Replication line above says why)\n" \
        in r.err, r.err
    assert "credential helper" not in r.err and "ssh" not in r.err, r.err


def _refused_by_its_files(remote, bob, name: str = "origin"):
    """Bob's two syncs of the local ``remote`` (his remote ``name``: ``--json``, then the lines) as a
    user its packed objects' directory refuses (``as_a_user_files_refuse``; its refs stay readable,
    so the advertisement gets through): (the JSON document's outcome, the lines' result). Nothing of
    Bob's changes."""
    from helpers import Result

    assert hn(bob, "replication", "select", name, "--all").code == 0
    git(remote, "repack", "-adq")
    pack = remote / "objects" / "pack"
    before = refs_snapshot(bob)
    pack.chmod(0o000)
    try:
        argv = as_a_user_files_refuse(["git", "hn", "sync", name, "--json"])
        got = subprocess.run(argv, cwd=bob, capture_output=True, env=os.environ)
        r = subprocess.run(argv[:-1], cwd=bob, capture_output=True, env=os.environ)
    finally:
        pack.chmod(0o755)
    assert refs_snapshot(bob) == before
    return json.loads(got.stdout)["outcomes"][0], Result(r.returncode, r.stdout, r.stderr)


def test_a_local_remote_this_user_may_not_read_is_said_to_refuse_it_not_to_lack_a_repository(inited, bare_remote):
    """f160 (left by f156): a local remote whose directory (or its objects') this user may not read
    fails the advertisement with Git's "does not appear to be a git repository", which git-hn said
    as "no Git repository is at the remote's URL", sending the user to check a URL that is right.
    It is said to be a path this user may not read, with what to check, for an absolute URL and for
    a relative one (counted from the top of the working tree, the sync run in a subdirectory); a
    path with nothing there keeps its words (``test_a_remote_that_cannot_be_reached…``). Nothing
    changes."""
    remote = bare_remote()
    git(inited, "remote", "add", "shut", str(remote))
    git(inited, "remote", "add", "near", os.path.relpath(remote, inited))
    (inited / "sub").mkdir()
    for name in ("shut", "near"):
        assert hn(inited, "replication", "select", name, "--all").code == 0
    said = ("the remote's URL is a path on this machine that this user may not read (check the permissions of that "
            "directory and the ones above it with ls -ld, or ask their owner)")
    before = refs_snapshot(inited)
    for shut in (remote, remote / "objects"):
        shut.chmod(0o000)
        try:
            for name, cwd in (("shut", inited), ("near", inited / "sub")):
                argv = as_a_user_files_refuse(["git", "hn", "sync", name, "--json"])
                got = subprocess.run(argv, cwd=cwd, capture_output=True, env=os.environ)
                r = subprocess.run(argv[:-1], cwd=cwd, capture_output=True, env=os.environ)
                error = f"replication advertisement failed for remote {name}; {said}"
                assert got.returncode == 1 and error in json.loads(got.stdout)["error"], got.stdout
                assert (r.returncode, r.stderr.decode()) == (1, f"git-hn: import phase failed (publication phase "
                                                                 f"completed): {error}\n"), r.stderr
        finally:
            shut.chmod(0o755)
    assert refs_snapshot(inited) == before
    assert hn(inited, "sync", "shut").code == 0  # (readable again: the same URL works)


def test_an_https_server_that_refuses_a_fetch_in_its_own_words_gets_advice_for_the_account(tmp_path, http_backend):
    """f156: a server's own "access denied" over HTTP(S) (no 401: it asked for no password) got the
    advice to set a credential helper and fetch once at a terminal, where the fetch asks for
    nothing either. Its advice names the account's rights; the stream is not blamed; nothing
    changes."""
    remote, alice, bob = _alice_published(tmp_path)
    out, r = _refused_over_https(http_backend, remote, bob)
    way = ("the server refused access itself, asking for no password: check that your account (the one your credential "
           "helper gives) may read that repository, then git hn sync origin")
    assert out["diagnostic"].endswith("failed exact fetch from remote origin: the remote refused access"), out
    assert out["recovery"] == way, out
    assert r.code == 1 and f"failed (structurally-invalid): {way} (the Replication line above says why)\n" in r.err, r.err
    assert "ssh" not in r.out + r.err, r.err


def _refused_over_https(http_backend, remote, bob, name: str = "origin"):
    """Bob's two syncs of ``remote`` (his remote ``name``: ``--json``, then the lines) served over
    HTTP by a server that lets each sync's advertisement through and refuses its fetches in its own
    words (``ERR access denied``, no 401): (the JSON document's outcome, the lines' result).
    Nothing of Bob's changes."""
    url = http_backend(remote)
    asked = []

    def after_the_advertisement(method: str, path: str) -> bool:  # (each sync's fetches, all streams' then
        # its own, not its ls-remote)
        if method == "GET" and path.endswith("/info/refs?service=git-upload-pack"):
            asked.append(path)
            return len(asked) % 3 != 1
        return False

    http_backend.server(url).refuse_if = after_the_advertisement
    git(bob, "remote", "set-url", name, url)
    assert hn(bob, "replication", "select", name, "--all").code == 0
    asked.clear()
    before = refs_snapshot(bob)
    out = json.loads(hn(bob, "sync", name, "--json").out)["outcomes"][0]
    r = hn(bob, "sync", name)
    assert len(asked) == 6, asked
    assert refs_snapshot(bob) == before
    return out, r


# Git takes remote names of up to 128 characters (CONTRACT §3.2); a way out that names one this long
# in its command went over the sync's line bound
SIXTY = "a-remote-whose-name-takes-sixty-characters-of-the-sync-line0"


@pytest.mark.parametrize("transport", ["git", "local", "https"])
def test_a_refusals_way_out_fits_the_line_for_a_remote_named_by_sixty_characters(tmp_path, http_backend, transport):
    """f160: the way out of a fetch refused over git://, on this machine or over HTTPS ends "then git
    hn sync <remote>"; with a remote named by more than ~20 characters it went over the 200
    characters the sync's stderr line keeps of a way out, and the line dropped it whole (its JSON
    recovery kept it). Such a way now says "then git hn sync that remote again" (the line names the
    remote already) and the line keeps it; nothing changes."""
    remote, alice, bob = _alice_published(tmp_path)
    git(bob, "remote", "rename", "origin", SIXTY)
    assert len(SIXTY) == 60
    if transport == "git":
        out, r = _refused_after_the_advertisement(tmp_path, remote, bob, ' || { echo "access denied"; exit 1; }',
                                                  name=SIXTY)
        way = ("git:// has no credentials: the server refused the fetch itself (check the path in the remote's URL, "
               "and ask whoever runs it to let you read that repository), then git hn sync that remote again")
    elif transport == "local":
        out, r = _refused_by_its_files(remote, bob, SIXTY)
        way = ("a local repository has no credentials: this user may not read some of its files (check their "
               "permissions with ls -l, its objects' too, or ask their owner), then git hn sync that remote again")
    else:
        out, r = _refused_over_https(http_backend, remote, bob, SIXTY)
        way = ("the server refused access itself, asking for no password: check that your account (the one your "
               "credential helper gives) may read that repository, then git hn sync that remote again")
    assert out["diagnostic"].endswith(f"failed exact fetch from remote {SIXTY}: the remote refused access"), out
    assert out["recovery"] == way and len(way) <= 200, out
    assert r.code == 1 and f"failed (structurally-invalid): {way} (the Replication line above says why)\n" in r.err, r.err
    assert f"1 of {SIXTY}'s streams failed" in r.err, r.err  # (where the line names the remote)


def test_a_reason_without_fixed_words_names_the_command_that_shows_it(inited, tmp_path):
    """A newcomer trial (f142): a failure git-hn has no fixed words for (here an ssh that prints a
    server's own error) pointed at "git ls-remote <remote>", which a shell reads as a redirection:
    it names the remote, as a fetch's and a push's pointers do. The server's text is not repeated."""
    ssh = tmp_path / "refusing-ssh"
    ssh.write_text("#!/bin/sh\necho 'ERROR: the server says no (s3cret)' >&2\nexit 1\n")
    ssh.chmod(0o755)
    git(inited, "remote", "add", "far", "ssh://example.invalid/team.git")
    git(inited, "config", "core.sshCommand", str(ssh))
    before = refs_snapshot(inited)
    r = hn(inited, "sync", "far")
    assert r.code == 1
    assert "replication advertisement failed for remote far; git ls-remote far shows Git's own message" in r.err, r.err
    assert "<remote>" not in r.err and "s3cret" not in r.out + r.err
    assert refs_snapshot(inited) == before


def test_a_verbose_servers_message_and_a_long_url_leave_the_pointer_bounded(inited, tmp_path):
    """f168 checked whether a remote's long words (a 5,000-character server error, a ``remote:``
    line of 5,000 more) or a 5,000-character URL could make the advertisement's failure line
    unbounded: the pointer repeats neither, only the remote's name (at most 128 characters, §3.2),
    so the line is the same whatever the server says; the JSON error too."""
    ssh = tmp_path / "verbose-ssh"
    ssh.write_text("#!/bin/sh\nprintf 'ERROR: %05000d\\n' 0 >&2\nprintf 'remote: %05000d\\n' 1 >&2\nexit 1\n")
    ssh.chmod(0o755)
    name = "r" * 128
    url = f"ssh://example.invalid/{'p' * 5000}.git"
    git(inited, "remote", "add", name, url)
    git(inited, "config", "core.sshCommand", str(ssh))
    before = refs_snapshot(inited)
    line = (f"git-hn: import phase failed (publication phase completed): replication advertisement failed for "
            f"remote {name}; git ls-remote {name} shows Git's own message")
    r = hn(inited, "sync", name)
    assert r.code == 1 and r.err.splitlines()[-1] == line, r.err
    assert max(len(x) for x in r.out.splitlines() + r.err.splitlines()) == len(line) < 700
    doc = json.loads(hn(inited, "sync", name, "--json").out)
    assert doc["error"] == line[len("git-hn: "):]
    for said in ("0" * 100, "p" * 100):
        assert said not in r.out + r.err + json.dumps(doc)
    assert refs_snapshot(inited) == before


def test_input_documents_an_agent_gets_wrong_say_what_to_change(inited):
    """From an agents audit: a missing kind read as "unsupported", a blank topic as a size bound,
    and a handoff list at the top level as a bare unknown field."""
    head = git(inited, "rev-parse", "HEAD")
    base = {"version": 0, "content": "x", "anchor": {"commit": head}, "applicability": {"mode": "exact"},
            "topics": [], "evidence": []}
    before = refs_snapshot(inited)
    cases = [
        ("record", base, "memory record kind is unsupported; a kind is required; valid: observation, decision, "
                         "assumption, attempt, verification, handoff"),
        ("record", {**base, "kind": "decision", "topics": ["  "]},
         "memory record topics are invalid; a topic is never blank (spaces are trimmed)"),
        ("handoff", {**base, "kind": "handoff", "nextActions": ["next"]},
         'record input: invalid JSON: json: unknown field "nextActions" (it belongs inside handoff)'),
    ]
    for command, doc, message in cases:
        r = hn(inited, "memory", command, "--input", "-", "--json", input=json.dumps(doc).encode())
        assert (r.code, r.err) == (1, f"git-hn: {message}\n"), r.err
    r = hn(inited, *BASE, "--kind", "decision", "--applies", "exact", "--topic", " ")
    assert r.err == "git-hn: memory record topics are invalid; a topic is never blank (spaces are trimmed)\n", r.err
    assert refs_snapshot(inited) == before


def test_a_hostile_policy_is_quoted_in_one_bounded_line_with_direction_controls_shown(inited):
    """The policy is read from the commit asked about (anyone's branch): what an error quotes of
    it is one line of at most 240 bytes, and a right-to-left override is shown, not obeyed."""
    policy = inited / ".hn" / "policy.json"
    policy.parent.mkdir(exist_ok=True)
    cases = [('{"version":"hn.policy/0","\\u001b[31m\u202ekey":1,"memory":{}}', True),
             ('{"version":"%s","memory":{}}' % ("A" * 20000), False)]
    for text, rtl in cases:
        policy.write_text(text, encoding="utf-8")
        git(inited, "add", ".hn/policy.json")
        git(inited, "commit", "-q", "-m", "policy")
        for args in (["policy", "show"], ["memory", "recall"]):
            r = hn(inited, *args)
            assert r.code == 1 and r.out == "" and r.err.count("\n") == 1, (args, r.err)
            assert "\u202e" not in r.err and "\x1b" not in r.err
            assert len(r.err.encode()) < 460, len(r.err.encode())  # 240 quoted, the rest git-hn's words
        assert ("\\u{202e}key" in r.err) == rtl


@pytest.mark.parametrize("args,why", [(["retract", "4f60", "--reason", "obsolete"], "this one has 4 digits"),
                                      (["supersede", "4f6", "--content", "x"], "this one has 3 digits"),
                                      (["challenge", "not-hex-at-all", "--reason", "incorrect"],
                                       '"n" is not a lowercase hex digit')])
def test_a_memory_named_too_short_says_what_names_a_memory(inited, args, why):
    """``show`` said what names a memory; the corrections printed their usage alone. Since f145
    they also say which part of the rule the text broke, as ``show`` does."""
    usage = {"retract": "usage: git hn memory retract MEMORY --reason REASON", "supersede": SUPERSEDE_USAGE,
             "challenge": "usage: git hn memory challenge MEMORY --reason REASON [--evidence TYPED-ID]"}[args[0]]
    _fails_with(inited, ["memory", *args], f"{usage}; MEMORY is a memory ID (sha256: and 64 lowercase hex "
                                           f"digits) or at least 8 of its first ones ({why})")


def test_a_file_git_hn_cannot_change_is_named_not_taken_for_the_output(inited, monkeypatch):
    """An operating-system error on a file that no service words itself said "cannot write the
    output", which sent people to their terminal: the last-resort line names the file. (Its
    trigger was ``.git/hooks`` as a file, which ``hooks install`` now names itself, f92: the
    install here makes the same real failing ``mkdir`` where a file is, unworded.)"""
    from git_hn.service import hooks as service

    hooks = inited / ".git" / "hooks"
    subprocess.run(["rm", "-rf", str(hooks)], check=True)
    hooks.write_text("not a directory\n")
    monkeypatch.setattr(service, "install", lambda loc, repo=None: os.mkdir(loc.dir))
    r = hn(inited, "hooks", "install")
    assert r.code == 1 and f"git-hn: cannot change {hooks}: File exists\n" in r.err, r.err
    assert "the output" not in r.err
    assert hooks.read_text() == "not a directory\n"


def test_a_damaged_saved_selection_names_its_file_and_how_to_replace_it(inited):
    assert hn(inited, "replication", "select", "--all").code == 0
    saved = inited / ".git" / "hn" / "replication" / "selections" / "b3JpZ2lu.json"  # base64 "origin"
    saved.write_bytes(b"{")
    r = hn(inited, "replication", "show")
    assert r.code == 1 and r.err.count("\n") == 1, r.err
    assert r.err.startswith("git-hn: invalid saved replication selection: invalid JSON: ")
    assert r.err.endswith(f"; save a new one over {saved}: git hn replication select --memory sha256:<stream> "
                          "(or --all)\n")
    assert hn(inited, "replication", "select", "--all").code == 0  # the way out works
    assert hn(inited, "replication", "show").out.splitlines()[1] == "saved: true"


def test_a_commit_id_given_as_a_memory_says_what_it_is(inited):
    """A newcomer's case: ``git hn memory show <the ID git log printed>`` said only "not found"."""
    commit = git(inited, "rev-parse", "--short=12", "HEAD")
    _fails_with(inited, ["memory", "show", commit],
                f"memory {commit} was not found in verified local or accepted streams; {commit} is a commit, not a "
                f"memory: git hn memory recall --at {commit} lists the memories that apply there, git hn memory log "
                "all of them")
    # (a team trial: an ID neither rewritten nor a commit says where IDs come from)
    _fails_with(inited, ["memory", "show", "0123456789ab"],
                f"memory 0123456789ab was not found in verified local or accepted streams{WAY}")


def test_an_actor_or_a_stream_id_given_as_a_memory_says_what_it_is(inited):
    """A newcomer trial (f164): ``git hn memory show`` of the actor ID ``identity list`` prints got
    the generic "not found", while a commit's ID said what it is. An actor's ID, or a stream's (as
    a record's ``--json`` prints it), whole or a unique prefix, says so now, with the command that
    lists that actor's memories; the contract's line stays first, byte for byte, and nothing moves."""
    doc = record_doc(inited, content="use JSON")
    actor, stream = doc["actor"], doc["stream"]
    found = "was not found in verified local or accepted streams"
    for given in (actor, actor[:8]):
        _fails_with(inited, ["memory", "show", given], f"memory {given} {found}; {given} is an actor, not a memory: "
                    f"git hn memory log --actor {actor} lists the memories it signed")
    for given in (stream, stream[7:19]):
        _fails_with(inited, ["memory", "show", given], f"memory {given} {found}; {given} is a memory stream, not a "
                    f"memory: git hn memory log --actor {actor} lists the memories of its owner")
    # a correction's target is found as show finds it, and says the same
    _fails_with(inited, ["memory", "retract", actor[:12], "--reason", "obsolete"],
                f"memory {actor[:12]} {found}; {actor[:12]} is an actor, not a memory: git hn memory log --actor "
                f"{actor} lists the memories it signed")
    r = hn(inited, "memory", "log", "--actor", actor)  # (the way out lists the memory)
    assert r.code == 0 and doc["memoryId"][7:19] in r.out, r.err
    # an ID that names no memory, actor or stream keeps the generic way out
    _fails_with(inited, ["memory", "show", "f" * 64], f"memory {'f' * 64} {found}{WAY}")


def test_policy_show_says_the_working_trees_policy_is_not_committed(inited):
    """A newcomer's case: right after ``policy init``, ``policy show`` said "Memory policy: absent"
    (it shows the committed policy) with no word of the file just written."""
    assert hn(inited, "policy", "init").code == 0
    r = hn(inited, "policy", "show")
    head = git(inited, "rev-parse", "HEAD")
    assert r.code == 0 and "Memory policy: absent" in r.out
    assert r.err == (f"git-hn: hint: .hn/policy.json in the working tree is not the policy at commit {head[:12]}, "
                     "which is what this shows and what recall and brief read: commit it to apply it\n")
    git(inited, "add", ".hn/policy.json")
    git(inited, "commit", "-q", "-m", "policy")
    r = hn(inited, "policy", "show")
    assert r.code == 0 and "Memory policy: absent" not in r.out
    a = actor_of(inited)
    assert r.err == (f"git-hn: hint: trusted actors known here by name: {a[:12]} Alice Agent\n"
                     f"git-hn: hint: maintainers in this policy (whom to ask for trust): {named(a, 'Alice Agent')}\n")
    assert hn(inited, "policy", "show", "HEAD~1").err == ""  # (an older commit's differs as a matter of course)


def test_policy_show_without_a_policy_says_how_to_make_one(inited):
    """A newcomer trial: ``policy show`` said ``Memory policy: absent`` and nothing of ``policy
    init``. With no policy at HEAD and none waiting in the working tree, one hint says it (with
    --json too: stderr); an older commit's, or a file waiting to be committed, get no such hint."""
    hint = ("git-hn: hint: no memory policy at HEAD, so recall and the brief leave every memory out: git hn "
            "policy init writes one in .hn/policy.json trusting you; commit it to apply it\n")
    for args in ((), ("--json",)):
        r = hn(inited, "policy", "show", *args)
        assert r.code == 0 and r.err == hint, r
    assert "Memory policy: absent" in hn(inited, "policy", "show").out
    assert hn(inited, "policy", "init").code == 0
    assert "policy init" not in hn(inited, "policy", "show").err


def test_hints_about_a_missing_memory_policy_give_a_command_that_works(inited):
    """A trial: after committing a policy with no ``memory`` section, ``policy show`` said "git
    hn policy init writes one", which refuses since the file exists; and after ``policy init``
    not committed, the Markdown brief's body said "git hn policy init writes one, to commit" of
    a file that exists. Each says what works: ``policy trust`` adds the section; commit the file."""
    a = actor_of(inited)
    (inited / ".hn").mkdir()
    (inited / ".hn" / "policy.json").write_text(json.dumps(
        {"version": "hn.policy/0", "maintainers": [a], "proposals": {"requiredAccepts": 1}}) + "\n")
    git(inited, "add", ".hn/policy.json")
    git(inited, "commit", "-q", "-m", "policy without memory")
    for args in ((), ("--json",)):
        r = hn(inited, "policy", "show", *args)
        assert r.code == 0 and ("git-hn: hint: no memory policy at HEAD (.hn/policy.json has no memory section), so "
                                "recall and the brief leave every memory out: git hn policy trust ACTOR|--kind KIND "
                                "adds one; commit it to apply it\n") in r.err, r.err
    git(inited, "rm", "-q", ".hn/policy.json")
    git(inited, "commit", "-q", "-m", "no policy")
    assert hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "x").code == 0
    assert hn(inited, "policy", "init").code == 0
    r = hn(inited, "memory", "brief")
    assert r.code == 0 and ("shows them; there is no policy at this commit: .hn/policy.json in the working tree "
                            "applies once it is committed\n") in r.out, r.out
    assert "policy init" not in r.out and "not committed yet" not in r.err, r  # (said once: in the body)


def test_show_says_why_a_memory_is_left_out_at_head_and_how_its_author_records_it_again(inited):
    """An agent trial: after an amend of a published commit, a verification vanished from recall
    and the brief, and ``show`` said only ``inapplicable (222150874e66)``. It says why (a hint on
    stderr; stdout and JSON unchanged) and, to the author, how to record it again on HEAD."""
    def made(*args):
        r = hn(inited, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", *args)
        assert r.code == 0, r.err
        return r.json()["memoryId"]

    old = git(inited, "rev-parse", "HEAD")
    later = made("--applies", "descendants", "--content", "verified by hand")
    exact = made("--applies", "exact", "--content", "true of this commit only")
    assert "hint" not in hn(inited, "memory", "show", later).err  # (it applies here)
    git(inited, "commit", "-q", "--amend", "-m", "amended")  # (no hooks: nothing re-anchors)
    r = hn(inited, "memory", "show", later)
    assert r.code == 0 and "inapplicable" in r.out
    assert r.err == (f"git-hn: hint: memory {later[7:19]} applies where commit {old[:12]} is in the history, and "
                     "HEAD does not contain it (an amended or rebased commit, or another branch): recall and the "
                     f"brief at HEAD leave it out; git hn memory supersede {later[7:19]} --at HEAD --same-content "
                     "records it again on HEAD\n")
    assert hn(inited, "memory", "show", later, "--json").err == ""
    assert hn(inited, "memory", "show", exact).err == (
        f"git-hn: hint: memory {exact[7:19]} applies at commit {old[:12]} only (--applies exact), not at HEAD: "
        "recall and the brief at HEAD leave it out\n")
    again = hn(inited, "memory", "supersede", later[7:19], "--at", "HEAD", "--content", "verified by hand")
    assert again.code == 0, again.err


def test_show_of_a_superseded_memory_names_its_latest_successor_not_a_refused_supersede(inited):
    """A team trial: ``show`` of a memory already carried over told its author to run ``supersede
    ID --at HEAD --same-content``, which is refused (``already superseded (latest: …)``). It names
    the latest successor, and what that one needs when HEAD leaves it out too. A replayed
    supersede no longer says "memory signed" right after "Replayed: … nothing appended"."""
    r = hn(inited, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "kept across amends")
    assert r.code == 0, r.err
    old = r.json()["memoryId"][7:19]
    git(inited, "commit", "-q", "--amend", "-m", "amended")  # (no hooks: nothing re-anchors)
    carried = hn(inited, "memory", "supersede", old, "--at", "HEAD", "--same-content", "--json")
    assert carried.code == 0, carried.err
    succ = carried.json()["memoryId"][7:19]
    assert hn(inited, "memory", "show", old).err == (
        f"git-hn: hint: memory {old} is superseded (latest: {succ}), which applies at HEAD: recall and the brief at "
        f"HEAD show that one (git hn memory show {succ})\n")
    # the same supersede again is a replay: it signs nothing, and its hint does not say it did
    replay = hn(inited, "memory", "supersede", old, "--at", "HEAD", "--same-content")
    assert replay.code == 0 and "Replayed: existing memory returned; nothing appended" in replay.out, replay
    assert replay.err.startswith("git-hn: hint: memory already signed (replayed), but recall and the brief leave it "
                                 "out"), replay.err
    git(inited, "commit", "-q", "--amend", "-m", "amended again")
    head = git(inited, "rev-parse", "HEAD")
    anchor = hn(inited, "memory", "show", succ, "--json").json()["projection"]["anchor"]["commit"]
    assert head != anchor
    assert hn(inited, "memory", "show", old).err == (
        f"git-hn: hint: memory {old} is superseded (latest: {succ}), which HEAD leaves out too: memory {succ} applies "
        f"where commit {anchor[:12]} is in the history, and HEAD does not contain it (an amended or rebased commit, "
        "or another branch): recall and the brief at HEAD leave it out; git hn memory supersede "
        f"{succ} --at HEAD --same-content records it again on HEAD\n")
    assert hn(inited, "memory", "supersede", succ, "--at", "HEAD", "--same-content").code == 0  # (as it says)


def test_show_of_a_verification_on_a_changed_tree_says_to_test_again(inited):
    """``--same-content`` would carry a test result onto code no one tested (docs/decisions.md):
    ``show`` of one's own verification left out at HEAD says to test HEAD and record the result,
    citing it; after a message-only amend (the same tree) it is still carried as it is."""
    first = git(inited, "rev-parse", "HEAD")
    r = hn(inited, "memory", "record", "--json", "--kind", "verification", "--at", "HEAD", "--applies",
           "descendants", "--evidence", f"git:{first}", "--content", "Tests pass.")
    assert r.code == 0, r.err
    mid = r.json()["memoryId"][7:19]
    git(inited, "commit", "-q", "--amend", "-m", "reworded")  # (the same tree)
    assert hn(inited, "memory", "show", mid).err.endswith(
        f"git hn memory supersede {mid} --at HEAD --same-content records it again on HEAD\n")
    (inited / "changed.txt").write_text("changed\n")
    git(inited, "add", "changed.txt")
    git(inited, "commit", "-q", "--amend", "-m", "changed")
    head = git(inited, "rev-parse", "HEAD")
    assert hn(inited, "memory", "show", mid).err == (
        f"git-hn: hint: memory {mid} applies where commit {first[:12]} is in the history, and HEAD does not contain "
        "it (an amended or rebased commit, or another branch): recall and the brief at HEAD leave it out; it is a "
        f"verification of another tree than HEAD's, so test HEAD, then git hn memory supersede {mid} --at HEAD "
        f"--evidence git:{head} --content TEXT records the result\n")


def test_a_recall_by_path_from_a_subdirectory_says_paths_are_from_the_top(inited):
    """An agent trial: ``recall --path lexer.py`` run in ``src/parser`` matched nothing and said
    nothing (paths are relative to the top of the repository). A hint names the path from the
    top, with ``--json`` too (stderr; the document is unchanged)."""
    (inited / "src" / "parser").mkdir(parents=True)
    (inited / "src" / "parser" / "lexer.py").write_text("x\n")
    git(inited, "add", "src")
    git(inited, "commit", "-q", "-m", "lexer")
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--path", "src/parser/lexer.py", "--content", "tokens keep their spans")
    assert r.code == 0, r.err
    here = inited / "src" / "parser"
    hint = ("git-hn: hint: nothing is anchored to lexer.py; paths are relative to the top of the repository, so "
            "from here that is --path src/parser/lexer.py\n")
    for args in ([], ["--json"]):
        r = hn(here, "memory", "recall", "--include-untrusted", "--path", "lexer.py", *args)
        assert r.code == 0 and r.err == hint, (args, r.err)
    r = hn(here, "memory", "recall", "--include-untrusted", "--path", "src/parser/lexer.py", "--json")
    assert r.code == 0 and r.err == "" and r.json()["matched"] == 1
    assert hn(inited, "memory", "recall", "--include-untrusted", "--path", "lexer.py").err == ""  # (at the top)
    # (a review: given from the top already, or naming no file here, it was told to prefix it again)
    assert hn(here, "memory", "recall", "--include-untrusted", "--path", "src/parser/gone.py").err == ""
    assert hn(here, "memory", "recall", "--include-untrusted", "--path", "nothing.py").err == ""


def test_a_recall_by_a_directory_says_path_takes_a_file(inited):
    """A trial's case: ``recall --path src --json`` matched nothing and said nothing, although
    memories were anchored to src/parser.py (paths are literal files). A hint says that --path
    takes a file and names one in the directory, as the directory was at the query commit; over
    MCP it is the document's ``hint``."""
    (inited / "src" / "deep").mkdir(parents=True)
    (inited / "src" / "deep" / "lexer.py").write_text("x\n")
    git(inited, "add", "src")
    git(inited, "commit", "-q", "-m", "lexer")
    old = git(inited, "rev-parse", "HEAD")
    (inited / "src" / "parser.py").write_text("x\n")
    git(inited, "add", "src")
    git(inited, "commit", "-q", "-m", "parser")
    head = git(inited, "rev-parse", "HEAD")
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--path", "src/parser.py", "--content", "one pass")
    assert r.code == 0, r.err
    for args in ([], ["--json"]):
        r = hn(inited, "memory", "recall", "--include-untrusted", "--path", "src", *args)
        assert r.code == 0 and r.err == (f"git-hn: hint: nothing is anchored to src: it is a directory at commit "
                                         f"{head[:12]}, and --path takes a file, compared literally; recall a file "
                                         "in it, such as --path src/parser.py\n"), (args, r.err)
    r = hn(inited, "memory", "recall", "--include-untrusted", "--path", "src", "--at", old, "--json")
    assert r.err == (f"git-hn: hint: nothing is anchored to src: it is a directory at commit {old[:12]}, and --path "
                     "takes a file, compared literally; recall a file in it, such as --path src/deep/lexer.py\n")
    assert hn(inited, "memory", "recall", "--include-untrusted", "--path", "src/parser.py").err == ""
    assert hn(inited, "memory", "recall", "--include-untrusted", "--path", "src/gone.py").err == ""
    request = json.dumps({"version": 0, "atCommit": head, "path": "src", "includeUntrusted": True}).encode()
    r = hn(inited, "memory", "recall", "--input", "-", "--json", input=request)
    assert r.err.startswith("git-hn: hint: nothing is anchored to src: it is a directory at commit ")

    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def main():
        params = StdioServerParameters(command="git", args=["hn", "mcp"], cwd=str(inited), env=dict(os.environ))
        async with Client(params, read_timeout_seconds=60) as client:
            return await client.call_tool("memory_recall", {"path": "src", "includeUntrusted": True})

    doc = json.loads(anyio.run(main).content[0].text)
    assert doc["matched"] == 0 and doc["hint"] == (
        f"Nothing is anchored to src: it is a directory at commit {head[:12]}, and path takes a file, compared "
        "literally; recall a file in it, such as path \"src/parser.py\".")


def test_recording_a_path_with_uncommitted_changes_says_what_it_is_anchored_to(inited):
    """An agent trial: recording as it went (before committing) anchored each path to HEAD's
    version, and once committed the brief listed every such memory as a stale anchor. A warning
    says so, from the top or a subdirectory; a committed path gets none."""
    (inited / "src").mkdir()
    (inited / "src" / "grammar.py").write_text("a\n")
    (inited / "src" / "same.py").write_text("s\n")
    git(inited, "add", "src")
    git(inited, "commit", "-q", "-m", "grammar")
    head = git(inited, "rev-parse", "HEAD")
    (inited / "src" / "grammar.py").write_text("b\n")
    warning = (f"git-hn: warning: --path src/grammar.py has changes not committed yet: the memory is anchored to "
               f"its version at commit {head[:12]}, so it shows as stale once they are (commit first, then "
               "record, to anchor the new version)\n")
    for where in (inited, inited / "src"):
        r = hn(where, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
               "--path", "src/grammar.py", "--path", "src/same.py", "--content", f"grammar rule from {where.name}")
        assert r.code == 0 and unhinted(r.err) == warning, r.err
    git(inited, "commit", "-q", "-am", "grammar b")
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--path", "src/grammar.py", "--content", "after the commit")
    assert r.code == 0 and unhinted(r.err) == ""


def test_a_sync_with_a_remote_one_only_reads_from_says_why_publishing_failed_and_how_to_stop(
        tmp_path, bare_remote, http_backend):
    """A team trial: ``git hn sync`` with a read-only HTTP remote (403 on push) said only that
    the publication failed; it names the answer and how to stop publishing there."""
    bare = bare_remote()
    url = http_backend(bare)
    seed = tmp_path / "seed"
    git(tmp_path, "init", "-q", "-b", "main", str(seed))
    git(seed, "commit", "-q", "--allow-empty", "-m", "first")
    git(seed, "push", "-q", str(bare), "main")
    git(bare, "config", "http.receivepack", "false")  # (reads only, from here on)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", url, str(clone))
    assert hn(clone, "init", "--name", "Reader").code == 0
    assert hn(clone, "replication", "select", "--all").code == 0
    assert hn(clone, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "kept here").code == 0
    r = hn(clone, "sync")
    assert r.code == 1
    assert r.err == ("git-hn: publication phase failed after replication: replication memory publication failed "
                     "for remote origin: the remote's server answered with HTTP 403 (no access); if you only read "
                     "from origin, stop publishing there: git config remote.origin.hnPublish false\n"), r.err
    git(clone, "config", "remote.origin.hnPublish", "false")
    assert hn(clone, "sync").code == 0


def test_a_request_documents_invalid_anchor_path_says_the_path_rule(inited):
    """An agent trial: ``anchor.paths`` with ``./calc/fmt.py`` answered only "memory anchor path
    is invalid" (the flags' error already gave the rule)."""
    head = git(inited, "rev-parse", "HEAD")
    doc = {"version": 0, "kind": "decision", "content": "x", "applicability": {"mode": "descendants"},
           "anchor": {"commit": head, "paths": [{"path": "./calc/fmt.py", "blob": "absent"}]},
           "topics": [], "evidence": []}
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(doc).encode())
    assert r.code == 1
    assert r.err == ('git-hn: memory anchor path is invalid; anchor.paths[].path "./calc/fmt.py" has a ./ segment; '
                     "anchor.paths[].path is relative to the top of the "
                     "repository: no ./ or ../ segment, no leading or trailing /, no backslash or control character, "
                     "at most 4096 bytes\n"), r.err


def _over_bound(size: int, what: str = "the content is", it: str = "it") -> str:
    return (f"git-hn: warning: {what} {size} bytes encoded as JSON (quotes and escapes counted), over recall's "
            f"default bound of 65536: a recall that matches {it} fails unless it passes --max-content-bytes "
            f"{size} or more\n")


def test_a_content_over_recalls_default_bound_once_encoded_is_signed_with_a_warning(inited, tmp_path):
    """An agent trial: record takes up to 65,536 bytes of content, but default recall bounds the
    content encoded as JSON (quotes and escapes counted, CONTRACT §7.6 step 5), so 65,535 ``y``,
    or 50,002 bytes with 20,000 backslashes, were signed without a word and then every default
    recall failed, in every clone that imports them. They are still signed (the protocol allows
    them; the other implementation signs them), with one warning line that names the bound to
    pass; content that fits, even near the limit, gets none."""
    head = git(inited, "rev-parse", "HEAD")
    record = ["memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants"]
    (tmp_path / "y.txt").write_text("y" * 65_535)
    (tmp_path / "backslashes.txt").write_text("a" * 30_002 + "\\" * 20_000)
    r = hn(inited, *record, "--content-file", str(tmp_path / "y.txt"), "--json")
    assert r.code == 0 and unhinted(r.err) == _over_bound(65_537), r.err
    mid = r.json()["memoryId"]
    r = hn(inited, *record, "--content-file", str(tmp_path / "backslashes.txt"))
    assert r.code == 0 and unhinted(r.err) == _over_bound(70_004), r.err
    # what the warning says is what recall needs
    assert hn(inited, "memory", "recall", "--include-untrusted").code == 1
    assert hn(inited, "memory", "recall", "--include-untrusted", "--max-content-bytes", "70004").code == 0
    r = hn(inited, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "<" * 11_000)
    assert r.code == 0 and unhinted(r.err) == _over_bound(66_002), r.err
    r = hn(inited, "memory", "supersede", mid[7:19], "--content", "&" * 11_000)
    assert r.code == 0 and unhinted(r.err) == _over_bound(66_002), r.err
    request = {"version": 0, "kind": "decision", "content": "\x01" * 11_000, "anchor": {"commit": head},
               "applicability": {"mode": "descendants"}, "topics": [], "evidence": []}
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(request).encode())
    assert r.code == 0 and unhinted(r.err) == _over_bound(66_002), r.err
    drafts = [{**request, "content": content} for content in ("fits", ">" * 11_000, "y" * 65_536, "z" * 65_534)]
    (tmp_path / "drafts.jsonl").write_text("".join(json.dumps(d) + "\n" for d in drafts))
    r = hn(inited, "memory", "import", str(tmp_path / "drafts.jsonl"))
    assert r.code == 0 and unhinted(r.err) == _over_bound(66_002, "import lines 2, 3: the content is up to",
                                                          "one of them"), r.err
    again = hn(inited, "memory", "import", str(tmp_path / "drafts.jsonl"))  # a replay signs nothing: no warning
    assert again.code == 0 and unhinted(again.err) == "", again.err
    # near the limit but within the bound once encoded: no warning
    (tmp_path / "fits.txt").write_text("y" * 65_534)
    assert unhinted(hn(inited, *record, "--content-file", str(tmp_path / "fits.txt")).err) == ""


HANDOFF = ["memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "x"]


@pytest.mark.parametrize("args,hint", [
    ([a for i in range(65) for a in ("--next-action", f"n{i}")],
     "at most 64 --next-action values (65 given), each at most 4096 bytes"),
    (["--blocker", "b", "--completed", "z" * 4097], "each --completed value is at most 4096 bytes (one has 4097)"),
    (["--assumption", " \t"], "each --assumption value is non-blank (one is empty or only spaces)"),
    ([a for _ in range(17) for a in ("--blocker", "z" * 4000)],
     "the --completed, --assumption, --blocker and --next-action values hold at most 65536 bytes in all "
     "(68000 given)"),
])
def test_a_refused_handoff_names_the_list_and_the_limit(inited, args, hint):
    """An agent trial: 65 ``--next-action`` values, or one of 4,097 bytes, got only ``memory
    handoff record has invalid fields``. The help names the list and the limit, as topics do
    (CONTRACT §1.5 rule 7), and never repeats an entry."""
    _fails_with(inited, [*HANDOFF, *args], f"memory handoff record has invalid fields; {hint}")


def test_a_refused_handoff_document_names_the_list_and_the_limit(inited):
    head = git(inited, "rev-parse", "HEAD")
    lists = {"completed": [], "assumptions": [], "blockers": [], "nextActions": [f"n{i}" for i in range(65)]}
    request = {"version": 0, "kind": "handoff", "content": "x", "anchor": {"commit": head},
               "applicability": {"mode": "descendants"}, "topics": [], "evidence": [], "handoff": lists}
    for args in (["handoff", "--at", "HEAD"], ["record"]):
        _fails_with(inited, ["memory", *args, "--input", "-", "--json"], "memory handoff record has invalid fields; "
                    "at most 64 handoff.nextActions entries (65 given), each at most 4096 bytes",
                    input=json.dumps(request).encode())


# (log's 172-character usage line, after the reason, buried it: its -h is named instead)
LOG = "git hn memory log -h shows the options"


@pytest.mark.parametrize("args,message", [
    # git-hn's own commands: the reason first, then the usage (a newcomer trial missed it after 200
    # characters); a number or a revision shape is named, a secret-looking word is not
    (["memory", "log", "5"], f'unexpected argument "5"; {LOG}'),
    (["memory", "log", "HEAD~5"], f'unexpected argument "HEAD~5"; {LOG}'),
    (["memory", "log", "hunter2password"], f"unexpected argument; {LOG}"),
    (["memory", "log", "--at", "HEAD~5"], f"unknown option --at for this command (other git hn commands take it); {LOG}"),
    (["memory", "view", "extra"], 'unexpected argument "extra"; usage: git hn memory view [--at REV] '
                                  "[--output FILE] [--open]"),
    (["memory", "import"], "missing FILE (- reads stdin); usage: git hn memory import FILE|- [--stream ID] "
                           "[--allow-secret-shaped] [--json]"),
    # the contract's usage texts stay first (§10.1), the reason after them
    (["memory", "recall", "--max-record", "3"], "usage: git hn memory recall [filters] [bounds] [--json]; unknown "
                                                "option --max-record; did you mean --max-records?"),
    (["memory", "recall", "--max-records", "0"], "recall bounds must be positive; --max-records takes 1 or more"),
    (["memory", "recall", "--max-content-bytes", "-1"],
     "recall bounds must be positive; --max-content-bytes takes 1 or more"),
    (["memory", "supersede", "--content", "x"], "usage: git hn memory supersede MEMORY [record fields]; missing MEMORY"),
    (["memory", "retract", "0123456789ab"], "usage: git hn memory retract MEMORY --reason REASON; missing --reason"),
    (["memory", "challenge"], "usage: git hn memory challenge MEMORY --reason REASON [--evidence TYPED-ID]; missing "
                              "MEMORY and --reason"),
])
def test_a_usage_error_says_why_where_it_is_seen(inited, args, message):
    before = refs_snapshot(inited)
    r = hn(inited, *args)
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: {message}\n")
    assert refs_snapshot(inited) == before


def test_a_recall_of_memories_that_do_not_apply_here_says_so(inited):
    """A team trial: after a squash merge, the feature branch's memories (recorded with
    ``--applies descendants``) no longer applied on main, and recall there matched nothing with
    no word why. It says how many match elsewhere and how to see or carry them over."""
    git(inited, "checkout", "-q", "-b", "feature")
    (inited / "errors.py").write_text("x = 1\n")
    git(inited, "add", "errors.py")
    git(inited, "commit", "-q", "-m", "errors")
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--path", "errors.py", "--content", "errors are values", "--json")
    assert r.code == 0, r.err
    short = r.json()["memoryId"][7:19]
    git(inited, "checkout", "-q", "-")
    # (nothing else matched: said while feature still holds it, naming it: no carrying over, an agent trial)
    said = ("git-hn: hint: 1 matching memory does not apply at this commit and was left out: its anchor commit is "
            "on feature, not merged here: git hn memory recall --at feature lists it there\n")
    for args in (["--json"], []):
        r = hn(inited, "memory", "recall", "--include-untrusted", "--path", "errors.py", *args)
        assert r.code == 0 and said in r.err, r.err
    git(inited, "branch", "-q", "-D", "feature")  # (no ref holds it: carried over by its author)
    said = ("git-hn: hint: 1 matching memory does not apply at this commit and was left out: its anchor commit is "
            f"not in its history (a squash merge or a rebase?); git hn memory show {short} says where it applies, "
            f"and git hn memory supersede {short} --at HEAD --same-content records it again on HEAD\n")
    r = hn(inited, "memory", "recall", "--include-untrusted", "--path", "errors.py")
    assert r.code == 0 and said in r.err, r.err


STREAM_FORM = ("memory stream is invalid; a stream is chosen by a full stream ID (sha256: and 64 lowercase hex "
               "digits, as a record's output prints it) or label:NAME, NAME being 1 to 64 of a-z, 0-9, ., _ and - "
               "(starting with a letter or digit)")


def test_an_invalid_stream_shows_the_form_of_a_stream_id(inited):
    """A trial: ``--stream sha256:1234`` got ``memory stream is invalid`` alone."""
    mine = hn(inited, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
              "exact", "--content", "x").json()["memoryId"]
    for args in (["record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "y"],
                 ["retract", mine, "--reason", "obsolete"], ["supersede", mine, "--content", "z"]):
        _fails_with(inited, ["memory", *args, "--stream", "sha256:1234"], STREAM_FORM)


def test_oversized_content_says_how_big_it_was(inited, tmp_path):
    """A trial: content over 64 KB got the bound alone (memory import said "105815 given")."""
    rule = "memory record content is invalid; the content is non-blank UTF-8 text of at most 65536 bytes"
    big = tmp_path / "big.txt"
    big.write_text("x" * 70_001)
    record = ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact"]
    _fails_with(inited, [*record, "--content-file", str(big)], f"{rule} (70001 bytes given)")
    _fails_with(inited, [*record, "--content-file", "-"], f"{rule} (more than 65536 bytes given)",
                input=big.read_bytes())
    _fails_with(inited, [*record, "--content", "é" * 40_000], f"{rule} (80000 bytes given)")
    doc = {"version": 0, "kind": "decision", "content": "x" * 70_000, "anchor": {"commit": git(inited, "rev-parse", "HEAD")},
           "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    _fails_with(inited, ["memory", "record", "--input", "-", "--json"], "memory record content is invalid; content "
                "is non-blank UTF-8 text of at most 65536 bytes (70000 bytes given)", input=json.dumps(doc).encode())


def test_invalid_content_says_which_rule_it_broke(inited, tmp_path):
    """f143's agent trial: blank content and Latin-1 bytes (from a file, or a command line) were
    refused with the rule alone, the same line as for content too long; the line now ends with
    what the content given is, and for a file the first byte that is not UTF-8. Nothing is signed."""
    from helpers import hn_proc

    rule = "memory record content is invalid; the content is non-blank UTF-8 text of at most 65536 bytes"
    record = ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact"]
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes(b"caf\xe9 au lait\n")
    _fails_with(inited, [*record, "--content-file", str(latin1)],
                f"{rule} (the content given is not UTF-8: byte 0xe9 at offset 3)")
    _fails_with(inited, [*record, "--content-file", "-"], f"{rule} (the content given is not UTF-8: byte 0xe9 "
                "at offset 3)", input=latin1.read_bytes())
    _fails_with(inited, [*record, "--content", " \n\t"], f"{rule} (the content given is blank)")
    _fails_with(inited, ["memory", "handoff", "--at", "HEAD", "--applies", "exact", "--content", " "],
                f"{rule} (the content given is blank)")
    before = refs_snapshot(inited)
    argv = hn_proc(inited, *record, "--content", b"caf\xe9")  # (bytes as a shell passes them)
    assert (argv.code, argv.err) == (1, f"git-hn: {rule} (the content given is not UTF-8)\n")
    assert refs_snapshot(inited) == before
    doc = {"version": 0, "kind": "decision", "content": "  ", "anchor": {"commit": git(inited, "rev-parse", "HEAD")},
           "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    _fails_with(inited, ["memory", "record", "--input", "-", "--json"], "memory record content is invalid; content "
                "is non-blank UTF-8 text of at most 65536 bytes (the content given is blank)",
                input=json.dumps(doc).encode())


def _husky(tmp_path, url: str, refuses: str):
    """A clone that pushes to ``url``, with one memory to publish and a team's husky-style pre-push
    hook (``core.hooksPath``) that runs ``refuses`` (shell) for a ref under refs/hn/."""
    clone = tmp_path / "clone"
    git(tmp_path, "init", "-q", "-b", "main", str(clone))
    git(clone, "commit", "-q", "--allow-empty", "-m", "first")
    git(clone, "remote", "add", "origin", url)
    git(clone, "push", "-q", "origin", "main")
    hooks = tmp_path / "husky"
    hooks.mkdir()
    (hooks / "pre-push").write_text("#!/bin/sh\nwhile read l r rr rs; do case \"$rr\" in refs/hn/*)\n"
                                    f"{refuses}; exit 1;; esac; done\n")
    (hooks / "pre-push").chmod(0o755)
    git(clone, "config", "core.hooksPath", str(hooks))
    assert hn(clone, "init", "--name", "Husky").code == 0
    assert hn(clone, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "kept here").code == 0
    return clone


def test_a_publication_a_pre_push_hook_refused_says_what_the_hook_said(tmp_path, bare_remote):
    """A trial: a team's husky-style pre-push hook (``core.hooksPath``) refused git-hn's push of
    refs/hn/, and sync said only "replication memory publication failed for remote origin", the
    hook's own words swallowed. It now gives the hook's last line (bounded, inert) and the likely
    cause."""
    bare = bare_remote()
    clone = _husky(tmp_path, str(bare), "  echo 'husky - pre-push hook exited with code 1' >&2\n"
                   "  printf 'lint: refs/hn/ is not a branch \\033[31mno\\033[0m\\n' >&2")
    r = hn(clone, "sync")
    assert r.code == 1
    assert r.err.startswith("git-hn: publication phase failed after replication: replication memory publication "
                            "failed for remote origin: its git push said last: lint: refs/hn/ is not a branch  [31mno "
                            "[0m; a pre-push hook (core.hooksPath) may have refused it"), r.err
    assert "\x1b" not in r.err and str(bare) not in r.err and r.err.count("\n") == 1, r.err


def test_a_refusing_hook_whose_last_line_is_fatal_is_said_as_the_hooks(tmp_path, bare_remote):
    """A review: a chained pre-push hook ending ``fatal: lint: …`` (exit 1) was not taken for a
    hook's refusal (any ``fatal:`` line was taken for Git's), and the advice was ``git push
    --dry-run --no-verify …``, which succeeds: ``--no-verify`` skips the refusing hook. Only Git's
    own transport lines count as Git's; the hook's line is quoted, and no ``--no-verify`` dry
    run is suggested."""
    clone = _husky(tmp_path, str(bare_remote()), "  echo 'fatal: lint: refs/hn/ is not a branch' >&2")
    r = hn(clone, "sync")
    assert r.code == 1
    assert "its git push said last: fatal: lint: refs/hn/ is not a branch; a pre-push hook (core.hooksPath) " \
        "may have refused it" in r.err and "--no-verify" not in r.err, r.err


def test_a_hook_refusal_that_quotes_a_transport_line_is_never_sent_to_a_no_verify_dry_run(tmp_path, bare_remote):
    """The same review's other half: a hook that ends with a line Git's transport also prints
    (it ran a fetch of its own) has the form of a refusal but cannot be told from a transport's;
    the dry run suggested keeps the team's hooks (``HN_HOOK_ACTIVE=1`` keeps git-hn's own out, as
    in its push), so that it shows whichever it was."""
    clone = _husky(tmp_path, str(bare_remote()), "  echo 'fatal: the remote end hung up unexpectedly' >&2")
    r = hn(clone, "sync")
    assert r.code == 1
    assert r.err.endswith("HN_HOOK_ACTIVE=1 git push --dry-run origin 'refs/hn/memory/*:refs/hn/memory/*' shows "
                          "Git's own message, or a pre-push hook's\n") and "--no-verify" not in r.err, r.err


def test_a_refusing_hook_that_prints_the_url_does_not_show_its_password(tmp_path, bare_remote, http_backend):
    """A review: a team's pre-push hook printed its ``$2``, the remote's URL, and git-hn quoted it:
    "its git push said last: lint: refusing refs/hn/memory/… to http://u:pw@127.0.0.1:18641/origin.gi...".
    Secrets are never in errors: the remote's URLs, and any URL's user and password, are redacted
    before the line is cut (a cut URL keeps its password and loses the "@" that marks it)."""
    url = http_backend(bare_remote()).replace("http://", "http://u:s3cret@")
    clone = _husky(tmp_path, url, '  echo "lint: refusing refs/hn/ to $2 (also http://u:s3cret@elsewhere.invalid/x)" >&2')
    r = hn(clone, "sync")
    assert r.code == 1
    assert "s3cret" not in r.err and "u:" not in r.err, r.err
    assert "its git push said last: lint: refusing refs/hn/ to <private> (also http://<private>@elsewhere.invalid/x); " \
        "a pre-push hook (core.hooksPath) may have refused it" in r.err, r.err
    # a line cut at 200 characters where its password starts: redacted first, none of it shows
    clone2 = tmp_path / "second"
    clone2.mkdir()
    url = http_backend(bare_remote("second.git")).replace("http://", "http://u:s3cret@")
    long = _husky(clone2, url, '  echo "lint: $(printf "%0182d" 0) http://u:s3cret@elsewhere.invalid/x" >&2')
    r = hn(long, "sync")
    assert r.code == 1 and "u:s3" not in r.err and " http://<pri...; a pre-push hook" in r.err, r.err


def test_a_silent_refusing_hook_is_named_without_a_quote(tmp_path, bare_remote):
    """A pre-push hook that refuses without a word: the push has a hook refusal's form (exit 1,
    no ref's status, Git's "error: failed to push some refs" alone), so it is named, and nothing
    of Git's own is quoted in its place."""
    clone = _husky(tmp_path, str(bare_remote()), "  :")
    r = hn(clone, "sync")
    assert r.code == 1
    assert r.err == ("git-hn: publication phase failed after replication: replication memory publication failed "
                     "for remote origin: its git push stopped before it sent anything; a pre-push hook (core.hooksPath) "
                     "may have refused it: let the hook pass git-hn's own pushes, which carry HN_HOOK_ACTIVE=1 and push "
                     "only refs/hn/ refs\n"), r.err


# -- f145: four error lines from the forty-third session's newcomer trials ---------------------


@pytest.mark.parametrize("query,why", [
    ("12", "this one has 2 digits"),
    ("sha256:1234", "this one has 4 digits"),
    ("sha256:xyz", '"x" is not a lowercase hex digit'),
    ("abcdefgh", '"g" is not a lowercase hex digit'),
    ("ABC", '"A" is not a lowercase hex digit'),
    ("sha256:", "nothing follows sha256:"),
    ("a" * 65, "this one has 65 digits"),
])
def test_text_that_cannot_name_a_memory_says_which_part_of_the_rule_it_breaks(inited, query, why):
    """``show 12`` got CONTRACT §7.13's "not found" and the naming rule, and the newcomer could not
    tell which part was broken: the line says it in parentheses (the corrections say the same,
    ``test_a_memory_named_too_short_says_what_names_a_memory``). A well-formed prefix that is
    simply absent keeps the way to list the IDs."""
    record_id(inited, content="the cache is warm")
    _fails_with(inited, ["memory", "show", query],
                f"memory {query} was not found in verified local or accepted streams; a memory is named by its ID "
                f"(sha256: and 64 lowercase hex digits) or by at least 8 of its first ones ({why})")
    _fails_with(inited, ["memory", "show", "12345678"],
                f"memory 12345678 was not found in verified local or accepted streams{WAY}")


@pytest.mark.parametrize("bound,words", [
    ("1e3", "; a number with a fraction or exponent was given: write 1000"),
    ("1000.0", "; a number with a fraction or exponent was given: write 1000"),
    ("1.5", "; 1.5 is not a whole number"),
    ("2.5e-1", "; 2.5e-1 is not a whole number"),
    ("1e-999999999", "; 1e-999999999 is not a whole number"),  # (exact, never expanded)
    ("1e999999999", "; a number with a fraction or exponent was given"),
    ("0.0", "; a number with a fraction or exponent was given"),
    ("0", ""),  # (an integer: the contract's words alone, as before)
    ('"1000"', ""),
])
def test_a_bound_written_with_a_fraction_or_exponent_says_so(inited, bound, words):
    """``"maxBytes": 1e3`` was told "must be a positive integer", which it looked like. The verdict
    stays Go's (an int field refuses 1e3 and 1000.0: CONTRACT §7.3); the words say what was
    given, and the integer to write when there is one."""
    head = git(inited, "rev-parse", "HEAD")
    for key in ("maxBytes", "maxRecords"):
        doc = f'{{"version":0,"atCommit":"{head}","{key}":{bound}}}'.encode()
        _fails_with(inited, ["memory", "recall", "--json", "--input", "-"],
                    f"recall input field {key} must be a positive integer{words}", input=doc)
    doc = f'{{"version":0,"atCommit":"{head}","maxBytes":1000}}'.encode()  # what the words say to write
    assert hn(inited, "memory", "recall", "--json", "--input", "-", input=doc).code == 0


@pytest.mark.parametrize("given,words", [
    ("0.0", "; a number with a fraction or exponent was given: write 0"),
    ("-0e3", "; a number with a fraction or exponent was given: write 0"),
    ("1.0", "; a number with a fraction or exponent was given"),  # (whole, but not the 0 it must be)
    ("0.5", "; 0.5 is not a whole number"),
    ("1", ""),  # (an integer: the contract's words alone, as before)
])
def test_a_version_written_with_a_fraction_says_so_as_a_bound_does(inited, given, words):
    """``"version": 0.0`` was told the bare ``must be integer 0`` (f145 left it so) where
    ``"maxBytes": 1e3`` is told what was given: every integer field of a document git-hn reads
    strictly is worded by one helper (``strictjson.integer_rule``), with the integer to write only
    when the field takes it. The verdict is unchanged: refused, as Go's decoder refuses it."""
    head = git(inited, "rev-parse", "HEAD")
    doc = (f'{{"version":{given},"kind":"decision","content":"x","anchor":{{"commit":"{head}"}},'
           '"applicability":{"mode":"exact"},"topics":[],"evidence":[]}').encode()
    _fails_with(inited, ["memory", "record", "--json", "--input", "-"],
                f"record input field version must be integer 0{words}", input=doc)
    doc = f'{{"version":{given},"atCommit":"{head}"}}'.encode()
    _fails_with(inited, ["memory", "recall", "--json", "--input", "-"],
                f"recall input field version must be integer 0{words}", input=doc)
    assert hn(inited, "memory", "recall", "--json", "--input", "-",
              input=doc.replace(given.encode(), b"0", 1)).code == 0  # (what the words say to write)


def test_the_saved_files_integer_fields_written_with_a_fraction_say_so_too(inited, tmp_path):
    """The identity file ``identity import`` reads and the saved replication selection are read
    as strictly, and their integer fields say what ``"version": 0.0`` is told (the saved
    selection's budgets, as the option they come from, then the file's key: f154)."""
    git(inited, "remote", "add", "origin", str(tmp_path / "nowhere.git"))
    assert hn(inited, "replication", "select", "--all").code == 0
    [saved] = (inited / ".git" / "hn" / "replication" / "selections").iterdir()
    good = saved.read_text()
    given = "a number with a fraction or exponent was given"
    for old, new, said in (('"maxEvents": 10000', '"maxEvents": 1e4', f"max-events must be a positive integer; "
                            f"budgets.maxEvents in the file is not one; {given}: write 10000"),
                           ('"version": 1', '"version": 1.0', f"unsupported replication selection version 1.0; "
                            f"{given}: write 1")):
        assert old in good
        saved.write_text(good.replace(old, new))
        r = hn(inited, "replication", "show")
        assert r.code == 1 and r.err.startswith(f"git-hn: invalid saved replication selection: {said}; "), r.err
        assert saved.read_text() == good.replace(old, new)  # (nothing changed)
    exported = tmp_path / "id.json"
    assert hn(inited, "identity", "export", "--output", str(exported)).code == 0
    assert '"version": 1,' in exported.read_text()
    exported.write_text(exported.read_text().replace('"version": 1,', '"version": 1e0,'))
    before = sorted(p.name for p in (inited / ".git" / "hn" / "identities").iterdir())
    r = hn(inited, "identity", "import", str(exported))
    assert (r.code, r.err) == (1, f"git-hn: identity file {exported} is not a valid identity: read identity record: "
                                  f'json: field "version" must be an integer; {given}: write 1\n')
    assert sorted(p.name for p in (inited / ".git" / "hn" / "identities").iterdir()) == before


def test_a_bad_budget_in_the_saved_selection_names_the_files_key_and_the_option_keeps_its_name(inited, tmp_path):
    """f154: a saved selection whose budget is not a positive integer was refused in the words of
    the option (§9.1's ``max-events must be a positive integer``), naming nothing the file holds: the
    contract's text stays first, then the file's key (``budgets.maxEvents``), then the file to save
    over. Given on the command line, the option keeps its own words. Nothing changes."""
    git(inited, "remote", "add", "origin", str(tmp_path / "nowhere.git"))
    assert hn(inited, "replication", "select", "--all", "--max-streams", "7").code == 0
    [saved] = (inited / ".git" / "hn" / "replication" / "selections").iterdir()
    good = saved.read_text()
    way = f"; save a new one over {saved}: git hn replication select --memory sha256:<stream> (or --all)\n"
    for old, new, said in (('"maxEvents": 10000', '"maxEvents": 0', "max-events must be a positive integer; "
                            "budgets.maxEvents in the file is not one"),
                           ('"maxTotalBytes": 1073741824', '"maxTotalBytes": "1073741824"', "max-total-bytes must be a "
                            "positive integer; budgets.maxTotalBytes in the file is not one"),
                           ('"maxStreams": 7', '"maxStreams": -7', "max-streams must be a positive integer; "
                            "budgets.maxStreams in the file is not one")):
        assert old in good
        saved.write_text(good.replace(old, new))
        for args in (("replication", "show"), ("sync",), ("replication", "select", "--max-objects", "5")):
            r = hn(inited, *args)
            assert r.code == 1 and r.err.endswith(f"invalid saved replication selection: {said}{way}"), (args, r.err)
            assert saved.read_text() == good.replace(old, new)  # (nothing changed)
    saved.write_text(good)
    r = hn(inited, "replication", "select", "--max-events", "0")
    assert (r.code, r.err) == (1, "git-hn: max-events must be a positive integer; --max-events takes 1 or more\n")
    assert saved.read_text() == good


def test_the_no_identity_line_quotes_both_of_its_commands(repo):
    """It quoted 'git hn init' (CONTRACT §0.5's words, kept first) and not its other command; both
    are quoted now, the second after "; " as every addition to the contract's words."""
    r = _fails_with(repo, BASE + ["--kind", "decision", "--applies", "exact"],
                    "no identity; run 'git hn init'; or, to sign as one you exported in another clone, run "
                    "'git hn identity import FILE --activate'")
    assert r.err.count("'git hn ") == 2
    assert hn(repo, "identity", "show").err == r.err


def _edited_by(repo, tmp_path, monkeypatch, name: str, script: str):
    """A memory to supersede, and the directory ``--edit`` keeps its file in, with ``$EDITOR`` a
    shell script of ``script`` (its file is ``$1``)."""
    import tempfile

    old = record_id(repo, content="the cache is warm")
    edits = tmp_path / "edits"
    edits.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(edits))
    for var in ("GIT_EDITOR", "VISUAL"):
        monkeypatch.delenv(var, raising=False)
    editor = tmp_path / name
    editor.write_text(f"#!/bin/sh\n{script}\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    return old, edits


def test_an_edit_that_is_not_utf8_says_which_byte_as_content_file_does(inited, tmp_path, monkeypatch):
    """``supersede --edit`` with an editor that writes Latin-1 gave the content rule alone; it now
    says which byte at which offset of the kept file, in ``record --content-file``'s words (f143),
    and the kept file's name still ends the line."""
    old, edits = _edited_by(inited, tmp_path, monkeypatch, "latin1.sh", 'printf "caf\\351 au lait\\n" > "$1"')
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "supersede", old, "--edit")
    [kept] = list(edits.iterdir())
    rule = "memory record content is invalid; the content is non-blank UTF-8 text of at most 65536 bytes"
    assert (r.code, r.err) == (1, f"git-hn: {rule} (the content given is not UTF-8: byte 0xe9 at offset 3); your "
                                  f"text is kept in {kept} (reuse it with --content-file)\n")
    assert kept.read_bytes() == b"caf\xe9 au lait\n" and refs_snapshot(inited) == before
    r = hn(inited, "memory", "supersede", old, "--content-file", str(kept))  # the same words for the same bytes
    assert (r.code, r.err) == (1, f"git-hn: {rule} (the content given is not UTF-8: byte 0xe9 at offset 3)\n")


def test_an_edit_with_a_byte_not_utf8_below_the_scissors_line_is_signed_without_it(inited, tmp_path, monkeypatch):
    """``supersede --edit`` decoded the whole file before cutting it at the scissors line, so a
    byte that is not UTF-8 in what is discarded anyway (a note in Latin-1 below the line, as
    ``git commit --cleanup=scissors`` discards it) refused the edit (f145 left it so). The text is
    now cut first and only what is kept is decoded: the edit is signed as written above the line,
    and a byte above it is still refused with its offset in the kept file."""
    # (the editor writes its own content, then the instructions it was given, then a Latin-1 note)
    old, edits = _edited_by(inited, tmp_path, monkeypatch, "below.sh",
                            '{ printf "caf\\303\\251 au lait\\n\\n"; sed -n "/>8/,\\$p" "$1"; '
                            'printf "# vu \\351t\\351\\n"; } > "$1.new"; mv "$1.new" "$1"')
    r = hn(inited, "memory", "supersede", old, "--edit", "--json")
    assert (r.code, unhinted(r.err)) == (0, ""), r.err
    shown = hn(inited, "memory", "show", r.json()["memoryId"], "--json").json()
    assert shown["projection"]["data"]["content"] == "caf\u00e9 au lait"
    assert list(edits.iterdir()) == []  # (signed: nothing kept)
    (tmp_path / "below.sh").write_text('#!/bin/sh\n{ printf "caf\\351\\n"; sed -n "/>8/,\\$p" "$1"; } > "$1.new"; '
                                       'mv "$1.new" "$1"\n')
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "supersede", r.json()["memoryId"], "--edit")
    [kept] = list(edits.iterdir())
    assert (r.code, r.err) == (1, "git-hn: memory record content is invalid; the content is non-blank UTF-8 text of "
                                  "at most 65536 bytes (the content given is not UTF-8: byte 0xe9 at offset 3); "
                                  f"your text is kept in {kept} (reuse it with --content-file)\n")
    assert refs_snapshot(inited) == before
