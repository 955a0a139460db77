"""Stream verification rules (CONTRACT §4.2, §11(a), §11(e)): pure checks over raw Git objects.

The store reads commit, tree and blob bytes with batch plumbing and hands them here; nothing in
this module touches Git or the filesystem. The order of checks for a stream payload is §11(e):
tree shape and sizes, signature encoding, a bounded public-key scan, Ed25519 over the exact bytes,
then strict parsing and the canonical check, then the chain rules. Verifying before parsing
defends against *parser attacks by unsigned data*: nothing an attacker did not sign reaches the
JSON parser of a stream reader.
"""

from __future__ import annotations

from ..errors import ValidationError
from . import envelope as envmod
from .grammar import memory_id
from .keys import b64_decode_go, b64_encode, is_weak_before_decoding, is_weak_public_key, verify
from .limits import LIMITS
from .tuples import NamedTuple

_PK_KEY = b'"publicKey":"'


class VerifiedMemory(NamedTuple):
    """One memory whose signature, canonical bytes and envelope rules were verified."""

    memory_id: str
    commit: str
    envelope: envmod.Envelope
    payload: bytes
    signature: str


_HEX = frozenset(b"0123456789abcdef")
_DIGITS = frozenset(b"0123456789")


def _oid_line(buf: bytes, pos: int) -> int:
    """The position after ``<hex oid>\n`` at ``pos`` (40 or 64 hex digits), or -1."""
    for n in (40, 64):
        if buf[pos + n:pos + n + 1] == b"\n" and all(c in _HEX for c in buf[pos:pos + n]):
            return pos + n + 1
    return -1


def _ident(buf: bytes, pos: int) -> tuple[str, int]:
    """Git's ``fsck_ident`` over the ident at ``pos``: (message ID or "", start of next line)."""
    end = buf.find(b"\n", pos)
    nxt = len(buf) if end < 0 else end + 1
    line = buf[pos:nxt]
    if line[:1] == b"<":
        return "missingNameBeforeEmail", nxt
    i = 0
    while i < len(line) and line[i] not in b"<>\n":
        i += 1
    if line[i:i + 1] == b">":
        return "badName", nxt
    if line[i:i + 1] != b"<":
        return "missingEmail", nxt
    if i == 0 or line[i - 1:i] != b" ":
        return "missingSpaceBeforeEmail", nxt
    i += 1
    while i < len(line) and line[i] not in b"<>\n":
        i += 1
    if line[i:i + 1] != b">":
        return "badEmail", nxt
    i += 1
    if line[i:i + 1] != b" ":
        return "missingSpaceBeforeDate", nxt
    i += 1
    if line[i:i + 1] == b"0" and line[i + 1:i + 2] != b" ":
        return "zeroPaddedDate", nxt
    j = i
    while j < len(line) and line[j] in _DIGITS:
        j += 1
    if j > i and int(line[i:j]) >= 1 << 63:
        return "badDateOverflow", nxt
    if j == i or line[j:j + 1] != b" ":
        return "badDate", nxt
    tz = line[j + 1:j + 7]
    if len(tz) != 6 or tz[:1] not in (b"+", b"-") or not all(c in _DIGITS for c in tz[1:5]) or tz[5:] != b"\n":
        return "badTimezone", nxt
    return "", nxt


def fsck_commit_error(raw: bytes) -> str:
    """The first error Git's fsck reports for a commit object's header (``fsck_commit`` in Git's
    fsck.c, error-level messages only), or "". A fetch with ``transfer.fsckObjects`` refuses such
    a commit, so a memory on one could verify locally and never replicate (issue 12 item 9e)."""
    global _checked
    error = _framing_error(raw)
    if error:
        return error
    _checked += 1
    if (_WELL_FORMED is not None or _checked > _WELL_FORMED_AFTER) and _well_formed_header().match(raw) is not None:
        return ""  # well formed: what ``_header_error`` accepts, in one C-speed match
    return _header_error(raw)


def compile_header_check() -> None:
    """Compile the well-formed header's expression now, so that ``fsck_commit_error`` matches
    every header with it from the first: for a caller about to check many commits, while it
    waits for them (``replication.meanwhile``: a sync-100's 200 headers cost ~2 ms rule by rule
    and compiling, on its critical path). The answers are the same either way."""
    _well_formed_header()


