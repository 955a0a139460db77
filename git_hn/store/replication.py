"""Replication state on disk (CONTRACT §9.1, §9.10, §9.14, §9.17): selections, receipts, pending
anchors, and the set of objects denied to trust reads.

Owns everything under ``<common-gitdir>/hn/replication/``. Trusts nothing it reads: every file
passes the private-file rules and strict parsing, and any inconsistency makes the whole pending
state *invalid*, which fails every trust read closed until a sync repairs it.

Why pending state exists: a sync copies objects into the main object database before the atomic
ref transaction that accepts them. If the process dies in between (*crash between copy and
promotion*), those objects sit in the repository unreferenced but readable; the anchor and the
``validated`` receipt record them so that no trust read (stream verification, policy loads,
object probes) can use them until a later sync completes or repairs the transaction.
"""

from __future__ import annotations

import os
import stat
from ..core import canonical
from ..core import selection as selmod
from ..core.gostr import Lazy
from ..core.grammar import is_actor, is_digest_id, is_oid, parse_accepted_ref
from ..core.strictjson import read_document
from ..errors import HnError, InputError, LocalStateError, OversizedRecord
from . import private
from . import pending as pendingmod
from .pending import NONE, Pending

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (core.tuples)
if TYPE_CHECKING:  # only for annotations: Repo.pending() loads this module
    from .repo import Repo

RECEIPT_MAX = 16 << 20


def bound_text() -> str:
    """``RECEIPT_MAX`` in words ("16 MiB")."""
    from .receipt_files import bound_words

    return bound_words(RECEIPT_MAX)
_TXN = Lazy(r"txn-[A-Za-z0-9-]{1,124}")


def root(repo: Repo) -> str:
    return repo.replication_dir()


def selection_path(repo: Repo, remote: str) -> str:
    return os.path.join(root(repo), "selections", selmod.file_name(remote))


def quarantine_root(repo: Repo) -> str:
    return os.path.join(root(repo), "quarantine")


def receipt_path(repo: Repo, txn: str) -> str:
    return os.path.join(root(repo), "transactions", txn + ".json")


def anchor_path(repo: Repo, txn: str) -> str:
    return os.path.join(root(repo), "anchors", txn + ".json")


def is_txn(name: str) -> bool:
    return _TXN.fullmatch(name) is not None


# -- selections --------------------------------------------------------------------------------


def load_selection(repo: Repo, remote: str) -> selmod.Selection:
    return read_selection(repo, remote)[0]


def read_selection(repo: Repo, remote: str) -> tuple[selmod.Selection, bytes | None]:
    """``remote``'s selection and the file's bytes (None when there is no file: compatibility-all)."""
    path = selection_path(repo, remote)
    data = private.read_private(repo.hn_dir, path, max_bytes=selmod.MAX_FILE)
    if data is None:
        return selmod.compatibility_all(remote), None
    try:
        return selmod.decode(data, remote), data
    except InputError as exc:
        named = "" if remote == "origin" else f" {remote}"
        raise InputError(f"{exc.message}; save a new one over {path}: git hn replication select{named} "
                         "--memory sha256:<stream> (or --all)") from None


def save_selection(repo: Repo, sel: selmod.Selection) -> None:
    private.write_private(repo.hn_dir, selection_path(repo, sel.remote), selmod.encode(sel))


# -- the quiet record the fetch hook's wrapper reads (git-hn, issue 11) ------------------------


def _per_remote(repo: Repo, directory: str, remote: str) -> str:
    """``remote``'s file in ``directory``: named as its selection file, without ``.json`` (the
    name the hook wrappers compute with ``base64``)."""
    return os.path.join(root(repo), directory, selmod.file_name(remote)[:-len(".json")])


def quiet_path(repo: Repo, remote: str) -> str:
    """``remote``'s quiet record."""
    return _per_remote(repo, "quiet", remote)


def published_path(repo: Repo, remote: str) -> str:
    """The anchors of this clone's own publications to ``remote``, for the fetch hook's wrapper
    (``service.replication.tracked.note_published``)."""
    return _per_remote(repo, "published", remote)


