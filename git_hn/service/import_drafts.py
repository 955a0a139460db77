"""``git hn memory import FILE``: record a JSON Lines file of drafts as one append (issue 14 item 6).

Each non-blank line is a strict version-0 record request, exactly what
``git hn memory record --input FILE --json`` takes (CONTRACT §10.5, ``service.requests``), and is
validated and secret-linted (§10.6) like one. The whole file is one request, in the check order of
§10.4: every draft is validated and linted first (the first failure in file order is reported with
its line number), then the active identity, each draft's ``actor``, its anchor (one batch for all
commits and paths) and the stream. Nothing is signed until every draft passed; then every record
is signed and the chain is written with one compare-and-swap (``store.append.append_all``): all
drafts become memories, or none does. A lost race is retried from a fresh read; after the last
attempt the stream is as it was.

Replay (git-hn, following §7.14). A draft is skipped when the envelope it would sign equals a
memory already in the target stream, or an earlier draft of the same file, in every field except
``timestamp``, ``sequence`` and ``previous``. Unlike a single ``record``, whose replay check looks
only at the head, the whole stream is compared: an import is a bulk copy, and importing the same
file again (after other memories were recorded, too) must add nothing. Trusts: nothing in the file.
"""

from __future__ import annotations

from ..core import export as core
from ..core.envelope import Record
from ..core.gostr import echoed
from ..core.grammar import is_oid
from ..core.tuples import NamedTuple
from ..errors import HnError, InputError
from ..store import identity as identmod
from ..store import streamchoice
from ..store.append import Draft, Position, append_all, build_envelope, now_timestamp
from ..store.repo import Repo
from . import index_refresh
from .memory import check_actor, check_cited, check_signer, lint
from .anchor_paths import tree_entry
from .requests import encoded_over_recall_bound, read_explicit, request_from_input


class Line(NamedTuple):
    number: int
    memory_id: str
    replayed: bool


class Imported(NamedTuple):
    actor: str
    stream: str
    lines: list[Line]
    appended: int
    # (line number, encoded size) of each draft whose content is over recall's default bound
    # (``requests.encoded_over_recall_bound``): the command warns about them
    oversized: tuple[tuple[int, int], ...] = ()


def read_file(path: str) -> bytes:
    """The import file (``-``: stdin), bounded (CONTRACT §10.5's source rule)."""
    return read_explicit(path, core.MAX_IMPORT_BYTES, option="the file to import")  # (an audit: the user's words)


def import_drafts(repo: Repo, data: bytes, *, stream: str | None = None,
                  allow_secret_shaped: bool = False, clock=now_timestamp) -> Imported:
    numbered = []
    for number, line in core.split_drafts(data):
        try:
            req = request_from_input(repo, line)
            lint(req.record, allow_secret_shaped=allow_secret_shaped, raw_topics=req.raw_topics)
        except HnError as exc:
            error = core.line_error(number, exc)
            if exc.message.endswith('unknown field "memoryId"'):  # a line ``memory export`` wrote
                error = InputError(f"{error.message}; memory import takes drafts (record --input's JSON, one "
                                   "per line), not the signed memories memory export writes")
            raise error from None
        numbered.append((number, req))
    ident = identmod.load_active(repo)
    for number, req in numbered:
        check_actor(req.actor, ident, f"import line {number}: ")
    check_signer(ident)
    check_anchors(repo, [(n, req.record) for n, req in numbered])
    check_cited(repo, [req.record for _n, req in numbered], lambda i: f"import line {numbered[i][0]}: ")
    target = _target_stream(stream, numbered, ident.actor) or streamchoice.stream_for(repo, ident.actor, None)
    drafts = [(n, Draft("record", target, req.record)) for n, req in numbered]
    # the replay key of each draft: its envelope at any position and time (those are not compared)
    origin = Position("", "", 0, "", None)
    keys = [core.replay_key(build_envelope(ident, d, origin, "1970-01-01T00:00:00Z")) for _n, d in drafts]
    chosen: dict = {}

    def select(chain):
        existing = {core.replay_key(m.envelope): m.memory_id for m in chain}
        todo, first = [], {}
        for (number, draft), key in zip(drafts, keys):
            if key in existing or key in first:
                continue
            first[key] = len(todo)
            todo.append(draft)
        chosen.update(existing=existing, first=first)
        return todo

    appended = append_all(repo, ident, target, select, clock=clock, offered=[d for _n, d in drafts])
    if appended:
        index_refresh.after_ref_change(repo)
    new_ids = [a.memory_id for a in appended]
    lines, seen = [], set()
    for (number, _draft), key in zip(drafts, keys):
        if key in chosen["existing"]:
            lines.append(Line(number, chosen["existing"][key], True))
        else:
            lines.append(Line(number, new_ids[chosen["first"][key]], key in seen))
        seen.add(key)
    signed = {line.number for line in lines if not line.replayed}  # (a replay signed nothing: a review)
    oversized = tuple((number, size) for number, req in numbered
                      if number in signed and (size := encoded_over_recall_bound(req.record.content)))
    return Imported(ident.actor, target, lines, len(appended), oversized)


