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
    # the index is the normalized one (lowercased, sorted): "alpha …" sorts first
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


def test_topics_are_indexed_in_normalized_order(inited):
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
    assert r.err == ("git-hn: memory record kind is unsupported; valid: observation, decision, assumption, attempt, "
                     "verification, handoff\n")


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


# -- issue 12, item 9a: lint what the author gave, before normalization; what users paste most ---

AWS_FAKE = "AKIAQW3ERTY7UIOP4ASD"  # the issue's example: well-formed, not a real key
TWILIO = "SK" + rs("0123456789abcdef", 32)
SENDGRID = "SG." + rs(ALNUM, 22) + "." + rs(ALNUM, 43)


def assert_refused_quietly(repo, result, field, detector, before, *values):
    """Exit 1, exactly one line on stderr naming the field, no value (in any case) anywhere in
    the output, and nothing appended."""
    assert result.code == 1, result
    assert result.err == refusal(field, detector)
    assert result.err.count("\n") == 1
    assert result.out == ""
    assert refs_snapshot(repo) == before, "a refused request appended something"
    for value in values:
        for piece in value.replace("\u200b", " ").split():
            if len(piece) >= 8:
                for spelling in (piece, piece.lower(), piece.upper()):
                    assert spelling not in result.err and spelling not in result.out


@pytest.mark.parametrize("secret,detector", [
    (AWS_FAKE, "aws-access-key"),
    (TWILIO, "TwilioKeyDetector"),
    (SENDGRID, "SendGridDetector"),
])
def test_a_credential_as_a_topic_is_refused_before_lowercasing(inited, secret, detector):
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "record", "--kind", "decision", *BASE, "--content", "fine",
           "--topic", "zzz", "--topic", secret)
    assert_refused_quietly(inited, r, "record.topics[0]", detector, before, secret)
    head = git(inited, "rev-parse", "HEAD")
    req = {"version": 0, "kind": "observation", "content": "fine", "anchor": {"commit": head},
           "applicability": {"mode": "exact"}, "topics": ["aaa", f"  {secret} "], "evidence": []}
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(req).encode())
    assert_refused_quietly(inited, r, "record.topics[1]", detector, before, secret)
    r = hn(inited, "memory", "handoff", *BASE, "--content", "end", "--topic", secret,
           "--completed", "codec", "--blocker", "none")
    assert_refused_quietly(inited, r, "record.topics[0]", detector, before, secret)
    target = record(inited, content="original")["memoryId"]
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "supersede", target, "--kind", "decision", *BASE, "--content", "fix",
           "--topic", secret)
    assert_refused_quietly(inited, r, "record.topics[0]", detector, before, secret)
    # deliberately overridden: signed, lowercased as the contract normalizes topics
    out = record(inited, "--topic", secret, "--allow-secret-shaped", content="fine")
    commit = hn(inited, "memory", "show", out["memoryId"], "--json").json()["commit"]
    signed = json.loads(git(inited, "show", f"{commit}:memory.json"))
    assert signed["record"]["topics"] == [secret.lower()]


@pytest.mark.parametrize("reason,detector", [
    (AWS_FAKE, "aws-access-key"),
    (f"  {AWS_FAKE} ", "aws-access-key"),
    (TWILIO, "TwilioKeyDetector"),
])
def test_a_credential_as_a_retract_or_challenge_reason_is_refused(inited, reason, detector):
    target = record(inited, content="original")["memoryId"]
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "retract", target, "--reason", reason)
    assert_refused_quietly(inited, r, "reason", detector, before, reason)
    bob = second_identity(inited)
    alice = actor(inited)
    switch(inited, bob)
    r = hn(inited, "memory", "challenge", target, "--reason", reason)
    assert_refused_quietly(inited, r, "reason", detector, before, reason)
    r = hn(inited, "memory", "challenge", target, "--reason", reason,
           "--evidence", "git:" + git(inited, "rev-parse", "HEAD"))
    assert_refused_quietly(inited, r, "reason", detector, before, reason)
    # --allow-secret-shaped keeps working
    r = hn(inited, "memory", "challenge", target, "--reason", reason, "--allow-secret-shaped",
           "--json")
    assert r.code == 0, r.err
    switch(inited, alice)
    r = hn(inited, "memory", "retract", target, "--reason", reason, "--allow-secret-shaped")
    assert r.code == 0, r.err


def test_a_credential_as_an_attempt_outcome_is_refused(inited):
    slack = "xoxb-" + rs("0123456789", 12) + "-" + rs("abcdefghij0123456789", 24)
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "record", "--kind", "attempt", *BASE, "--content", "tried",
           "--outcome", slack)
    assert_refused_quietly(inited, r, "record.attemptOutcome", "SlackDetector", before, slack)
    record(inited, "--outcome", "failed", kind="attempt", content="tried")


