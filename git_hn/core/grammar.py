"""Grammars and identifiers of hn-memory/0 (CONTRACT §1.6, §1.8, §1.9, §3).

Pure predicates and derivations. Every identifier git-hn writes or reads passes one of these; ref
names and private-file names are built only by the functions here and in ``store.paths``.

The grammars are deliberately narrow (lowercase hex only, exact lengths) because they are
identifiers used in ref names and file names: an uppercase or padded variant would otherwise name
a second, distinct ref for the same stream (a ref-spoofing attack).
"""

from __future__ import annotations


from ..errors import InputError
from . import hashing
from .gostr import Lazy, has_control, is_lower_hex, is_utf8, to_lower, trim_space
from .limits import KINDS
from .remotes import LOCAL_PREFIX, REMOTES_PREFIX, is_remote_name  # noqa: F401 - re-exported

_TOKEN_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789-"
_SUBJECT_TYPES = ("issue:", "proposal:", "event:", "policy:", "pipeline:", "run:")
SUBJECT_FORM = ("a subject is TYPE:sha256:<64 hex digits>, TYPE being issue, proposal, event, policy, "
                "pipeline or run")
_DECIMAL = "0123456789"
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

QUARANTINE_PREFIX = "refs/hn/quarantine/memory/"


# The hex identifiers are checked without regular expressions (``gostr.is_lower_hex``): every
# command checks a few, and they would be its only reason to import ``re`` (~13 M instructions).
def is_actor(s: str) -> bool:
    """``[0-9a-f]{64}``."""
    return isinstance(s, str) and is_lower_hex(s, 64)


def is_oid(s: str) -> bool:
    """``[0-9a-f]{40}|[0-9a-f]{64}``."""
    return isinstance(s, str) and (is_lower_hex(s, 40) or is_lower_hex(s, 64))


def is_digest_id(s: str) -> bool:
    """``sha256:[0-9a-f]{64}``."""
    return isinstance(s, str) and s.startswith("sha256:") and is_lower_hex(s[7:], 64)


def is_typed_subject(s: str) -> bool:
    for prefix in _SUBJECT_TYPES:
        if s.startswith(prefix):
            return is_digest_id(s[len(prefix):])
    return False


def is_typed_evidence(s: str) -> bool:
    if s.startswith("git:"):
        return is_oid(s[4:])
    if s.startswith("event:") or s.startswith("memory:"):
        return is_digest_id(s.split(":", 1)[1])
    return False


OBJECT_FORMATS = {40: "SHA-1", 64: "SHA-256"}  # an object ID's hex length -> its object format


def foreign_git_evidence(items, oid_len: int) -> str | None:
    """The first ``git:`` item of ``items`` whose object ID has the length of the other object
    format (64 hex digits in a SHA-1 repository, 40 in a SHA-256 one), or None. No such object
    can exist in the repository: CONTRACT §5.5 makes its probe an error, the evidence ``invalid``,
    and §9.9 refuses the whole stream as ``relationship-invalid`` in every importing clone."""
    return next((e for e in items or () if e.startswith("git:") and is_oid(e[4:]) and len(e) - 4 != oid_len),
                None)


def is_token(s: str, max_bytes: int) -> bool:
    """``[a-z0-9](?:[a-z0-9-]*[a-z0-9])?`` of at most ``max_bytes``: a topic (checked by hand, as
    the identifiers above, on every record given one)."""
    return (0 < len(s) <= max_bytes and not s.strip(_TOKEN_CHARACTERS) and s[0] != "-"
            and s[-1] != "-")


def is_kind(s: str) -> bool:
    return s in KINDS


def is_topic(s: str, max_bytes: int = 128) -> bool:
    n = len(s.encode("utf-8", "surrogatepass"))
    return (1 <= n <= max_bytes and is_utf8(s) and s == to_lower(trim_space(s))
            and not has_control(s))


def normalize_topic(s: str) -> str:
    return to_lower(trim_space(s))


def is_path(s: str, max_bytes: int = 4096) -> bool:
    """Repository-relative, already ``path.Clean``, no ``..`` segment, no control rune."""
    n = len(s.encode("utf-8", "surrogatepass"))
    if (not 1 <= n <= max_bytes or s.startswith("/") or "\\" in s or has_control(s)
            or not is_utf8(s)):
        return False
    return all(seg not in ("", ".", "..") for seg in s.split("/"))


def path_problem(s: str, max_bytes: int = 4096) -> str:
    """Why ``s`` is no anchor path (``is_path``), as an error says it after the path; "" for a
    valid one (a trial: three paths, two invalid, got one line that named none)."""
    n = len(s.encode("utf-8", "surrogatepass"))
    segments = s.split("/")
    for bad, why in ((n == 0, "is empty"), (not is_utf8(s), "is not UTF-8"),
                     (has_control(s), "holds a control character"),
                     (n > max_bytes, f"is {n} bytes long (at most {max_bytes})"),
                     (s.startswith("/"), "is absolute"),
                     ("\\" in s, "holds a backslash (Git separates directories with /)"),
                     (s.endswith("/"), "ends with /"), (".." in segments, "has a ../ segment"),
                     ("." in segments, "has a ./ segment"), ("" in segments, "has an empty segment (//)")):
        if bad:
            return why
    return ""


