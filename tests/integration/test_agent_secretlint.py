"""The secret lint on every signing command, with flags and with --input (CONTRACT §10.4 step 1,
§10.6). Real repositories; synthetic credentials only. A refusal appends nothing and never prints
the value.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from agent_helpers import actor, record, second_identity, switch
from helpers import git, hn, make_repo, refs_snapshot

R = random.Random(11)
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def rs(chars, n):
    return "".join(R.choice(chars) for _ in range(n))


GITHUB = "ghp_" + rs(ALNUM, 36)
AWS_ID = "AKIA" + rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
AWS_SECRET = rs(ALNUM + "/+", 40)
PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZ2VudCIsImlhdCI6MTUxNjIzOTAyMn0."
       "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
SECRETS = [GITHUB, AWS_ID, AWS_SECRET, PEM, JWT]


def refusal(field, detector):
    return (f"git-hn: secret-shaped text in {field} ({detector}); not signed; "
            "use --allow-secret-shaped to override\n")


def assert_refused(repo, result, field, detector, before):
    assert result.code == 1
    assert result.err == refusal(field, detector)
    assert result.out == ""
    assert refs_snapshot(repo) == before, "a refused request appended something"
    for value in SECRETS:
        for line in value.splitlines():
            assert line not in result.err and line not in result.out


BASE = ["--at", "HEAD", "--applies", "descendants"]


@pytest.mark.parametrize("content,detector", [
    (f"CI uses {GITHUB}", "github-token"),
    (f"aws_access_key_id={AWS_ID}\naws_secret_access_key={AWS_SECRET}", "aws-access-key"),
    (PEM, "private-key-block"),
    (f"session {JWT}", "jwt"),
    ("export PGPASSWORD=" + rs(ALNUM, 12), "password-assignment"),
])
def test_record_refuses_each_detector_by_flags_and_input(inited, content, detector):
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "record", "--kind", "observation", *BASE, "--content", content)
    assert_refused(inited, r, "record.content", detector, before)
    head = git(inited, "rev-parse", "HEAD")
    req = {"version": 0, "kind": "observation", "content": content, "anchor": {"commit": head},
           "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(req).encode())
    assert_refused(inited, r, "record.content", detector, before)
    # deliberately overridden: signed
    r = hn(inited, "memory", "record", "--kind", "observation", *BASE, "--content", content,
           "--allow-secret-shaped", "--json")
    assert r.code == 0, r.err
    r = hn(inited, "memory", "record", "--input", "-", "--json", "--allow-secret-shaped",
           input=json.dumps(req).encode())
    assert r.code == 0, r.err


def test_the_field_path_names_topics_handoff_lists_and_paths(inited):
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "record", "--kind", "decision", *BASE, "--content", "fine",
           "--topic", "zeta", "--topic", f"Alpha {GITHUB}")
    # topics are normalized (lowercased, sorted) before the lint: "alpha …" sorts first, and the
    # lowercased token is still token-shaped
    assert_refused(inited, r, "record.topics[0]", "github-token", before)
    r = hn(inited, "memory", "handoff", *BASE, "--content", "end of session",
           "--completed", "codec", "--blocker", "none", "--next-action", "run tests",
           "--next-action", f"log in with {JWT}")
    assert_refused(inited, r, "record.handoff.nextActions[1]", "jwt", before)
    r = hn(inited, "memory", "handoff", *BASE, "--content", "end",
           "--assumption", "fine", "--assumption", "password=" + rs(ALNUM, 10))
    assert_refused(inited, r, "record.handoff.assumptions[1]", "password-assignment", before)
    r = hn(inited, "memory", "record", "--kind", "decision", *BASE, "--content", "fine",
           "--path", f"keys/{GITHUB}.txt", "--path", "README.md")
    # paths are sorted: README.md is paths[0]
    assert_refused(inited, r, "record.anchor.paths[1].path", "github-token", before)
    # content is linted before the handoff lists
    r = hn(inited, "memory", "handoff", *BASE, "--content", f"token {AWS_ID}", "--next-action", JWT)
    assert_refused(inited, r, "record.content", "aws-access-key", before)


def test_topics_are_linted_after_normalization(inited):
    before = refs_snapshot(inited)
    token = "xoxb-" + rs("0123456789", 12) + "-" + rs("abcdefghij0123456789", 24)
    r = hn(inited, "memory", "record", "--kind", "decision", *BASE, "--content", "fine",
           "--topic", "zzz", "--topic", f"  slack {token}  ")
    assert_refused(inited, r, "record.topics[0]", "SlackDetector", before)


def test_handoff_input_and_supersede(inited, tmp_path):
    before = refs_snapshot(inited)
    head = git(inited, "rev-parse", "HEAD")
    req = {"version": 0, "kind": "handoff", "content": "end", "anchor": {"commit": head},
           "applicability": {"mode": "exact"}, "topics": [], "evidence": [],
           "handoff": {"completed": [], "assumptions": [], "blockers": [GITHUB], "nextActions": []}}
    r = hn(inited, "memory", "handoff", "--input", "-", "--json", input=json.dumps(req).encode())
    assert_refused(inited, r, "record.handoff.blockers[0]", "github-token", before)
    target = record(inited, content="original")["memoryId"]
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "supersede", target, "--kind", "decision", *BASE, "--content", PEM)
    assert_refused(inited, r, "record.content", "private-key-block", before)
    f = tmp_path / "req.json"
    f.write_text(json.dumps({**req, "kind": "decision", "handoff": None, "content": JWT}))
    r = hn(inited, "memory", "supersede", target, "--input", str(f), "--json")
    assert_refused(inited, r, "record.content", "jwt", before)
    r = hn(inited, "memory", "supersede", target, "--input", str(f), "--json", "--allow-secret-shaped")
    assert r.code == 0, r.err


def test_retract_and_challenge_reasons(inited):
    target = record(inited, content="original")["memoryId"]
    before = refs_snapshot(inited)
    # a reason is a token ([a-z0-9-] after lowercasing), so only secrets of that shape fit in
    # it, such as a Slack token (found by the detector library)
    slack = "xoxb-" + rs("0123456789", 12) + "-" + rs("abcdefghij0123456789", 24)
    r = hn(inited, "memory", "retract", target, "--reason", slack)
    assert_refused(inited, r, "reason", "SlackDetector", before)
    r = hn(inited, "memory", "retract", target, "--reason", slack, "--allow-secret-shaped", "--json")
    assert r.code == 0, r.err
    bob = second_identity(inited)
    alice = actor(inited)
    other = record(inited, content="alice's claim")["memoryId"]
    switch(inited, bob)
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "challenge", other, "--reason", slack)
    assert_refused(inited, r, "reason", "SlackDetector", before)
    r = hn(inited, "memory", "challenge", other, "--reason", slack, "--allow-secret-shaped")
    assert r.code == 0, r.err
    switch(inited, alice)


def test_lint_runs_before_identity_and_anchor_checks(repo):
    """§10.4: the lint ends step 1, before the identity (step 2) and the anchor (step 4)."""
    r = hn(repo, "memory", "record", "--kind", "decision", *BASE, "--content", GITHUB)
    assert r.err == refusal("record.content", "github-token")  # no identity yet
    req = {"version": 0, "kind": "decision", "content": JWT, "anchor": {"commit": "b" * 40},
           "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    r = hn(repo, "memory", "record", "--input", "-", "--json", input=json.dumps(req).encode())
    assert r.err == refusal("record.content", "jwt")
    # validation comes first: an invalid request reports its validation error, not the lint
    req["kind"] = "nonsense"
    r = hn(repo, "memory", "record", "--input", "-", "--json", input=json.dumps(req).encode())
    assert r.err == "git-hn: memory record kind is unsupported\n"


def test_commit_ids_and_prose_are_signed(inited):
    head = git(inited, "rev-parse", "HEAD")
    blob = git(inited, "rev-parse", "HEAD:README.md")
    out = record(inited, "--topic", f"fix {head[:12]}", content=(
        f"Reverted {head} because the token bucket was wrong; blob {blob}, memory "
        f"sha256:{'ab' * 32}. The secret of a good API key policy: rotate it."))
    assert out["memoryId"].startswith("sha256:")


def test_a_prose_record_never_loads_the_detector_library(inited):
    """The library costs ~100 ms to import; ordinary text must not pay for it (bench budget)."""
    code = ("import sys\nfrom git_hn.cli.main import main\n"
            "rc = main(['memory', 'record', '--kind', 'decision', '--at', 'HEAD', '--applies', "
            "'exact', '--topic', 'bench', '--content', 'Keep memory streams separate.'])\n"
            "print(rc, 'detect_secrets' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=inited, capture_output=True, text=True)
    assert proc.stdout.splitlines()[-1] == "0 False", proc.stderr
    code = code.replace("Keep memory streams separate.", "see https://example.com/a")
    proc = subprocess.run([sys.executable, "-c", code], cwd=inited, capture_output=True, text=True)
    assert proc.stdout.splitlines()[-1] == "0 True", proc.stderr


def test_sha256_repository_object_ids_are_not_secrets(tmp_path):
    repo = make_repo(tmp_path / "s256", object_format="sha256")
    assert hn(repo, "init", "--name", "A").code == 0
    head = git(repo, "rev-parse", "HEAD")
    assert len(head) == 64
    out = record(repo, content=f"anchored at {head}; token={head}")
    assert out["anchor"]["commit"] == head
