"""``git hn sync``: import selected streams through a quarantine, then publish local streams
(CONTRACT §9.3–§9.19, §11(a)).

The import is one transaction: advertisement → quarantine fetch (exact refs, byte watchdog) →
measurement against budgets → full chain validation → history continuity → dependency
classification against the accepted set → pending anchor and ``validated`` receipt → object copy
→ one atomic ``update-ref --stdin`` promotion → ``complete`` receipt. Each selection has its own
outcome: a valid stream promotes while a bad one beside it fails. Nothing fetched is trusted
before promotion, and promotion only ever writes ``refs/hn/remotes/<remote>/memory/*``.

Publication pushes verified local streams with explicit, non-forced refspecs, one per ref; it
never pushes the primary branch or accepted refs.
"""

from __future__ import annotations

import os
import re
import sys

from ..core import selection as selmod
from ..core.chain import VerifiedMemory
from ..core.gostr import one_line
from ..core.grammar import accepted_ref, is_oid, is_remote_name, parse_local_ref, quarantine_ref
from ..core.projection import Context, project
from ..errors import GitError, HnError, InputError, ValidationError
from ..store import replication as rstate
from ..store import streams
from ..store.quarantine import Quarantine, remote_env, transport_allowed
from ..store.repo import Repo
from ..store.resolver import Resolver

MEASURE_KEYS = ("Events", "Objects", "LargestObjectBytes", "LargestAttachmentBytes", "TotalBytes")
SEAMS = ("after-fetch", "after-measure", "after-pending-anchor", "after-object-copy",
         "before-promotion", "before-completion-receipt")


class PhaseError(HnError):
    pass


class _Seam(Exception):
    pass


class Outcome:
    def __init__(self, kind: str, ident: str, status: str = "fetched"):
        self.kind, self.id, self.status = kind, ident, status
        self.fields: dict = {}
        self.measurements = {k: 0 for k in MEASURE_KEYS}
        self.actor = ""
        self.advertised = ""
        self.memories: list[VerifiedMemory] = []
        self.reachable: list[str] | None = None
        self.walked: list[tuple[str, str]] | None = None

    @property
    def alive(self) -> bool:
        return self.status in ("fetched", "promotable")

    def fail(self, status: str, diagnostic: str, **fields) -> None:
        self.status = status
        self.fields = {"diagnostic": diagnostic, **fields}

    def to_json(self) -> dict:
        out = {"kind": self.kind, "id": self.id, "status": self.status}
        for key in ("diagnostic", "dependencyKind", "missingId", "ownerMemoryId", "ownerStream",
                    "requiredRef", "requiredSelectors", "recovery"):
            if self.fields.get(key):
                out[key] = self.fields[key]
        if self.status != "skipped":
            out["measurements"] = dict(self.measurements)
        return out


class SyncResult:
    def __init__(self, remote: str):
        self.remote = remote
        self.outcomes: list[Outcome] = []
        self.promoted = 0
        self.published = 0
        self.import_error = ""
        self.publication_error = ""
        self.repaired_only = False

    def sorted_outcomes(self) -> list[Outcome]:
        return sorted(self.outcomes, key=lambda o: (o.kind, o.id))

    def exit_message(self) -> str:
        if self.import_error and self.publication_error:
            return (f"import phase failed: {self.import_error}; publication phase failed: "
                    f"{self.publication_error}")
        if self.import_error:
            return f"import phase failed (publication phase completed): {self.import_error}"
        if self.publication_error:
            return f"publication phase failed after replication: {self.publication_error}"
        if any(o.status not in ("promoted", "skipped") for o in self.outcomes):
            return ("replication import phase failed for one or more exact selections; "
                    "independently valid selections were promoted")
        return ""

    def lines(self) -> list[str]:
        out = []
        for o in self.sorted_outcomes():
            if o.status == "promoted":
                out.append(f"Replication {o.kind} {o.id}: promoted")
            elif o.status == "skipped":
                out.append(f"Replication {o.kind} {o.id}: skipped (unsupported)")
            else:
                out.append(f"Replication {o.kind} {o.id}: failed ({o.status}): "
                           f"{one_line(o.fields.get('diagnostic', ''))}")
        return out

    def summary(self) -> str:
        return f"Synchronized 0 verified events with {self.remote}; promoted {self.promoted} selections"

    def to_json(self) -> dict:
        doc = {"version": 0, "remote": self.remote,
               "outcomes": [o.to_json() for o in self.sorted_outcomes()], "verifiedEvents": 0,
               "promoted": self.promoted, "published": self.published}
        message = self.exit_message()
        if message:
            doc["error"] = message
        return doc