GITHUB_SPLIT = GITHUB[:17] + " " + GITHUB[17:]
GITHUB_ZW = GITHUB[:17] + "\u200b" + GITHUB[17:]
NEW_KINDS = {
    "gcp": ("AIza" + "Sy" + rs(ALNUM + "_-", 30) + "Q0x", "gcp-api-key"),
    "openai": ("OPENAI_API_KEY=sk-proj-" + rs(ALNUM + "_-", 120) + "aA1", "openai-api-key"),
    "anthropic": ("sk-ant-api03-" + rs(ALNUM + "_-", 90) + "bB2-AA", "anthropic-api-key"),
    "npm": ("npm publish with npm_" + rs(ALNUM, 33) + "cC3", "npm-token"),
    "env-db-pass": ("export DB_PASS=" + rs(ALNUM, 14), "password-assignment"),
    "azure": ("DefaultEndpointsProtocol=https;AccountName=demo;AccountKey="
              + rs(ALNUM + "+/", 86) + "==;EndpointSuffix=core.windows.net",
              "AzureStorageKeyDetector"),
    "postgres-url": ("postgres://app:" + rs(ALNUM, 14) + "@db.internal:5432/app",
                     "BasicAuthDetector"),
    "redis-url": ("REDIS_URL=redis://:" + rs(ALNUM, 14) + "@cache:6379/0", "url-password"),
    "ado-net": ("Server=db;Database=app;User Id=sa;Password=" + rs(ALNUM, 14) + ";",
                "password-assignment"),
    "github-split-by-space": (f"token {GITHUB_SPLIT} from CI", "github-token"),
    "github-split-by-zero-width": (f"token {GITHUB_ZW} from CI", "github-token"),
}


@pytest.mark.parametrize("kind", sorted(NEW_KINDS))
def test_what_users_paste_most_is_refused(inited, kind):
    content, detector = NEW_KINDS[kind]
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "record", "--kind", "observation", *BASE, "--content", content)
    assert_refused_quietly(inited, r, "record.content", detector, before, content)
    r = hn(inited, "memory", "handoff", *BASE, "--content", "end of session",
           "--next-action", "deploy", "--next-action", content)
    assert_refused_quietly(inited, r, "record.handoff.nextActions[1]", detector, before, content)
    r = hn(inited, "memory", "record", "--kind", "observation", *BASE, "--content", content,
           "--allow-secret-shaped")
    assert r.code == 0, r.err


def test_ordinary_memories_with_ids_paths_and_code_are_signed(inited):
    head = git(inited, "rev-parse", "HEAD")
    blob = git(inited, "rev-parse", "HEAD:README.md")
    me = actor(inited)
    first = record(inited, "--topic", "Auth-Tokens", "--topic", "  Secret-Rotation ",
                   "--topic", me, "--path", "README.md", content=(
                       f"Actor {me} anchored at {head} (blob {blob}).\n"
                       'password = os.environ["DB_PASSWORD"]  # never logged\n'
                       "token = get_token(); export PWD=/work/main; DB_PASS=${DB_PASS}\n"
                       "OpenAI keys start with sk-proj-, GCP keys with AIza, npm with npm_."))
    mem = first["memoryId"]
    second = record(inited, "--evidence", f"git:{head}", "--evidence", f"memory:{mem}",
                    kind="verification", content=f"verified {mem} against {head}")
    r = hn(inited, "memory", "handoff", *BASE, "--content", f"see {second['memoryId']}",
           "--completed", "secret lint: raw topics", "--blocker", "none",
           "--next-action", "run `pytest tests/unit/test_secretlint.py -q`",
           "--assumption", "api_key = settings[\"API_KEY\"] stays in code", "--json")
    assert r.code == 0, r.err
    r = hn(inited, "memory", "retract", mem, "--reason", "  Obsolete ", "--json")
    assert r.code == 0, r.err
    bob = second_identity(inited)
    switch(inited, bob)
    r = hn(inited, "memory", "challenge", second["memoryId"], "--reason", "Evidence-Mismatch",
           "--evidence", f"git:{head}", "--json")
    assert r.code == 0, r.err


def _own_key(repo) -> str:
    """The active identity's private key as its identity file stores it (base64 of 64 bytes)."""
    me = actor(repo)
    path = next((repo / ".git" / "hn" / "identities").glob(f"{me}.json"))
    return json.loads(path.read_text())["privateKey"]


def test_the_signers_own_private_key_is_never_signed(inited):
    """git-hn (the secret lint cannot know it): the active identity's private key, pasted into any
    author field in any usual spelling, is refused even with --allow-secret-shaped; the one line
    never echoes it, and nothing is appended."""
    import base64

    key = _own_key(inited)
    seed = base64.b64decode(key + "=" * (-len(key) % 4))[:32]
    spellings = [key, base64.b64encode(seed).decode(), base64.urlsafe_b64encode(seed).decode(),
                 seed.hex(), seed.hex().upper()]
    before = refs_snapshot(inited)
    said = ("git-hn: the memory holds your git-hn private key (in one of its fields); "
            "nothing was signed: remove it (every signed memory is published and permanent)\n")
    for text in spellings:
        for args in (["memory", "record", "--kind", "observation", *BASE, "--content", f"key: {text}",
                      "--allow-secret-shaped"],
                     ["memory", "record", "--kind", "observation", *BASE, "--content", "x", "--topic", text,
                      "--allow-secret-shaped"],
                     ["memory", "handoff", *BASE, "--content", "x", "--next-action", f"use {text}",
                      "--allow-secret-shaped"]):
            r = hn(inited, *args)
            assert (r.code, r.err, r.out) == (1, said, ""), (args, r.err)
    doc = {"version": 0, "kind": "observation", "content": f"the key {key}",
           "anchor": {"commit": git(inited, "rev-parse", "HEAD")}, "applicability": {"mode": "exact"},
           "topics": [], "evidence": []}
    r = hn(inited, "memory", "record", "--input", "-", "--json", "--allow-secret-shaped", input=json.dumps(doc).encode())
    assert (r.code, r.err) == (1, said), r.err
    assert refs_snapshot(inited) == before
    # another identity's key is text like any other to this signer (its own check is at its signing)
    r = hn(inited, "memory", "record", "--kind", "observation", *BASE, "--content", f"public {actor(inited)}")
    assert r.code == 0, r.err