def pushing_path(repo: Repo, remote: str) -> str:
    """The pre-push hook's note of the push to ``remote`` in progress (``hook_runs._note_push``)."""
    return _per_remote(repo, "pushing", remote)


def failed_path(repo: Repo, remote: str) -> str:
    """The note that an import from ``remote`` started by one ``git fetch`` failed (and said so)."""
    return _per_remote(repo, "failed", remote)


def failed_during(repo: Repo, remote: str, fetch: str) -> bool:
    """True if an import from ``remote`` that the fetch process ``fetch`` started failed: Git
    runs the hook once per ref it moves, all after the pack arrived, so the next would fail the
    same way and say so again."""
    try:
        return private.read_private(repo.hn_dir, failed_path(repo, remote), max_bytes=128) == (
            fetch + "\n").encode("ascii")
    except HnError:
        return False


def note_failed(repo: Repo, remote: str, fetch: str) -> None:
    """Note for ``failed_during`` (a derived file; best effort)."""
    try:
        private.write_private(repo.hn_dir, failed_path(repo, remote), (fetch + "\n").encode("ascii"), derived=True)
    except HnError:
        pass


def selections_settled(repo: Repo, remotes=None) -> tuple[int, int]:
    """(remotes with a saved selection, how many of those a sync already served), for the
    brief's header line (``service.brief.header_notes``); only of ``remotes`` when given (the
    configured ones: a removed remote's selection stays behind). A remote counts as served when
    its quiet record is there and no older than its selection (its last import, with this
    selection, found every selected stream up to date). A publication does not count (a
    review: the pre-push hook's, or a sync's before any selection, hid the line while nothing
    was imported). Two ``lstat`` per selection; (0, 0) when any of it is not safe to read."""
    names, served = _served(repo)
    if remotes is not None:
        stems = {selmod.file_name(r)[:-len(".json")] for r in remotes}
        names, served = names & stems, served & stems
    return len(names), len(served)


def unserved(repo: Repo) -> list[str]:
    """The names of the remotes with a saved selection that no sync served yet
    (``selections_settled``'s test; no Git process), sorted."""
    names, served = _served(repo)
    return _remotes_of(names - served, names)


def _remotes_of(stems, names) -> list[str]:
    """The remotes named by these selection file stems, sorted (``names``: every stem saved)."""
    import binascii

    out = []
    for stem in sorted(stems):
        try:  # (the file's name is the remote's in unpadded URL-safe base64: ``selection_file_name``)
            out.append(binascii.a2b_base64((stem + "=" * (-len(stem) % 4)).replace("-", "+").replace("_", "/"),
                                           strict_mode=True).decode("utf-8"))
        except (binascii.Error, UnicodeDecodeError):
            continue
    return [r for r in out if selmod.file_name(r)[:-len(".json")] in names]  # (only a name that encodes back)


def streamless(repo: Repo) -> list[str]:
    """The remotes whose saved selection selects no memory stream: neither ``--all`` nor an exact
    stream, only actor or proposal selectors, which git-hn saves as hn does and imports nothing
    for (CONTRACT §11(c)); sorted. A newcomer trial's clone selected ``--actor`` alone, synced,
    and every later read said only that there was no memory. One read of each selection file, no
    Git process; a file that cannot be read or decoded safely is left out (``sync`` says why)."""
    try:
        names = {n[:-len(".json")] for n in _entries(repo, "selections") if n.endswith(".json")}
    except (HnError, OSError):
        return []
    out = []
    for remote in _remotes_of(names, names):
        try:
            sel = load_selection(repo, remote)
        except (HnError, OSError):
            continue
        if sel.saved and not (sel.all or sel.memories):
            out.append(remote)
    return out