def _seam(step: str) -> None:
    if os.environ.get("HN_INTERNAL_TESTING") == "1" and \
            os.environ.get("HN_TEST_REPLICATION_INTERRUPT_AFTER") == step:
        raise _Seam(step)


def _phase(name: str, remote: str) -> PhaseError:
    return PhaseError(f"replication {name} failed for remote {remote}")


def _residue(what: str, remote: str) -> PhaseError:
    return PhaseError(f"replication {what} for remote {remote} before accepted-ref commit; accepted "
                      "refs and trust projection are unchanged; unreferenced object residue may remain "
                      "in the object database")


def _redact(text: str, *secrets: str) -> str:
    for s in secrets:
        if s:
            text = text.replace(s, "<private>")
    return text


# ---------------------------------------------------------------------------------------------
# entry point


def resolve_remote(repo: Repo, remote: str) -> str:
    if not is_remote_name(remote):
        raise InputError(f'invalid remote name "{one_line(remote)}"')
    proc = repo.git.run(["remote", "get-url", "--end-of-options", remote])
    if proc.returncode != 0:
        raise InputError(f'remote "{remote}" does not exist')
    url = proc.stdout.decode("utf-8", "surrogateescape").strip()
    if not transport_allowed(url):
        raise InputError(f'remote "{remote}" uses a refused transport')
    return url


def sync(repo: Repo, remote: str, *, recover_shallow: bool = False, progress=None,
         publish: bool = True, rebuild: bool = True) -> SyncResult:
    """Run the import and (unless ``publish`` is False, as in the fetch hook) publication.

    ``rebuild`` False (the fetch hook) only deletes the index after a promotion, so that a
    ``git fetch`` never waits for a full rebuild; the next recall rebuilds it."""
    url = resolve_remote(repo, remote)
    result = SyncResult(remote)
    try:
        selection = rstate.load_selection(repo, remote)
    except HnError as exc:
        result.import_error = exc.message
        selection = None
    if selection is not None:
        if recover_shallow:
            from . import shallow

            handled = shallow.before_recovery(repo, remote, selection, result)
            if handled:
                return result
        run = _Import(repo, remote, url, selection, result, progress, recover_shallow)
        run.rebuild = rebuild
        try:
            run.run()
        except PhaseError as exc:
            result.import_error = exc.message
        except _Seam:
            result.import_error = run.seam_error
        except HnError as exc:
            result.import_error = _redact(exc.message, url, repo.git_dir)
        for o in result.outcomes:
            if o.alive and result.import_error:
                o.fields.setdefault("diagnostic", result.import_error)
    if publish:
        try:
            result.published = publish_streams(repo, remote, url)
        except PhaseError as exc:
            result.publication_error = exc.message
    return result


# ---------------------------------------------------------------------------------------------
# import


