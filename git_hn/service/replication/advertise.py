"""The remote's advertisement and what a sync requests from it (CONTRACT §9.4, §11(c); issue 11).

One ``git ls-remote`` lists the memory refs (and the collaboration refs §11(c) reports as
skipped). Only refs that match the memory ref grammar are considered, whatever the server sends.
Each selected stream then becomes an outcome: ambiguous or missing owners fail here; a stream
whose advertised tip equals the accepted tip is up to date and costs nothing more; the rest are
requested. The number requested in one sync is bounded by the selection's ``max-streams`` budget
(git-hn), so a remote advertising a huge number of streams cannot make one sync run for hours.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...core.grammar import LOCAL_PREFIX, REMOTES_PREFIX, is_oid, is_remote_name, parse_local_ref
from ...core.grammar import uniform_lines as uniform
from ...core.lines import lines_of
from ...store.transport import ADVERTISED_BYTES_PER_STREAM, advertisement, advertisement_limit, remote_env
from ...store.repo import Repo
from .outcomes import Outcome, PhaseError, format_of, other_format, phase

# (``re`` is imported where a pattern is used: a sync by name reads no advertisement, and the
# quarantine fetch starts sooner without it, ~1 ms)
_OTHER_REFS: list = []


def _other_refs():
    """The well-formed actor and proposal ref patterns (§11(c): reported as skipped)."""
    if not _OTHER_REFS:
        import re

        _OTHER_REFS.extend((re.compile(r"refs/hn/actors/[0-9a-f]{64}"),
                            re.compile(r"refs/hn/proposals/[0-9a-f]{64}")))
    return _OTHER_REFS


def advertise(repo: Repo, url: str, remote: str, timeout: float | None = None,
              answers: dict | None = None, max_streams: int | None = None) -> tuple[Mapping, set]:
    """({stream: [(actor, oid)]}, {(kind, id)} of well-formed actor and proposal refs).
    ``answers["advertisement"]`` gets Git's output as it came (the quiet record hashes it). A
    listing over ``advertisement_limit(max_streams)`` bytes fails the phase, read no further."""
    from ...errors import GitError, OutputTooLarge

    limit = advertisement_limit(max_streams)
    try:
        proc = repo.git.run(list(advertisement(url)), env=remote_env(), timeout=timeout,  # often early
                            limit=limit)
    except OutputTooLarge:
        raise PhaseError(f"replication max-streams budget exceeded for remote {remote}: its advertisement of "
                         f"refs/hn/ is over {limit} bytes ({ADVERTISED_BYTES_PER_STREAM} for each of "
                         f"{limit // ADVERTISED_BYTES_PER_STREAM} streams); select exact streams or raise it "
                         f"with git hn replication select {remote} --max-streams N") from None
    except GitError:
        if timeout is None:
            raise
        raise unanswered(remote, timeout) from None
    if proc.returncode != 0:
        from shlex import quote

        from ...store.transport import unreachable_reason, without_terminal

        reason = unreadable_said(repo, unreachable_reason(proc.stderr, f"git ls-remote {quote(remote)}"), url)
        way_out = without_terminal(reason, remote, url, repo.git)
        raise PhaseError(f"{phase('advertisement', remote).message}; {reason}" + (f"; {way_out}" if way_out else ""),
                         unreachable=True)
    if answers is not None:
        answers["advertisement"] = proc.stdout
    got = parse(proc.stdout, repo.oid_hex_len)
    if got is None:
        theirs = format_of([line.split("\t", 1)[0] for line in lines_of(proc.stdout.decode("utf-8", "replace"))],
                           repo.oid_hex_len)
        raise other_format(remote, theirs, repo.oid_hex_len) if theirs else phase("advertisement validation", remote)
    return got


def unreadable_said(repo: Repo, reason: str, url: str) -> str:
    """``reason``, or ``store.transport.UNREADABLE_PATH`` when it is ``NO_GIT_REPOSITORY`` and
    ``url`` is a local path whose repository this user may not read (``unreadable_repository``; a
    relative path counts from where Git runs: the top of the working tree, or a bare repository's
    Git directory). Git says only that it "does not appear to be a git repository", as of a path
    with none (f160). The advertisement's failure, a push URL's listing (``push_targets``) and a
    push's (``push_said``) ask it (f165), each only after Git said so of a local URL: a few
    ``stat`` calls."""
    import os

    from ...store.transport import NO_GIT_REPOSITORY, UNREADABLE_PATH, local_path, unreadable_repository

    path = local_path(url) if reason == NO_GIT_REPOSITORY else ""
    if not path:
        return reason
    if not os.path.isabs(path):
        from ...store.worktree import toplevel

        path = os.path.join(toplevel(repo) or repo.git_dir, path)
    return UNREADABLE_PATH if unreadable_repository(path) else reason


def unanswered(remote: str, timeout: float) -> PhaseError:
    """The advertisement's failure when ``remote`` did not list its refs within ``timeout``
    seconds (the sync's, or the fetch hook wrapper's question: ``fetch_hook``)."""
    return PhaseError(f"{phase('advertisement', remote).message}; the remote did not answer within "
                      f"{timeout:g} s (git config hn.syncStallTimeout)", unreachable=True)


def parse(data: bytes, n: int) -> tuple[Mapping, set] | None:
    """``advertise``'s answer from ``git ls-remote``'s output (object IDs of ``n`` hex digits);
    None when a line is not ``<oid>\t<ref>``.

    Refs come in name order, so the memory refs are one run of lines: that run is read by
    ``_Lines`` when it is uniform, and the few other lines (branches, tags, actor and proposal
    refs) line by line. Anything else (a memory ref outside the run, a line of another shape
    inside it) is read line by line as a whole."""
    marker = b"\trefs/hn/memory/"
    first = data.find(marker)
    if first >= 0:
        start = data.rfind(b"\n", 0, first) + 1
        end = data.find(b"\n", data.rfind(marker)) + 1 or len(data)
        rest = data[:start] + data[end:]
        if b"refs/hn/memory/" not in rest:
            fast = _Lines.read(data[start:end], n)
            if fast is not None:
                other = parse_lines(rest, n)
                return None if other is None else (fast, other[1])
    return parse_lines(data, n)


def parse_lines(data: bytes, n: int) -> tuple[dict, set] | None:
    """``parse`` line by line (any advertisement)."""
    memory: dict[str, list[tuple[str, str]]] = {}
    others: set[tuple[str, str]] = set()
    text = data.decode("utf-8", "replace")
    # every line must be "<oid>\t<ref>"; the memory refs, nearly all of them, are taken in one
    # C-speed pass, and only the other lines are looked at one by one
    lines = text.count("\n") + (0 if not text or text.endswith("\n") else 1)
    found = 0
    for oid, actor, hexs in _memory_line(n).findall(text):
        memory.setdefault("sha256:" + hexs, []).append((actor, oid))
        found += 1
    if found != lines:
        actor_ref, proposal_ref = _other_refs()
        for line in lines_of(text):
            parts = line.split("\t")
            if len(parts) != 2 or not is_oid(parts[0]) or len(parts[0]) != n:
                return None
            oid, ref = parts
            if parse_local_ref(ref) is not None:
                continue  # taken above
            if actor_ref.fullmatch(ref):
                others.add(("actor", ref.rsplit("/", 1)[1]))
            elif proposal_ref.fullmatch(ref):
                others.add(("proposal", "sha256:" + ref.rsplit("/", 1)[1]))
    return memory, others


def uniform_lines(data: bytes, n: int, fixed: bytes) -> str | None:
    """``data`` as text when every line is exactly ``<oid><fixed><actor>/<stream>\\n`` (object
    IDs of ``n`` lowercase hex digits, 64-digit actor and stream), else None
    (``grammar.uniform_lines``)."""
    if uniform(data, (n, fixed, 64, b"/", 64, b"\n")) is None:
        return None
    return data.decode("ascii")


class _Lines(Mapping):
    """{stream: [(actor, oid)]} of a run of memory ref lines that ``uniform_lines`` accepts and
    whose streams each have one owner (what a git-hn remote sends): entries are sliced out of
    the text when asked for. ``read`` gives None for anything else (then ``parse_lines``)."""

    _FIXED = b"\trefs/hn/memory/"

    def __init__(self, text: str, n: int, width: int, index: dict):
        self.text, self.n, self.width, self.index = text, n, width, index

    @classmethod
    def read(cls, data: bytes, n: int):
        text = uniform_lines(data, n, cls._FIXED)
        if text is None:
            return None
        width = n + len(cls._FIXED) + 130
        at = n + len(cls._FIXED) + 65
        index = {text[i:i + 64]: i - at for i in range(at, len(text), width)}
        return cls(text, n, width, index) if len(index) * width == len(text) else None

    def mirrors(self, listing: str | None, fixed: str) -> bool:
        """Whether ``listing`` (``for-each-ref`` lines ``<oid><fixed><actor>/<stream>``, in ref
        order) names exactly these refs at these tips: the advertisement, in ref order too,
        rewritten to that form and compared whole."""
        return listing is not None and self.text.replace(self._FIXED.decode(), fixed) == listing

    def sorted_entries(self):
        """(stream, actor, tip, ``<actor>/<stream hex>``) of every line, in stream order."""
        text, n, index = self.text, self.n, self.index
        actor_at = n + len(self._FIXED)
        for s in sorted(index):
            i = index[s]
            a = i + actor_at
            yield "sha256:" + s, text[a:a + 64], text[i:i + n], text[a:a + 129]

    def __getitem__(self, stream: str) -> list[tuple[str, str]]:
        i = self.index[stream[len("sha256:"):]] if stream.startswith("sha256:") else None
        if i is None:
            raise KeyError(stream)
        actor = i + self.n + len(self._FIXED)
        return [(self.text[actor:actor + 64], self.text[i:i + self.n])]

    def __iter__(self):
        return ("sha256:" + s for s in self.index)

    def __len__(self) -> int:
        return len(self.index)


class AdvertisedRefs(Mapping):
    """ref -> advertised tip over ``advertise``'s {stream: [(actor, oid)]}, looked up when asked
    (publication asks about the user's own few streams, not all 10,000)."""

    def __init__(self, advertised: Mapping):
        self.advertised = advertised

    def __getitem__(self, ref: str) -> str:
        # a lookup needs no validation: the advertised actors and streams were validated, so a
        # malformed ref matches none of them
        if ref.startswith(LOCAL_PREFIX):
            actor, _sep, stream = ref[len(LOCAL_PREFIX):].partition("/")
            for owner, oid in self.advertised.get("sha256:" + stream, ()):
                if owner == actor:
                    return oid
        raise KeyError(ref)

    def __iter__(self):
        return (f"refs/hn/memory/{actor}/{stream[len('sha256:'):]}"
                for stream, owners in self.advertised.items() for actor, _oid in owners)

    def __len__(self) -> int:
        return sum(len(owners) for owners in self.advertised.values())


_LINES: dict = {}


def _memory_line(n: int):
    """A well-formed memory ref line (§3.1 grammar: lowercase hex, exact lengths)."""
    got = _LINES.get(n)
    if got is None:
        import re

        got = _LINES[n] = re.compile(rf"^([0-9a-f]{{{n}}})\trefs/hn/memory/([0-9a-f]{{64}})/([0-9a-f]{{64}})$",
                                     re.MULTILINE)
    return got


class _Heads(Mapping):
    """``accepted_heads`` of a uniform listing: the text, and the dict made only when a stream
    is looked up (a sync where nothing moved compares the texts whole: ``_Lines.mirrors``)."""

    def __init__(self, text: str, n: int, at: int):
        self.text, self._n, self._at = text, n, at
        self._dict: dict | None = None

    def _heads(self) -> dict:
        if self._dict is None:
            text, n, at = self.text, self._n, self._at
            width = at + 130
            self._dict = {text[i + at:i + width - 1]: text[i:i + n] for i in range(0, len(text), width)}
        return self._dict

    def __getitem__(self, key: str) -> str:
        return self._heads()[key]

    def get(self, key, default=None):
        return self._heads().get(key, default)

    def __iter__(self):
        return iter(self._heads())

    def __len__(self) -> int:
        return len(self._heads())


def accepted_heads(repo: Repo, remote: str, answers: dict | None = None) -> Mapping:
    """``<actor>/<stream hex>`` -> accepted tip of every accepted memory ref of ``remote`` (one
    ``for-each-ref``; its usual output, one shape per line, is read without a regular
    expression, as ``uniform_lines`` checks it). ``answers["listing"]`` gets Git's output as it
    came, or None when Git failed (the quiet record hashes it)."""
    prefix = f"{REMOTES_PREFIX}{remote}/memory/"
    out = repo.git.run(["for-each-ref", "--format=%(objectname) %(refname)", prefix])  # often early
    if answers is not None:
        answers["listing"] = out.stdout if out.returncode == 0 else None
    return heads_of(out.stdout, remote, repo.oid_hex_len)


def heads_of(listing: bytes, remote: str, n: int) -> Mapping:
    """``accepted_heads`` of the listing ``listing`` (Git's ``for-each-ref`` output, or one in
    its form: ``quiet.remember_promoted``)."""
    if not listing:  # (a first sync: nothing accepted yet, and no pattern to compile, ~1 ms of ``re``)
        return {}
    prefix = f"{REMOTES_PREFIX}{remote}/memory/"
    text = uniform_lines(listing, n, f" {prefix}".encode()) if is_remote_name(remote) else None
    if text is not None:
        return _Heads(text, n, n + 1 + len(prefix))
    import re

    pattern = re.compile(rf"^([0-9a-f]{{{n}}}) {re.escape(prefix)}([0-9a-f]{{64}}/[0-9a-f]{{64}})$",
                         re.MULTILINE)
    return {key: oid for oid, key in pattern.findall(listing.decode("utf-8", "replace"))}


def requests(sel, advertised: dict, others: set, accepted: dict, result, remote: str) -> list[Outcome]:
    """Outcomes for every selector (§9.4, §11(c)); returns the streams to fetch."""
    for actor in sel.actors:
        result.outcomes.append(Outcome.skipped("actor", actor))
    for proposal in sel.proposals:
        result.outcomes.append(Outcome.skipped("proposal", proposal))
    if sel.all:
        seen = {(o.kind, o.id) for o in result.outcomes}
        for kind, ident in sorted(others):
            if (kind, ident) not in seen:
                result.outcomes.append(Outcome.skipped(kind, ident))
    wanted = []
    current = result.current
    if sel.all and isinstance(advertised, _Lines):  # one owner each: no lookups (10,000 streams)
        if advertised.mirrors(getattr(accepted, "text", None), f" {REMOTES_PREFIX}{remote}/memory/"):
            current.extend("sha256:" + s for s in advertised.index)  # nothing moved: one comparison
            return []
        for stream, actor, oid, key in advertised.sorted_entries():
            old = accepted.get(key, "")
            if old == oid:
                current.append(stream)
                continue
            out = Outcome("memory", stream)
            result.outcomes.append(out)
            out.actor, out.advertised, out.old = actor, oid, old
            wanted.append(out)
        return _within_budget(sel, wanted, remote, result)
    for stream in (sorted(advertised) if sel.all else list(sel.memories)):
        owners = advertised.get(stream, [])
        if len(owners) == 1:
            actor, oid = owners[0]
            old = accepted.get(f"{actor}/{stream[len('sha256:'):]}", "")
            if old == oid:
                current.append(stream)
                continue
        out = Outcome("memory", stream)
        result.outcomes.append(out)
        if len(owners) > 1:
            text = "advertised" if sel.all else "selected"
            out.fail("structurally-invalid", f"{text} memory {stream} has ambiguous owners on remote {remote}")
        elif not owners:
            out.fail("dependency-missing", f"selected memory {stream} is not advertised by remote {remote}",
                     missingId=stream,
                     recovery="verify the full selection ID and retry when the exact ref is advertised")
        else:
            out.actor, out.advertised = owners[0]
            out.old = old
            wanted.append(out)
    return _within_budget(sel, wanted, remote, result)


def exact_owners(sel, accepted: Mapping, learnt: dict[str, str]) -> dict[str, str] | None:
    """stream -> owner for every selected stream of an exact, memory-only selection whose owners
    are all known (git-hn, issue 11): from this remote's accepted refs (verified), else from what
    ``replication select`` learnt. None when any owner is unknown or the two disagree, or for
    ``--all``, compatibility-all and actor or proposal selectors: the sync then reads the whole
    advertisement."""
    if not sel.streams_only:
        return None
    held: dict[str, list[str]] = {}
    for key in accepted:
        actor, hexs = key.split("/", 1)
        held.setdefault("sha256:" + hexs, []).append(actor)
    owners = {}
    for stream in sel.memories:
        mine = held.get(stream, ())
        if len(mine) > 1:
            return None
        actor = mine[0] if mine else learnt.get(stream)
        if actor is None or learnt.get(stream, actor) != actor:
            return None
        owners[stream] = actor
    return owners


def fetched_tips(data: bytes, n: int, exact: set[str], actors: set[str]) -> dict[str, str] | None:
    """ref -> tip from the ``FETCH_HEAD`` of a fetch of the ``exact`` refs and of the memory refs
    of ``actors`` (lines ``<oid>\t[not-for-merge]\t'<ref>' of <url>``; a ref name holds no
    space, so its end is certain). None when a line has another shape, a ref appears twice with
    two tips, or an exact ref is missing: the caller then reads the whole advertisement."""
    tips: dict[str, str] = {}
    for line in lines_of(data.decode("utf-8", "replace")):
        parts = line.split("\t", 2)
        if len(parts) != 3 or len(parts[0]) != n or not is_oid(parts[0]) \
                or parts[1] not in ("", "not-for-merge") or not parts[2].startswith("'"):
            return None
        end = parts[2].find("' of ")
        ref = parts[2][1:end] if end > 0 else ""
        if ref not in exact:
            parsed = parse_local_ref(ref)
            if parsed is None or parsed[0] not in actors:
                continue  # nothing asked for this name: not looked at
        if tips.setdefault(ref, parts[0]) != parts[0]:
            return None
    return tips if exact <= set(tips) else None


def _within_budget(sel, wanted: list[Outcome], remote: str, result) -> list[Outcome]:
    limit = sel.max_streams
    if len(wanted) > limit:
        # none of them was tried: one line says why, not one per stream (an audit: 20,000 junk
        # streams printed 20,000 identical failures, burying the real stream's)
        skipped = set(map(id, wanted))
        result.outcomes[:] = [o for o in result.outcomes if id(o) not in skipped]
        raise PhaseError(f"replication max-streams budget exceeded for remote {remote}: configured={limit} "
                         f"requested={len(wanted)}; select exact streams or raise it with "
                         f"git hn replication select {remote} --max-streams N")
    return wanted
