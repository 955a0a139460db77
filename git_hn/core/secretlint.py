"""Secret lint: refuse credential-shaped text before it is signed (CONTRACT §10.6).

Everything signed is permanent and replicated, so a pasted credential cannot be taken back once a
memory carrying it is published. This module decides, for the normalized fields of a request (or
of a verified envelope, for the pre-push hook), whether any field holds text shaped like a
credential, and which finding comes first.

Pure. The five named detectors are small regular expressions here. The detector library
(detect-secrets) is reached only through an injected ``library(text)`` callable, which the
service layer provides (``git_hn.service.secretscan``); the library is consulted only for a field
whose text passes ``library_gate``, a cheap over-approximation of what the library's enabled
plugins can match. Importing the library costs about 100 ms, more than the whole budget of
``git hn memory record``; the gate keeps ordinary prose off that path, and a unit test checks
that the gate is never false where the library finds something.

Findings never carry the value, its length or its position beyond this module: the refusal names
the field and the detector only, so that the error line cannot leak what it refuses (*secret
echo*). Maximal runs of exactly 40 or 64 lowercase hex characters (Git object IDs and memory
IDs, with or without ``sha256:``) are never findings.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, NamedTuple

from .limits import HANDOFF_LISTS

# Named detectors, in rank order (CONTRACT §10.6). A library finding of a plugin that one of them
# covers is reported under the named detector.
NAMED = ("github-token", "aws-access-key", "private-key-block", "jwt", "password-assignment")
_RANK = {name: i for i, name in enumerate(NAMED)}
LIBRARY_RANK = len(NAMED)

# detect-secrets plugin class -> named detector
LIBRARY_NAMES = {
    "GitHubTokenDetector": "github-token",
    "AWSKeyDetector": "aws-access-key",
    "PrivateKeyDetector": "private-key-block",
    "JwtTokenDetector": "jwt",
    "KeywordDetector": "password-assignment",
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

_KEYWORD = (r"(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|"
            r"auth[_-]?key|private[_-]?key|client[_-]?secret|credentials?)")
# a value that names another value instead of being one: $VAR, ${VAR}, {{ var }}, <redacted>, %VAR%
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
_compiled: dict[str, re.Pattern] = {}


def _re(pattern: str, flags: int = re.ASCII) -> re.Pattern:
    got = _compiled.get(pattern)
    if got is None:
        got = _compiled[pattern] = re.compile(pattern, flags)
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


# library(text) -> iterable of (start offset in text, plugin class name, value)
Library = Callable[[str], Iterable[tuple[int, str, str]]]


def library_gate(text: str) -> bool:
    """False only if no enabled library plugin can report anything in ``text``."""
    if not text.isascii():
        return _re(_GATE_UNICODE, 0).search(text) is not None
    if any(p in text for p in _GATE_LITERALS):
        return True
    low = text.lower()
    if any(p in low for p in _GATE_LOWER):
        return True
    quoted = "'" in text or '"' in text
    if (quoted or "`" in text) and any(k in low for k in _GATE_KEYWORDS):
        return True
    if quoted and _re(_GATE_QUOTED).search(text):
        return True
    if ":" in text and _re(_GATE_TELEGRAM).search(text):
        return True
    if "AP" in text and _re(_GATE_ARTIFACTORY).search(text):
        return True
    return _re(_GATE_RUN).search(text) is not None


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


def _value_is_indirect(value: str) -> bool:
    return value.startswith(_INDIRECT)


def named_findings(text: str) -> list[tuple[int, int]]:
    """(start, rank) of every named-detector finding in ``text``."""
    out = []
    low = text.lower()
    for name, precondition, source in _DETECTORS:
        if not precondition(text, low):
            continue
        pattern = _re(source)
        for m in pattern.finditer(text):
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
    """The detector of the first finding in one field's text, or None."""
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


def record_fields(record, reason: str = "") -> list[tuple[str, str]]:
    """(JSON path, text) of every linted field, in the order of CONTRACT §10.6."""
    fields: list[tuple[str, str]] = []
    if record is not None:
        fields.append(("record.content", record.content))
        fields += [(f"record.topics[{i}]", t) for i, t in enumerate(record.topics or ())]
        if record.handoff is not None:
            for name, items in zip(HANDOFF_LISTS, record.handoff.lists()):
                fields += [(f"record.handoff.{name}[{i}]", t) for i, t in enumerate(items or ())]
        fields += [(f"record.anchor.paths[{i}].path", p.path)
                   for i, p in enumerate(record.anchor.paths or ())]
    if reason:
        fields.append(("reason", reason))
    return fields


def lint(record, reason: str = "", library: Library | None = None) -> Finding | None:
    """The first finding over the fields of a record and a reason, or None."""
    for field, text in record_fields(record, reason):
        detector = first_in_text(text, library)
        if detector is not None:
            return Finding(field, detector)
    return None


def lint_envelope(envelope, library: Library | None = None) -> Finding | None:
    """The first finding of a verified envelope (its record and reason); for the pre-push hook."""
    return lint(envelope.record, envelope.reason, library)


def refusal(finding: Finding) -> str:
    return (f"secret-shaped text in {finding.field} ({finding.detector}); not signed; "
            "use --allow-secret-shaped to override")


__all__ = ["Finding", "NAMED", "lint", "lint_envelope", "record_fields", "refusal",
           "library_gate", "is_object_id_span", "LIBRARY_PLUGINS"]