def _served(repo: Repo) -> tuple[set[str], set[str]]:
    try:
        names = {n[:-len(".json")] for n in _entries(repo, "selections") if n.endswith(".json")}
        served = set()
        for name in names:
            try:
                chosen = os.lstat(os.path.join(root(repo), "selections", name + ".json"))
            except FileNotFoundError:
                continue
            for directory in ("quiet", "served"):
                try:
                    mark = os.lstat(os.path.join(root(repo), directory, name))
                except FileNotFoundError:
                    continue
                if stat.S_ISREG(mark.st_mode) and mark.st_mtime_ns >= chosen.st_mtime_ns:
                    served.add(name)
                    break
    except (HnError, OSError):
        return set(), set()
    return names, served


def mark_served(repo: Repo, remote: str) -> None:
    """A sync's import from ``remote`` ended without an error under its saved selection: the
    ``served`` mark ``_served`` reads beside the quiet record, which an import that fetched
    drops (a review: in a steady state with no quiet record, every read asked Git twice whether
    anything was imported). A publication drops only the quiet record (``forget_quiet``): what
    it gave is this clone's own. Nothing is written while the mark is newer than the selection;
    best effort."""
    path = _per_remote(repo, "served", remote)
    try:
        mark, chosen = os.lstat(path), os.lstat(selection_path(repo, remote))
        if stat.S_ISREG(mark.st_mode) and mark.st_mtime_ns >= chosen.st_mtime_ns:
            return
    except OSError:
        pass
    try:
        private.write_private(repo.hn_dir, path, b"", derived=True)
    except (HnError, OSError):
        pass


# the quiet record's first line, which the ``reference-transaction`` wrapper's shell compares as
# text (``hookscripts``: ``[ "$magic" = hn-quiet/0 ]``); here, with the writer, so that a sync
# that leaves the record loads no wrapper text
QUIET_MAGIC = "hn-quiet/0"


def quiet_input(url: str, advertisement: bytes, listing: bytes, selection: bytes) -> bytes:
    """The bytes the ``reference-transaction`` wrapper (``hookscripts``) hashes with ``git
    hash-object --stdin`` to tell whether a remote is as git-hn's import last found it: the URL,
    the advertisement's output (``transport.advertisement``), the accepted-ref listing's output
    (``advertise.accepted_heads``), each of the two followed by its exit status (0 here), and the
    selection file. A NUL ends each part but the last; no URL, ref name or Git listing holds one."""
    return b"".join((url.encode("utf-8", "surrogateescape"), b"\0", advertisement, b"\0" b"0" b"\0",
                     listing, b"\0" b"0" b"\0", selection))


def write_quiet(repo: Repo, remote: str, url: str, advertisement: bytes, listing: bytes,
                selection: bytes, bound: float) -> None:
    """Record that an import from ``remote`` at ``url`` found every selected stream up to date,
    given exactly these answers and selection bytes (``quiet_input``): the
    ``reference-transaction`` wrapper starts no git-hn while Git gives it the same ones. A
    derived file (not fsynced; losing it costs one hook run of git-hn). The import that writes
    it dropped the record first (``forget_quiet``), an earlier version's single one too.
    ``bound``: the import's advertisement bound (``hn.syncStallTimeout``), which the wrapper's
    own question keeps, in whole seconds (``quiet_bound``; a wrapper reads no setting)."""
    import math

    from ..core.hashing import object_id
    oid = object_id("blob", quiet_input(url, advertisement, listing, selection), repo.object_format).hex()
    text = f"{QUIET_MAGIC}\n{remote}\n{selmod.file_name(remote)}\n{url}\n{oid}\n{max(1, math.ceil(bound))}\n"
    private.write_private(repo.hn_dir, quiet_path(repo, remote), text.encode("utf-8", "surrogateescape"),
                          derived=True)


# -- accepted refs written loose since git-hn last packed refs (git-hn, issue 11) ---------------

LOOSE_REFS = "loose-refs"
_MAX_LOOSE_COUNT = 10 ** 9  # a count read past this is nonsense: taken as "pack now"


