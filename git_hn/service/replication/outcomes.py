"""Outcomes of a sync (CONTRACT §9.14, §9.15, §9.16): one per selected stream, the run's result,
its output lines, JSON and exit message, and the phase and residue error texts.

Owns the wording. Every diagnostic a selection can get is built here from the fields it names,
so a template is written once (``Outcome.invalid`` for "is structurally invalid", for example).
"""

from __future__ import annotations

from ...core.gostr import one_line
from ...errors import HnError
from .anchor_ways import anchor_branch, fetch_hints, put_back, whose_anchor

MEASURE_KEYS = ("Events", "Objects", "LargestObjectBytes", "LargestAttachmentBytes", "TotalBytes")
SEAMS = ("after-fetch", "after-measure", "after-pending-anchor", "after-object-copy",
         "before-promotion", "before-completion-receipt")
UP_TO_DATE = "up-to-date"  # git-hn: the advertised tip is the accepted tip; nothing was fetched
REBASED_SHOWN = 5  # new IDs a rebased stream's line names (``--json`` lists every one)
EQUIVOCATION_RECOVERY = "inspect both chains; accepted memory history is never rolled back or rewritten"


class PhaseError(HnError):
    """A replication phase failed as a whole (§9.16). ``published``: for the publication phase,
    the refs that were pushed before it failed (§9.13 pushes the valid refs regardless)."""

    def __init__(self, message: str, published: int = 0, unreachable: bool = False):
        super().__init__(message)
        self.published = published
        self.unreachable = unreachable  # the remote could not be reached (or refused access) at all
        self.cause = ""  # (a push's) why the remote was not reached, in ``store.transport``'s fixed words
        # the advice at the message's end to stop publishing there (``hnPublish false``), or "": a
        # background publication's record says it only once the same refusal repeats (``background``)
        self.advice = ""
        self.other_format = False  # the remote uses the other object format (``other_format``)
        self.url = ""  # (a push's) the push URL it went to, when one of several (``push_targets``)


def other_format(remote: str, theirs: int, ours: int, what: str = "") -> PhaseError:
    """The remote's object IDs have ``theirs`` hex digits and this clone's ``ours``: SHA-1 and
    SHA-256 repositories exchange no object (Git: "mismatched algorithms"), so nothing of memory
    or code moves, and no push or fetch helps (a trial: "advertisement validation failed", then
    "push a branch that contains it"). ``what``: the remote as named ("push URL 2 of origin")."""
    from ...core.grammar import OBJECT_FORMATS as name
    error = PhaseError(f"{what or 'remote ' + remote} uses {name.get(theirs, 'another object format')} and this clone "
                       f"{name.get(ours, 'another')}, so memory (and code) cannot move between them; work with "
                       f"it from a clone of it (git clone), or remove it here (git remote remove {remote})",
                       unreachable=True)
    error.other_format = True
    return error


def format_of(oids, ours: int) -> int:
    """The length of the object IDs ``oids`` (hex strings) when every one is a SHA-1 or SHA-256 ID
    of the length this clone does not use; else 0."""
    lengths = {len(o) for o in oids}
    return lengths.pop() if len(lengths) == 1 and lengths <= {40, 64} - {ours} and all(
        c in "0123456789abcdef" for o in oids for c in o) else 0


def phase(name: str, remote: str, published: int = 0) -> PhaseError:
    return PhaseError(f"replication {name} failed for remote {remote}", published)


def residue(what: str, remote: str) -> PhaseError:
    return PhaseError(f"replication {what} for remote {remote} before accepted-ref commit; accepted "
                      "refs and trust projection are unchanged; unreferenced object residue may remain "
                      "in the object database")


def completion_failed(n: int, remote: str) -> PhaseError:
    return PhaseError(f"replication promotion succeeded for {n} selection(s), but completion recording "
                      f"failed for remote {remote}; refs and shallow boundaries are committed, trust "
                      f"operations remain fail-closed; retry git hn sync {remote} --recover-shallow")


def redact(text: str, *secrets: str) -> str:
    """§0.5: the quarantine path, the git directory and the remote URL are never shown, nor the
    user information of any URL in ``text`` (``scheme://user:password@``: a review found a
    pre-push hook's line, quoted in a publication error, naming ``http://u:pw@host/…``)."""
    for s in secrets:
        if s:
            text = text.replace(s, "<private>")
    if "://" in text and "@" in text:
        import re

        # (greedy up to the last "@" before the path: a password may hold one, unencoded)
        text = re.sub(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^/\s]*@", r"\1<private>@", text)
    return text