def _framing_error(raw: bytes) -> str:
    """A NUL in the header, or a header without its terminating newline; else ""."""
    end = raw.find(b"\n\n")
    header = raw if end < 0 else raw[:end + 1]
    if b"\x00" in header:
        return "nulInHeader"
    if end < 0 and not raw.endswith(b"\n"):
        return "unterminatedHeader"
    return ""


_WELL_FORMED = None
# Headers checked rule by rule before the expression is compiled: compiling it costs 2.4 M
# instructions (~0.6 ms), about what ``_header_error`` spends on a hundred headers; a command
# that reads a few commits (a record reads one) never pays it.
_WELL_FORMED_AFTER = 100
_checked = 0


def _well_formed_header():
    """A header the checks of ``_header_error`` all pass: tree, parents, one author, committer,
    each ident ``name <email> date tz`` with a date of at most 18 digits (below 2^63, no zero
    padding). Anything else is judged by those checks; the two agree (tested on every case)."""
    global _WELL_FORMED
    if _WELL_FORMED is None:
        import re

        oid = rb"(?:[0-9a-f]{40}|[0-9a-f]{64})\n"
        ident = rb"[^<>\n]* <[^<>\n]*> (?:0|[1-9][0-9]{0,17}) [+-][0-9]{4}\n"
        _WELL_FORMED = re.compile(rb"tree " + oid + rb"(?:parent " + oid + rb")*author " + ident
                                  + rb"committer " + ident)
    return _WELL_FORMED


def _header_error(raw: bytes) -> str:
    """``fsck_commit_error`` after ``_framing_error``, one rule at a time."""
    if not raw.startswith(b"tree "):
        return "missingTree"
    pos = _oid_line(raw, 5)
    if pos < 0:
        return "badTreeSha1"
    while raw.startswith(b"parent ", pos):
        pos = _oid_line(raw, pos + 7)
        if pos < 0:
            return "badParentSha1"
    authors = 0
    while raw.startswith(b"author ", pos):
        authors += 1
        err, pos = _ident(raw, pos + 7)
        if err:
            return err
    if authors != 1:
        return "missingAuthor" if authors == 0 else "multipleAuthors"
    if not raw.startswith(b"committer ", pos):
        return "missingCommitter"
    return _ident(raw, pos + 10)[0]


def parse_commit(commit: str, raw: bytes) -> tuple[str, tuple[str, ...]]:
    """(tree, parents) from a raw commit object's header lines."""
    tree = ""
    parents = []
    for line in raw.split(b"\n"):
        if not line:
            break
        if line.startswith(b"tree "):
            tree = line[5:].decode("ascii", "replace")
        elif line.startswith(b"parent"):
            value = line[7:] if line.startswith(b"parent ") else b""
            if not value or b" " in value or line[6:7] != b" ":
                raise ValidationError(f"memory commit {commit} has invalid parent header")
            parents.append(value.decode("ascii", "replace"))
    return tree, tuple(parents)


def parse_tree(raw: bytes, oid_bytes: int) -> list[tuple[bytes, bytes, str]]:
    """Entries (mode, name, hex oid) of a raw tree object; raises ``ValueError`` if malformed."""
    out = []
    pos, n = 0, len(raw)
    while pos < n:
        sp = raw.index(b" ", pos)
        nul = raw.index(b"\x00", sp)
        end = nul + 1 + oid_bytes
        if end > n:
            raise ValueError("truncated tree")
        out.append((raw[pos:sp], raw[sp + 1:nul], raw[nul + 1:end].hex()))
        pos = end
    return out


_SMALL_TREE = 4096