def loose_refs_written(repo: Repo, n: int) -> int:
    """Add ``n`` (accepted refs a promotion just wrote: Git writes each as a loose ref file) to
    the count kept since git-hn last packed refs, and return the new count. A derived file
    (``hn/replication/loose-refs``, a decimal number, not fsynced): a missing or unreadable one
    counts from 0, a damaged one as the limit (packing once more is harmless). Two syncs at the
    same moment may lose one of their additions, which only delays a packing. Best effort: a
    count that cannot be written is not an error of the sync."""
    path = os.path.join(root(repo), LOOSE_REFS)
    try:
        raw = private.read_private(repo.hn_dir, path, max_bytes=32)
        before = int(raw.decode("ascii")) if raw is not None else 0
        if not 0 <= before < _MAX_LOOSE_COUNT:
            raise ValueError
    except (HnError, ValueError, UnicodeDecodeError):
        before = _MAX_LOOSE_COUNT
    count = min(before + n, _MAX_LOOSE_COUNT)
    set_loose_refs(repo, count)
    return count


def set_loose_refs(repo: Repo, count: int) -> None:
    """Record the count of accepted refs written loose since git-hn last packed refs (0 once it
    packs them); best effort."""
    try:
        private.write_private(repo.hn_dir, os.path.join(root(repo), LOOSE_REFS), b"%d\n" % count, derived=True)
    except HnError:
        pass


def quiet_bound(repo: Repo, remote: str) -> int | None:
    """The seconds ``remote``'s quiet record gives the wrapper's question (its last line, as
    ``write_quiet`` wrote it); None without a record of that shape."""
    try:
        lines = (private.read_private(repo.hn_dir, quiet_path(repo, remote), 1 << 16) or b"").split(b"\n")
    except (HnError, OSError):
        return None
    bound = lines[5] if len(lines) > 6 else b""
    return int(bound) if bound.isdigit() and not bound.startswith(b"0") and len(bound) < 6 else None


def forget_quiet(repo: Repo, remote: str, served: bool = True) -> None:
    """Drop ``remote``'s quiet record, and its ``served`` mark unless ``served`` is False: an
    import from it is about to decide anew, or (``served=False``) a publication moved its
    advertisement; what it gave is this clone's own already, so the import that served the
    selection still did (a review: a sync that imported, then published, removed its own mark,
    and recall then said nothing was imported, naming the command just run). Best effort."""
    _drop_single_record(repo)
    for path in (quiet_path(repo, remote), *((_per_remote(repo, "served", remote),) if served else ())):
        try:
            os.unlink(path)
        except OSError:
            pass


def _drop_single_record(repo: Repo) -> None:
    """Remove the one quiet record earlier versions kept for the whole repository (the file
    ``hn/replication/quiet``, where the records' directory now is)."""
    import stat

    path = os.path.join(root(repo), "quiet")
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
    except OSError:
        pass


# -- learnt owners (git-hn, issue 11) ----------------------------------------------------------

OWNERS_MAX = 1 << 20  # a selection file holds at most ~900 streams (65,536 bytes)


def owners_path(repo: Repo, remote: str) -> str:
    return os.path.join(root(repo), "owners", selmod.file_name(remote))


def load_owners(repo: Repo, remote: str) -> dict[str, str]:
    """Selected stream -> the one actor ``remote`` advertised it under when ``replication
    select`` asked (``service.replication.learn_owners``). A cache that only chooses which
    exact refs a sync asks for (what arrives is validated as ever): anything absent, unsafe or
    malformed reads as {} (the sync then lists the whole advertisement)."""
    try:
        data = private.read_private(repo.hn_dir, owners_path(repo, remote), max_bytes=OWNERS_MAX)
        doc = read_document(data, prefix="", max_bytes=OWNERS_MAX, error=LocalStateError) if data else None
    except (HnError, OSError):
        return {}
    if not isinstance(doc, dict) or doc.get("version") != 0 or doc.get("remote") != remote \
            or not isinstance(doc.get("owners"), dict):
        return {}
    owners = doc["owners"]
    if not all(is_digest_id(s) and is_actor(a) for s, a in owners.items()):
        return {}
    return owners


def save_owners(repo: Repo, remote: str, owners: dict[str, str]) -> None:
    """Replace the learnt owners of ``remote`` (a derived file: not fsynced; losing it only
    costs the next sync a whole advertisement)."""
    doc = {"version": 0, "remote": remote, "owners": dict(sorted(owners.items()))}
    private.write_private(repo.hn_dir, owners_path(repo, remote), canonical.indented(doc), derived=True)


