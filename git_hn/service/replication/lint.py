"""The pre-push lint of the user's own streams (CONTRACT §10.6, §10.7; git-hn): which of the
streams about to be published hold secret-shaped text, or ``git:`` evidence of the other object
format's length (``withheld``), in a memory the remote has not been given, read from the verified state (only what is new to it is verified), or by full verification when
the state cannot answer. Used by the pre-push hook and by ``git hn sync``'s publication, so that
both withhold the same streams.

Trusts: the verified state (``stateview``) for which memories a stream holds; the lint
(``service.secretscan``) for what is secret-shaped. Reports problems into the caller's list as
(ref, message) and never names a secret's value.
"""

from __future__ import annotations

from ...core.lines import lines_of
from ...errors import HnError
from ...store.repo import Repo


FOREIGN = "foreign-object-id"  # a finding's "detector" for git: evidence no importer can accept


def finding(repo: Repo, envelope):
    """(field, detector) of the first problem of one verified envelope about to be published:
    secret-shaped text (§10.6), else ``git:`` evidence of the other object format's length, which
    an older git-hn signed: every importer would refuse the stream whole (§5.5, §9.9), so it is
    withheld as a secret-shaped one is (docs/decisions.md). No Git process."""
    from ...core.grammar import foreign_git_evidence
    from ..secretscan import lint_envelope  # the same lint as the commands (§10.6)

    hit = lint_envelope(envelope)
    if hit:
        return hit
    rec = envelope.record
    items = [*(rec.evidence or () if rec is not None else ()), *(envelope.evidence or ())]
    foreign = foreign_git_evidence(items, repo.oid_hex_len)
    return (f"evidence {foreign}", FOREIGN) if foreign else None


def withheld(repo: Repo, ref: str, hit) -> str:
    """Why ``ref`` is not published, for its first finding ``(memory ID, field, detector)``."""
    mid, field, detector = hit
    if detector != FOREIGN:
        return f"secret-shaped text in memory {mid} {field} ({detector}); stream {ref} not published"
    from ...core.grammar import OBJECT_FORMATS

    oid = field.partition(":")[2]
    return (f"memory {mid} cites git:{oid}, an ID of {len(oid)} hex digits that no "
            f"{OBJECT_FORMATS[repo.oid_hex_len]} repository can hold (an older git-hn signed it): every clone "
            f"importing the stream would refuse it whole; stream {ref} not published: git hn memory reanchor {oid} "
            "--drop discards that memory (and signs the later ones again)")


def valid_sources(repo: Repo, found: list) -> list:
    """The memory sources when some ref does not parse: each malformed local ref is named."""
    from ...core.grammar import parse_accepted_ref, parse_local_ref
    from ...store.streams import Source

    proc = repo.git.run(["for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory",
                         "refs/hn/remotes"])
    out = []
    for line in lines_of(proc.stdout.decode("utf-8", "replace")):
        ref, _sp, oid = line.partition(" ")
        local = parse_local_ref(ref)
        if local is not None:
            out.append(Source(ref, oid, local[0], local[1]))
        elif ref.startswith("refs/hn/memory/"):
            found.append((ref, f"malformed memory ref {ref}"))
        else:
            acc = parse_accepted_ref(ref)
            if acc is not None:
                out.append(Source(ref, oid, acc[1], acc[2], acc[0]))
    return sorted(out, key=lambda s: s.ref)


def check_moved(repo: Repo, listing: list, moved: list[str], given: dict, found: list,
                anchors: dict | None = None) -> dict:
    """ref -> secret-shaped findings above the tip the remote was last given, for every moved
    stream that verifies (only what is new to the state is verified); each stream that does not
    is reported with full verification's error and left out. ``anchors`` gets, per stream, the
    (memory ID, anchor commit or "") of each memory above that tip, root first (``gate.discarded``)."""
    from ...core.grammar import parse_local_ref
    from ...store import statedb, stateview

    def lint(view, refs):
        out = {}
        for ref in refs:
            rows = view.conn.execute('SELECT c.seq, c."commit", c.id FROM chain c JOIN sources s '
                                     "ON s.sid = c.sid WHERE s.ref = ? ORDER BY c.seq", (ref,)).fetchall()
            since = next((seq for seq, commit, _i in rows if commit == given.get(ref)), 0)
            ids = [mid for seq, _c, mid in rows if seq > since]
            mems = view.load(ids)
            hits = []
            for mid in ids:
                hit = finding(repo, mems[mid].envelope)
                if hit:
                    hits.append((mid, hit[0], hit[1]))
            out[ref] = hits
            if anchors is not None:
                anchors[ref] = _anchors([mems[mid] for mid in ids])
        return out

    def session(refs):
        mine = {parse_local_ref(r) for r in refs}
        scoped = [s for s in listing if (s.actor, s.stream) in mine]
        with stateview.current(repo, listing=scoped, scope=mine) as view:
            return lint(view, refs)

    try:
        return session(moved)
    except (stateview.Unavailable, statedb.Unwritable, statedb.WriteFailed, stateview.Corrupt):
        return check_full(repo, listing, moved, found, given, anchors)
    except HnError:
        pass
    out = {}
    for ref in moved:  # one of them is invalid: name each invalid stream
        try:
            out.update(session([ref]))
        except (stateview.Unavailable, statedb.Unwritable, statedb.WriteFailed, stateview.Corrupt):
            out.update(check_full(repo, listing, [ref], found, given, anchors))
        except HnError as exc:
            found.append((ref, exc.message))
    return out


def check_full(repo: Repo, listing: list, refs: list[str], found: list, given: dict | None = None,
               anchors: dict | None = None) -> dict:
    """``check_moved`` without a state: full verification of those streams, every memory linted."""
    from ...core.grammar import parse_local_ref
    from ...store import streams

    out = {}
    for ref in refs:
        mine = {parse_local_ref(ref)}
        try:
            collection = streams.collect(repo, [s for s in listing if (s.actor, s.stream) in mine])
        except HnError as exc:
            found.append((ref, exc.message))
            continue
        chain = collection.chains.get(ref, [])
        out[ref] = [(m.memory_id, *hit) for m in chain for hit in [finding(repo, m.envelope)] if hit]
        if anchors is not None:
            commits = [m.commit for m in chain]
            base = (given or {}).get(ref)
            anchors[ref] = _anchors(chain[commits.index(base) + 1:] if base in commits else chain)
    return out


def _anchors(memories: list) -> list[tuple[str, str]]:
    return [(m.memory_id, m.envelope.record.anchor.commit if m.envelope.record is not None else "")
            for m in memories]