class _Import:
    def __init__(self, repo: Repo, remote: str, url: str, selection: selmod.Selection,
                 result: SyncResult, progress, recover_shallow: bool):
        self.repo, self.remote, self.url, self.sel = repo, remote, url, selection
        self.result, self.progress, self.recover_shallow = result, progress, recover_shallow
        self.seam_error = ""
        self.budgets = selection.budgets
        self.probes: list = []
        self.rebuild = True

    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text)

    # -- advertisement (§9.4) ------------------------------------------------------------------

    def advertise(self) -> tuple[dict, dict]:
        proc = self.repo.git.run(["ls-remote", "--refs", "--", self.url, "refs/hn/actors/*",
                                  "refs/hn/proposals/*", "refs/hn/memory/*/*"], env=remote_env())
        if proc.returncode != 0:
            raise _phase("advertisement", self.remote)
        memory: dict[str, list[tuple[str, str]]] = {}
        others: set[tuple[str, str]] = set()
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            parts = line.split("\t")
            if len(parts) != 2 or not is_oid(parts[0]) or len(parts[0]) != self.repo.oid_hex_len:
                raise _phase("advertisement validation", self.remote)
            oid, ref = parts
            parsed = parse_local_ref(ref)
            if parsed is not None:
                memory.setdefault(parsed[1], []).append((parsed[0], oid))
            elif re.fullmatch(r"refs/hn/actors/[0-9a-f]{64}", ref):
                others.add(("actor", ref.rsplit("/", 1)[1]))
            elif re.fullmatch(r"refs/hn/proposals/[0-9a-f]{64}", ref):
                others.add(("proposal", "sha256:" + ref.rsplit("/", 1)[1]))
        return memory, {"others": others}

    def requests(self, advertised: dict, extra: dict) -> list[Outcome]:
        res = self.result
        for actor in self.sel.actors:
            res.outcomes.append(Outcome("actor", actor, "skipped"))
        for proposal in self.sel.proposals:
            res.outcomes.append(Outcome("proposal", proposal, "skipped"))
        if self.sel.all:
            seen = {(o.kind, o.id) for o in res.outcomes}
            for kind, ident in sorted(extra["others"]):
                if (kind, ident) not in seen:
                    res.outcomes.append(Outcome(kind, ident, "skipped"))
        wanted = []
        streams_ = sorted(advertised) if self.sel.all else list(self.sel.memories)
        for stream in streams_:
            out = Outcome("memory", stream)
            owners = advertised.get(stream, [])
            res.outcomes.append(out)
            if len(owners) > 1:
                text = "advertised" if self.sel.all else "selected"
                out.fail("structurally-invalid",
                         f"{text} memory {stream} has ambiguous owners on remote {self.remote}")
            elif not owners:
                out.fail("dependency-missing",
                         f"selected memory {stream} is not advertised by remote {self.remote}",
                         missingId=stream,
                         recovery="verify the full selection ID and retry when the exact ref is advertised")
            else:
                out.actor, out.advertised = owners[0]
                wanted.append(out)
        return wanted

    # -- the transaction -----------------------------------------------------------------------

    def run(self) -> None:
        from . import shallow

        self.repair_pending()
        self.say("advertisement")
        advertised, extra = self.advertise()
        wanted = self.requests(advertised, extra)
        if not wanted:
            return
        try:
            quarantine = Quarantine(self.repo)
        except (OSError, HnError):
            raise _phase("quarantine setup", self.remote) from None
        self.q = quarantine
        try:
            self.fetch_all(wanted)
            self.seam("after-fetch", "quarantine fetch")
            for out in wanted:
                if out.alive:
                    self.measure(out)
            self.seam("after-measure", "quarantine measurement")
            for out in wanted:
                if out.alive:
                    self.validate(out)
            accepted = self.continuity(wanted)
            self.classify(wanted, accepted)
            if self.recover_shallow:
                shallow.fetch_missing(self, wanted)
            promotable = [o for o in wanted if o.alive]
            for o in promotable:
                o.status = "promotable"
            if shallow.is_shallow(self.repo):
                for o in wanted:
                    if o.status == "dependency-missing" and o.fields.get("dependencyKind"):
                        try:
                            shallow.record_gap(self.repo, self.remote, o)
                        except (HnError, OSError):
                            o.fields["diagnostic"] += "; durable shallow gap recording failed"
            if promotable:
                self.accept(promotable)
        finally:
            try:
                quarantine.remove()
            except HnError:
                if not self.result.import_error:
                    raise _residue("quarantine cleanup failed", self.remote) from None

    def seam(self, step: str, phase: str) -> None:
        try:
            _seam(step)
        except _Seam:
            self.seam_error = f"replication {phase} failed for remote {self.remote}"
            raise

    def repair_pending(self) -> None:
        """§9.17: rewrite a ``validated`` receipt from each pending anchor of this remote; an
        anchor whose promotions are already committed (a crash before the ``complete`` receipt)
        is completed instead, since its objects are then accepted."""
        try:
            pending = rstate.load_pending(self.repo)
            for txn, (remote, objs) in pending.anchors.items():
                if remote != self.remote:
                    continue
                rec = pending.receipts.get(txn)
                if rec is not None and rec.get("version") == 2 and rec.get("state") == "complete" \
                        and set(objs) <= set(rec.get("acceptedObjects", [])):
                    rstate.remove_anchor(self.repo, txn)
                    continue
                promotions = (rec or {}).get("promotions") or []
                if rec is not None and promotions and all(
                        self._ref_value(p.get("ref", "")) == p.get("newOid") for p in promotions):
                    rstate.write_receipt(self.repo, txn, remote, "complete", rec.get("outcomes") or [],
                                         promotions, objs, rec.get("acceptedObjects") or objs)
                    rstate.remove_anchor(self.repo, txn)
                    continue
                rstate.write_receipt(self.repo, txn, remote, "validated",
                                     (rec or {}).get("outcomes") or [], (rec or {}).get("promotions") or [],
                                     objs, (rec or {}).get("acceptedObjects") or objs)
        except (HnError, OSError):
            raise _phase("pending acceptance reconciliation", self.remote) from None
        self.repo.forget_pending()

    def _ref_value(self, ref: str) -> str:
        proc = self.repo.git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", ref])
        return proc.stdout.decode().strip() if proc.returncode == 0 else ""

    def fetch_all(self, wanted: list[Outcome]) -> None:
        stall = self.stall_timeout()
        for out in wanted:
            self.say(f"fetch {out.id}")
            hexs = out.id[len("sha256:"):]
            spec = f"+refs/hn/memory/{out.actor}/{hexs}:{quarantine_ref(out.actor, out.id)}"
            verdict = self.q.fetch(self.url, spec, self.budgets["maxTotalBytes"], stall)
            if verdict == "size":
                out.measurements["TotalBytes"] = self.q.measured
                out.fail("over-budget", f"selection memory {out.id} exceeded max-total-bytes budget: "
                         f"configured={self.budgets['maxTotalBytes']} measured={self.q.measured}")
                continue
            if verdict:
                out.fail("structurally-invalid",
                         f"selection memory {out.id} failed exact fetch from remote {self.remote}")
                continue
            got = self.q.git.run(["rev-parse", "--verify", "--quiet", quarantine_ref(out.actor, out.id)])
            fetched = got.stdout.decode("ascii", "replace").strip()
            if fetched != out.advertised:
                out.fail("structurally-invalid", f"selection memory {out.id} fetched unexpected object: "
                         f"advertised={out.advertised} fetched={fetched}")

    def stall_timeout(self) -> float:
        proc = self.repo.git.run(["config", "--get", "hn.syncStallTimeout"])
        try:
            value = float(proc.stdout.decode().strip()) if proc.returncode == 0 else 60.0
            return value if value > 0 else 60.0
        except ValueError:
            return 60.0

    # -- measurement (§9.6) --------------------------------------------------------------------

    def measure(self, out: Outcome) -> None:
        q = self.q.git
        root = out.advertised
        info = q.object_info(root)
        m = out.measurements
        if info is None or info[1] != "commit":
            out.fail("structurally-invalid",
                     f"selection memory {out.id} is structurally invalid: selected root {root} is not a commit")
            return
        args = ["rev-list", "--objects", "--end-of-options", root]
        old = self.accepted_head(out)
        if old and q.object_info(old) is not None:
            args.append("^" + old)
        # the object listing runs beside the commit count: two Git processes, two cores
        import threading

        box: dict = {}
        lister = threading.Thread(target=lambda: box.setdefault("p", q.run(args)), daemon=True)
        lister.start()
        # a linear chain (the only valid kind) is walked once: its length is the commit count
        # (what `git rev-list --count` reports then), and validation reuses the walk
        source = streams.Source(quarantine_ref(out.actor, out.id), root, out.actor, out.id)
        out.walked = streams.walk_linear(self.q.repo, source)
        if out.walked is not None:
            m["Events"], ok = len(out.walked), True
        else:
            count = q.run(["rev-list", "--count", "--end-of-options", root])
            ok = count.returncode == 0
            m["Events"] = int(count.stdout.decode().strip() or 0) if ok else 0
        lister.join()
        listing = box["p"]
        if m["Events"] < 1 or not ok:
            out.fail("structurally-invalid", f"selection memory {out.id} is structurally invalid: "
                     f"selected root {root} is not a commit")
            return
        if self.over(out, "max-events", "maxEvents", m["Events"]):
            return
        if listing.returncode != 0:
            out.fail("structurally-invalid", f"selection memory {out.id} is structurally invalid: "
                     "objects are unavailable")
            return
        oids = sorted({line.split(" ", 1)[0] for line in listing.stdout.decode().splitlines() if line})
        m["Objects"] = len(oids)
        if not old:
            out.reachable = oids  # every object reachable from the root: reused by acceptance
        if self.over(out, "max-objects", "maxObjects", m["Objects"]):
            return
        sizes = [info[2] if info else 0 for info in q.infos_bulk(oids)]
        total = sum(sizes)
        if total <= self.budgets["maxTotalBytes"] and max(sizes, default=0) <= self.budgets["maxObjectBytes"]:
            m["TotalBytes"] += total
            m["LargestObjectBytes"] = max(m["LargestObjectBytes"], max(sizes, default=0))
            self.probe_main(oids)
            return
        for size in sizes:  # over a budget: find the object where it was first exceeded
            m["TotalBytes"] += size
            m["LargestObjectBytes"] = max(m["LargestObjectBytes"], size)
            if self.over(out, "max-object-bytes", "maxObjectBytes", m["LargestObjectBytes"]):
                return
            if self.over(out, "max-total-bytes", "maxTotalBytes", m["TotalBytes"]):
                return

    def probe_main(self, oids: list[str]) -> None:
        """Start asking the main store which of ``oids`` it already has (§9.10 step 2), so the
        answer is ready at acceptance; the Git process runs while validation uses Python."""
        import threading

        box: dict = {}

        def work():
            try:
                box["infos"] = self.repo.git.infos_bulk(oids, oneshot=True)
            except HnError:
                pass  # acceptance asks again

        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        self.probes.append((oids, thread, box))

    def absent_from_main(self, objs: list[str]) -> list[str]:
        """The objects of ``objs`` the main repository does not have, in order."""
        known: dict = {}
        for oids, thread, box in self.probes:
            thread.join()
            infos = box.get("infos")
            if infos is not None:
                known.update(zip(oids, (i is not None for i in infos)))
        todo = [o for o in objs if o not in known]
        if todo:
            known.update(zip(todo, (i is not None for i in self.repo.git.infos_bulk(todo, oneshot=True))))
        return [o for o in objs if not known[o]]

    def over(self, out: Outcome, flag: str, key: str, measured: int) -> bool:
        limit = self.budgets[key]
        if measured > limit:
            out.fail("over-budget", f"selection memory {out.id} exceeded {flag} budget: "
                     f"configured={limit} measured={measured}")
            return True
        return False

    def accepted_head(self, out: Outcome) -> str:
        ref = accepted_ref(self.remote, out.actor, out.id)
        proc = self.repo.git.run(["rev-parse", "--verify", "--quiet", ref])
        return proc.stdout.decode().strip() if proc.returncode == 0 else ""

    # -- validation (§9.7) ---------------------------------------------------------------------

    def validate(self, out: Outcome) -> None:
        ref = quarantine_ref(out.actor, out.id)
        source = streams.Source(ref, out.advertised, out.actor, out.id)
        try:
            out.memories = streams.read_chain(self.q.repo, source, out.walked)
        except ValidationError as exc:
            cause = _redact(exc.message, self.q.path, self.url, self.repo.git_dir)
            out.fail("structurally-invalid", f"selection memory {out.id} is structurally invalid: {cause}")

    # -- continuity (§9.8, §11(a)) --------------------------------------------------------------

    def continuity(self, wanted: list[Outcome]):
        try:
            accepted = streams.collect(self.repo)
        except HnError:
            accepted = None
        for out in wanted:
            if not out.alive:
                continue
            chain_commits = [m.commit for m in out.memories]
            old = self.accepted_head(out)
            if old and old != out.advertised and old not in chain_commits:
                out.fail("equivocation", f"selection memory {out.id} does not descend from accepted "
                         f"head {old}: advertised={out.advertised}",
                         recovery="inspect both chains; accepted memory history is never rolled back or rewritten")
                continue
            if accepted is None:
                continue
            ids = [m.memory_id for m in out.memories]
            mine = accepted_ref(self.remote, out.actor, out.id)
            for ref, chain in sorted(accepted.chains.items()):
                if ref == mine:
                    continue
                src = next((s for s in accepted.sources if s.ref == ref), None)
                if src is None or src.actor != out.actor or src.stream != out.id:
                    continue
                other = [m.memory_id for m in chain]
                for n in range(min(len(ids), len(other))):
                    if ids[n] != other[n]:
                        out.fail("equivocation", f"selection memory {out.id} diverges from {ref} at "
                                 f"sequence {n + 1}",
                                 recovery="inspect both chains; accepted memory history is never rolled back or rewritten")
                        break
                if not out.alive:
                    break
        return accepted

    # -- dependencies (§9.9) -------------------------------------------------------------------

    def classify(self, wanted: list[Outcome], accepted) -> None:
        live = [o for o in wanted if o.alive]
        if not live:
            return
        if accepted is None:
            for o in live:
                o.fail("relationship-invalid",
                       f"selection memory {o.id} cannot inspect accepted memory projection")
            return
        pending = self.repo.pending().denied
        resolver = Resolver(self.q.repo, pending=pending)
        owner = {}
        for o in live:
            for m in o.memories:
                owner[m.memory_id] = o
        union = {m.memory_id: m for m in accepted.memories}
        for o in live:
            for m in o.memories:
                union.setdefault(m.memory_id, m)
        proj = project(list(union.values()), Context("", "", "", None, ""), resolver)
        shallow = os.path.exists(os.path.join(self.repo.common_dir, "shallow"))
        for o in live:
            mine = {m.memory_id for m in o.memories}
            for d in proj.diagnostics:
                if d["memoryId"] in mine:
                    o.fail("relationship-invalid", f"selection memory {o.id} memory {d['memoryId']} "
                           f"({d['operation']}) has invalid relationship {d['code']}")
                    break
            if not o.alive:
                continue
            for mid in sorted(mine):
                row = proj.rows.get(mid)
                if row is not None and (row.applicability == "anchor-invalid" or row.evidence == "invalid"):
                    o.fail("relationship-invalid", f"selection memory {o.id} memory {mid} has invalid "
                           "anchor or evidence relationship")
                    break
            if not o.alive:
                continue
            for d in proj.dependencies:
                if d["ownerId"] not in mine or d["kind"] == "evidence-event":
                    continue
                recovery, selectors, ref = self.recovery_for(d, wanted, shallow)
                o.fail("dependency-missing", f"selection memory {o.id} memory {d['ownerId']} missing "
                       f"{d['kind']} dependency {d['missingId']}: {d['reason']}; recovery: {recovery}",
                       dependencyKind=d["kind"], missingId=d["missingId"], ownerMemoryId=d["ownerId"],
                       ownerStream=d["stream"], requiredRef=ref, requiredSelectors=selectors,
                       recovery=recovery)
                break
            if not o.alive:
                continue
            self.object_closure(o, resolver, shallow)
        # propagation: lifecycle targets and memory evidence in failed candidates
        changed = True
        while changed:
            changed = False
            for o in live:
                if not o.alive:
                    continue
                for m in o.memories:
                    env = m.envelope
                    needs = [env.target] if env.target else []
                    if env.record is not None:
                        needs += [e[len("memory:"):] for e in env.record.evidence or () if e.startswith("memory:")]
                    needs += [e[len("memory:"):] for e in env.evidence or () if e.startswith("memory:")]
                    for t in needs:
                        dep = owner.get(t)
                        if dep is not None and dep is not o and not dep.alive:
                            o.fail("dependency-missing", f"selection memory {o.id} depends on failed memory {t}",
                                   missingId=t, recovery=f"repair or replace exact selection {dep.id}")
                            changed = True
                            break
                    if not o.alive:
                        break

    def recovery_for(self, dep: dict, wanted: list[Outcome], shallow: bool):
        kind, missing = dep["kind"], dep["missingId"]
        suffix = " --recover-shallow" if shallow else ""
        if kind in ("lifecycle-target", "evidence-memory"):
            for o in wanted:
                if any(m.memory_id == missing for m in o.memories):
                    ref = f"refs/hn/memory/{o.actor}/{o.id[7:]}"
                    if o.id in self.sel.memories or self.sel.all:
                        text = (f"git hn sync {self.remote} --recover-shallow" if shallow else
                                f"repair the exact advertised dependency, then git hn sync {self.remote}")
                    else:
                        text = (f"git hn replication select {self.remote} --memory {o.id} (preserve "
                                f"existing selectors and budgets), then git hn sync {self.remote}{suffix}")
                    return text, [f"memory:{o.id}"], ref
            return (f"supplier for exact {kind} dependency {missing} is not derivable from signed "
                    "facts; select its exact supplier, then retry"), [], ""
        if shallow:
            return f"git hn sync {self.remote} --recover-shallow", [], ""
        return f"fetch a branch that contains {missing}, then git hn sync {self.remote}", [], ""

    def object_closure(self, o: Outcome, resolver: Resolver, shallow: bool) -> None:
        needs = self.exact_needs(o)
        reasons = {"anchor-commit": "anchor-commit-unavailable",
                   "anchor-path": "anchor-path-object-unavailable", "evidence-git": "object-unavailable"}
        for oid in sorted(needs):
            try:
                present = resolver.object_type(oid) is not None
            except Exception:  # noqa: BLE001 - a probe error is not "missing"; projection judged it
                present = True
            if present:
                continue
            kind = needs[oid]
            recovery = (f"git hn sync {self.remote} --recover-shallow" if shallow else
                        f"fetch a branch that contains {oid}, then git hn sync {self.remote}")
            o.fail("dependency-missing", f"selection memory {o.id} has unavailable exact Git dependency "
                   f"{oid}; recovery: {recovery}", dependencyKind=kind, missingId=oid, recovery=recovery)
            o.fields["reason"] = reasons[kind]
            return

    @staticmethod
    def exact_needs(o: Outcome) -> dict[str, str]:
        """Every exact Git object the selection's memories name: oid -> dependency kind."""
        needs: dict[str, str] = {}
        for m in o.memories:
            rec = m.envelope.record
            if rec is not None:
                needs.setdefault(rec.anchor.commit, "anchor-commit")
                for p in rec.anchor.paths:
                    if p.blob != "absent":
                        needs.setdefault(p.blob, "anchor-path")
                for e in rec.evidence or ():
                    if e.startswith("git:"):
                        needs.setdefault(e[4:], "evidence-git")
            for e in m.envelope.evidence or ():
                if e.startswith("git:"):
                    needs.setdefault(e[4:], "evidence-git")
        return needs

    # -- receipts, copy, promotion, completion (§9.10–§9.12) -----------------------------------

    def accept(self, promotable: list[Outcome]) -> None:
        repo, q = self.repo, self.q
        promotions = []
        for o in sorted(promotable, key=lambda o: (o.kind, o.id)):
            ref = accepted_ref(self.remote, o.actor, o.id)
            p = {"ref": ref, "newOid": o.advertised}
            old = self.accepted_head(o)
            if old:
                p["oldOid"] = old
            promotions.append(p)
        if all(getattr(o, "reachable", None) is not None for o in promotable):
            accepted_objs = sorted({oid for o in promotable for oid in o.reachable})
        else:
            listing = q.git.run(["rev-list", "--objects", "--end-of-options",
                                 *[o.advertised for o in promotable]])
            if listing.returncode != 0:
                raise _phase("object-copy preparation", self.remote)
            accepted_objs = sorted({l.split(" ", 1)[0] for l in listing.stdout.decode().splitlines() if l})
        from . import shallow

        extra, new_shallow = shallow.extra_objects(self)
        accepted_objs = sorted(set(accepted_objs) | set(extra))
        pending = self.absent_from_main(accepted_objs)
        txn = q.txn
        outcomes = [o.to_json() for o in self.result.sorted_outcomes() if o.kind == "memory"]
        try:
            rstate.write_anchor(repo, txn, self.remote, pending)
        except (HnError, OSError):
            raise _phase("pending acceptance anchoring", self.remote) from None
        self.residue_seam("after-pending-anchor", "interrupted after pending anchor before object copy")
        try:
            rstate.write_receipt(repo, txn, self.remote, "validated", outcomes, promotions, pending,
                                 accepted_objs)
        except (HnError, OSError):
            raise _phase("validated transaction recording", self.remote) from None
        if pending:
            self.say("copy objects")
            try:
                q.copy_to_main(pending, set(accepted_objs))
            except (OSError, HnError):
                raise _phase("object copy", self.remote) from None
        repo.git.close()  # a fresh batch process sees the new pack
        shallow.add_shallow(repo, new_shallow)
        for oid, info in zip(accepted_objs, repo.git.infos_bulk(accepted_objs)):
            if info is None:
                raise _residue(f"object verification failed at {oid}", self.remote)
        self.residue_seam("after-object-copy", "interrupted after object copy")
        try:
            self.q.remove()
        except HnError:
            raise _residue("quarantine cleanup failed", self.remote) from None
        self.residue_seam("before-promotion", "interrupted immediately before accepted-ref transaction")
        lines = ["start"]
        for p in sorted(promotions, key=lambda p: p["ref"]):
            if "oldOid" in p:
                lines.append(f"update {p['ref']} {p['newOid']} {p['oldOid']}")
            else:
                lines.append(f"create {p['ref']} {p['newOid']}")
        lines += ["prepare", "commit"]
        tx = repo.git.run(["update-ref", "--stdin"], input=("\n".join(lines) + "\n").encode(),
                          env={"HN_HOOK_ACTIVE": "1"})
        if tx.returncode != 0:
            raise _residue("accepted-ref transaction failed", self.remote)
        for o in promotable:
            o.status = "promoted"
        self.result.promoted = len(promotable)
        n = len(promotable)
        from . import index_refresh

        index_refresh.after_ref_change(repo)
        try:
            shallow.release(repo, [m.commit for o in promotable for m in o.memories])
            self.seam("before-completion-receipt", "")
        except _Seam:
            self.seam_error = (f"replication promotion succeeded for {n} selection(s), but completion "
                               f"recording failed for remote {self.remote}; refs and shallow boundaries "
                               f"are committed, trust operations remain fail-closed; retry git hn sync "
                               f"{self.remote} --recover-shallow")
            raise
        outcomes = [o.to_json() for o in self.result.sorted_outcomes() if o.kind == "memory"]
        try:
            rstate.write_receipt(repo, txn, self.remote, "complete", outcomes, promotions, pending,
                                 accepted_objs)
        except (HnError, OSError):
            raise PhaseError(f"replication promotion succeeded for {n} selection(s), but completion "
                             f"recording failed for remote {self.remote}; refs and shallow boundaries are "
                             f"committed, trust operations remain fail-closed; retry git hn sync "
                             f"{self.remote} --recover-shallow") from None
        try:
            rstate.remove_anchor(repo, txn)
        except OSError as exc:
            raise PhaseError(f"replication promotion succeeded for {n} selection(s), but completed "
                             f"pending-anchor cleanup failed for remote {self.remote}: {exc.strerror}") from None
        self.reconcile(txn, set(accepted_objs), n)
        repo.forget_pending()
        refresh_state(repo)


    def residue_seam(self, step: str, what: str) -> None:
        try:
            _seam(step)
        except _Seam:
            self.seam_error = _residue(what, self.remote).message
            raise

    def reconcile(self, txn: str, accepted: set, n: int) -> None:
        try:
            for other, (remote, objs) in rstate.load_anchors(self.repo).items():
                if other == txn or remote != self.remote or not accepted.issuperset(objs):
                    continue
                rec = rstate.load_receipt(self.repo, other) or {}
                rstate.write_receipt(self.repo, other, remote, "complete", rec.get("outcomes") or [],
                                     rec.get("promotions") or [], objs, rec.get("acceptedObjects") or objs)
                rstate.remove_anchor(self.repo, other)
        except (HnError, OSError) as exc:
            raise PhaseError(f"replication promotion succeeded for {n} selection(s), but pending "
                             f"transaction reconciliation failed for remote {self.remote}: {exc}") from None