# -- receipts and anchors ----------------------------------------------------------------------


LARGE_DOCUMENT = 4096  # object IDs from which orjson's encoder pays for its ~8 ms import


def _with_ids(doc: dict, arrays: dict) -> bytes:
    """A state file's bytes, ``doc`` then the object ID ``arrays``: the same with either encoder
    (tested), orjson's only for large ones; else IDs (nothing to escape) joined as text (tested)."""
    n = sum(map(len, arrays.values()))
    joined = "".join(["".join(ids) for ids in arrays.values()]) if n < LARGE_DOCUMENT else "<"
    if n and not (joined.isascii() and joined.encode().isalnum()):  # (orjson's is faster for large ones)
        doc, arrays = {**doc, **arrays}, {}
    data = canonical.indented_large(doc) if n >= LARGE_DOCUMENT else canonical.indented(doc)
    tail = [f',\n  "{k}": ' + ('[\n    "' + '",\n    "'.join(v) + '"\n  ]' if v else "[]") for k, v in arrays.items()]
    return data[:-3] + "".join(tail).encode() + b"\n}\n" if arrays else data


def write_anchor(repo: Repo, txn: str, remote: str, pending: list[str]) -> None:
    doc = {"version": 1, "id": txn, "remote": remote}
    _write_record(repo, anchor_path(repo, txn), _with_ids(doc, {"pendingObjects": pending}))


def receipt_bytes(txn: str, remote: str, state: str, outcomes: list, promotions: list,
                  pending: list[str], accepted: list[str]) -> bytes:
    """A receipt's file, as ``write_receipt`` writes it (§9.14)."""
    doc = {"version": 2, "id": txn, "remote": remote, "state": state, "outcomes": outcomes or None}
    if promotions:
        doc["promotions"] = promotions
    return _with_ids(doc, {"pendingObjects": pending, "acceptedObjects": accepted})


def write_receipt(repo: Repo, txn: str, remote: str, state: str, outcomes: list, promotions: list,
                  pending: list[str], accepted: list[str]) -> None:
    _write_record(repo, receipt_path(repo, txn),
                  receipt_bytes(txn, remote, state, outcomes, promotions, pending, accepted))


def write_receipt_bytes(repo: Repo, txn: str, data: bytes) -> None:
    """``write_receipt`` of a receipt already encoded (``receipt_bytes``)."""
    _write_record(repo, receipt_path(repo, txn), data)


def _write_record(repo: Repo, path: str, data: bytes) -> None:
    """Write a receipt or an anchor, never one larger than ``_read_json`` reads (a review: a sync
    of 84,000 memories wrote a 19 MB receipt, and every later read refused it, for good). The
    promotion plans its transactions so that this never refuses (``service.replication.groups``); a guard."""
    if len(data) > RECEIPT_MAX:
        raise LocalStateError(f"replication record {path} would be {len(data)} bytes, over the "
                              f"{bound_text()} bound of a receipt")
    private.write_private(repo.hn_dir, path, data)


def oid_bytes(oid_len: int) -> int:
    """The bytes one object ID of ``oid_len`` hex digits adds to a receipt's or an anchor's
    array (``    "<oid>",\n``)."""
    return oid_len + 8


def element_bytes(value) -> int:
    """At least the bytes ``value`` adds as an element of one of a receipt's arrays (an outcome,
    a promotion): its indented text with each line four spaces deeper, and a comma."""
    try:  # (orjson's bytes, the same, once loaded: a plan of 10,000 streams asks 20,000 of them)
        text = (canonical.indented_large if canonical.fast_codec() else canonical.indented)(value)
    except TypeError:  # (a value orjson refuses)
        text = canonical.indented(value)
    return len(text) + 4 * text.count(b"\n") + 1


def remove_anchor(repo: Repo, txn: str) -> None:
    try:
        os.unlink(anchor_path(repo, txn))
    except FileNotFoundError:
        pass