def _target_stream(given: str | None, numbered, actor: str) -> str | None:
    """``--stream``, else the stream the drafts name (each a full ID or ``label:NAME`` of
    ``actor``'s); a draft naming another stream is refused (one import is one append to one
    stream)."""
    from ..core.grammar import chosen_stream, is_stream_choice

    if given is not None and not is_stream_choice(given):
        from .requests import STREAM_INVALID

        raise InputError(STREAM_INVALID)
    target = None if given is None else chosen_stream(actor, given)
    for number, req in numbered:
        if req.stream is None:
            continue
        if target is None:
            target = chosen_stream(actor, req.stream)
        elif chosen_stream(actor, req.stream) != target:
            raise InputError(f"import line {number}: record input field stream {req.stream} "
                             f"does not match the import stream {target}")
    return target


def check_anchors(repo: Repo, records: list[tuple[int, Record]]) -> None:
    """CONTRACT §10.5's anchor rule for every draft, with one ``cat-file --batch-check`` for all
    commits and one for all ``commit:path`` entries (no process per draft). An entry the batch
    does not find as a blob is resolved by ``ls-tree`` like ``record --input`` does, so absent
    paths and gitlinks (both "missing" to the batch) get its answers."""
    commits = sorted({r.anchor.commit for _n, r in records
                      if is_oid(r.anchor.commit) and len(r.anchor.commit) == repo.oid_hex_len})
    infos = dict(zip(commits, repo.git.infos_bulk(commits)))
    for number, r in records:
        info = infos.get(r.anchor.commit)
        if info is None or info[1] != "commit" or info[0] != r.anchor.commit:
            raise InputError(f"import line {number}: anchor.commit must be an exact available commit")
    names = sorted({f"{r.anchor.commit}:{p.path}" for _n, r in records for p in r.anchor.paths})
    entries = {name: info[0] for name, info in zip(names, repo.git.infos_bulk(names))
               if info is not None and info[1] == "blob"}
    rest: dict[str, set[str]] = {}  # what the batch could not settle, per commit
    for _n, r in records:
        for p in r.anchor.paths:
            if f"{r.anchor.commit}:{p.path}" not in entries:
                rest.setdefault(r.anchor.commit, set()).add(p.path)
    listed = {(commit, path): blob for commit, paths in sorted(rest.items())
              for path, blob in _tree_entries(repo, commit, sorted(paths)).items()}
    for number, r in records:
        for p in r.anchor.paths:
            blob = entries.get(f"{r.anchor.commit}:{p.path}") or listed[(r.anchor.commit, p.path)]
            if blob is None:  # not a blob: record --input's own words
                raise InputError(f"import line {number}: anchor path {echoed(p.path)} is not a blob at "
                                 f"commit {r.anchor.commit}")
            if blob != p.blob:
                raise InputError(f"import line {number}: anchor.paths blob for {echoed(p.path)} "
                                 f"does not match commit {r.anchor.commit}")


PATHS_PER_LISTING = 512  # paths per ls-tree (an argument list stays far below the system's limit)


def _tree_entries(repo: Repo, commit: str, paths: list[str]) -> dict[str, str | None]:
    """What ``anchor_paths.tree_entry`` answers for each path (the blob, ``absent``, or None for an
    entry that is not a blob), with one ``ls-tree`` per commit and 512 paths, not one per draft:
    paths the batch lookup could not settle (absent ones, gitlinks, trees)."""
    out: dict[str, str | None] = {}
    for i in range(0, len(paths), PATHS_PER_LISTING):
        part = paths[i:i + PATHS_PER_LISTING]
        proc = repo.git.run(["--literal-pathspecs", "ls-tree", "--full-tree", "-z", "--end-of-options",
                             commit, "--", *part])
        if proc.returncode != 0:  # rare: ask path by path, for record --input's own answer
            for path in part:
                try:
                    out[path] = tree_entry(repo, commit, path)
                except HnError:
                    out[path] = None
            continue
        found: dict[str, str | None] = {}
        for item in proc.stdout.split(b"\x00"):
            meta, _, name = item.partition(b"\t")
            if not name:
                continue
            _mode, otype, oid = meta.decode("ascii").split(" ")
            found[name.decode("utf-8", "surrogateescape")] = oid if otype == "blob" else None
        for path in part:
            out[path] = found.get(path, "absent")
    return out


def result_json(result: Imported) -> dict:
    return {"version": 0, "actor": result.actor, "stream": result.stream, "appended": result.appended,
            "memories": [{"line": ln.number, "memoryId": ln.memory_id, "replayed": ln.replayed}
                         for ln in result.lines]}


def result_lines(result: Imported) -> list[str]:
    """Human output: the stream and a count (``--json`` lists every line's memory ID)."""
    replayed = len(result.lines) - result.appended
    out = [f"Stream: {result.stream}", f"Actor: {result.actor}"]
    if result.appended == 0:
        n = len(result.lines)
        out.append(f"Replayed: {'the draft is' if n == 1 else f'all {n} drafts are'} already in the stream; "
                   "nothing appended")
    else:
        out.append(f"Imported: {result.appended} {'memory' if result.appended == 1 else 'memories'} appended"
                   + (f", {replayed} {'draft' if replayed == 1 else 'drafts'} already present" if replayed else ""))
    return out