def is_blob(s: str) -> bool:
    return s == "absent" or is_oid(s)


def is_timestamp(s: str) -> bool:
    """RFC 3339 that re-formats to itself under Go's ``RFC3339Nano`` (CONTRACT §1.8)."""
    parts = split_timestamp(s, writer=True)
    if parts is None:
        return False
    year, month, day, hour, minute, second, _fraction, sign, oh, om = parts
    if not 1 <= month <= 12 or hour > 23 or minute > 59 or second > 59:
        return False
    days = _DAYS[month - 1]
    if month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
        days = 29
    if not 1 <= day <= days:
        return False
    if sign and (oh > 23 or om > 59 or (oh == 0 and om == 0)):
        return False
    return True


def _is_digits(s: str) -> bool:
    return s.isascii() and s.isdigit()  # ASCII 0-9 only ("" is not)


def split_timestamp(s: str, writer: bool):
    """The fields of ``YYYY-MM-DDTHH:MM:SS[.F](Z|±HH:MM)`` (digits 0-9 only), or None: (year,
    month, day, hour, minute, second, fraction digits, zone sign ("" for Z), zone hours, zone
    minutes), ranges unchecked. The fraction has 1 to 9 digits; with ``writer``, it does not end
    in 0 (RFC3339Nano's form, §1.8). Read by hand rather than by a regular expression: the two
    expressions it replaces cost 3 M instructions to compile, ~0.7 ms of every command (the
    tests hold it to them)."""
    if len(s) < 20 or s[4] != "-" or s[7] != "-" or s[10] != "T" or s[13] != ":" or s[16] != ":":
        return None
    if not _is_digits(s[0:4] + s[5:7] + s[8:10] + s[11:13] + s[14:16] + s[17:19]):
        return None
    rest, fraction = s[19:], ""
    if rest[:1] == ".":
        end = 1
        while end < len(rest) and rest[end] in _DECIMAL:
            end += 1
        fraction, rest = rest[1:end], rest[end:]
        if not 1 <= len(fraction) <= 9 or (writer and fraction[-1] == "0"):
            return None
    if rest == "Z":
        sign, oh, om = "", 0, 0
    elif len(rest) == 6 and rest[0] in "+-" and rest[3] == ":" and _is_digits(rest[1:3] + rest[4:6]):
        sign, oh, om = rest[0], int(rest[1:3]), int(rest[4:6])
    else:
        return None
    return (int(s[0:4]), int(s[5:7]), int(s[8:10]), int(s[11:13]), int(s[14:16]), int(s[17:19]),
            fraction, sign, oh, om)


def format_timestamp(seconds: int, nanos: int) -> str:
    """Writer format: UTC, nanoseconds with trailing zeros removed (CONTRACT §1.8)."""
    import time

    base = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    frac = f"{nanos:09d}".rstrip("0")
    return f"{base}.{frac}Z" if frac else f"{base}Z"


def memory_id(payload: bytes) -> str:
    return "sha256:" + hashing.sha256(payload).hexdigest()


def content_digest(content: str) -> str:
    return "sha256:" + hashing.sha256(content.encode("utf-8")).hexdigest()


def default_stream(actor: str) -> str:
    """CONTRACT §3.3."""
    return labelled_stream(actor, "default")


# git-hn: a stream chosen by a label (``label:NAME``) rather than by its ID. §3.4 leaves other
# streams opaque and caller-chosen; an agent trial had six agents of one identity in one clone,
# all on the default stream, and the brief showed only the latest handoff of the six (§7.15).
STREAM_LABEL = "label:"
MAX_STREAM_LABEL = 64
_LABEL = Lazy(r"[a-z0-9][a-z0-9._-]{0,63}")
STREAM_CHOICE_RULE = ("a full stream ID (sha256: and 64 lowercase hex digits, as a record's output prints it) or "
                      "label:NAME, NAME being 1 to 64 of a-z, 0-9, ., _ and - (starting with a letter or digit)")


def labelled_stream(actor: str, label: str) -> str:
    """The stream ``label`` names for ``actor``: §3.3's derivation with the label in place of
    ``default`` (so ``label:default`` is the default stream). The actor is hashed in, so one
    label never names another actor's stream, and the same label continues the same stream."""
    data = b"hn-memory-stream-v0\x00" + actor.encode("ascii") + b"\x00" + label.encode("ascii")
    return "sha256:" + hashing.sha256(data).hexdigest()


def is_stream_choice(value: str) -> bool:
    """A full stream ID, or ``label:NAME`` with a NAME of ``_LABEL`` (no NUL: the derivation's
    parts cannot run into each other)."""
    if not isinstance(value, str):
        return False
    if value.startswith(STREAM_LABEL):
        return _LABEL.fullmatch(value[len(STREAM_LABEL):]) is not None
    return is_digest_id(value)