def _read_json(repo: Repo, path: str) -> dict:
    """A receipt or an anchor, read within ``RECEIPT_MAX`` (``receipt_files``)."""
    from .receipt_files import read_record

    return read_record(repo, path, RECEIPT_MAX)


def _entries(repo: Repo, directory: str) -> list[str]:
    path = os.path.join(root(repo), directory)
    if not private.check_dirs(repo.hn_dir, path):
        return []
    # (a write in progress, or one a kill interrupted: not a record; ``sweep_records`` removes
    # it once it is old)
    return sorted(n for n in os.listdir(path) if not n.startswith(private.TEMPORARY))


def sweep_records(repo: Repo) -> None:
    """Remove the temporaries killed writes of anchors and receipts left (best effort)."""
    for directory in ("anchors", "transactions"):
        private.sweep_temporaries(os.path.join(root(repo), directory))


def load_anchors(repo: Repo) -> dict:
    """txn -> (remote, pending objects) for every pending anchor; a bad anchor raises."""
    anchors = {}
    for name in _entries(repo, "anchors"):
        txn = name[:-5]
        if not name.endswith(".json") or not is_txn(txn):
            raise LocalStateError(f"unexpected anchor file {name}")
        doc = _read_json(repo, anchor_path(repo, txn))
        if doc.get("version") != 1 or doc.get("id") != txn or not isinstance(doc.get("remote"), str):
            raise LocalStateError(f"invalid anchor {txn}")
        from .receipt_files import check_oids

        anchors[txn] = (doc["remote"], check_oids(doc.get("pendingObjects")))
    return anchors


def load_receipt(repo: Repo, txn: str) -> dict | None:
    """One receipt as stored, or None when there is none."""
    if not os.path.lexists(receipt_path(repo, txn)):
        return None
    return _read_json(repo, receipt_path(repo, txn))


# what §2.3's messages say of a record file that is unsafe as it stands (not one a concurrent
# write replaced): "state=invalid; recovery=repair the local replication transaction record"
# did not say which file, nor what was wrong with it
UNSAFE_FILE = (" is a symbolic link", " is not a regular file", " has unsafe permissions")
PRIVATE = "private identity "  # (CONTRACT §0.5's words for a receipt and its directory)


def load_pending(repo: Repo) -> Pending:
    """Compute the denied set; an inconsistent state is reported as invalid, never raised.

    Every command asks this, and every completed sync leaves a receipt that lists all the
    objects it accepted (megabytes for a large sync), so the common answer, "nothing pending",
    is remembered (``pending.remember_nothing``) together with the identity of every receipt
    and anchor file it was computed from; any new, removed or changed file recomputes it. Only
    that answer is remembered: anything pending is always computed."""
    if not os.path.lexists(root(repo)):
        return NONE
    # an unsafe private directory is said as such (with its chmod), not as an invalid record
    private.check_dirs(repo.hn_dir, root(repo))
    files = pendingmod.memo_files(repo)
    if files is None:  # (the records' own directories too: an unsafe one read as "state=invalid;
        # repair the local replication transaction record", which said nothing of what to repair)
        for directory in ("transactions", "anchors"):
            private.check_dirs(repo.hn_dir, os.path.join(root(repo), directory))
    if files is not None and pendingmod.remembered(repo) == pendingmod.memo_key(files):
        return NONE
    got = _load_pending(repo)
    if not got.ok:
        got = _settled(repo, got, files)
    if files is not None and got.ok and not got.denied and not got.anchors and pendingmod.memo_files(repo) == files:
        pendingmod.remember_nothing(repo, files)
    return got


SETTLE_TRIES = 100  # 10 ms apart: how long a reader waits for a running sync's two-file step


