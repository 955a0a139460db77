"""The secret lint (CONTRACT §10.6): named detectors, field order, ranking, the object-ID
exclusion, the detector library behind it, and the gate that keeps the library off the record
path. Synthetic credentials only; none of them is real.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_hn.core import secretlint
from git_hn.core.envelope import Anchor, Applicability, Envelope, Handoff, PathAnchor, Record
from git_hn.service import secretscan

R = random.Random(7)
AZ = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
AZL = AZ.lower()
DIG = "0123456789"
HEXC = DIG + "abcdef"
ALNUM = AZ + AZL + DIG


def rs(chars: str, n: int) -> str:
    return "".join(R.choice(chars) for _ in range(n))


GITHUB = "ghp_" + rs(ALNUM, 36)
AWS_ID = "AKIA" + rs(AZ + DIG, 16)
AWS_SECRET = rs(ALNUM + "/+", 40)
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + rs(ALNUM, 40) + "\n-----END RSA PRIVATE KEY-----"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
       "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
PASSWORD = "password=" + rs(ALNUM, 14)
OID40 = "0123456789abcdef0123456789abcdef01234567"
OID64 = "f298f9e0f0a75b23be66e545312634172c9f0c207ebc99725c680aebe17ed5ce"

PROSE = [
    "Keep memory streams separate from collaboration actor chains.",
    "The secret: rotate credentials weekly; never paste a password into memory.",
    "Decision: the token bucket limits requests to 20 per second (see docs/rate.md).",
    "Use `git rev-parse HEAD` to anchor; the API key lives in the vault, not here.",
    f"Fixed in commit {OID40}; memory sha256:{OID64} explains why.",
    f"token={OID40}",
    f"api_key: sha256:{OID64}.",
    "password=${DB_PASSWORD} comes from the environment",
    "Benchmark memory 3",
    "don't use 'quotes' for emphasis",
]


def record(content="ok", topics=(), handoff=None, paths=()):
    return Record("handoff" if handoff else "decision", content,
                  Anchor("a" * 40, tuple(PathAnchor(p, "absent") for p in paths)),
                  Applicability("descendants"), tuple(topics), (), "", handoff)


def lint(rec, reason="", library=secretscan.scan):
    return secretlint.lint(rec, reason, library)


@pytest.mark.parametrize("text,detector", [
    (f"pasted {GITHUB} by mistake", "github-token"),
    ("github_pat_11" + rs(ALNUM + "_", 60), "github-token"),
    (f"aws key {AWS_ID} in CI", "aws-access-key"),
    (f"aws_secret_access_key = {AWS_SECRET}", "aws-access-key"),
    (PEM, "private-key-block"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----", "private-key-block"),
    (f"Authorization: Bearer {JWT}", "jwt"),
    (PASSWORD, "password-assignment"),
    ("DB_PASSWORD := " + rs(ALNUM, 10), "password-assignment"),
    ('client_secret = "' + rs(ALNUM, 16) + '"', "password-assignment"),
    ("auth token: " + rs(AZL, 10) + rs(DIG, 8), "password-assignment"),
])
def test_each_named_detector_is_refused_and_named(text, detector):
    finding = lint(record(content=text))
    assert finding == secretlint.Finding("record.content", detector)
    message = secretlint.refusal(finding)
    assert message == (f"secret-shaped text in record.content ({detector}); not signed; "
                       "use --allow-secret-shaped to override")


@pytest.mark.parametrize("text", PROSE)
def test_prose_and_object_ids_are_accepted(text):
    assert lint(record(content=text)) is None


@pytest.mark.parametrize("oid", [OID40, OID64, "sha256:" + OID64])
def test_object_ids_are_never_findings_even_in_assignments(oid):
    for text in (oid, f"token={oid}", f'secret = "{oid}"', f"api_key: '{oid}'", f"see {oid}."):
        assert lint(record(content=text)) is None, text


def test_other_hex_lengths_are_not_exempt():
    assert lint(record(content=f"token={OID40}0")).detector == "password-assignment"  # 41 hex
    assert lint(record(content=f"token=x{OID40}")).detector == "password-assignment"


def test_fields_are_linted_in_contract_order_with_normalized_indices():
    handoff = Handoff(("done", GITHUB), ("fine",), (PASSWORD,), ("next", "then", JWT))
    rec = record(content="clean", topics=("a", "b"), handoff=handoff, paths=("x", PEM.split("\n")[0]))
    assert lint(rec) == ("record.handoff.completed[1]", "github-token")
    rec = record(handoff=Handoff((), (), (PASSWORD,), ("next", "then", JWT)))
    assert lint(rec) == ("record.handoff.blockers[0]", "password-assignment")
    rec = record(handoff=Handoff((), (), (), ("next", "then", JWT)))
    assert lint(rec) == ("record.handoff.nextActions[2]", "jwt")
    assert lint(record(topics=("a", f"k {AWS_ID}"))) == ("record.topics[1]", "aws-access-key")
    assert lint(record(paths=("docs", f"keys/{GITHUB}"))) == ("record.anchor.paths[1].path",
                                                              "github-token")
    assert lint(None, f"leaked-{GITHUB}") == ("reason", "github-token")
    # content comes before everything else
    assert lint(record(content=JWT, topics=(GITHUB,))) == ("record.content", "jwt")


def test_within_a_field_the_earliest_finding_wins():
    assert lint(record(content=f"{JWT} then {GITHUB}")).detector == "jwt"
    assert lint(record(content=f"{GITHUB} then {JWT}")).detector == "github-token"


def test_at_the_same_position_named_detectors_win_in_their_order():
    # "aws_secret_access_key = …" is both an AWS secret and a password-style assignment, and the
    # library's keyword and AWS plugins see it too: aws-access-key ranks first
    text = f"aws_secret_access_key = '{AWS_SECRET}'"
    assert secretlint.first_in_text(text, secretscan.scan) == "aws-access-key"

    def library(_text):
        return [(0, "ZzzDetector", "x"), (0, "AaaDetector", "x")]

    assert secretlint.first_in_text(f"{GITHUB}", library) == "github-token"
    assert secretlint.first_in_text("see https://example.com", library) == "AaaDetector"
    assert secretlint.first_in_text("plain prose", library) is None  # the gate keeps it away


@pytest.mark.parametrize("text,plugin", [
    ("https://deploy:" + rs(ALNUM, 10) + "@example.com/repo", "BasicAuthDetector"),
    ("sk_live_" + rs(ALNUM, 24), "StripeDetector"),
    ("xoxb-" + rs(DIG, 12) + "-" + rs(AZL + DIG, 24), "SlackDetector"),
    ("glpat-" + rs(ALNUM, 20), "GitLabTokenDetector"),
    ("value '" + rs(ALNUM, 40) + "' here", "Base64HighEntropyString"),
])
def test_library_findings_are_named_by_plugin(text, plugin):
    assert lint(record(content=text)) == ("record.content", plugin)


def test_library_keyword_plugin_is_reported_as_password_assignment():
    # quoted and too short for the named detector's 8 characters, but the library's keyword
    # plugin finds it
    assert secretlint.first_in_text('secret = "' + rs(ALNUM, 6) + '"', None) is None
    assert lint(record(content='secret = "' + rs(ALNUM, 6) + '"')).detector == "password-assignment"


def test_library_allowlist_comment_does_not_switch_the_lint_off():
    text = "https://deploy:" + rs(ALNUM, 10) + "@example.com  # pragma: allowlist secret"
    assert lint(record(content=text)).detector == "BasicAuthDetector"


def test_library_positions_count_across_lines():
    text = "first line\nsecond https://u:" + rs(ALNUM, 8) + "@h.example"
    found = secretscan.scan(text)
    assert found and text.startswith(found[0][2], found[0][0])


def test_findings_never_carry_the_value():
    for text in (GITHUB, AWS_ID, PEM, JWT, PASSWORD):
        finding = lint(record(content=text))
        assert all(text not in part and part not in text for part in finding), finding
        assert text not in secretlint.refusal(finding)


def test_lint_envelope_for_the_pre_push_hook():
    env = Envelope("hn-memory/0", "record", "1" * 64, "A", "k", "sha256:" + "2" * 64, 1,
                   "2026-01-01T00:00:00Z", record=record(content="ok", topics=("x", GITHUB)))
    assert secretscan.lint_envelope(env) == ("record.topics[1]", "github-token")
    challenge = env._replace(operation="challenge", record=None, target="sha256:" + "3" * 64,
                             reason="fine")
    assert secretscan.lint_envelope(challenge) is None


# -- the gate ----------------------------------------------------------------------------------

PLUGIN_EXAMPLES = {
    "AWSKeyDetector": "key id AKIA" + rs(AZ + DIG, 16),
    "ArtifactoryDetector": "token AKC" + rs(ALNUM, 12) + " ok",
    "AzureStorageKeyDetector": "AccountKey=" + rs(ALNUM + "+/", 86) + "==",
    "Base64HighEntropyString": "value '" + rs(ALNUM, 40) + "' here",
    "BasicAuthDetector": "https://deploy:" + rs(ALNUM, 10) + "@example.com/repo",
    "CloudantDetector": "cloudant_apikey = " + rs(AZL, 24),
    "DiscordBotTokenDetector": "M" + rs(ALNUM, 23) + "." + rs(ALNUM, 6) + "." + rs(ALNUM, 27),
    "GitHubTokenDetector": "ghp_" + rs(ALNUM, 36),
    "GitLabTokenDetector": "glpat-" + rs(ALNUM, 20),
    "HexHighEntropyString": 'val "' + "".join(R.sample(HEXC, 16)) + '" here',
    "IbmCloudIamDetector": "ibm_cloud_iam_api_key = " + rs(ALNUM, 44),
    "IbmCosHmacDetector": "cos_hmac_secret_access_key = " + rs(HEXC, 48),
    "JwtTokenDetector": JWT,
    "KeywordDetector": 'client_secret = "' + rs(ALNUM, 16) + '"',
    "MailchimpDetector": rs(AZL + DIG, 32) + "-us12",
    "NpmDetector": "//registry.npmjs.org/:_authToken=npm_" + rs(ALNUM, 36),
    "OpenAIDetector": "sk-" + rs(ALNUM, 20) + "T3BlbkFJ" + rs(ALNUM, 20),
    "PrivateKeyDetector": "-----BEGIN RSA PRIVATE KEY-----",
    "PypiTokenDetector": "pypi-AgEIcHlwaS5vcmc" + rs(ALNUM, 70),
    "SendGridDetector": "SG." + rs(ALNUM, 22) + "." + rs(ALNUM, 43),
    "SlackDetector": "xoxb-" + rs(DIG, 12) + "-" + rs(AZL + DIG, 24),
    "SoftlayerDetector": "softlayer_api_key = " + rs(AZL + DIG, 64),
    "SquareOAuthDetector": "sq0csp-" + rs(ALNUM, 43),
    "StripeDetector": "sk_live_" + rs(ALNUM, 24),
    "TelegramBotTokenDetector": rs(DIG, 9) + ":" + rs(ALNUM, 35),
    "TwilioKeyDetector": "AC" + rs(AZL + DIG, 32),
}


def test_the_gate_was_written_for_exactly_the_library_plugins():
    # a library upgrade that adds a plugin must fail here, not slip past the gate
    assert set(secretlint.LIBRARY_PLUGINS) | set(secretlint.LIBRARY_DISABLED) == \
        secretscan.available_plugins()
    assert set(PLUGIN_EXAMPLES) == set(secretlint.LIBRARY_PLUGINS)


@pytest.mark.parametrize("plugin", sorted(PLUGIN_EXAMPLES))
def test_every_plugin_example_is_found_by_the_library_and_passes_the_gate(plugin):
    line = PLUGIN_EXAMPLES[plugin]
    assert plugin in {p for _s, p, _v in secretscan.line_findings(line)}
    assert secretlint.library_gate(line)


def test_prose_does_not_reach_the_library():
    for text in PROSE[:4] + PROSE[8:]:
        if "'" not in text:
            assert not secretlint.library_gate(text), text


FRAGMENTS = (list(PLUGIN_EXAMPLES.values())
             + ["password", "secret", "pwd", "api_key", "aws", "AKIA", "AKC", "AP1", "://", "@",
                ":", "=", ":=", "'", '"', "`", ";", " ", "\t", "-", "_", ".", "/", "+",
                "ghp_", "xoxb-", "xoxp-1-", "sk_live_", "SG.", "eyJ", "T3BlbkFJ", "us1",
                "contraseña", "CONTRASEÑA", "paſſword", "ſecret", "\u212a", "٣٣٣٣٣٣٣٣٣:", "ñ",
                "PRIVATE KEY", "BEGIN ", "GR1348941", "glpat-", "npm_", "_authToken=",
                "AccountKey=", "cloudant", "softlayer", "ibm", "cos", "M", "N", "O", "AC", "SK"])


@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS),
                          st.text(alphabet=ALNUM + "+/=_-", min_size=1, max_size=70),
                          st.text(alphabet=HEXC, min_size=8, max_size=70)),
                min_size=1, max_size=6))
def test_the_gate_is_never_false_where_the_library_finds_something(parts):
    """Soundness of the performance gate: whatever the library reports, the gate let through."""
    line = "".join(parts).replace("\n", " ")
    if secretscan.line_findings(line):
        assert secretlint.library_gate(line), line


@pytest.mark.parametrize("plugin", sorted(PLUGIN_EXAMPLES))
def test_the_gate_holds_for_mutated_plugin_examples(plugin):
    rng = random.Random(plugin)
    base = PLUGIN_EXAMPLES[plugin]
    for _ in range(40):
        chars = list(base)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(chars))
            chars[i] = rng.choice(ALNUM + "'\" :=._-/ſ")
        line = "".join(chars)
        if secretscan.line_findings(line):
            assert secretlint.library_gate(line), line


def test_first_memory_finding_names_the_memory():
    from git_hn.core.chain import VerifiedMemory

    base = Envelope("hn-memory/0", "record", "1" * 64, "A", "k", "sha256:" + "2" * 64, 1,
                    "2026-01-01T00:00:00Z", record=record(content="ok"))
    clean = VerifiedMemory("sha256:" + "a" * 64, "c" * 40, base, b"", "")
    dirty = VerifiedMemory("sha256:" + "b" * 64, "d" * 40,
                           base._replace(record=record(content=f"x {JWT}")), b"", "")
    assert secretscan.first_memory_finding([clean]) is None
    assert secretscan.first_memory_finding([clean, dirty, dirty]) == \
        ("sha256:" + "b" * 64, ("record.content", "jwt"))


# -- issue 12, item 9a: the text as given, and what users paste most ---------------------------

AWS_FAKE = "AKIAQW3ERTY7UIOP4ASD"  # the example: well-formed, not a real key
TWILIO = "SK" + rs(HEXC, 32)
SENDGRID = "SG." + rs(ALNUM, 22) + "." + rs(ALNUM, 43)
ACTOR = "9c1185a5c5e9fc54612808977ee8f548b2258d31c1b4aa9ab3bc6b0d1c3e1f0a"


def raw_topic_record(raw_topics):
    """A record whose topics are normalized as requests normalize them."""
    from git_hn.core.grammar import normalize_topic

    topics = tuple(sorted({normalize_topic(t) for t in raw_topics}, key=str.encode))
    return record(topics=topics)


@pytest.mark.parametrize("secret,detector", [
    (AWS_FAKE, "aws-access-key"),
    (TWILIO, "TwilioKeyDetector"),
    (SENDGRID, "SendGridDetector"),
    (f"  Deploy {GITHUB} ", "github-token"),
])
def test_topics_are_linted_as_given_before_lowercasing(secret, detector):
    raw = ["zeta", secret, "alpha"]
    rec = raw_topic_record(raw)
    # the normalized (lowercased) topic alone is no longer credential-shaped
    if detector != "github-token":
        assert lint(rec) is None
    index = rec.topics.index(secret.strip().lower())
    assert secretlint.lint(rec, "", secretscan.scan, raw_topics=raw) == \
        (f"record.topics[{index}]", detector)


def test_a_topic_given_twice_in_two_spellings_is_linted_in_both():
    raw = [AWS_FAKE.lower(), AWS_FAKE]
    rec = raw_topic_record(raw)
    assert len(rec.topics) == 1
    assert secretlint.lint(rec, "", secretscan.scan, raw_topics=raw) == \
        ("record.topics[0]", "aws-access-key")


@pytest.mark.parametrize("raw,detector", [
    (AWS_FAKE, "aws-access-key"),
    (f"  {AWS_FAKE}\t", "aws-access-key"),
    (TWILIO, "TwilioKeyDetector"),
])
def test_reasons_are_linted_as_given_before_lowercasing(raw, detector):
    normalized = raw.strip().lower()
    assert lint(None, normalized) is None
    found = secretlint.lint(None, normalized, secretscan.scan, raw_reason=raw)
    assert found == ("reason", detector)
    assert secretlint.lint(None, "obsolete", secretscan.scan, raw_reason="Obsolete") is None


def test_attempt_outcome_is_linted_after_the_other_record_fields():
    slack = "xoxb-" + rs(DIG, 12) + "-" + rs(AZL + DIG, 24)
    rec = record(paths=("docs",))._replace(kind="attempt", attempt_outcome=slack)
    assert lint(rec) == ("record.attemptOutcome", "SlackDetector")
    assert lint(rec._replace(attempt_outcome="failed")) is None


GCP = "AIza" + "Sy" + rs(ALNUM + "_-", 30) + "Q0x"  # 39 characters
OPENAI_PROJECT = "sk-proj-" + rs(ALNUM, 40) + "_" + rs(ALNUM, 40) + "-" + rs(ALNUM, 30) + "aA1"
OPENAI_SVC = "sk-svcacct-" + rs(ALNUM + "_-", 60) + "bB2"
OPENAI_LEGACY = "sk-" + rs(ALNUM, 20) + "T3BlbkFJ" + rs(ALNUM, 20)
ANTHROPIC = "sk-ant-api03-" + rs(ALNUM + "_-", 90) + "cC3-AA"
NPM = "npm_" + rs(ALNUM, 33) + "dD4"
AZURE_KEY = rs(ALNUM + "+/", 86) + "=="
PG_PASSWORD = rs(ALNUM, 14)


@pytest.mark.parametrize("text,detector", [
    (f"maps key {GCP} for the demo", "gcp-api-key"),
    (f"OPENAI_API_KEY={OPENAI_PROJECT}", "openai-api-key"),
    (f"key {OPENAI_SVC}", "openai-api-key"),
    (f"old key {OPENAI_LEGACY}", "openai-api-key"),  # the library's OpenAIDetector, renamed
    (f"ANTHROPIC_API_KEY={ANTHROPIC}", "anthropic-api-key"),
    (f"publish with {NPM}", "npm-token"),
    (f"//registry.npmjs.org/:_authToken={NPM}", "npm-token"),
    ("export DB_PASS=" + rs(ALNUM, 12), "password-assignment"),
    ("SMTP_PASS2=" + rs(ALNUM, 12), "password-assignment"),
    ("DefaultEndpointsProtocol=https;AccountName=demo;AccountKey=" + AZURE_KEY
     + ";EndpointSuffix=core.windows.net", "AzureStorageKeyDetector"),
    ("AccountKey=" + rs(ALNUM, 30), "password-assignment"),  # not the library's 88 characters
    (f"DATABASE_URL postgres://app:{PG_PASSWORD}@db.internal:5432/app", "BasicAuthDetector"),
    (f"mongodb+srv://svc:{PG_PASSWORD}@cluster0.example.net/db", "BasicAuthDetector"),
    (f"REDIS_URL redis://:{PG_PASSWORD}@cache:6379/0", "url-password"),
    (f"Server=db;Database=app;User Id=sa;Password={PG_PASSWORD};", "password-assignment"),
    (f"jdbc:mysql://db/app?user=app&password={PG_PASSWORD}", "password-assignment"),
])
def test_what_users_paste_most_is_refused(text, detector):
    assert lint(record(content=text)) == ("record.content", detector)


SPLIT_AT = 17


@pytest.mark.parametrize("text", [
    f"token {GITHUB[:SPLIT_AT]} {GITHUB[SPLIT_AT:]} in CI",
    f"token {GITHUB[:SPLIT_AT]}\t{GITHUB[SPLIT_AT:]}",
    f"token {GITHUB[:4]} {GITHUB[4:]}",
    f"{GITHUB[:10]} {GITHUB[10:25]} {GITHUB[25:]}.",
    f"token {GITHUB[:SPLIT_AT]}\u200b{GITHUB[SPLIT_AT:]} in CI",
    f"token {GITHUB[:SPLIT_AT]}\u2060{GITHUB[SPLIT_AT:30]}\ufeff{GITHUB[30:]}",
    f"token {GITHUB[:SPLIT_AT]}\u00ad {GITHUB[SPLIT_AT:]}",
])
def test_a_github_token_split_by_a_space_or_an_invisible_character_is_refused(text):
    assert lint(record(content=text)) == ("record.content", "github-token")
    assert secretlint.first_in_text(text, None) == "github-token"  # no library needed


def test_invisible_characters_are_removed_before_every_detector():
    hidden = f"id {AWS_FAKE[:6]}\u200b{AWS_FAKE[6:]}"
    assert lint(record(content=hidden)).detector == "aws-access-key"
    assert lint(record(content=f"{TWILIO[:9]}\u200c{TWILIO[9:]}")).detector == "TwilioKeyDetector"


def test_tag_characters_and_variation_selectors_inside_a_key_are_removed_before_the_detectors():
    # ASCII smuggling: tag characters and variation selectors render as nothing, like U+200B
    for hidden in ("\U000e0041\U000e0042", "\ufe0f\U000e0100", "\u180e\u2064"):
        assert lint(record(content=f"id {AWS_FAKE[:6]}{hidden}{AWS_FAKE[6:]}")).detector == "aws-access-key"


ORDINARY = [
    f"actor {ACTOR} signed memory sha256:{OID64} at commit {OID40}.",
    f"evidence git:{OID40} and memory:sha256:{OID64}; subject issue:sha256:{OID64}",
    "Paths: git_hn/core/secretlint.py, tests/unit/test_secretlint.py, docs/decisions.md",
    'password = os.environ["DB_PASSWORD"]  # read at start-up, never logged',
    "api_key = settings[\"API_KEY\"]",
    "token = get_token()",
    "secret = vault.read('db')",
    "export PWD=/work/main && make test",
    "password_file=~/.config/app/db.pass",
    "DB_PASS=${DB_PASS} comes from the environment",
    "Do not bypass=cache-warming-step in CI; use --pass-through=enabled-mode instead.",
    "OpenAI keys start with sk-proj- and Anthropic keys with sk-ant-; GCP keys with AIza.",
    "keys look like sk-proj-keys-are-rotated-every-ninety-days-by-operations",
    "npm_config_registry=https://registry.npmjs.org/ is set in CI",
    "rotate ghp_ tokens every quarter and keep them out of memories",
    "see https://github.com/example/repo/pull/12 and postgres://localhost:5432/app",
    "Server=db;Database=app;Integrated Security=true;",
    "The emoji \U0001F469\u200d\U0001F4BB marks pairing notes.",
    "def check(password: str) -> bool:\n    return hmac.compare_digest(password, expected)",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_memories_with_ids_paths_and_code_are_accepted(text):
    assert lint(record(content=text)) is None
    assert lint(record(handoff=Handoff((text,), (), (), ()))) is None


def test_hex_and_digest_ids_as_topics_and_reasons_are_accepted():
    raw = [ACTOR, f"sha256:{OID64}", OID40, "Auth-Tokens", "  Secret-Rotation "]
    assert secretlint.lint(raw_topic_record(raw), "", secretscan.scan, raw_topics=raw) is None
    assert secretlint.lint(None, "obsolete", secretscan.scan, raw_reason="  Obsolete  ") is None


def test_without_raw_text_the_lint_is_unchanged():
    # the pre-push hook has only the signed (normalized) envelope
    rec = raw_topic_record([AWS_FAKE])
    assert secretlint.record_fields(rec) == [("record.content", "ok"),
                                             ("record.topics[0]", AWS_FAKE.lower())]
    assert secretlint.record_fields(rec, raw_topics=[AWS_FAKE]) == [
        ("record.content", "ok"), ("record.topics[0]", AWS_FAKE),
        ("record.topics[0]", AWS_FAKE.lower())]


def test_new_findings_never_carry_the_value():
    for text in (GCP, OPENAI_PROJECT, ANTHROPIC, NPM, AWS_FAKE, TWILIO, SENDGRID):
        finding = secretlint.lint(raw_topic_record([text]), "", secretscan.scan, raw_topics=[text])
        assert finding is not None, text
        message = secretlint.refusal(finding)
        assert text not in message and text.lower() not in message


def test_ordinary_text_still_does_not_load_the_library():
    # (a run of 24 token characters, such as an object ID, does pass the gate: several library
    # plugins match such runs)
    for text in ("Paths: git_hn/core/secretlint.py, tests/unit/test_secretlint.py",
                 "token = get_token()", "export PWD=/work/main && make test",
                 "Do not bypass=cache-warming-step in CI; use --pass-through=enabled-mode instead.",
                 ORDINARY[11],
                 "The emoji \U0001F469\u200d\U0001F4BB marks pairing notes."):
        assert not secretlint.library_gate(text), text


def test_holds_seed_finds_a_pasted_private_key_and_nothing_else():
    """``keys.holds_seed``: the signer's own key in its pasted spellings (any case), never the
    public key, another seed, or a key cut short below 240 bits."""
    import base64
    import random

    from git_hn.core import keys

    rng = random.Random(7)
    seed, other = bytes(rng.randrange(256) for _ in range(32)), bytes(rng.randrange(256) for _ in range(32))
    public = bytes(rng.randrange(256) for _ in range(32))
    stored = keys.b64_encode(seed + public)  # the identity file's spelling (no padding)
    for text in (stored, base64.b64encode(seed).decode(), base64.urlsafe_b64encode(seed).decode(),
                 seed.hex(), seed.hex().upper(), stored.lower(), f'{{"privateKey":"{stored}"}}'):
        assert keys.holds_seed(f"see {text} here".encode(), seed), text
    for text in (keys.b64_encode(public), keys.b64_encode(other), other.hex(), stored[:39], seed.hex()[:39],
                 "ordinary prose " * 20):
        assert not keys.holds_seed(text.encode(), seed), text


def test_holds_seed_finds_forty_hex_digits_of_the_seed():
    """A ``git:<oid>`` evidence made of the seed's first 40 hex digits (160 bits) is the key."""
    from git_hn.core import keys

    seed = bytes(range(32))
    assert keys.holds_seed(f"git:{seed.hex()[:40]}".encode(), seed)
    assert not keys.holds_seed(f"git:{seed.hex()[1:41]}".encode(), seed)