def chosen_stream(actor: str, choice: str) -> str:
    """The stream ID ``choice`` (``is_stream_choice``) names for ``actor``."""
    if choice.startswith(STREAM_LABEL):
        return labelled_stream(actor, choice[len(STREAM_LABEL):])
    return choice


def local_ref(actor: str, stream: str) -> str:
    return f"{LOCAL_PREFIX}{actor}/{stream[len('sha256:'):]}"


def accepted_ref(remote: str, actor: str, stream: str) -> str:
    return f"{REMOTES_PREFIX}{remote}/memory/{actor}/{stream[len('sha256:'):]}"


def quarantine_ref(actor: str, stream: str) -> str:
    return f"{QUARANTINE_PREFIX}{actor}/{stream[len('sha256:'):]}"


def parse_local_ref(ref: str) -> tuple[str, str] | None:
    """(actor, stream) of ``refs/hn/memory/<actor>/<hex>``, or None (CONTRACT §3.1, §3.5)."""
    if not ref.startswith(LOCAL_PREFIX):
        return None
    parts = ref[len(LOCAL_PREFIX):].split("/")
    if len(parts) != 2 or not is_actor(parts[0]) or not is_lower_hex(parts[1], 64):
        return None
    return parts[0], "sha256:" + parts[1]


def parse_accepted_ref(ref: str) -> tuple[str, str, str] | None:
    """(remote, actor, stream) of ``refs/hn/remotes/<remote>/memory/<actor>/<hex>``, or None."""
    if not ref.startswith(REMOTES_PREFIX):
        return None
    parts = ref[len(REMOTES_PREFIX):].split("/")
    if (len(parts) != 4 or parts[1] != "memory" or not is_remote_name(parts[0])
            or not is_actor(parts[2]) or not is_lower_hex(parts[3], 64)):
        return None
    return parts[0], parts[2], "sha256:" + parts[3]


# -- UTC instants of §1.8 timestamps (brief and digest order, the state's UTC column) ----------



def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return y + (m <= 2), m, d


def utc_instant(ts: str) -> tuple[int, int]:
    """(seconds since the epoch, nanoseconds) of a §1.8 timestamp."""
    parts = split_timestamp(ts, writer=False)
    if parts is None:
        raise InputError("memory timestamp is invalid")  # pragma: no cover - verified rows only
    y, mo, d, hh, mi, ss, fraction, sign, oh, om = parts
    nanos = int(fraction.ljust(9, "0"))
    seconds = _days_from_civil(y, mo, d) * 86400 + hh * 3600 + mi * 60 + ss
    if sign:
        seconds -= (1 if sign == "+" else -1) * (oh * 3600 + om * 60)
    return seconds, nanos


def utc_timestamp(ts: str) -> str:
    """The same instant in the writer format of §1.8 (UTC, ``Z``, trailing zeros removed)."""
    seconds, nanos = utc_instant(ts)
    days, rest = divmod(seconds, 86400)
    y, mo, d = _civil_from_days(days)
    base = f"{y:04d}-{mo:02d}-{d:02d}T{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    frac = f"{nanos:09d}".rstrip("0")
    return f"{base}.{frac}Z" if frac else f"{base}Z"


def utc_of_valid(ts: str) -> str:
    """``utc_timestamp`` of a timestamp that passed ``is_timestamp`` (a verified memory's): one
    already in UTC is its own writer form (``is_timestamp`` admits only the writer's spelling
    and real dates), so only an offset is converted (~25 us a memory, 0.25 s of a
    10,000-memory sync's state rows)."""
    return ts if ts[-1:] == "Z" else utc_timestamp(ts)


_HEX_MARK = bytes(ord("x") if chr(b) in "0123456789abcdef" else b for b in range(256))


def uniform_lines(data: bytes, parts: tuple) -> int | None:
    """How many lines ``data`` holds when each is exactly the line ``parts`` describe, else None
    (also for no lines). ``parts`` are the line's pieces in order: an integer is that many
    lowercase hex digits, bytes are themselves. Checked all at once rather than line by line
    (a listing of 10,000 refs): the lines have one width, every hex digit maps to one byte and
    the whole equals the expected line so mapped, repeated, and each hex character that is
    text (the "e" of "refs") is compared down its column."""
    line = b"".join(b"0" * p if isinstance(p, int) else p for p in parts)
    width = len(line)
    if not data or not width or len(data) % width:
        return None
    count = len(data) // width
    if data.translate(_HEX_MARK) != line.translate(_HEX_MARK) * count:
        return None
    column = 0
    for part in parts:
        if isinstance(part, int):
            column += part
            continue
        for i, byte in enumerate(part):
            if _HEX_MARK[byte] != byte and data[column + i::width] != part[i:i + 1] * count:
                return None
        column += len(part)
    return count
