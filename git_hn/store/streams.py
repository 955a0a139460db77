"""Memory streams in Git: sources, chain reading, collection (CONTRACT §4.2, §4.3, §11(a)).

Owns: listing memory refs (one ``for-each-ref``), reading chains with batch plumbing (one
``cat-file --batch`` process for every commit, tree and blob), and collecting the verified memory
set; the signatures are checked by ``verify``'s pipeline. Trusts: nothing it reads; every memory
passes ``core.chain`` before it is returned. Reading never modifies a ref.

Collection fails closed: one invalid or divergent stream fails the whole collection, because a
reader that silently skipped it would show a partial history as if it were complete. Only
publication asks for the valid streams of a set with an invalid one (``collect(failed=...)``).
"""

from __future__ import annotations

import os

from ..core import chain
from ..core.chain import VerifiedMemory
from ..core.grammar import (LOCAL_PREFIX, REMOTES_PREFIX, accepted_ref, is_digest_id, is_remote_name, local_ref,
                            parse_accepted_ref, parse_local_ref, uniform_lines)
from ..core.lines import lines_of
from ..core.tuples import NamedTuple
from ..errors import InputError, ValidationError
from . import progress, verify
from .git import MEMORY_LISTING
from .repo import Repo


class InvalidSource(ValidationError):
    """A memory ref of this repository whose chain does not verify (an invalid commit at it, or
    one that breaks the chain's rules); its message ends with what to do (``source_fault``)."""


def invalid_source(repo: Repo, ref: str, message: str) -> ValidationError:
    """``message`` about source ``ref``, with the way out when ``ref`` is this repository's (a
    quarantine's refs are no user's: a plain ``ValidationError``)."""
    if repo.quarantine:
        return ValidationError(message)
    from .source_fault import way_out

    return InvalidSource(message + way_out(repo, ref))


class Source(NamedTuple):
    """A memory ref and its head: local (``remote`` is None) or accepted from a remote."""

    ref: str
    head: str
    actor: str
    stream: str
    remote: str | None = None


def _parse_listing(text: str) -> list[Source]:
    """The sources of a ``MEMORY_LISTING`` answer, sorted by ref. The user's own refs come first
    (Git sorts by name, and ``refs/hn/memory/`` sorts before ``refs/hn/remotes/``); each part is
    read as one block when all its lines have the usual shape (``_local_block``, and
    ``_accepted_block`` for the accepted copies of one remote), else line by line."""
    mine, rest = split_listing(text)
    local = _local_block(mine) if mine else []
    if local is None:
        local = _parse_lines(mine)
    accepted = _accepted_block(rest) if rest else []
    sources = local + (_parse_lines(rest) if accepted is None else accepted)
    sources.sort(key=_ref_of)
    return sources


def _ref_of(source: Source) -> str:
    return source.ref


def split_listing(text: str) -> tuple[str, str]:
    """A ``MEMORY_LISTING`` answer's two parts, each ending with a newline: the lines of the
    user's own refs, and those of the accepted copies (``refs/hn/memory/`` sorts first)."""
    if text and not text.endswith("\n"):
        text += "\n"  # (``Git.out`` strips the last newline; each block ends with one)
    cut = 0 if text.startswith(REMOTES_PREFIX) else text.find("\n" + REMOTES_PREFIX) + 1 or len(text)
    return text[:cut], text[cut:]


def _local_block(block: str) -> list[Source] | None:
    """The sources of lines that are each exactly ``refs/hn/memory/<64 hex>/<64 hex> <object
    ID>``, or None for anything else (``_uniform_block``). 10,000 streams: ~31 ms line by line,
    ~20 ms here, most of it making the sources."""
    return _uniform_block(block, LOCAL_PREFIX, None)


def _accepted_block(block: str) -> list[Source] | None:
    """The sources of lines that are each exactly ``refs/hn/remotes/<remote>/memory/<64 hex>/<64
    hex> <object ID>`` for one remote, or None for anything else (several remotes, another
    namespace: ``_uniform_block``)."""
    if not block.startswith(REMOTES_PREFIX):
        return None
    remote = block[len(REMOTES_PREFIX):block.find("/", len(REMOTES_PREFIX))]
    return _uniform_block(block, f"{REMOTES_PREFIX}{remote}/memory/", remote) if is_remote_name(remote) else None