def refresh_state(repo: Repo) -> None:
    """The verified state follows a promotion (§8.4 amendment): a failure leaves it to the next
    command, with the contract's warning, and never changes the outcome of the sync."""
    import sqlite3

    from ..store import statedb, stateview

    try:
        with stateview.current(repo):
            pass
    except (stateview.Unavailable, statedb.Unwritable):
        pass
    except statedb.WriteFailed as exc:
        stateview.warn(exc.cause)
    except (HnError, OSError, sqlite3.Error) as exc:
        cause = (exc.message if isinstance(exc, HnError) else getattr(exc, "strerror", None)
                 or "the memory state could not be written")
        try:
            stateview.discard(repo)
        except (HnError, OSError, statedb.Unwritable):
            pass
        sys.stderr.write(f"git-hn: warning: memory index removed: {cause}\n")

# ---------------------------------------------------------------------------------------------
# publication (§9.13)


def publish_streams(repo: Repo, remote: str, url: str) -> int:
    """Push every verified local stream with one explicit non-forced refspec per ref."""
    proc = repo.git.run(["for-each-ref", "--format=%(refname)", "refs/hn/memory"])
    if proc.returncode != 0:
        raise _phase("memory publication inspection", remote)
    refs = proc.stdout.decode("utf-8", "replace").split()
    if any(parse_local_ref(r) is None for r in refs):
        raise _phase("memory publication inspection", remote)
    if not refs:
        return 0
    try:
        # only the local streams and the accepted copies of those same streams (for §11(a)):
        # other remotes' streams are not published and need no verification here
        mine = {parse_local_ref(r) for r in refs}
        sources = [src for src in streams.list_sources(repo) if (src.actor, src.stream) in mine]
        collection = streams.collect(repo, sources)
    except HnError:
        raise _phase("memory publication", remote) from None
    verified = [r for r in refs if r in collection.chains]
    return publish_refs(repo, remote, verified)


def publish_refs(repo: Repo, remote: str, refs: list[str]) -> int:
    """One ``git push --porcelain`` with one explicit, non-forced refspec per local memory ref."""
    if not refs:
        return 0
    push = repo.git.run(["push", "--porcelain", "--end-of-options", remote, *[f"{r}:{r}" for r in refs]],
                        env={**remote_env(), "HN_HOOK_ACTIVE": "1"})
    published = 0
    rejected = False
    for line in push.stdout.decode("utf-8", "replace").splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and ":" in parts[1]:
            if parts[0] == "!":
                rejected = True
            else:
                published += 1
    if push.returncode != 0 or rejected:
        raise _phase("memory publication", remote)
    return published


__all__ = ["sync", "SyncResult", "publish_streams", "resolve_remote", "GitError"]