class Outcome:
    """One selection's way through the transaction. ``old`` is the accepted tip (or ""),
    ``walked`` the fetched commits above it (head first), ``memories`` the verified memories of
    those commits (root first) and ``base`` the (commit, sequence) they continue. ``held``: how
    many of the commits above ``old`` were verified here already (a stream of the user's own,
    coming back from the remote: the summary does not count them as news)."""

    # A sync of 10,000 up-to-date streams makes 10,000 outcomes: slots, and the two dicts made
    # only when asked for, keep that a small part of a no-op sync.
    __slots__ = ("kind", "id", "status", "actor", "advertised", "old", "walked", "stopped",
                 "descends", "memories", "base", "reachable", "root_type", "prefix", "rebase",
                 "held", "_fields", "_measurements")

    def __init__(self, kind: str, ident: str, status: str = "fetched"):
        self.kind, self.id, self.status = kind, ident, status
        self.actor = self.advertised = self.old = self.stopped = self.root_type = ""
        self.walked: list | None = None
        self.descends = False
        self.held = 0
        self.memories: list | tuple = ()
        self.base = ("", 0)
        self.reachable: list[str] | None = None
        self.prefix = 0  # memories promoted although the stream failed (before a missing dependency)
        self.rebase = None  # (local ref, its tip, its memories from where it parts), with --rebase
        self._fields = self._measurements = None

    @property
    def fields(self) -> dict:
        """The outcome's diagnostic fields (made when first asked for)."""
        if self._fields is None:
            self._fields = {}
        return self._fields

    @fields.setter
    def fields(self, value: dict) -> None:
        self._fields = value

    @property
    def measurements(self) -> dict:
        """§9.6 measurements (made when first asked for: an up-to-date stream has none)."""
        if self._measurements is None:
            self._measurements = {k: 0 for k in MEASURE_KEYS}
        return self._measurements

    @classmethod
    def skipped(cls, kind: str, ident: str) -> Outcome:
        """An actor or proposal selector or advertisement, which git-hn does not import (§11(c))."""
        out = cls(kind, ident, "skipped")
        out.fields["diagnostic"] = "unsupported"
        return out

    @property
    def imported(self) -> int:
        """Memories this sync brought for the stream (above its accepted tip)."""
        return len(self.walked) if self.walked is not None else len(self.memories)

    @property
    def alive(self) -> bool:
        return self.status in ("fetched", "promotable")

    def fail(self, status: str, diagnostic: str, **fields) -> None:
        self.status = status
        self.fields = {"diagnostic": diagnostic, **fields}

    def invalid(self, cause: str) -> None:
        self.fail("structurally-invalid", f"selection memory {self.id} is structurally invalid: {cause}")

    def over(self, flag: str, configured: int, measured: int, remote: str) -> None:
        self.fail("over-budget", f"selection memory {self.id} exceeded {flag} budget: "
                  f"configured={configured} measured={measured}",
                  recovery=f"raise it above {configured} with git hn replication select {remote} --{flag} N")

    def fetch_failed(self, remote: str, reason: str = "", unreached: bool = False, url: str = "", git=None) -> None:
        """Git's fetch failed (``reason``: why, in git-hn's fixed words, when Git said why;
        ``unreached``: the remote stopped answering, a stall). Its advice follows the cause (a
        review: "its fetch failed, not the stream: sync again once it can be reached" was said
        for a stream the remote could not serve, and for a refused passphrase): a remote that was
        not reached (``store.transport.NOT_REACHED``, a stall) is to be synced again, git-hn's
        stderr advice only, never in the JSON; a refusal of access gets the credentials advice, as
        a prompt that could not be shown does (the fetch runs in a session of its own, without a
        terminal, so OpenSSH 9 says only "Permission denied" when it cannot ask for a passphrase,
        while the same sync's advertisement got through); anything else (a remote whose objects
        are damaged, a reason Git's own message holds) keeps the stream's advice; over git://, which
        has no credentials, what to check (``store.transport.refused_way``). ``url``, ``git``: the
        URL fetched from and the runner that asks for a credential helper
        (``store.transport.without_terminal``)."""
        from ...store.transport import CREDENTIALS_REFUSED, NO_ACCESS, NOT_REACHED, refused_way, without_terminal

        refused = reason in (*NO_ACCESS, CREDENTIALS_REFUSED)
        self.fail("structurally-invalid", f"selection memory {self.id} failed exact fetch from remote {remote}"
                  + (f": {reason}" if reason else ""),
                  recovery=(refused_way if refused else without_terminal)(reason, remote, url, git) or None)
        if reason and (unreached or reason in NOT_REACHED):
            self.fields["unreached"] = reason
        elif refused:  # (the fetch hook's way out: its recovery, not "run git hn sync", which fails alike)
            self.fields["refused"] = reason

    def equivocates(self, diagnostic: str, seen: str = "", words: str = "") -> None:
        """§11(a)'s refusal, its diagnostic and recovery as the contract gives them; ``seen`` and
        ``words`` (git-hn, ``seen_history``): what the remote's chain was found to be, said after
        the recovery (never in the JSON's keys), by the failure record's hint and by the fetch
        hook's line."""
        self.fail("equivocation", diagnostic, recovery=EQUIVOCATION_RECOVERY + (f"; {words}" if words else ""))
        if seen:
            self.fields.update(seen=seen, seenWords=words)

    def to_json(self) -> dict:
        out = {"kind": self.kind, "id": self.id, "status": self.status}
        for key in ("diagnostic", "dependencyKind", "missingId", "ownerMemoryId", "ownerStream",
                    "requiredRef", "requiredSelectors", "recovery"):
            if self.fields.get(key):
                out[key] = self.fields[key]
        if self.status not in ("skipped", UP_TO_DATE):
            out["measurements"] = dict(self.measurements)
        return out