def find_entry(raw: bytes, name: bytes, oid_bytes: int) -> tuple[bytes, bytes, str] | None:
    """The first entry named ``name`` of a raw tree object, as ``parse_tree`` gives it, or None;
    raises ``ValueError`` when ``parse_tree`` would (the tree is malformed anywhere). Two passes
    of a regular expression, no entry built but the one found: a path lookup in a 100,000-file
    directory took 0.3-0.4 s through ``parse_tree``, ~25 ms so (S102 #2). An entry is what
    ``parse_tree`` reads: a mode up to the first space, a name up to the first NUL, then the
    object ID's bytes; each part is forced (a shorter match cannot be followed by its
    delimiter), so both read the same entries. A tree of at most ``_SMALL_TREE`` bytes (a root
    tree's few dozen entries) is read through ``parse_tree`` itself instead: its
    expressions' compiling and ``re``'s import (~13 M instructions) would cost more than the walk,
    and every command reads the policy through one."""
    if b"\x00" in name:  # (no entry's name holds one)
        parse_tree(raw, oid_bytes)
        return None
    if len(raw) <= _SMALL_TREE:  # (parsed whole first: a malformed tail raises as it would there)
        return next((e for e in parse_tree(raw, oid_bytes) if e[1] == name), None)
    import re

    entry = rb"[^ ]* [^\x00]*\x00.{%d}" % oid_bytes
    if re.fullmatch(rb"(?:%s)*+" % entry, raw, re.S) is None:
        raise ValueError("malformed tree")
    hit = rb"[^ ]* %s\x00" % re.escape(name)
    found = re.match(rb"(?:(?!%s)%s)*+([^ ]*) %s\x00(.{%d})" % (hit, entry, re.escape(name), oid_bytes), raw, re.S)
    return None if found is None else (found.group(1), name, found.group(2).hex())


def check_tree(commit: str, entries: list[tuple[bytes, bytes, str]]) -> tuple[str, str]:
    """(memory.json oid, signature oid) of a memory commit's tree (§4.2 step 2)."""
    found: dict[str, str] = {}
    for mode, name, oid in entries:
        if mode != b"100644":
            raise ValidationError(f"memory commit {commit} has invalid tree entry")
        text = name.decode("utf-8", "replace")
        if text not in ("memory.json", "signature"):
            from .gostr import one_line

            raise ValidationError(f"memory commit {commit} tree contains unexpected entry {one_line(text)}")
        if text in found:
            raise ValidationError(f"memory commit {commit} tree contains duplicate entry {text}")
        found[text] = oid
    if len(found) != 2:
        raise ValidationError(f"memory commit {commit} tree must contain exactly memory.json and signature")
    return found["memory.json"], found["signature"]


def check_sizes(commit: str, payload_size: int, signature_size: int) -> None:
    """§4.2 step 3, decided from object headers before any content is read."""
    if payload_size > LIMITS.max_memory_blob:
        raise ValidationError(f"memory.json at memory commit {commit} exceeds its bound")
    if signature_size > LIMITS.max_signature_blob:
        raise ValidationError(f"signature at memory commit {commit} exceeds its bound")


def scan_public_key(payload: bytes) -> bytes:
    """The bounded, non-allocating public-key scan of §11(e); returns the raw 32-byte key."""
    at = payload.find(_PK_KEY)
    if at < 0:
        raise ValidationError("memory publicKey is invalid")
    start = at + len(_PK_KEY)
    end = payload.find(b'"', start, start + 64)
    if end < 0:
        raise ValidationError("memory publicKey is invalid")
    text = payload[start:end].decode("ascii", "replace")
    raw = _SCANNED.get(text)
    if raw is not None and not is_weak_before_decoding(raw):  # (a dict look-up once a signature verified)
        return raw
    raw = b64_decode_go(text)
    if raw is None or len(raw) != 32 or b64_encode(raw) != text:
        raise ValidationError("memory publicKey is invalid")
    if is_weak_before_decoding(raw):  # the curve check follows a failed signature (signature_failure)
        raise ValidationError("memory publicKey is weak")
    if len(_SCANNED) > 4096:
        _SCANNED.clear()
    _SCANNED[text] = raw
    return raw


# Key texts the scan decoded, and their raw keys: a stream carries one key in every memory, and the
# decoding is a pure function of the text (the weak-key part is asked again: it may have learnt more).
_SCANNED: dict[str, bytes] = {}


def signature_failure(commit: str, public_key: bytes) -> ValidationError:
    """The error of a memory whose signature did not verify. ``scan_public_key`` admits a key
    after the quick part of the weak-key check; a key that is not a curve point passes it, no
    signature verifies under it, and it is refused here as weak, the error the full check in the
    scan gives: the outcome and its wording are those of checking the key completely first."""
    if is_weak_public_key(public_key):
        return ValidationError(f"verify memory commit {commit}: memory publicKey is weak")
    return ValidationError(f"verify memory commit {commit}: invalid memory signature")