def _uniform_block(block: str, prefix: str, remote: str | None) -> list[Source] | None:
    """The sources of lines that are each exactly ``<prefix><64 hex>/<64 hex> <object ID>``
    with one object ID length, checked all at once (``grammar.uniform_lines``), or None for
    anything else (``_parse_lines`` then decides, and words any error)."""
    try:
        data = block.encode("ascii")
    except UnicodeEncodeError:
        return None
    width = len(prefix) + 64 + 1 + 64 + 1  # up to the object ID
    n = data.find(b"\n") - width  # the object ID's length, from the first line
    if n not in (40, 64) or uniform_lines(data, (prefix.encode("ascii"), 64, b"/", 64, b" ", n, b"\n")) is None:
        return None
    lines = block.split("\n")
    lines.pop()  # (after the last newline)
    a, s = len(prefix), len(prefix) + 65  # where the actor and the stream start
    return [Source(line[:width - 1], line[width:], line[a:a + 64], "sha256:" + line[s:s + 64], remote)
            for line in lines]


def _parse_lines(text: str) -> list[Source]:
    sources = []
    for line in lines_of(text):
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValidationError("invalid memory ref advertisement")
        ref, head = parts
        if ref.startswith(LOCAL_PREFIX):
            parsed = parse_local_ref(ref)
            if parsed is None:
                raise ValidationError(f"malformed memory ref {ref}")
            sources.append(Source(ref, head, parsed[0], parsed[1]))
        elif ref.startswith(REMOTES_PREFIX):
            rest = ref[len(REMOTES_PREFIX):].split("/")
            if len(rest) < 2 or rest[1] != "memory":
                continue  # collaboration namespaces are out of scope (§11(c))
            parsed = parse_accepted_ref(ref)
            if parsed is None:
                raise ValidationError(f"malformed accepted memory ref {ref}")
            sources.append(Source(ref, head, parsed[1], parsed[2], parsed[0]))
    return sources


def list_sources(repo: Repo, text: str | None = None) -> list[Source]:
    """Every local and accepted memory ref, sorted by name (CONTRACT §4.3 steps 1–3); ``text``:
    the answer of ``listing_text``, when the caller read it."""
    sources = _parse_listing(listing_text(repo) if text is None else text)
    repo.listed_remotes = frozenset(s.remote for s in sources if s.remote is not None)
    for ref in unlisted_local_refs(repo.common_dir, {s.ref for s in sources if s.remote is None}):
        if repo.git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", ref]).returncode == 0:
            continue  # created after the listing (a concurrent append): readable
        import shlex  # (a command to paste: the ref's name, whatever it holds, is one word of it)

        raise ValidationError(f"memory ref {ref} is unreadable (a symbolic ref loop or a broken value), "
                              f"so Git does not list it; remove it with: git update-ref -d --no-deref {shlex.quote(ref)}")
    return sources


def listing_text(repo: Repo) -> str:
    """The ``MEMORY_LISTING`` answer (often started early by the command: ``git.start_early``)."""
    return repo.git.out(list(MEMORY_LISTING))