class SyncResult:
    def __init__(self, remote: str):
        self.remote = remote
        self.outcomes: list[Outcome] = []
        # memory streams whose advertised tip is the accepted tip: only counted, unless the JSON
        # document lists them (a no-op sync of 10,000 streams makes no outcome objects)
        self.current: list[str] = []
        self.promoted = 0
        self.published = 0
        self.import_error = ""
        self.publication_error = ""
        self.publication_cause = ""  # its Git status alone, when the remote refused a ref (``PhaseError.cause``)
        self.unreachable = False  # the import could not reach the remote: no publication is tried
        self.other_format = False  # (and so:) the remote uses the other object format
        self.publication_off = False  # remote.<name>.hnPublish is false: no publication there
        self.publication_skipped = ""  # why no publication was tried there (a bundle file: ``push_said``)
        self.compatibility = False  # no selection saved: every advertised stream (CONTRACT §9.1)
        self.every = False  # the selection is every stream (``--all``, or none saved): not exact
        self.repaired_only = False
        self.held: list = []  # gate.Held: streams published only up to a memory that must wait
        self.sent: list[str] = []  # the user's refs this sync's publication moved on the remote
        self.own: list[str] = []  # the user's own stream refs (local), as publication listed them
        self.by_push: list[int] = []  # when a git push published streams the remote holds at their tips, lately
        self.push_urls = 0  # the push URLs asked, when the remote pushes elsewhere than it fetches (``push_targets``)
        self.rebased: list = []  # store.rebase.Rebased: own streams rebased on the remote's (--rebase)
        self.branches_fetched = False  # the sync fetched the remote's branches for missing anchors
        # the remote has (or may have) branches this clone's fetch refspecs do not bring (a
        # --single-branch clone): ``git fetch REMOTE C`` may bring a missing anchor commit
        self.unfetched = False
        # of the missing anchor commits, those a branch under refs/heads/hn-anchor/ of the remote
        # that the refspecs leave out has as its tip: commit -> that branch (``put_back``'s advice)
        self.kept: dict[str, str] = {}
        self.branch_fetch = ""  # "fetched", or why that fetch was not made or failed ("" not tried)
        self.reminders: list[str] = []  # lines after the outcomes (``lost``: anchors a push took off)
        self.earlier_imported = 0  # memories a first pass promoted of streams a second pass went on with
        self._chained = None  # ``_chains``' answer, and the outcomes it was made from

    def sorted_outcomes(self, current: bool = True) -> list[Outcome]:
        """Every outcome in (kind, id) order; with ``current`` the up-to-date streams too."""
        everything = self.outcomes
        if current and self.current:
            everything = [*everything, *(Outcome("memory", s, UP_TO_DATE) for s in self.current)]
        return sorted(everything, key=lambda o: (o.kind, o.id))

    def up_to_date(self) -> int:
        return len(self.current) + sum(o.status == UP_TO_DATE for o in self.outcomes)

    def exit_message(self, human: bool = False) -> str:
        """§9.15's exit text ("" for a sync that exits 0). ``human`` (the stderr line; ``--json``'s
        ``error`` keeps the contract's text): for a selection of every stream (``--all``, or none
        saved), which is not exact, the words after the contract's first clause count streams (a
        team trial: an ``--all`` clone read "exact selections; no selection was promoted")."""
        if self.other_format:  # (nothing moves either way: the one reason, not two phases')
            return self.import_error or self.publication_error
        if self.import_error and self.publication_error:
            imported, way_out = self.import_error, self.publication_error.rpartition("; ")[2]
            if way_out and imported.endswith("; " + way_out):  # (the same advice once, at the end)
                imported = imported[:-len(way_out) - 2]
            return f"import phase failed: {imported}; publication phase failed: {self.publication_error}"
        if self.import_error:
            return f"import phase failed (publication phase completed): {self.import_error}"
        if self.publication_error:
            replaced = self.replaced()
            if replaced:  # (up to Git's status: the refusal's advice, "--rebase" on "fetch first", would not help)
                refused = self.publication_error
                refused = refused[:refused.index(self.publication_cause) + len(self.publication_cause)]
                return f"publication phase failed after replication: {refused}; {self._replaced_words(replaced)}"
            return f"publication phase failed after replication: {self.publication_error}"
        if any(o.status not in ("promoted", "skipped", UP_TO_DATE) for o in self.outcomes):
            if human and self.every:  # (the contract's words first, then what they mean here)
                failed = sum(o.status not in ("promoted", "skipped", UP_TO_DATE) for o in self.outcomes)
                # (a newcomer trial read "1 stream of every stream (no selection saved) failed")
                why = " (no selection saved: all are imported)" if self.compatibility else ""
                return (f"replication import phase failed for one or more exact selections; {failed} of "
                        f"{self.remote}'s streams failed, {self.promoted or 'none'} promoted{why}")
            if not self.promoted:  # git-hn: do not claim promotions that did not happen
                return ("replication import phase failed for one or more exact selections; "
                        "no selection was promoted")
            return ("replication import phase failed for one or more exact selections; "
                    "independently valid selections were promoted")
        return ""

    def failure_pointer(self, as_json: bool = False) -> str:
        """git-hn, for the stderr line only (``--json``'s ``error`` keeps §9.15's text): after
        "failed for one or more exact selections", the first failure and what to do about it,
        and where each is listed (an audit: a hostile or over-budget remote's sync said only that
        on stderr, the budget and how to raise it being on stdout); "" when none failed."""
        failed = self.failures()
        if not failed or self.import_error or self.publication_error:
            return ""
        first = failed[0]
        recovery = self.recovery(first)
        missing, back = first.fields.get("missingId") or "", ""
        # (the human output's line for the commit, above, gives the commands: a team trial read
        # the push twice, and three lines for one missing commit)
        said = not as_json and self._hinted(first)
        if self.branches_fetched and self._hinted(first):  # (a team trial: this sync fetched
            # the remote's branches and none has it, so "fetch a branch" cannot work)
            # ("this clone fetches": a review found the commit on a branch a --single-branch clone
            # does not fetch, where "no branch of origin has it" was untrue)
            back = put_back(self.remote, missing, "this clone fetches", self.unfetched, said, self.kept.get(missing, ""))
        why = recovery or one_line(first.fields.get("diagnostic") or "")
        from ...store.transport import WAY_MAX  # (the bound ``refused_way``'s ways fit, f160)

        if len(why) > WAY_MAX:  # (a long diagnostic, of IDs mostly: cut to 12 characters, as sync prints them)
            import re

            why = re.sub(r"\b(sha256:)?([0-9a-f]{12})[0-9a-f]{28,52}\b", r"\2", why)
        why = back or (why if len(why) <= WAY_MAX else "")  # (else the status names the reason)
        if not recovery and first.fields.get("unreached"):  # (a trial: a server gone mid-sync was
            # blamed on the stream, "whoever pushed it can push a valid one in its place")
            why = (f"{first.fields['unreached']}; its fetch from {self.remote} failed, not the stream: "
                   f"run git hn sync {self.remote} again once it can be reached")
        elif not recovery:  # (a review: a long diagnostic left the line with no fix; then, that a select
            # replaces the saved selection, that it takes full IDs (these are cut), and that the
            # ref may be anyone's push, not its publisher's)
            why += ("; " if why else "") + (
                f"whoever pushed it can push a valid one in its place, or one git hn replication select "
                f"{self.remote} --memory STREAM... leaves it out: it replaces the saved selection, so give a "
                f"--memory for every stream to keep, by its full ID (git hn sync {self.remote} --json lists them)")
        many = len(failed) > 1
        # ("cause": a failure only by another's comes first in order, and is not the one named)
        which = (f"the first {'' if self.root(failed[-1]) is None else 'cause '}of "
                 f"{len(failed)} failures: ") if many else ""
        if as_json:
            where = "the outcomes of the JSON on stdout say " + ("each" if many else "why")
        else:
            where = "the Replication lines above say each" if many else \
                "" if back and said else "the Replication line above says why"
        return (f"; {which}{first.kind} {first.id} failed ({first.status})"
                + (f": {why}" if why else "") + (f" ({where})" if where else ""))

    def replaced(self) -> list[Outcome]:
        """The user's own streams (``own``) whose ref on the remote holds no chain of theirs, when
        the publication was refused as Git refuses a push that does not continue the remote's tip:
        their import failed as structurally invalid (another actor's commit there, a branch's, a
        forgery), so the push of the user's valid chain was refused too (an audit: a hostile remote
        pointed the user's stream at another actor's commit, and the one stderr line said only
        "[rejected] (non-fast-forward)", or, for a commit this clone lacks, advised --rebase)."""
        if self.publication_cause not in ("[rejected] (non-fast-forward)", "[rejected] (fetch first)") or \
                self.publication_cause not in self.publication_error:
            return []
        from ...core.grammar import parse_local_ref

        mine = {parse_local_ref(ref) for ref in self.own}
        return [o for o in self.failures() if (o.actor, o.id) in mine and
                f"selection memory {o.id} is structurally invalid: " in (o.fields.get("diagnostic") or "")]

    def _replaced_words(self, replaced: list[Outcome]) -> str:
        """What ``replaced``'s first stream's remote ref holds, and what to do: inspect it, tell
        whoever administers the remote, or put the user's own chain back there (the lease makes
        the push replace only what was seen)."""
        import re
        from shlex import quote

        from ...core.gostr import short_id
        from ...core.grammar import local_ref

        o = replaced[0]
        ref, remote = local_ref(o.actor, o.id), quote(self.remote)
        owner = re.search(r" has owner ([0-9a-f]{64}), want ", o.fields.get("diagnostic") or "")
        whose = (f"another actor's ({short_id(owner[1])}), not a continuation of your stream" if owner
                 else "which is not a memory of your stream")
        more = len(replaced) - 1
        more = f" (and {counted(more, 'other stream', 'other streams')} alike)" if more else ""
        return (f"{self.remote}'s ref for your stream {short_id(o.id)}{more} holds commit {o.advertised[:12]}, "
                f"{whose}: it was not imported, and the push of yours was "
                f"refused; your copy here is unchanged: inspect theirs with git ls-remote {remote} {ref}, and tell "
                f"whoever administers {self.remote}, or put yours back: git push "
                f"--force-with-lease={ref}:{o.advertised} {remote} {ref}")

    def failures(self) -> list[Outcome]:
        """The failed outcomes in (kind, id) order, except that those failing only because another
        stream failed (``root``) come after the others: the first is a cause (a team trial: the
        fetch hook named a dependent stream's failure, and advised a sync that fails alike)."""
        return list(self._chains()[0])

    def root(self, o: Outcome) -> Outcome | None:
        """For a stream that failed only because a memory it needs is in another stream that failed
        (§9.9 step 6's "depends on failed memory"), that stream's outcome, followed to one that
        failed on its own (in a circle of such streams, the last one before the walk comes back);
        None for any other outcome, or when the stream holding it is not found."""
        _failed, roots, holders = self._chains()
        if id(o) in roots:
            return roots[id(o)]
        after = _holder(o, holders)  # (an outcome not of this result: no stream's walk comes back to it)
        return None if after is None else roots.get(id(after)) or after

    def _chains(self) -> tuple[list[Outcome], dict[int, Outcome | None], dict[str, list[Outcome]]]:
        """``failures``' list, ``root``'s answer for each failed outcome (by ``id``) and the failed
        outcomes holding each memory ID, made in one pass over the outcomes and their memories and
        kept while no outcome changes. A review (hostile remote, DoS): each step of a chain of
        "depends on failed memory" scanned every outcome and memory, cubic in the failing streams,
        which anyone can sign with a key of their own: 500 chained ones took 14 s per
        ``failures()``, and the end of every import, the fetch hook's inside ``git fetch`` too,
        asked for it twice."""
        key = tuple((id(o), o.status, id(o._fields), len(o.memories)) for o in self.outcomes)
        if self._chained is not None and self._chained[0] == key:
            return self._chained[1]
        failed = [o for o in self.sorted_outcomes(current=False) if o.status not in ("promoted", "skipped", UP_TO_DATE)]
        holders: dict[str, list[Outcome]] = {}
        for x in self.outcomes:  # (in the outcomes' order: the first holder is the one followed)
            if x.status not in ("promoted", "skipped", UP_TO_DATE):
                for m in x.memories:
                    holders.setdefault(m.memory_id, []).append(x)
        after = {id(o): _holder(o, holders) for o in failed}
        roots: dict[int, Outcome | None] = {}
        for o in failed:  # each outcome's walk stops where another's ended: linear in all
            path, at, x = [], {}, o
            while x is not None and id(x) not in roots and id(x) not in at:
                at[id(x)] = len(path)
                path.append(x)
                x = after[id(x)]
            if x is None:  # the last one failed on its own
                end, tail = path[-1], path
            elif id(x) in roots:  # where an earlier walk went
                end, tail = roots[id(x)] or x, path
            else:  # a circle: each of it stops before itself, the way in at the circle's last one
                i = at[id(x)]
                for before, y in zip([path[-1], *path[i:-1]], path[i:]):
                    roots[id(y)] = before
                end, tail = path[-1], path[:i]
            for y in tail:
                roots[id(y)] = None if after[id(y)] is None else end
        failed.sort(key=lambda o: roots[id(o)] is not None)
        self._chained = (key, (failed, roots, holders))
        return failed, roots, holders

    def recovery(self, o: Outcome, roots: dict | None = None) -> str:
        """``o``'s recovery, on one line, for a person: for a stream that failed only because
        another did (``root``), that fixing that stream, named with its actor, imports this one
        too (a team trial: §9.9's "repair or replace exact selection" named an exact selection
        to an ``--all`` clone, and the fetch hook advised a sync that fails the same way);
        ``--json`` keeps §9.9's text. ``roots``: ``_chains``' answers, when the caller has them."""
        root = self.root(o) if roots is None or id(o) not in roots else roots[id(o)]
        if root is None:
            return one_line(o.fields.get("recovery") or "")
        from ...core.gostr import short_id
        from ...core.hints import named_actor, of_author

        names = [m.envelope.actor_name for m in root.memories[:1]]
        name = names[0] if names and names[0] else None
        # (the actor ID first, as every hint names an author: ``hints.named_actor``)
        who = f" of actor {named_actor(short_id(root.actor), name)}" if root.actor else of_author(name)
        return f"it fails only because stream {short_id(root.id)}{who} failed: fixing that stream imports this one too"

    def _hinted(self, o: Outcome) -> bool:
        """Whether ``o`` waits for an anchor commit this clone lacks that ``_anchor_hints`` gives a
        line for (who can bring it back: its recovery is "fetch a branch that contains" it)."""
        return o.fields.get("dependencyKind") == "anchor-commit" and bool(o.fields.get("missingId")) and \
            one_line(o.fields.get("recovery") or "").startswith("fetch a branch that contains")

    @property
    def imported(self) -> int:
        return sum(o.imported for o in self.outcomes if o.status == "promoted" or o.prefix) + self.earlier_imported

    def lines(self) -> list[str]:
        """§9.15 lines; selections that were already up to date are counted in one line."""
        out = []
        current = len(self.current)
        roots = self._chains()[1]  # (once: each failure's recovery names its root)
        for o in self.sorted_outcomes(current=False):
            if o.status == "promoted":
                out.append(f"Replication {o.kind} {o.id}: promoted")
            elif o.status == "skipped":
                out.append(f"Replication {o.kind} {o.id}: skipped (unsupported)")
            elif o.status == UP_TO_DATE:
                current += 1
            else:
                recovery = self.recovery(o, roots)
                diagnostic = one_line(o.fields.get("diagnostic", ""))
                if self._hinted(o):  # the line for its commit, below, says how to bring it back (a team
                    # trial: "fetch a branch that contains" it stood above "no branch has it"; --json
                    # keeps the diagnostic and the recovery whole)
                    diagnostic, recovery = diagnostic.replace(f"; recovery: {recovery}", "", 1), ""
                if f"recovery: {recovery}" in diagnostic:  # §9.12's text already holds it
                    recovery = ""
                out.append(f"Replication {o.kind} {o.id}: failed ({o.status}): {diagnostic}"
                           + (f"; {recovery}" if recovery else ""))
        if current:
            out.append(f"Replication from {self.remote}: {counted(current, *self._unit())} up to date")
        out += self._anchor_hints().values()
        out += [self._rebased_line(r) for r in self.rebased]
        out += [h.line(self.remote) for h in self.held]
        if self.publication_off:
            out.append(f"Publication to {self.remote}: off (git config remote.{self.remote}.hnPublish is false)")
        if self.publication_skipped:
            out.append(f"Publication to {self.remote}: not tried, {self.publication_skipped}")
        return out + self.reminders

    def _anchor_hints(self, named: bool = True) -> dict[str, str]:
        """For each anchor commit this clone lacks, once (however many streams wait for it): who
        can bring it back, as commit -> its line. A sync fetches no branch: a ``git fetch`` may (a
        newcomer's first sync came before it); after a rebase, an amend or a deleted branch, only a
        clone that still has it can. ``named``: the line says whose memory is anchored on it (the
        author's self-chosen name among it); ``--json``'s ``hint`` leaves that to the outcome's
        ``ownerMemoryId`` and ``ownerStream`` (the JSON names no author in git-hn's words)."""
        owners: dict[str, Outcome] = {}  # missing commit -> an outcome that waits for it
        for o in self.sorted_outcomes(current=False):
            if self._hinted(o):
                owners.setdefault(o.fields["missingId"], o)
        back = (f"a clone that still has it (its author's, most likely) can put it back: git push {self.remote} "
                "{oid}:refs/heads/hn-anchor/{short}")
        whose = {oid: whose_anchor(o) if named else "" for oid, o in owners.items()}
        kept = {oid: f"Commit {oid} is not here{whose[oid]}: {anchor_branch(self.remote, self.kept[oid])}"
                for oid in sorted(owners) if oid in self.kept}
        return kept | fetch_hints(self, [oid for oid in sorted(owners) if oid not in self.kept], whose, back)

    def _rebased_line(self, r) -> str:
        """One rebased stream, named by its stream ID (a terminal shortens it, as the outcome
        lines' IDs; ``--json`` gives the ref)."""
        from ...core.gostr import short_id
        from ...core.grammar import parse_local_ref

        shown = ", ".join(f"{short_id(a)} -> {short_id(b)}" for a, b in r.renamed[:REBASED_SHOWN])
        more = len(r.renamed) - REBASED_SHOWN
        what = counted(len(r.renamed), 'unpublished memory', 'unpublished memories')
        if r.follows:  # another stream of the user's, citing what was rebased
            return (f"Signed again {what} of your stream {parse_local_ref(r.ref)[1]} that cite rebased memories "
                    f"(they name the new IDs); new IDs: {shown}" + (f" and {more} more" if more > 0 else ""))
        return (f"Rebased {what} of your "
                f"stream {parse_local_ref(r.ref)[1]} on {self.remote}'s chain (signed again); new IDs: {shown}"
                + (f" and {more} more" if more > 0 else ""))

    def _unit(self) -> tuple[str, str]:
        """What the counts count: streams, always. Every outcome is one memory stream (an actor
        or ``--all`` selection is expanded into its streams before it has outcomes), so the
        count is of streams whatever was selected (a team trial: "promoted 1 stream" in one
        sync and "promoted 1 selection" in another, for the same one stream)."""
        return ("stream", "streams")

    def summary(self) -> str:
        """git-hn (issue 12): what this sync did, in counts a person can read: what it imported
        (and how much of that is the user's own memory signed elsewhere), promoted (and how many
        of those streams were the remote's copy of the user's own, which every stream a selection
        names becomes once published: nothing new), and published."""
        if self.other_format:
            return f"Sync with {self.remote} incomplete: {self.remote} uses the other object format"
        if self.unreachable:
            return f"Sync with {self.remote} incomplete: {self.remote} could not be reached"
        current = self.up_to_date()
        sent = f"published {counted(len(self.sent), 'stream', 'streams')}" if self.sent else ""
        # (one stream held at several push URLs for different commits has a line for each: counted once)
        held = f"{counted(len({h.ref for h in self.held}), 'stream', 'streams')} held back (above)" if self.held else ""
        if not self.promoted and not self.import_error and \
                not any(o.status not in ("skipped", UP_TO_DATE) for o in self.outcomes):
            if self.publication_error:  # nothing to import, and the publication failed (below)
                return f"Sync with {self.remote} incomplete: " + (", ".join(x for x in (sent, held) if x)
                                                                  or "nothing to import, publication failed")
            return f"Synchronized with {self.remote}: " + (", ".join(x for x in (sent, held) if x) or
                                                           "up to date" + self._by_push())
        back, copies = self._own_back()  # (f159: "imported 1 memory (your own)" read as news; it was
        # the remote's copy of what this clone holds, promoted as upstream does: said as that)
        new, mine = self.imported - back, self._own_imported() - back
        imported = f"imported {counted(new, 'memory', 'memories')}"
        if mine:
            imported += " (your own)" if mine == new else f" ({mine} of them your own)"
        promoted = f"promoted {counted(self.promoted, *self._unit())}"
        if copies:
            what = f"{self.remote}'s {'copy' if len(copies) == 1 else 'copies'} of your own"
            promoted += f" ({what}: nothing new came in)" if len(copies) == self.promoted else \
                f" ({len(copies)} of them {what}, nothing new in {'it' if len(copies) == 1 else 'them'})"
        parts = ([imported] if new or not copies else []) + [promoted]
        failed = [o for o in self.outcomes if o.status not in ("promoted", "skipped", UP_TO_DATE)]
        if failed:  # (a team trial: "promoted 3 selections" read as success beside a failed one)
            part = sum(1 for o in failed if o.prefix)
            parts.append(f"{len(failed)} failed" + (f" ({part} of them promoted in part, above)" if part else " (above)"))
        if current:
            parts.append(f"{current} up to date")
        if sent:
            parts.append(sent)
        if held:
            parts.append(held)
        # a sync that exits 1 does not say "Synchronized" above its error line
        head = f"Sync with {self.remote} incomplete" if self.exit_message() else f"Synchronized with {self.remote}"
        return f"{head}: " + ", ".join(parts)

    def _by_push(self) -> str:
        """After "up to date": that the user's ``git push`` published those streams lately
        (``given.pushed_lately``; a newcomer read "up to date" right after a push as "nothing was
        published"), and when (the oldest, when several pushes did); "to origin's push URL" for a
        remote that pushes elsewhere than it fetches (f159: not "there", which is what it fetches)."""
        if not self.by_push:
            return ""
        import time

        ages = [max(0, int(time.time()) - when) for when in self.by_push]
        what, oldest = counted(len(ages), "stream", "streams"), max(ages) // 60
        there = "there" if not self.push_urls else f"to {self.remote}'s push URL" if self.push_urls == 1 else \
            f"to each of {self.remote}'s push URLs"
        if max(ages) - min(ages) >= 60:  # (several pushes)
            return f" (your git pushes published {what} {there} in the last {oldest + 1} minutes)"
        ago = "less than a minute ago" if not oldest else f"{oldest} minute{'s' if oldest > 1 else ''} ago"
        return f" (your git push published {what} {there} {ago})"

    def _own_imported(self) -> int:
        """How many imported memories are in the user's own streams (``own``)."""
        if not self.own:
            return 0
        mine = {ref.rsplit("/", 1)[-1] for ref in self.own}
        return sum(o.imported for o in self.outcomes
                   if (o.status == "promoted" or o.prefix) and o.id.split(":", 1)[-1] in mine)

    def _own_back(self) -> tuple[int, list[Outcome]]:
        """Of the user's own streams (``own``) promoted whole: how many imported memories this
        clone held already (``held``), and those streams that brought nothing else."""
        mine = {tuple(ref.rsplit("/", 2)[-2:]) for ref in self.own}
        back = [o for o in self.outcomes if o.held and o.status == "promoted" and not o.prefix
                and (o.actor, o.id.split(":", 1)[-1]) in mine] if mine else []
        return sum(o.held for o in back), [o for o in back if o.held == o.imported]

    def _outcomes_json(self) -> list[dict]:
        """§9.14's outcome objects; git-hn adds ``hint``, after them, to one that waits for an anchor
        commit this clone lacks (``_hinted``): the contract's ``recovery``, "fetch a branch that
        contains C", is kept (receipts and §9.9's diagnostic hold it too), but after a rebase, an amend
        or a deleted branch no branch has C (a trial: an agent reading only the JSON would fetch and
        sync in a loop); ``hint`` is the line the human output gives for C (who can put it back),
        without the author's name."""
        hinted = {id(o) for o in self.outcomes if o.status == "dependency-missing" and self._hinted(o)}
        hints = self._anchor_hints(named=False) if hinted else {}
        return [o.to_json() | ({"hint": hints[o.fields["missingId"]]} if id(o) in hinted else {})
                for o in self.sorted_outcomes()]

    def to_json(self) -> dict:
        doc = {"version": 0, "remote": self.remote, "outcomes": self._outcomes_json(), "verifiedEvents": 0,
               "promoted": self.promoted, "importedMemories": self.imported, "published": self.published}
        back = self._own_back()[0]
        if back:  # git-hn (f159): of ``importedMemories``, those of the user's own streams this clone held
            doc["importedAlreadyHere"] = back
        if self.rebased:
            doc["rebased"] = [{"ref": r.ref, "renamed": [{"from": a, "to": b} for a, b in r.renamed]}
                              | ({"citesRebased": True} if r.follows else {}) for r in self.rebased]
        if self.held:
            doc["heldBack"] = [{"ref": h.ref, "memoryId": h.memory, "commit": h.commit, "waiting": h.waiting,
                                "discarded": h.discarded, **({"cites": h.cites} if h.cites else {}),
                                **({"elsewhere": True} if h.elsewhere else {}),
                                **({"sameChange": h.successor} if h.successor else {}),
                                **({"behind": {"branch": h.behind[0], "remoteTracking": h.behind[1]}} if h.behind else {})}
                               for h in _per_stream(self.held)]
        if self.publication_off:  # git-hn: remote.<name>.hnPublish is false (not "nothing to publish")
            doc["publicationOff"] = True
        if self.publication_skipped:  # git-hn: a remote no push can reach (a bundle file)
            doc["publicationSkipped"] = self.publication_skipped
        message = self.exit_message()
        if message:
            doc["error"] = message
        return doc


def _holder(o: Outcome, holders: dict[str, list[Outcome]]) -> Outcome | None:
    """The failed outcome (another stream) holding the memory ``o`` failed for not having, when
    ``o`` failed only by that (§9.9 step 6's "depends on failed memory"); else None."""
    if o.status != "dependency-missing" or not (o.fields.get("diagnostic") or "").startswith(
            f"selection memory {o.id} depends on failed memory "):
        return None
    return next((x for x in holders.get(o.fields.get("missingId") or "", ()) if x.id != o.id), None)


def counted(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _per_stream(held: list) -> list:
    """The first of ``held``'s lines of each stream: one ``heldBack`` entry per stream (a stream
    held at several push URLs for different commits has a line for each; a review)."""
    seen: set[str] = set()
    return [h for h in held if not (h.ref in seen or seen.add(h.ref))]
