"""Secret lint: refuse credential-shaped text before it is signed (CONTRACT §10.6).

Everything signed is permanent and replicated, so a pasted credential cannot be taken back once a
memory carrying it is published. This module decides, for the author fields of a request (or of a
verified envelope, for the pre-push hook), whether any field holds text shaped like a credential,
and which finding comes first.

A field is linted on the text the author gave, before any normalization, and then on its
normalized form: topics and lifecycle reasons are trimmed and lowercased before they are signed,
and a lowercased credential no longer matches a case-sensitive detector (``AKIA…`` as a topic was
signed as ``akia…`` while the same text as content was refused). Within one field the text as
given is checked first, then the same text without zero-width characters, then a GitHub token
split by single spaces or tabs (a pasted token broken by a terminal or a chat client).

Pure. The named detectors are small regular expressions here, for what the library does not
cover (or covers only in one spelling). The detector library (detect-secrets) is reached only
through an injected ``library(text)`` callable, which the service layer provides
(``git_hn.service.secretscan``); the library is consulted only for a field whose text passes
``library_gate``, a cheap over-approximation of what the library's enabled plugins can match.
Importing the library costs about 100 ms, more than the whole budget of ``git hn memory record``;
the gate keeps ordinary prose off that path, and a unit test checks that the gate is never false
where the library finds something.

Findings never carry the value, its length or its position beyond this module: the refusal names
the field and the detector only, so that the error line cannot leak what it refuses (*secret
echo*). Maximal runs of exactly 40 or 64 lowercase hex characters (Git object IDs and memory
IDs, with or without ``sha256:``) are never findings.
"""

from __future__ import annotations

from .grammar import normalize_topic
from .invisible import remove_invisible
from .limits import HANDOFF_LISTS
from .tuples import NamedTuple

# Named detectors, in rank order (CONTRACT §10.6). A library finding of a plugin that one of them
# covers is reported under the named detector. The provider-specific detectors rank before
# ``password-assignment``: in ``OPENAI_API_KEY=sk-proj-…`` both start at the value, and the more
# specific name wins (as ``aws-access-key`` does for ``aws_access_key_id=AKIA…``).
NAMED = ("github-token", "aws-access-key", "private-key-block", "jwt", "gcp-api-key",
         "openai-api-key", "anthropic-api-key", "npm-token", "url-password", "password-assignment")
_RANK = {name: i for i, name in enumerate(NAMED)}
LIBRARY_RANK = len(NAMED)

# detect-secrets plugin class -> named detector
LIBRARY_NAMES = {
    "GitHubTokenDetector": "github-token",
    "AWSKeyDetector": "aws-access-key",
    "PrivateKeyDetector": "private-key-block",
    "JwtTokenDetector": "jwt",
    "KeywordDetector": "password-assignment",
    "OpenAIDetector": "openai-api-key",
    "NpmDetector": "npm-token",
}

# The library plugins the gate below was written for. ``IPPublicDetector`` is not enabled: an IP
# address is not a credential, and memories name hosts. A test compares this set with the
# library's own plugin list, so a library upgrade that adds a plugin fails loudly instead of
# slipping past the gate.
LIBRARY_PLUGINS = (
    "AWSKeyDetector", "ArtifactoryDetector", "AzureStorageKeyDetector", "Base64HighEntropyString",
    "BasicAuthDetector", "CloudantDetector", "DiscordBotTokenDetector", "GitHubTokenDetector",
    "GitLabTokenDetector", "HexHighEntropyString", "IbmCloudIamDetector", "IbmCosHmacDetector",
    "JwtTokenDetector", "KeywordDetector", "MailchimpDetector", "NpmDetector", "OpenAIDetector",
    "PrivateKeyDetector", "PypiTokenDetector", "SendGridDetector", "SlackDetector",
    "SoftlayerDetector", "SquareOAuthDetector", "StripeDetector", "TelegramBotTokenDetector",
    "TwilioKeyDetector",
)
LIBRARY_DISABLED = ("IPPublicDetector",)