def _settled(repo: Repo, got: Pending, files: list[str] | None) -> Pending:
    """An invalid state read while a sync is changing it is read again until it is consistent:
    a sync writes an anchor and then its receipt, and later its ``complete`` receipt and then
    removes the anchor, and a reader between the two saw a state that was never meant (every
    command of another process failed, once in ~50 during syncs). It is changing while its
    remote's import lock is held elsewhere, or while its files are not what they were when read
    (``files``: a sync that ended meanwhile; an anchor removed while it was being read). An
    invalid state that stays as it is with no sync running is a crash's, reported as such
    (CONTRACT §9.17)."""
    import time

    from .lock import held_elsewhere, remote_lock_path

    for _try in range(SETTLE_TRIES):
        if got.ok:
            break
        now = pendingmod.memo_files(repo)
        moving = now != files or (  # (None both times: a directory that cannot be read safely, which stays)
            bool(got.invalid_remote) and held_elsewhere(remote_lock_path(repo.hn_dir, got.invalid_remote, "import")))
        if not moving:
            break
        if now == files:
            time.sleep(0.01)  # (the lock is held: the sync's next write comes)
        files = now
        got = _load_pending(repo)
    return got


def _load_pending(repo: Repo) -> Pending:
    receipts, anchors = {}, {}
    try:
        for name in _entries(repo, "transactions"):
            txn = name[:-5]
            if not name.endswith(".json") or not is_txn(txn):
                raise LocalStateError(f"unexpected receipt file {name}")
            doc = _read_json(repo, receipt_path(repo, txn))
            version = doc.get("version")
            if doc.get("id") != txn or not isinstance(doc.get("remote"), str) \
                    or doc.get("state") not in ("validated", "complete") \
                    or type(version) is not int or version not in (1, 2):
                raise LocalStateError(f"invalid receipt {txn}")
            if version == 2:
                from .receipt_files import check_oids

                check_oids(doc.get("pendingObjects"))
                check_oids(doc.get("acceptedObjects"))
                for p in doc.get("promotions") or []:
                    if not isinstance(p, dict) or parse_accepted_ref(p.get("ref", "")) is None \
                            or not is_oid(p.get("newOid", "")):
                        raise LocalStateError(f"invalid receipt promotion in {txn}")
            receipts[txn] = doc
        anchors = load_anchors(repo)
    except (HnError, OSError) as exc:
        if isinstance(exc, LocalStateError) and exc.message.startswith(PRIVATE) and \
                any(what in exc.message for what in UNSAFE_FILE):  # (said with its path, as its directory is)
            raise
        if isinstance(exc, OversizedRecord):
            raise
        txn = ""
        import re

        m = re.search(r"txn-[A-Za-z0-9-]+", str(exc))
        if m:
            txn = m.group()
        return Pending({}, False, txn, "", anchors, receipts)
    denied: dict = {}
    accepted: set = set()
    ok, invalid, invalid_remote = True, "", ""
    for txn, (remote, pending) in anchors.items():
        rec = receipts.get(txn)
        if rec is None or rec.get("version") != 2 or rec.get("remote") != remote:
            ok, invalid, invalid_remote = False, txn, remote
            continue
        if rec["state"] == "complete" and not set(pending) <= set(rec["acceptedObjects"]):
            ok, invalid, invalid_remote = False, txn, remote
    for txn, rec in receipts.items():
        if rec.get("version") == 2 and rec["state"] == "validated":
            anchor = anchors.get(txn)
            if anchor is None or set(anchor[1]) != set(rec["pendingObjects"]):
                ok, invalid, invalid_remote = False, txn, rec["remote"]
                continue
            for oid in rec["pendingObjects"]:
                denied[oid] = (txn, rec["remote"])
        elif rec.get("version") == 2:
            accepted.update(rec["acceptedObjects"])
        elif rec["state"] == "validated":
            ok, invalid, invalid_remote = False, txn, rec["remote"]  # version-1 lists: unsupported
    for oid in accepted:
        denied.pop(oid, None)
    return Pending(denied, ok, invalid, invalid_remote, anchors, receipts)


def check_not_pending(pending: Pending, oids) -> None:
    if pending is NONE:
        return
    for oid in oids:
        pending.refuse(oid)


__all__ = ["load_selection", "save_selection", "load_pending", "load_anchors", "load_receipt", "Pending", "NONE", "InputError"]