def unlisted_local_refs(common_dir: str, listed) -> list[str]:
    """Loose files under ``refs/hn/memory/<actor>/`` that ``for-each-ref`` did not list: a
    symbolic ref that loops, or a file that holds no object ID. Git skips such refs silently, so
    without this check their stream would silently vanish from every answer. Only the user's own
    streams are looked at (a directory listing each; git-hn itself never writes symbolic refs);
    packed refs cannot be symbolic, and other ref backends keep no loose files. ``listed``: the
    listed local refs (anything that answers ``in``)."""
    root = os.path.join(common_dir, "refs", "hn", "memory")
    out = []
    try:
        with os.scandir(root) as actors:
            dirs = [a.name for a in actors if a.is_dir(follow_symlinks=False)]
    except OSError:
        return out
    for actor in sorted(dirs):
        try:
            with os.scandir(os.path.join(root, actor)) as entries:
                names = sorted(e.name for e in entries
                               if not e.name.endswith(".lock") and not e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        for name in names:
            ref = f"{LOCAL_PREFIX}{actor}/{name}"
            if ref not in listed and parse_local_ref(ref) is not None:
                out.append(ref)
    return out


def stream_sources(repo: Repo, actor: str, stream: str) -> list[Source]:
    """The local ref and every accepted ref of one (actor, stream), from one listing of every
    actor's refs of that stream ID: a stream another actor holds here is refused
    (``check_stream_owner``)."""
    mine, owners = [], set()
    for line in lines_of(repo.git.out(_sources_question(stream))):
        owner = _owner_of(line.partition(" ")[0])
        if owner == actor:
            mine.append(line)
        elif owner is not None:
            owners.add(owner)
    check_stream_owner(actor, stream, owners)
    return [s for s in _parse_listing("\n".join(mine)) if s.actor == actor and s.stream == stream]


def check_stream_owner(actor: str, stream: str, owners) -> None:
    """Refuse to append to ``stream`` when other ``owners`` hold refs of it in this clone (their
    local ref or an accepted copy). A remote that advertises one stream under two actors is
    structurally invalid for good (CONTRACT §9.4): a newcomer trial gave ``--stream`` Bob's stream
    ID, and once published, every sync, Bob's and every new clone's, failed with "ambiguous
    owners" and no clone could import Bob's stream. The signer's default stream (§3.3) is derived
    from its own actor, so it is never refused: a stream someone else pushed under that ID cannot
    lock its owner out of it."""
    from ..core.grammar import default_stream

    others = sorted(owners - {actor})
    if others and stream != default_stream(actor):
        from ..core.hints import both

        raise InputError(*both(_foreign_stream, stream, others[0]))


def _foreign_stream(stream: str, owner: str, mcp: bool = False) -> str:
    return (f"memory stream {stream} is actor {owner}'s stream in this clone; nothing was signed: "
            f"{OWN_STREAM_MCP if mcp else OWN_STREAM}")


# the way out ``check_stream_owner`` names, in the CLI's words and an MCP call's
OWN_STREAM = ('record to your own stream (without --stream, or a request\'s "stream"; --stream label:NAME names '
              'a separate stream of yours)')
OWN_STREAM_MCP = ('record to your own stream (leave out the "stream" field: your default stream; "stream": '
                  '"label:NAME" names a separate stream of yours)')


def _owner_of(ref: str) -> str | None:
    local = parse_local_ref(ref)
    if local is not None:
        return local[0]
    accepted = parse_accepted_ref(ref)
    return accepted[1] if accepted is not None else None


def ask_sources_early(repo: Repo, actor: str, stream: str) -> None:
    """Start ``stream_sources``'s listing now, for its next call to collect (an append's check of
    the owners before the stream lock, while it loads the signing key). The answer is taken once;
    under the lock the stream is listed again (``append._locked`` drops what was asked before)."""
    repo.git.ask_early(_sources_question(stream))


def _sources_question(stream: str) -> list[str]:
    if not is_digest_id(stream):  # (its hex goes into a ref pattern: never a glob of the caller's)
        raise ValidationError("memory stream is invalid")
    hex_id = stream[len("sha256:"):]
    return ["for-each-ref", "--format=%(refname) %(objectname)", f"{LOCAL_PREFIX}*/{hex_id}",
            f"{REMOTES_PREFIX}*/memory/*/{hex_id}"]


def read_parents(repo: Repo, ref: str, commit: str) -> tuple[str, tuple[str, ...]]:
    """(tree, parents) of one commit from its raw header (CONTRACT §10.0: never merge-base)."""
    return parse_parents(ref, commit, repo.git.read_object(commit))


def parse_link(ref: str, commit: str, obj) -> tuple[str, str]:
    """(tree, parent or "") of one chain commit from ``obj``: ``parse_parents`` plus the §4.2
    rule that a memory commit has at most one parent."""
    tree, parents = parse_parents(ref, commit, obj)
    if len(parents) > 1:
        raise ValidationError(f"memory source {ref} commit {commit} has "
                              f"{len(parents)} parents; exactly one is allowed")
    return tree, parents[0] if parents else ""


def parse_parents(ref: str, commit: str, obj) -> tuple[str, tuple[str, ...]]:
    """(tree, parents) from ``obj`` (``read_object``'s answer for ``commit`` of source ``ref``),
    or the §4.2 error naming the source."""
    if obj is None:
        raise ValidationError(f"memory source {ref}: memory commit {commit} is unavailable "
                              f"while reading parents: object not found{_missing_way_out(ref)}")
    if obj[0] != "commit":
        raise ValidationError(f"memory source {ref}: memory commit {commit} is unavailable or not a commit")
    try:
        return chain.parse_commit(commit, obj[1])
    except ValidationError as exc:
        raise ValidationError(f"memory source {ref}: {exc.message}") from None


def _missing_way_out(ref: str) -> str:
    """What brings a stream's missing commit back: its remote ref fetched again with
    ``--refetch`` (Git 2.36+), which sends every object the ref needs whatever this clone holds
    (a plain fetch sends nothing when the missing commit is below a tip this clone has: a review).
    A commit goes missing when ``git gc --prune=now`` or ``git prune`` races a write (Git's
    documented hazard; ``git commit`` breaks the same way), or an alternate lost it. Only for the
    main repository's refs: a quarantine's names no ref a user can fetch."""
    local = parse_local_ref(ref)
    if local is not None:
        return (" in this repository (git gc --prune=now or git prune during a write removes new objects); "
                f"git fetch --refetch REMOTE {ref} (Git 2.36+) brings the stream back from a remote you pushed "
                "it to")
    accepted = parse_accepted_ref(ref)
    if accepted is not None:
        remote, actor, stream = accepted
        return (" in this repository (git gc --prune=now or git prune during a write removes new objects); "
                f"git fetch --refetch {remote} {local_ref(actor, stream)} (Git 2.36+) brings the stream back")
    return ""


def walk(repo: Repo, source: Source, stop: str | None = None, stops: set | None = None) -> list[tuple[str, str]]:
    """(commit, tree) from the head to the root (or to ``stop``, or the first of ``stops``,
    exclusive), head first.

    Long chains are read in one pipelined batch using ``git rev-list`` as a hint for which
    commits to ask for; the raw parent headers read from the objects remain the authority, and
    any disagreement (grafts, a shallow boundary) falls back to the commit-by-commit walk.
    """
    pending = repo.pending()
    stops = set(stops or ()) | ({stop} if stop else set())
    if not stops or len(stops) == 1:
        hinted = _walk_hinted(repo, source, next(iter(stops)) if stops else None)
        if hinted is not None:
            if pending.denied or not pending.ok:
                for commit, _tree in hinted:
                    _refuse(repo, source, commit)
            return hinted
    out = []
    commit = source.head
    while commit and commit not in stops:
        if pending.denied or not pending.ok:
            _refuse(repo, source, commit)
        tree, parent = parse_link(source.ref, commit, repo.git.read_object(commit))
        out.append((commit, tree))
        commit = parent
    return out


def walk_linear(repo: Repo, source: Source) -> list[tuple[str, str]] | None:
    """``walk`` of a long chain in a repository without pending state (a quarantine), when Git
    sees exactly one parent per commit; else None. Its length is then the commit count."""
    pending = repo.pending()
    if pending.denied or not pending.ok:
        return None
    return _walk_hinted(repo, source)


def _refuse(repo: Repo, source: Source, commit: str) -> None:
    """§4.2: in the main repository every visited commit is checked against pending state (a
    live sync's acceptance is waited for: ``pending.refuse``)."""
    from . import pending

    try:
        pending.refuse(repo, commit)
    except ValidationError as exc:
        raise ValidationError(f"memory source {source.ref}: {exc.message}") from None


def _walk_hinted(repo: Repo, source: Source, stop: str | None = None) -> list[tuple[str, str]] | None:
    """The chain as Git's own commit parser sees it, when that equals the raw headers.

    Without grafts or a shallow file (replace refs are always off, and the commit-graph is
    disabled here), ``git log`` reports exactly the ``tree`` and ``parent`` header lines of each
    commit. One process lists the whole chain; any commit with more than one parent, or anything
    unexpected, returns None and the caller walks the raw objects itself, which also produces the
    precise error.
    """
    import os

    if any(os.path.exists(os.path.join(repo.common_dir, p)) for p in ("info/grafts", "shallow")):
        return None
    proc = repo.git.run(["-c", "core.commitGraph=false", "log", "--no-show-signature", "--no-color",
                         "--first-parent", "--format=%H %T %P", "--end-of-options", source.head,
                         *(["^" + stop] if stop else []), "--"])
    if proc.returncode != 0:
        return None
    lines = proc.stdout.decode("ascii", "replace").splitlines()
    if len(lines) < 32:
        return None
    out = []
    n = repo.oid_hex_len
    for i, line in enumerate(lines):
        parts = line.split(" ")
        if len(parts) not in (2, 3) or len(parts[0]) != n or len(parts[1]) != n:
            return None
        expected = lines[i + 1][:n] if i + 1 < len(lines) else (stop or "")
        if (parts[2] if len(parts) == 3 else "") != expected:
            return None
        out.append((parts[0], parts[1]))
    if out[0][0] != source.head:
        return None
    return out



def read_chain(repo: Repo, source: Source, walked: list[tuple[str, str]] | None = None) -> list[VerifiedMemory]:
    """Fully verify one source's chain (CONTRACT §4.2); root first.

    ``walked`` is an earlier ``walk_linear`` of the same source in the same repository.
    """
    if not source.head:
        raise ValidationError(f"memory source {source.ref} has no head")
    commits = list(walked) if walked is not None else walk(repo, source)
    commits.reverse()
    try:
        memories = verify.verify_commits(repo, source.ref, commits)
        prev = None
        for i, mem in enumerate(memories):
            chain.check_link(source.ref, source.actor, source.stream, i, mem, prev)
            prev = mem
    except ValidationError as exc:
        raise invalid_source(repo, source.ref, exc.message) from None
    return memories


class Walk(NamedTuple):
    """One stream's commits from its head down to a stop commit (exclusive) or the root, head
    first; ``stopped`` is the stop commit reached, or "" at the root; ``error`` the reason the
    chain cannot be read (then the rest is meaningless)."""

    commits: list
    stopped: str
    error: ValidationError | None


def walk_many(repo: Repo, starts: list[tuple[Source, set]], raw_levels: int = 32,
              raws: dict | None = None) -> dict[str, Walk]:
    """``walk`` of many sources at once, each down to the first commit in its stop set.

    Commits are read level by level, every level in one pipelined ``cat-file --batch`` exchange,
    so thousands of short streams cost a few round trips instead of a process or a round trip
    each; a stream still walking after ``raw_levels`` commits is finished with one hinted
    ``git log`` (as ``walk`` does), falling back to the raw walk. Errors are ``walk``'s.
    ``raws`` (when given) receives each commit read that way, ``commit -> (type, content)``.
    """
    out: dict[str, Walk] = {}
    todo = {}  # ref -> (source, stops, commits so far, next commit)
    for src, stops in starts:
        if not src.head:
            out[src.ref] = Walk([], "", ValidationError(f"memory source {src.ref} has no head"))
        elif src.head in stops:
            out[src.ref] = Walk([], src.head, None)
        else:
            todo[src.ref] = (src, stops, [], src.head)
    pending = repo.pending()
    for _level in range(raw_levels):
        if not todo:
            break
        refs = list(todo)
        objs = repo.git.read_objects([todo[r][3] for r in refs])
        if raws is not None:
            raws.update(zip((todo[r][3] for r in refs), objs))
        for ref, obj in zip(refs, objs):
            src, stops, commits, commit = todo[ref]
            try:
                if pending.denied or not pending.ok:
                    _refuse(repo, src, commit)
                tree, parent = parse_link(ref, commit, obj)
            except ValidationError as exc:
                out[ref] = Walk(commits, "", exc)
                del todo[ref]
                continue
            commits.append((commit, tree))
            nxt = parent
            if not nxt or nxt in stops:
                out[ref] = Walk(commits, nxt, None)
                del todo[ref]
            else:
                todo[ref] = (src, stops, commits, nxt)
    for ref, (src, stops, commits, commit) in todo.items():
        rest = Source(src.ref, commit, src.actor, src.stream, src.remote)
        try:
            tail = walk(repo, rest, stops=stops)
        except ValidationError as exc:
            out[ref] = Walk(commits, "", exc)
            continue
        below = _parent_of(repo, tail[-1][0]) if tail else ""
        out[ref] = Walk(commits + tail, below if below in stops else "", None)
    return out


def _parent_of(repo: Repo, commit: str) -> str:
    obj = repo.git.read_object(commit)
    if obj is None or obj[0] != "commit":
        return ""
    try:
        parents = chain.parse_commit(commit, obj[1])[1]
    except ValidationError:
        return ""
    return parents[0] if len(parents) == 1 else ""



class Collection(NamedTuple):
    """The verified memory set: deduplicated, ordered by (actor, stream, sequence, ID)."""

    sources: tuple[Source, ...]
    memories: tuple[VerifiedMemory, ...]
    chains: dict

    def by_id(self) -> dict[str, VerifiedMemory]:
        return {m.memory_id: m for m in self.memories}


def _taken(pending: list, work: progress.Work):
    """``pending``'s batches in order, each counted as done as ``_checked_chain`` takes it."""
    for item in pending:
        work.advance(len(item[0]))
        yield item


def _checked_chain(repo: Repo, source: Source, plan, results: dict, queue) -> list[VerifiedMemory]:
    """The verified chain of one source, root first (``collect``'s per-source checks)."""
    if isinstance(plan, ValidationError):
        raise plan
    memories: list[VerifiedMemory] = []
    prev = None
    for i, (commit, _tree) in enumerate(plan):
        while commit not in results:
            fresh, staged, ticket = next(queue)
            for (c, _t), item, ok in zip(fresh, staged, verify.Verifier.results(ticket)):
                try:
                    results[c] = verify.finish_commit(c, item, ok)
                except ValidationError as exc:
                    results[c] = exc
        mem = results[commit]
        if isinstance(mem, ValidationError):
            raise invalid_source(repo, source.ref, f"memory source {source.ref}: {mem.message}")
        try:
            chain.check_link(source.ref, source.actor, source.stream, i, mem, prev)
        except ValidationError as exc:
            raise invalid_source(repo, source.ref, exc.message) from None
        memories.append(mem)
        prev = mem
    return memories


def _consistent(chains: dict, sources: list[Source], failed: set) -> list[Source]:
    """The sources of streams that verified and whose sources are prefix-consistent; the other
    streams go into ``failed``."""
    groups: dict[tuple[str, str], list[Source]] = {}
    for s in sources:
        groups.setdefault((s.actor, s.stream), []).append(s)
    for key, group in groups.items():
        if key not in failed:
            try:
                check_divergence(chains, group)
            except ValidationError:
                failed.add(key)
    return [s for s in sources if (s.actor, s.stream) not in failed]


def check_divergence(chains: dict[str, list[VerifiedMemory]], sources: list[Source]) -> None:
    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    for s in sources:
        groups.setdefault((s.actor, s.stream), {})[s.ref] = [m.memory_id for m in chains[s.ref]]
    for (actor, stream), group in sorted(groups.items()):
        if len(group) > 1:
            chain.check_prefix_consistent(group, actor, stream)


BATCH = 2048  # commits staged together by ``collect``


def collect(repo: Repo, sources: list[Source] | None = None, verified: dict | None = None,
            failed: set | None = None) -> Collection:
    """CONTRACT §4.3 and §11(a) item 2: every source verified, or the whole collection fails.

    With ``failed`` (a set to fill), a stream with an invalid source is left out instead, and its
    (actor, stream) added to ``failed``: publication (§9.13) still pushes the valid streams.

    All sources are walked together first (``walk_many``: a few batched reads for any number of
    short streams, never a process or a round trip per stream), then staged in batches of
    ``BATCH`` commits, each batch's signatures submitted as soon as it is staged; the checks then
    run source by source (name order) and commit by commit (root first), so the error reported
    is the first one in that order, as a sequential reader would report it. A commit reached by
    several sources (accepted copies of a stream) is verified once; the chain rules, which depend
    on the source, run for every source.

    ``verified`` maps commits an earlier collection accepted to the memory ID and signature text
    it verified (the state being rebuilt, checked under the same signature code and libraries:
    ``statedb.verified_signatures``): the Ed25519 check of a commit whose payload still hashes
    to that ID and whose signature text is the same is not repeated, since it is a pure function
    of those bytes. Everything else (walk, pending
    state, tree shape, sizes, key scan, decoding, chain rules) still runs.
    """
    if sources is None:
        sources = list_sources(repo)
    raws: dict = {}
    walks = walk_many(repo, [(s, set()) for s in sources if s.head], raws=raws)
    plans: list = []
    seen: set[str] = set()
    pending: list[tuple[list, list, object]] = []
    total = sum(len(w.commits) for w in walks.values() if w.error is None)
    verifier = verify.Verifier(total)
    if total >= 256:
        from ..core.canonical import load_fast_codec

        load_fast_codec()  # many payloads to decode: worth orjson's import
    work = progress.verifying(total, lambda: len({c for w in walks.values() if w.error is None
                                                  for c, _t in w.commits}))
    batch: list = []

    def submit() -> None:  # stage a batch of commits and hand their signatures to the verifier
        staged, checks = verify.stage_batch(repo, batch, raws, verified)
        pending.append((list(batch), staged, verifier.submit(checks)))
        work.advance(len(batch))
        batch.clear()

    try:
        for source in sources:
            if not source.head:
                plans.append((source, ValidationError(f"memory source {source.ref} has no head")))
                continue
            walked = walks[source.ref]
            if walked.error is not None:
                plans.append((source, walked.error))
                continue
            commits = list(reversed(walked.commits))
            plans.append((source, commits))
            fresh = [(c, t) for c, t in commits if c not in seen]
            seen.update(c for c, _t in fresh)
            batch += fresh
            if len(batch) >= BATCH:  # the workers verify one batch while the next is read
                submit()
        if batch:
            submit()
        results: dict[str, object] = {}  # commit -> VerifiedMemory or ValidationError
        queue = _taken(pending, work)
        chains: dict[str, list[VerifiedMemory]] = {}
        for source, plan in plans:
            try:
                chains[source.ref] = _checked_chain(repo, source, plan, results, queue)
            except ValidationError:
                if failed is None:
                    raise
                failed.add((source.actor, source.stream))
    finally:
        work.end()  # (never raises: the line is erased before anything else is said)
        verifier.close()
    if failed is None:
        check_divergence(chains, sources)
    else:
        sources = _consistent(chains, sources, failed)
        chains = {s.ref: chains[s.ref] for s in sources}
    unique: dict[str, VerifiedMemory] = {}
    for memories in chains.values():
        for m in memories:
            have = unique.get(m.memory_id)
            if have is None or m.commit < have.commit:
                unique[m.memory_id] = m
    ordered = sorted(unique.values(), key=lambda m: (m.envelope.actor, m.envelope.stream,
                                                     m.envelope.sequence, m.memory_id))
    return Collection(tuple(sources), tuple(ordered), chains)


__all__ = ["Source", "Collection", "list_sources", "stream_sources", "read_chain", "collect",
           "accepted_ref", "local_ref"]