# ``pass`` alone only as the last segment of the name (``DB_PASS``, ``SMTP_PASS2``, ``pass``), not
# inside a word (``bypass``, ``compass``, ``passes``) nor before another segment
# (``--pass-through``, ``PASS_FILE``)
_KEYWORD = (r"(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|"
            r"account[_-]?key|auth[_-]?key|private[_-]?key|client[_-]?secret|credentials?|"
            r"(?<![a-z])pass(?![a-z_.-]))")
# a value that names another value instead of being one: $VAR, ${VAR}, {{ var }}, <redacted>, %VAR%
# (and see _value_is_indirect)
_INDIRECT = ("$", "{", "<", "%", "*")

# The named detectors: (name, cheap precondition on (text, lowercased text), pattern). Every
# module import costs ``git hn memory record`` time, so a pattern is compiled only when its
# precondition holds, and each precondition is implied by its pattern (ASCII matching).
_DETECTORS = (
    ("github-token",
     lambda t, low: any(p in t for p in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
     r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9_]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("aws-access-key",
     lambda t, low: any(p in t for p in ("A3T", "AKIA", "ASIA", "ABIA", "ACCA")),
     r"(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])"),
    # the secret half of a key pair: aws...secret|key...=/: <40 base64 characters>
    ("aws-access-key",
     lambda t, low: "aws" in low,
     r"(?i:aws)[A-Za-z0-9_ .-]{0,20}?(?i:secret|key)[A-Za-z0-9_ .\"'-]{0,20}?[=:][ \t]*[\"']?"
     r"(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
    ("private-key-block",
     lambda t, low: "PRIVATE KEY" in t or "PuTTY-User-Key-File-" in t,
     r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-[0-9]"),
    ("jwt",
     lambda t, low: "eyJ" in t,
     r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}={0,2}\.eyJ[A-Za-z0-9_-]{5,}={0,2}\.[A-Za-z0-9_=-]*"),
    # Google Cloud API keys: always 39 characters
    ("gcp-api-key",
     lambda t, low: "AIza" in t,
     r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
    # OpenAI project, service-account and admin keys. The library's OpenAIDetector needs the
    # ``T3BlbkFJ`` marker between two runs of exactly 20 alphanumerics, which the current key
    # formats (with ``-`` and ``_`` in the body) do not always have. The value must look generated
    # (letters of both cases and a digit), so a prose slug such as ``sk-proj-keys-are-…`` passes.
    ("openai-api-key",
     lambda t, low: "sk-" in t and any(p in t for p in _OPENAI_PREFIXES),
     r"(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin|None)-(?P<generated>[A-Za-z0-9_-]{32,})"),
    ("anthropic-api-key",
     lambda t, low: "sk-ant-" in t,
     r"(?<![A-Za-z0-9_-])sk-ant-(?P<generated>[A-Za-z0-9_-]{32,})"),
    # npm access tokens (``npm_`` and 36 alphanumerics); the library finds them only inside an
    # ``.npmrc`` ``_authToken=`` line
    ("npm-token",
     lambda t, low: "npm_" in t,
     r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])"),
    # a URL with a password and an empty user name (``redis://:pw@host``); with a user name the
    # library's BasicAuthDetector reports it
    ("url-password",
     lambda t, low: "://:" in t,
     r"://:(?P<value>[^:/?#\[\]@!$&'()*+,;=\s{}]+)@"),
    # key = value, key := value: at least 8 characters of value
    ("password-assignment",
     lambda t, low: "=" in t and any(k in low for k in _KEYWORD_ROOTS),
     r"(?i)(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*?" + _KEYWORD + r"[A-Za-z0-9_.-]*[\"']?"
     r"[ \t]*:?=[ \t]*[\"'`]?(?P<value>[^\s\"'`,;]{8,})"),
    # key: value reads like prose far more often, so the value must look generated: at least 16
    # characters mixing letters and digits
    ("password-assignment",
     lambda t, low: ":" in t and any(k in low for k in _KEYWORD_ROOTS),
     r"(?i)(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*?" + _KEYWORD + r"[A-Za-z0-9_.-]*[\"']?"
     r"[ \t]*:[ \t]*[\"'`]?(?P<value>(?=[^\s\"'`,;]*[0-9])(?=[^\s\"'`,;]*[A-Za-z])"
     r"[^\s\"'`,;]{16,})"),
)
_KEYWORD_ROOTS = ("pass", "pwd", "secret", "token", "key", "credential")
_OPENAI_PREFIXES = ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-")
_compiled: dict = {}


def _re(pattern: str, ascii: bool = True):
    """``pattern`` compiled (ASCII matching unless ``ascii`` is false), once. ``re`` is imported
    here, by the first pattern a lint needs: ordinary prose needs none (~13 M instructions of a
    record, with ``enum``)."""
    got = _compiled.get(pattern)
    if got is None:
        import re

        got = _compiled[pattern] = re.compile(pattern, re.ASCII if ascii else 0)
    return got


_HEX = set("0123456789abcdef")
_OBJECT_ID_LENGTHS = (40, 64)

# The library gate: a necessary condition for any enabled library plugin (LIBRARY_PLUGINS) to
# report something on a line. For ASCII text it is a handful of substring tests plus three small
# patterns; each alternative is a weakening of one plugin's patterns:
_GATE_LITERALS = (
    "A3T", "ABIA", "ACCA", "AKIA", "ASIA",                           # AWSKeyDetector
    "AKC",                                                           # ArtifactoryDetector
    "AccountKey=",                                                   # AzureStorageKeyDetector
    "://",                       # BasicAuth; Cloudant, Softlayer and Slack webhook URLs
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_",                          # GitHubTokenDetector
    "glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-",
    "gloas-", "GR1348941",                                           # GitLabTokenDetector
    "eyJ",                                                           # JwtTokenDetector
    "_authToken=",                                                   # NpmDetector
    "T3BlbkFJ",                                                      # OpenAIDetector
    "PRIVATE KEY", "PuTTY-User-Key-File-2",                          # PrivateKeyDetector
    "pypi-AgE",                                                      # PypiTokenDetector
    "SG.",                                                           # SendGridDetector
    "sq0csp-",                                                       # SquareOAuthDetector
    "k_live_",                                                       # StripeDetector
)
# SlackDetector (case-insensitive)
_GATE_LOWER = ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-")
# KeywordDetector: every pattern of its quotes-required set needs a quote and one of these words
_GATE_KEYWORDS = ("api_key", "apikey", "auth_key", "authkey", "service_key", "servicekey",
                  "account_key", "accountkey", "db_key", "dbkey", "database_key", "databasekey",
                  "priv_key", "privkey", "private_key", "privatekey", "client_key", "clientkey",
                  "db_pass", "dbpass", "database_pass", "databasepass", "key_pass", "keypass",
                  "password", "passwd", "pwd", "secret", "contrasena")
# Cloudant, Softlayer, Discord, IBM Cloud IAM, IBM COS HMAC, Mailchimp, Twilio: 24+ token chars
_GATE_RUN = r"[A-Za-z0-9_-]{24}"
# Base64/Hex high entropy strings (a quoted run; entropy above the hex limit needs 9 distinct
# characters), and the quoted 40-character secret of AWSKeyDetector
_GATE_QUOTED = r"""['"][A-Za-z0-9+/=_-]{9,}['"]"""
_GATE_TELEGRAM = r"[0-9]{8}:"
_GATE_ARTIFACTORY = r"AP[0-9A-F]"
# The four patterns above, for ASCII text, by translations instead (the C loop of
# ``str.translate`` and substring tests: the same answers, tested against the patterns): a
# character of a pattern's run becomes "a", a quote "'", a digit "0", anything else a space
_RUN = {c: "a" if chr(c).isalnum() or chr(c) in "_-" else " " for c in range(128)}
_QUOTED = {c: "a" if chr(c).isalnum() or chr(c) in "+/=_-" else "'" if chr(c) in "'\"" else " "
           for c in range(128)}
_DIGITS = {c: "0" for c in range(ord("1"), ord("9") + 1)}
_UPPER_HEX = "0123456789ABCDEF"


def _has_run(text: str) -> bool:
    """``_GATE_RUN`` finds something in ASCII ``text``."""
    return "a" * 24 in text.translate(_RUN)


def _has_quoted(text: str) -> bool:
    """``_GATE_QUOTED`` finds something in ASCII ``text``: a piece between two quotes of 9 or
    more characters, all of the run."""
    pieces = text.translate(_QUOTED).split("'")
    return any(len(p) >= 9 and not p.strip("a") for p in pieces[1:-1])


def _has_telegram(text: str) -> bool:
    """``_GATE_TELEGRAM`` finds something in ASCII ``text``."""
    return "00000000:" in text.translate(_DIGITS)


def _has_artifactory(text: str) -> bool:
    """``_GATE_ARTIFACTORY`` finds something in ASCII ``text``."""
    i = text.find("AP")
    while i >= 0:
        after = text[i + 2:i + 3]
        if after and after in _UPPER_HEX:
            return True
        i = text.find("AP", i + 1)
    return False


# Non-ASCII text: one Unicode-aware pattern (the library's case-insensitive patterns fold, for
# example, U+017F to "s", and its \d and \w match non-ASCII digits and letters).
_GATE_UNICODE = (
    r"""['"][A-Za-z0-9+/=_-]{9,}['"]"""
    r"|(?i:api_?key|auth_?key|service_?key|account_?key|db_?key|database_?key|priv_?key"
    r"|private_?key|client_?key|db_?pass|database_?pass|key_?pass|password|passwd|pwd|secret"
    r"|contrase(?:\u00f1|n)a|xox[abposr]-)"
    r"|A3T|ABIA|ACCA|AKIA|ASIA|AKC|AP[\dA-F]|AccountKey=|://|gh[pousr]_"
    r"|gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-|GR1348941|eyJ|_authToken=|T3BlbkFJ"
    r"|PRIVATE KEY|PuTTY-User-Key-File-2|pypi-AgE|SG\.|sq0csp-|k_live_"
    r"|(?i:[\w-]{24})|\d{8}:"
)


class Finding(NamedTuple):
    """The first finding of a lint: where (a JSON path) and what (a detector name), never the
    value."""

    field: str
    detector: str


# library(text) -> iterable of (start offset in text, plugin class name, value). (Named for the
# annotations only, which are never evaluated: ``collections.abc`` loads ``collections``.)
Library = "Callable[[str], Iterable[tuple[int, str, str]]]"


def library_gate(text: str) -> bool:
    """False only if no enabled library plugin can report anything in ``text``."""
    if not text.isascii():
        return _re(_GATE_UNICODE, ascii=False).search(text) is not None
    if any(p in text for p in _GATE_LITERALS):
        return True
    low = text.lower()
    if any(p in low for p in _GATE_LOWER):
        return True
    quoted = "'" in text or '"' in text
    if (quoted or "`" in text) and any(k in low for k in _GATE_KEYWORDS):
        return True
    if quoted and _has_quoted(text):
        return True
    if ":" in text and _has_telegram(text):
        return True
    if "AP" in text and _has_artifactory(text):
        return True
    return _has_run(text)


def is_object_id_span(text: str, start: int, end: int) -> bool:
    """True if ``text[start:end]`` is a maximal run of exactly 40 or 64 lowercase hex characters,
    optionally preceded by ``sha256:`` inside the span (a Git object ID or a digest ID)."""
    if text.startswith("sha256:", start):
        start += len("sha256:")
    n = end - start
    if n not in _OBJECT_ID_LENGTHS or not set(text[start:end]) <= _HEX:
        return False
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    return before not in _HEX and after not in _HEX


def _is_object_id_value(text: str, start: int, end: int) -> bool:
    """``is_object_id_span`` after dropping sentence punctuation that follows a value."""
    while end > start and text[end - 1] in ".,;:!?)]}>":
        end -= 1
    return is_object_id_span(text, start, end)


# A value that is code reading a value (``os.environ["X"]``, ``get_token()``, ``cfg["KEY"]``): a
# dotted or snake_case name then ``(`` or ``[``, or any name called without arguments or indexed
# by a quoted key (the value then ends at the quote).
_CODE_VALUE = r"(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?P<open>[(\[])"
# A value that is a file-system path of lowercase segments (``PWD=/work/main``,
# ``password_file=~/.config/db``); a credential of that shape would be a lowercase-only run
# between slashes, which generated secrets are not.
_PATH_VALUE = r"(?:~|\.{1,2})?(?:/[a-z0-9._-]+)+/?"


def _value_is_indirect(value: str) -> bool:
    """True for a value that names another value instead of being one: ``$VAR``, ``${VAR}``,
    ``{{ var }}``, ``<redacted>``, ``%VAR%``, ``*…``, a call or subscript in code, a path."""
    if value.startswith(_INDIRECT):
        return True
    if "(" in value or "[" in value:
        m = _re(_CODE_VALUE).match(value)
        if m is not None and ("." in m["name"] or "_" in m["name"]
                              or value[m.end():] in ("", ")" if m["open"] == "(" else "")):
            return True
    return value.startswith(("/", "~", ".")) and _re(_PATH_VALUE).fullmatch(value) is not None


def _looks_generated(value: str) -> bool:
    """A key body rather than a word: letters of both cases and a digit."""
    return (any(c.isdigit() for c in value) and any(c.isupper() for c in value)
            and any(c.islower() for c in value))


# A GitHub token broken by single spaces or tabs (at most three breaks), for example by a terminal
# that wrapped it or by a chat client. Its pieces, joined, must be exactly a token body (36
# characters, or at least 82 for ``github_pat_``) that looks generated, so that prose after a
# ``ghp_`` prefix is not joined into a finding.
_SPLIT_GITHUB = (r"(?<![A-Za-z0-9_])(?P<prefix>gh[pousr]_|github_pat_)[ \t]?"
                 r"(?P<body>[A-Za-z0-9_]+(?:[ \t][A-Za-z0-9_]+){0,3})")


def _split_github_token(text: str) -> bool:
    if not any(p in text for p in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")):
        return False
    for m in _re(_SPLIT_GITHUB).finditer(text):
        joined = ""
        for piece in m.group("body").replace("\t", " ").split(" "):
            joined += piece
            if m.group("prefix") == "github_pat_":
                if len(joined) >= 82 and _looks_generated(joined):
                    return True
            elif len(joined) == 36 and _looks_generated(joined):
                return True
            elif len(joined) > 36:
                break
    return False


def variants(text: str) -> list[str]:
    """The spellings of one field's text that the lint checks, in order: the text itself, then
    the text without invisible characters (when it has any)."""
    if text.isascii():
        return [text]
    # characters that render as nothing survive a copy and paste inside a token unseen
    folded = remove_invisible(text)
    return [text] if folded == text else [text, folded]


def named_findings(text: str) -> list[tuple[int, int]]:
    """(start, rank) of every named-detector finding in ``text``."""
    out = []
    low = text.lower()
    for name, precondition, source in _DETECTORS:
        if not precondition(text, low):
            continue
        pattern = _re(source)
        for m in pattern.finditer(text):
            if "generated" in pattern.groupindex and not _looks_generated(m.group("generated")):
                continue
            if "value" in pattern.groupindex:
                # an assignment starts where its value starts, as library findings do (the
                # library reports values): a more specific detector for the same value wins
                s, e = m.span("value")
                if _is_object_id_value(text, s, e) or _value_is_indirect(m.group("value")):
                    continue
            else:
                s, e = m.span()
                if is_object_id_span(text, s, e):
                    continue
            out.append((s, _RANK[name]))
    return out


def _library_findings(text: str, library: Library) -> list[tuple[int, int, str]]:
    out = []
    for start, plugin, value in library(text):
        if value and text.startswith(value, start) and _is_object_id_value(text, start, start + len(value)):
            continue
        named = LIBRARY_NAMES.get(plugin)
        if named is not None:
            out.append((start, _RANK[named], named))
        else:
            out.append((start, LIBRARY_RANK, plugin))
    return out


def first_in_text(text: str, library: Library | None) -> str | None:
    """The detector of the first finding in one field's text, or None.

    The text as given comes first; only if it has no finding are its spelling without invisible
    characters and a GitHub token split by spaces considered.
    """
    found = _first_in_spelling(text, library)
    if found is not None:
        return found
    spellings = variants(text)
    for spelling in spellings[1:]:
        found = _first_in_spelling(spelling, library)
        if found is not None:
            return found
    if _split_github_token(spellings[-1]):
        return "github-token"
    return None


def _first_in_spelling(text: str, library: Library | None) -> str | None:
    best: tuple | None = None
    for start, rank in named_findings(text):
        key = (start, rank, NAMED[rank])
        if best is None or key < best:
            best = key
    if library is not None and library_gate(text):
        for key in _library_findings(text, library):
            if best is None or key < best:
                best = key
    return None if best is None else best[2]


def record_fields(record, reason: str = "", *, raw_topics=(),
                  raw_reason: str | None = None) -> list[tuple[str, str]]:
    """(JSON path, text) of every linted field, in the order of CONTRACT §10.6.

    A field whose text was normalized before signing appears twice, as given (``raw_topics`` in
    any order, ``raw_reason``) and then as normalized; its index is the normalized one.
    """
    fields: list[tuple[str, str]] = []
    if record is not None:
        fields.append(("record.content", record.content))
        raw_of: dict[str, list[str]] = {}
        for raw in raw_topics:
            normalized = normalize_topic(raw)
            if raw != normalized and raw not in raw_of.setdefault(normalized, []):
                raw_of[normalized].append(raw)
        for i, topic in enumerate(record.topics or ()):
            fields += [(f"record.topics[{i}]", raw) for raw in raw_of.get(topic, ())]
            fields.append((f"record.topics[{i}]", topic))
        if record.handoff is not None:
            for name, items in zip(HANDOFF_LISTS, record.handoff.lists()):
                fields += [(f"record.handoff.{name}[{i}]", t) for i, t in enumerate(items or ())]
        fields += [(f"record.anchor.paths[{i}].path", p.path)
                   for i, p in enumerate(record.anchor.paths or ())]
        if record.attempt_outcome:
            fields.append(("record.attemptOutcome", record.attempt_outcome))
    if raw_reason is not None and raw_reason != reason:
        fields.append(("reason", raw_reason))
    if reason:
        fields.append(("reason", reason))
    return fields


def lint(record, reason: str = "", library: Library | None = None, *,
         raw_topics=(), raw_reason: str | None = None) -> Finding | None:
    """The first finding over the author fields of a record and a reason, or None.

    ``raw_topics`` and ``raw_reason`` are the topics and the reason exactly as the author gave
    them (flags or ``--input``), before trimming and lowercasing.
    """
    for field, text in record_fields(record, reason, raw_topics=raw_topics, raw_reason=raw_reason):
        detector = first_in_text(text, library)
        if detector is not None:
            return Finding(field, detector)
    return None


def lint_envelope(envelope, library: Library | None = None) -> Finding | None:
    """The first finding of a verified envelope (its record and reason); for the pre-push hook."""
    return lint(envelope.record, envelope.reason, library)


def refusal(finding: Finding, override: str = "--allow-secret-shaped") -> str:
    """The refusal text; ``override`` names how the caller's interface skips the lint (the MCP
    server says ``"allowSecretShaped": true``, since its clients have no flags)."""
    return (f"secret-shaped text in {finding.field} ({finding.detector}); not signed; "
            f"use {override} to override")


__all__ = ["Finding", "NAMED", "lint", "lint_envelope", "record_fields", "refusal",
           "library_gate", "is_object_id_span", "LIBRARY_PLUGINS"]


def shown_key(key: str, shown) -> str:
    """An unknown request key as an error names it (``shown(key)``), unless it looks like a
    credential (a token pasted as a key): then only its length (CONTRACT §0.5: no secret in an
    error). One rule for every request: record, recall (``--input``) and each MCP tool."""
    if first_in_text(key, None) is not None:
        return f"<secret-shaped key of {len(key)} characters>"
    return shown(key)