def precheck_memory(commit: str, payload: bytes, signature_blob: bytes) -> tuple[bytes, bytes]:
    """§11(e) items 1–2: signature encoding, then the bounded key scan; (public key, signature)."""
    sig_text = signature_blob.decode("ascii", "replace")
    signature = b64_decode_go(sig_text)
    if signature is None or b64_encode(signature) != sig_text or "\n" in sig_text or "\r" in sig_text:
        raise ValidationError(f"memory commit {commit} has invalid signature encoding")
    try:
        return scan_public_key(payload), signature
    except ValidationError as exc:
        raise ValidationError(f"verify memory commit {commit}: {exc.message}") from None


def finish_memory(commit: str, payload: bytes, signature_blob: bytes, public_key: bytes) -> VerifiedMemory:
    """§11(e) item 4, after the signature verified: strict decode and the canonical check."""
    try:
        env = envmod.decode(payload)
        if env.public_key != b64_encode(public_key):
            raise ValidationError("memory JSON is not canonical")
    except ValidationError as exc:
        raise ValidationError(f"verify memory commit {commit}: {exc.message}") from None
    return VerifiedMemory(memory_id(payload), commit, env, payload, signature_blob.decode("ascii"))


def check_memory(commit: str, payload: bytes, signature_blob: bytes) -> VerifiedMemory:
    """§4.2 steps 4–5 in git-hn's order (§11(e)); errors name the commit."""
    public_key, signature = precheck_memory(commit, payload, signature_blob)
    try:
        verify(public_key, signature, payload)
    except ValidationError:
        raise signature_failure(commit, public_key) from None
    return finish_memory(commit, payload, signature_blob, public_key)


def check_link(ref: str, actor: str, stream: str, index: int, memory: VerifiedMemory,
               predecessor: VerifiedMemory | None) -> None:
    """Chain rules of §4.2 step 6 for the memory at position ``index`` (0 at the root)."""
    env = memory.envelope
    c = memory.commit
    if env.actor != actor:
        raise ValidationError(f"memory source {ref} commit {c} has owner {env.actor}, want {actor}")
    if env.stream != stream:
        raise ValidationError(f"memory source {ref} commit {c} has stream {env.stream}, want {stream}")
    if env.sequence != index + 1:
        raise ValidationError(
            f"memory source {ref} commit {c} has sequence {env.sequence}, want {index + 1}")
    if index == 0:
        if env.previous:
            raise ValidationError(f"memory source {ref} sequence 1 has a previous memory")
    elif predecessor is None or env.previous != predecessor.memory_id:
        raise ValidationError(
            f"memory source {ref} sequence {env.sequence} previous memory does not match its predecessor")


def _own_fork_way_out(a: str, b: str) -> str:
    """git-hn's advice after §11(a)'s message when a local stream (``a``, named first: refs
    compare in name order) parts from a remote's accepted copy of it (``b``): the identity
    appended in another clone too (an audit: a record during an import once did it). The
    accepted copy goes, and the next ``sync --rebase`` imports it again and signs the local
    memories above the fork again on top of it."""
    from .grammar import LOCAL_PREFIX, parse_accepted_ref

    accepted = parse_accepted_ref(b)
    if not a.startswith(LOCAL_PREFIX) or accepted is None:
        return ""
    remote = accepted[0]
    return (f"; your identity appended to it in another clone too: git update-ref -d {b}, then git hn sync "
            f"{remote} --rebase imports {remote}'s copy again and signs your unpublished memories of it again "
            "on top of it")


def check_prefix_consistent(chains: dict[str, list[str]], actor: str, stream: str) -> None:
    """§11(a) item 2: all sources of one (actor, stream) agree at every common sequence.

    ``chains`` maps a ref to its memory IDs in sequence order. Refs are compared in name order so
    the reported pair is deterministic.
    """
    refs = sorted(chains)
    for i, a in enumerate(refs):
        for b in refs[i + 1:]:
            ca, cb = chains[a], chains[b]
            for n in range(min(len(ca), len(cb))):
                if ca[n] != cb[n]:
                    raise ValidationError(
                        f"memory stream {stream} of actor {actor} has divergent chains: "
                        f"{a} and {b} differ at sequence {n + 1}" + _own_fork_way_out(a, b))
