"""One import transaction (CONTRACT §9.4–§9.12, §11(a); issue 11): the order of its phases, and
validation, continuity and classification of what was fetched.

advertisement → up-to-date streams set aside (nothing fetched, measured or verified) → one
quarantine fetch for the rest → measurement → validation of the commits above each accepted tip
only, decoding each once → continuity (no rollback, no rewrite, no divergence from another
verified source of the stream) → classification of the new memories against the accepted set
(``core.dependencies``; in a partial clone, the anchored files it lacks are fetched and their
streams classified again: ``partial``) → acceptance (``promote``). Each selection has its own outcome; nothing
fetched is trusted before promotion. A divergence from the user's own stream (the same identity
appending in another clone) is weighed for ``sync --rebase`` by ``own_fork``.
"""

from __future__ import annotations

import os
from contextlib import ExitStack

from ...core.grammar import accepted_ref, quarantine_ref
from ...core.lines import lines_of
from ...errors import ConflictError, HnError, Interrupted, Signalled, ValidationError
from ...store import quarantine
from ...store import pending as pendingmod
from ...store import replication as rstate
from ...store.process import signals_held
from ...store.quarantine import Quarantine
from . import advertise, promote, quiet, serial, transfer
from .meanwhile import while_fetching
from .outcomes import SEAMS, Outcome, counted, phase, redact, residue


SPILL_FROM = 4096  # new memories from which validation holds them compact (``spilled``)


class Import:
    def __init__(self, repo, remote: str, url: str, selection, result, progress, recover_shallow: bool,
                 interrupt_after: str | None = None, publish: bool = False,
                 selection_bytes: bytes | None = None, by_name: bool = True, rebase: bool = False,
                 wait: float | None = None):
        self.repo, self.remote, self.url, self.sel = repo, remote, url, selection
        self.selection_bytes = selection_bytes  # the selection file as read (None: no file)
        self.result, self.progress, self.recover_shallow = result, progress, recover_shallow
        self.interrupt_after = interrupt_after if interrupt_after in SEAMS else None
        # (a test's Ctrl-C at a seam: the sync signals itself there and goes on, ``cli.commands``;
        # ``signal2``: again as the quarantine's removal begins; ``signal-lost``: its exception
        # dropped, as Python drops one raised while ``compile()`` runs)
        how, _, step = (interrupt_after or "").partition(":")
        self.signal_at, self.signals = (step or None, 2 if how == "signal2" else 1) \
            if how in ("signal", "signal2", "signal-lost") else (None, 0)
        self.lost = how == "signal-lost"
        self.signalled = False
        self.seam_error = ""
        self.budgets = selection.budgets
        self.known_main: dict[str, bool] = {}
        self.nothing_pending: list[str] | None = None  # ``pending.nothing_pending_files`` at the start
        self.accepted = None  # FromState / FromCollection, or None when the collection failed
        self.accepted_error = ""  # why it failed (said after §9.9's text)
        self.session = None
        self.fetches = 0
        self.extra_roots: list[str] = []
        self.anchor_trees: dict[str, set[str]] = {}  # memory ID -> trees fetched for its paths (``partial``)
        self.advertised_refs: dict | None = None
        self.local_refs: list[str] | None = None  # the user's own stream refs, when listed here
        self.q = None
        self.prepared = None  # the promotion's ref transaction, prepared while validating
        self.spilled = None  # the verified memories held whole outside the process (``spilled``)
        self.large = False  # SPILL_FROM new memories or more measured (``release``)
        self.publish = publish  # the publication phase follows (it reads ``advertised_refs``)
        self.by_name = by_name  # an exact selection may be fetched by name (``_fetch_exact``)
        self.rebase = rebase  # the user's own forked streams are rebased (``own_fork``)
        self.identity = None  # the active identity, loaded when a rebase signs with it
        self.wait = serial.ACCEPT_WAIT if wait is None or wait > 0 else 0.0  # (a hook's: 0, never holds Git)

    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text)

    # -- crash seams (§9.19): only when the caller passed one in ----------------------------------

    def seam(self, step: str, phase_name: str = "") -> None:
        self._signal_at(step)
        if self.interrupt_after == step:
            if phase_name:
                self.seam_error = f"replication {phase_name} failed for remote {self.remote}"
            raise Interrupted(f"injected replication interruption at {step}")

    def residue_seam(self, step: str, what: str) -> None:
        self._signal_at(step)
        if self.interrupt_after == step:
            self.seam_error = residue(what, self.remote).message
            raise Interrupted(f"injected replication interruption at {step}")

    def _signal_at(self, step: str) -> None:
        if self.signal_at == step or (step == "cleanup" and self.signals > 1 and self.signalled):
            import signal

            self.signalled = True
            if not self.lost:
                os.kill(os.getpid(), signal.SIGINT)
                return
            try:
                signal.raise_signal(signal.SIGINT)  # (its handler runs before this returns)
            except Signalled:
                pass

    # -- the transaction -----------------------------------------------------------------------

    def run(self) -> None:
        promote.repair_pending(self.repo, self.remote)

        killed = serial.clear_dead(self.repo, self.remote) is not None  # ref locks a killed sync left
        if killed or promote.state_interrupted(self.repo):
            promote.after_killed_promotion(self.repo)
        # nothing pending now (as remembered): then nothing is after this sync's transaction
        # either, which the sync remembers for the next command (``pending.remember_completed``)
        self.nothing_pending = pendingmod.nothing_pending_files(self.repo)
        quarantine.sweep(self.repo)  # what a killed sync left behind (never a live one's)
        answers: dict = {}
        heads = advertise.accepted_heads(self.repo, self.remote, answers)
        wanted = self._fetch_exact(heads)
        read = None  # (the advertisement, its other refs and its bound, when it was read)
        if wanted is None:  # an owner is unknown, or that fetch failed: the whole advertisement
            rstate.forget_quiet(self.repo, self.remote)  # this import decides anew (``quiet``)
            self.say("advertisement")
            stall = transfer.stall_timeout(self.repo)
            advertised, others = advertise.advertise(self.repo, self.url, self.remote, answers=answers,
                                                     timeout=stall, max_streams=self.sel.max_streams)
            read = (advertised, others, stall)
            self.advertised_refs = advertise.AdvertisedRefs(advertised)
            wanted = advertise.requests(self.sel, advertised, others, heads, self.result, self.remote)
            if not wanted:
                quiet.remember(self, answers, stall)
        if not wanted:
            # every selection is up to date: no transaction, no receipt. Fetched by name, the
            # sync leaves the remote's quiet record as it was: it read no advertisement to renew
            # it with, and it changed nothing the record hashes (the accepted refs and the
            # selection; the advertisement the fetch hook's wrapper asks again itself)
            return
        rstate.forget_quiet(self.repo, self.remote)  # something changed: what it hashes moves
        selected = sum(o.kind == "memory" for o in self.result.outcomes) + len(self.result.current)
        self.say(f"{len(wanted)} of {counted(selected, 'stream', 'streams')} changed")
        if self.q is None:
            try:  # only now: a sync with nothing to fetch (the fetch hook's usual case) costs none
                self.q = Quarantine(self.repo)
            except (OSError, HnError):
                raise phase("quarantine setup", self.remote) from None
        accepting = ExitStack()
        try:
            if self.fetches:  # fetched by ``_fetch_exact``
                transfer.check_fetched(self.q, wanted, self.remote)
            else:
                self.fetches = transfer.fetch_all(self.q, self.repo, self.url, self.remote, wanted,
                                                  self.budgets["maxTotalBytes"], self.say,
                                                  meanwhile=lambda: while_fetching(self, len(wanted)))
            self.seam("after-fetch", "quarantine fetch")
            Signalled.unless_lost()  # (one dropped during the fetch's imports: nothing measured or verified for it)
            from . import measure, shallow  # loaded while the fetch ran (``meanwhile.prepare_validation``)

            # from the accepted set read for continuity to the ref transaction, no sync with
            # another remote promotes: each would check its chain against the accepted copies
            # as they were before the other's promotion, and two diverging copies of one stream
            # were both accepted (every read then failed closed, and no sync said why)
            accepting.enter_context(serial.accepting(self.repo, self.remote, lambda: self.say(
                "waiting for a sync with another remote to accept its memories"), self.wait))
            serial.own_streams(self.repo, [(o.actor, o.id) for o in wanted if o.alive], accepting)
            self._ask_listing()  # (Git lists the refs while the promotion's transaction starts)
            promote.prepare(self, wanted)
            with self._accepted_set():  # the state's lock is held from here, never over the network
                self.say("measure")
                measure.measure_all(self, wanted)
                self.seam("after-measure", "quarantine measurement")
                news = sum(len(o.walked) for o in wanted if o.alive and o.walked is not None)
                self.large = news >= SPILL_FROM
                self.release()
                alive = sum(o.alive for o in wanted)
                self.say(f"verify {counted(news, 'new memory', 'new memories')} in "
                         f"{counted(alive, 'stream', 'streams')}")
                self.validate(wanted)
                self.release()
                self.continuity(wanted)
                self.classify(wanted)
                self.release()
            # what a shallow clone or a partial one lacks: fetched after the state's lock is released,
            # each classification after a fetch taking it again (``classify_again``; a review: a memory
            # record made during a slow recovery fetch waited its 2 s for the lock, then left the state
            # behind)
            if self.recover_shallow:
                shallow.fetch_missing(self, wanted)
            if self.partial:
                from . import partial

                partial.fetch_files(self, wanted)
            promotable = [o for o in wanted if o.alive]
            for o in promotable:
                o.status = "promotable"
            partial = [o for o in wanted if o.prefix and o.status == "dependency-missing"]
            for o in partial:  # the memories before the first missing dependency (issue 12)
                self.truncate(o)
            if shallow.is_shallow(self.repo):
                for o in wanted:
                    if o.status == "dependency-missing" and o.fields.get("dependencyKind"):
                        try:
                            shallow.record_gap(self.repo, self.remote, o)
                        except (HnError, OSError):
                            o.fields["diagnostic"] += "; durable shallow gap recording failed"
            if promotable or partial:
                self.say(f"promote {counted(len(promotable) + len(partial), 'stream', 'streams')}")
                promote.accept(self, promotable + partial)
        finally:
            # whole, whatever stop comes meanwhile (delivered once it is done): a review found a
            # stop that came during the prepared transaction's abort skip the quarantine's removal
            with signals_held():
                promote.discard_prepared(self)
                accepting.close()
                if self.spilled is not None:
                    self.spilled.close()
                self._signal_at("cleanup")  # (a test's second Ctrl-C, as the first's cleanup runs)
                try:
                    self.q.remove()
                except HnError:
                    if not self.result.import_error:
                        raise residue("quarantine cleanup failed", self.remote) from None
        if read is not None:  # every stream promoted whole: the next fetch that brings none starts no
            quiet.remember_promoted(self, answers, read[2], read[0], read[1])  # git-hn (``quiet``)

    def _fetch_exact(self, heads) -> list[Outcome] | None:
        """When every selected stream's owner is known (``advertise.exact_owners``), fetch exactly
        their refs in one ``git fetch`` into a quarantine, without listing the remote's other
        refs (protocol v2 asks for those names alone), and return the streams whose fetched tip
        is not their accepted tip (the quarantine is removed when there are none). When the
        publication phase follows, the same fetch reads the remote's copies of the user's own
        streams (one ref prefix per local actor), which that phase compares with.

        None, with no outcome recorded and no quarantine left, when an owner is unknown or that
        fetch fails in any way (a ref gone from the remote, a budget, a stall): the sync then
        reads the whole advertisement and words each outcome as it always does."""
        from ...core.grammar import LOCAL_PREFIX, local_ref, parse_local_ref
        from ...store.git import LOCAL_LISTING

        if self.recover_shallow or not self.by_name:
            return None
        owners = advertise.exact_owners(self.sel, heads, rstate.load_owners(self.repo, self.remote))
        if owners is None or len(owners) > self.sel.max_streams:
            return None  # (over max-streams: the advertisement tells how many actually changed)
        refs = {stream: local_ref(actor, stream) for stream, actor in owners.items()}
        actors: set[str] = set()
        if self.publish:
            listing = self.repo.git.run(list(LOCAL_LISTING))  # often started early (cli.main)
            names = lines_of(listing.stdout.decode("utf-8", "replace"))  # (not ``split``: U+00A0, U+2028)
            local = [parse_local_ref(r) for r in names]
            if listing.returncode != 0 or None in local:
                return None  # the publication phase reports it
            actors = {actor for actor, _stream in local}
            self.local_refs = names
        specs = sorted(set(refs.values())) + [f"+{LOCAL_PREFIX}{a}/*:refs/hn/quarantine/own/{a}/*"
                                               for a in sorted(actors)]
        self.say(f"fetch {counted(len(refs), 'stream', 'streams')}")
        try:
            self.q = Quarantine(self.repo)
        except (OSError, HnError):
            return None  # the advertisement may yet show nothing to fetch (no quarantine needed)
        tips = None
        try:
            verdict = self.q.fetch(self.url, specs, self.budgets["maxTotalBytes"] * len(refs),
                                   transfer.stall_timeout(self.repo), fetch_head=True,
                                   meanwhile=lambda: while_fetching(self, len(refs)))
            if not verdict:
                tips = advertise.fetched_tips(self.q.fetch_head(), self.repo.oid_hex_len,
                                              set(refs.values()), actors)
        finally:
            if tips is None:
                self._drop_quarantine()
        if tips is None:
            return None
        self.fetches = 1
        self.advertised_refs = tips  # ref -> tip: what publication compares the user's streams with
        advertised = {stream: [(owners[stream], tips[ref])] for stream, ref in refs.items()}
        wanted = advertise.requests(self.sel, advertised, set(), heads, self.result, self.remote)
        if not wanted:
            self._drop_quarantine()
        return wanted

    def _drop_quarantine(self) -> None:
        q, self.q = self.q, None
        if q is not None:
            try:
                with signals_held():  # (whole, as the import's own cleanup)
                    q.remove()
            except HnError:
                raise residue("quarantine cleanup failed", self.remote) from None

    def truncate(self, o: Outcome) -> None:
        """Make ``o`` promote only its first ``o.prefix`` new memories: the tip, the walked
        commits, the memories and the accepted objects end at the last of them. Its outcome
        stays ``dependency-missing`` (the stream is not complete), with a note of what was
        promoted."""
        from .groups import range_objects

        keep = o.memories[:o.prefix]
        tip = keep[-1].commit
        root_first = list(reversed(o.walked or []))
        at = next(i for i, (c, _t) in enumerate(root_first) if c == tip)
        walked = root_first[:at + 1]
        o.reachable = range_objects(self, walked, o.old)
        o.memories, o.walked, o.advertised = keep, list(reversed(walked)), tip
        o.fields["diagnostic"] += f"; promoted the {counted(len(keep), 'memory', 'memories')} before it"

    # -- the accepted set ----------------------------------------------------------------------

    def _accepted_set(self):
        """A context in which ``self.accepted`` answers for the main repository's verified
        memories: the state (brought up to date), or a full collection when the state cannot
        answer; None when the accepted set does not verify (then nothing can be classified).
        A memory ref of this clone that does not verify (``streams.InvalidSource``) fails the
        import as a whole, its line saying what to do here: every stream was judged against it (a
        trial: a tampered accepted ref was called the remote's equivocation, and the user's own
        stream relationship-invalid, "whoever pushed it can push a valid one in its place").
        Only the opening is judged here; what the body raises leaves as it was raised (a review:
        each handler yielded again, so an error of one of their types from the body would have
        become contextlib's "generator didn't stop after throw()")."""
        from contextlib import contextmanager

        from ...store import statedb, stateview, streams
        from . import accepted as acceptedmod

        @contextmanager
        def opened():
            with ExitStack() as stack:
                collect = False
                try:  # (the fetch hook's import never waits for the state: it would hold up Git)
                    wait = statedb.LOCK_WAIT if self.wait else 0
                    view = stack.enter_context(stateview.current(self.repo, wait=wait))
                    self.accepted = acceptedmod.FromState(view)
                except (stateview.Unavailable, statedb.Unwritable, statedb.WriteFailed):
                    collect = True
                except ConflictError:
                    if self.wait:
                        raise
                    raise ConflictError(f"memory import from {self.remote} skipped: another git-hn is updating "
                                        f"the memory state; git hn sync {self.remote} imports it") from None
                except streams.InvalidSource:
                    raise  # (this clone's ref, not the remote's)
                except ValidationError as exc:
                    self.accepted, self.accepted_error = None, exc.message
                if collect:
                    try:
                        self.accepted = acceptedmod.FromCollection(streams.collect(self.repo))
                    except streams.InvalidSource:
                        raise
                    except HnError as exc:
                        self.accepted, self.accepted_error = None, exc.message
                yield

        return opened()

    def _ask_listing(self) -> None:
        """Start the memory ref listing that the accepted set's opening asks first
        (``stateview.current``), under the acceptance lock and the stream locks: what it lists
        is then what the state is brought to, as when the opening asks it itself (Git's answer
        is collected there: ``Git.run``). Its process starts before the promotion's ref
        transaction is prepared (``promote.prepare``: a process of its own, ~0.6 ms of this
        thread), so that the two overlap (sync-100, f133)."""
        from ...store.git import MEMORY_LISTING

        try:
            self.repo.git.ask_early(MEMORY_LISTING)
        except (OSError, HnError):
            pass  # (asked by the opening itself, which reports what fails)

    def classify_again(self, wanted: list[Outcome], targets: list[Outcome]) -> None:
        """``classify`` for ``targets`` after the accepted set's context ended (the state's lock is
        taken again: it was released for a fetch)."""
        with self._accepted_set():
            self.classify(wanted, targets)

    @property
    def partial(self) -> bool:
        """Whether this is a partial clone (``store.promisor``): its missing files are fetched."""
        from ...store.promisor import is_partial

        return is_partial(self.repo.common_dir)

    def accepted_length(self, o: Outcome) -> int | None:
        if self.accepted is None:
            return None
        got = self.accepted.source(accepted_ref(self.remote, o.actor, o.id))
        return None if got is None else got[0]

    # -- the main store's objects ----------------------------------------------------------------

    def probe_main(self, oids: list[str]) -> dict[str, bool]:
        """Which of ``oids`` the main repository has (one batch-check, remembered)."""
        self._join_probe()
        todo = [o for o in oids if o not in self.known_main]
        if todo:
            self.known_main.update(zip(todo, self.repo.git.presence(todo)))
        return self.known_main

    def probe_main_later(self, oids: list[str]) -> None:
        """``probe_main`` in a background thread (the Git process works while Python does)."""
        from ...store.threads import Background

        self._join_probe()
        todo = [o for o in oids if o not in self.known_main]
        if not todo:
            return
        known = self.known_main

        def work():  # (into ``known_main`` itself, which nothing reads before ``_join_probe``: a
            try:     # dict of its own held 400,000 answers twice over for a moment at 100k memories)
                known.update(zip(todo, self.repo.git.presence(todo)))
            except HnError:
                pass  # asked again when needed

        self._probe = (Background(work), None)

    def _join_probe(self) -> None:
        probe = getattr(self, "_probe", None)
        if probe is not None:
            probe[0].join()
            self._probe = None

    def absent_from_main(self, objs: list[str]) -> list[str]:
        known = self.probe_main(objs)
        return [o for o in objs if not known[o]]

    # -- validation (§9.7): only what is above the accepted tip ----------------------------------

    def validate(self, wanted: list[Outcome]) -> None:
        """Verify each stream's new commits (all streams in one pipeline), then its links."""
        from ...core.chain import VerifiedMemory, check_link
        from ...store import verify
        from . import measure

        plans = []
        # commits of new streams already verified here (a local stream imported back), asked at once,
        # with the tips of those that continue their accepted tip (``held``: the summary's words)
        known_all = self.accepted.known([c for o in wanted if o.alive and o.walked is not None and not o.old
                                         for c, _t in o.walked] + [o.walked[0][0] for o in wanted if o.alive
                                                                   and o.walked and o.descends]) \
            if self.accepted is not None else {}
        for o in wanted:
            if not o.alive:
                continue
            if o.walked is None:  # the walk failed: read it again to word the error exactly
                self._validate_full(o)
                continue
            commits = list(reversed(o.walked))  # root first
            base = ("", 0, "")
            if o.descends:
                got = self.accepted.source(accepted_ref(self.remote, o.actor, o.id)) if self.accepted else None
                if got is None:
                    self._validate_full(o)
                    continue
                base = (o.old, got[0], got[1])
                tip = known_all.get(o.walked[0][0]) if o.walked else None
                if tip is not None and (tip[0], tip[2], tip[3]) == (got[0] + len(o.walked), o.actor, o.id):
                    o.held = len(o.walked)
            elif not o.old and self.accepted is not None:
                # already verified here (a local stream imported back): only what is above. A
                # known commit counts only as the stream it was signed for: a hostile remote may
                # advertise a verified chain under another actor's or stream's ref (§4.2 step 6)
                known = {c: v for c, v in known_all.items() if (v[2], v[3]) == (o.actor, o.id)}
                k = 0
                while k < len(commits) and commits[k][0] in known:
                    k += 1
                if k:
                    seq, mid, _actor, _stream = known[commits[k - 1][0]]
                    if seq == k:
                        base = (commits[k - 1][0], k, mid)
                        commits = commits[k:]
                        o.held = k
            plans.append((o, commits, base))
        if sum(len(c) for _o, c, _b in plans) >= SPILL_FROM:  # (held compact until their transaction)
            from . import spilled

            self.spilled = spilled.start()
        results = verify.verify_many(self.q.repo, [(quarantine_ref(o.actor, o.id), c) for o, c, _b in plans],
                                      getattr(self, "prefetched", None),
                                      progress=lambda done, total: self.say(f"verified {done}/{total} memories"),
                                      lean=True,  # (what promotion needs of each memory, and no more)
                                      keep=self.spilled.keep if self.spilled is not None else None)
        measure.keep_trees(self)
        for o, commits, (base_commit, base_seq, base_id) in plans:
            got = results[quarantine_ref(o.actor, o.id)]
            if isinstance(got, ValidationError):
                o.invalid(redact(got.message, self.q.path, self.url, self.repo.git_dir))
                continue
            prev = VerifiedMemory(base_id, base_commit, None, b"", "") if base_seq else None
            ref = quarantine_ref(o.actor, o.id)
            try:
                for i, mem in enumerate(got, base_seq):
                    check_link(ref, o.actor, o.id, i, mem, prev)
                    prev = mem
            except ValidationError as exc:
                o.invalid(redact(exc.message, self.q.path, self.url, self.repo.git_dir))
                continue
            o.memories = got
            o.base = (base_commit, base_seq)
            if o.old and not o.descends:  # valid, but it rolls back or rewrites accepted history
                self._not_descending(o)

    def release(self) -> None:
        """Between the phases of a large import: what they freed back to the system (``trim``)."""
        if self.large:
            from ...store import trim

            trim.release()

    def full(self, o, memories: list | None = None, signed: bool = False) -> list:
        """``memories`` of ``o`` (all of them by default) whole (``spilled``), in their order;
        with ``signed``, compact with their signatures."""
        memories = o.memories if memories is None else memories
        if self.spilled is None:
            return list(memories)
        return self.spilled.full(quarantine_ref(o.actor, o.id), memories, signed)

    def loading(self):
        """The context in which the state's inserts read the memories of a transaction back whole."""
        from ...store import insertion

        return insertion.loading(None if self.spilled is None else
                                 lambda mems: self.spilled.full_of_any(mems, quarantine_ref))

    def _validate_full(self, o: Outcome) -> None:
        """§4.2 over the whole fetched chain (a chain the fast walk could not follow)."""
        from ...store import streams

        source = streams.Source(quarantine_ref(o.actor, o.id), o.advertised, o.actor, o.id)
        try:
            o.memories = streams.read_chain(self.q.repo, source)
        except ValidationError as exc:
            o.invalid(redact(exc.message, self.q.path, self.url, self.repo.git_dir))
            return
        o.base = ("", 0)
        chain_commits = [m.commit for m in o.memories]
        if o.old and o.old not in chain_commits:
            self._not_descending(o)
        elif o.old:  # it descends after all: keep only what is above the accepted tip
            k = chain_commits.index(o.old) + 1
            o.base = (o.old, k)
            o.memories = o.memories[k:]
            o.descends = True

    def _not_descending(self, o: Outcome) -> None:
        """``o`` (its whole chain in ``o.memories``) does not descend from its accepted head:
        §11(a)'s equivocation, said as what it is (``seen.seen_history``, imported only then)."""
        from .seen import seen_history

        ref = accepted_ref(self.remote, o.actor, o.id)
        got = self.accepted.source(ref) if self.accepted is not None else None
        ids = [m.memory_id for m in o.memories]
        accepted = self.accepted.ids_at(ref, list(range(1, min(got[0], len(ids)) + 1))) if got else {}
        o.equivocates(f"selection memory {o.id} does not descend from accepted head {o.old}: advertised={o.advertised}",
                      *seen_history(self.remote, accepted, got[0] if got else 0, ids))

    # -- continuity (§9.8, §11(a)) ----------------------------------------------------------------

    def continuity(self, wanted: list[Outcome]) -> None:
        """Every other verified source of the same stream must agree at every common sequence."""
        if self.accepted is None:
            return
        others = self.accepted.others_of([(o.actor, o.id, accepted_ref(self.remote, o.actor, o.id))
                                          for o in wanted if o.alive])
        for o in wanted:
            if not o.alive or not others[(o.actor, o.id)]:  # (no other source: nothing to agree with)
                continue
            base_seq = o.base[1]
            ids = {base_seq + i: m.memory_id for i, m in enumerate(o.memories, 1)}
            parted = []  # (ref, first sequence where it differs)
            for ref in others[(o.actor, o.id)]:
                theirs = self.accepted.ids_at(ref, sorted(ids))
                diff = [n for n in sorted(theirs) if theirs[n] != ids[n]]
                if diff:
                    parted.append((ref, diff[0]))
            if parted:
                ref, n = parted[0]
                o.equivocates(f"selection memory {o.id} diverges from {ref} at sequence {n}", "diverged")
                from .own_fork import own_fork  # (only for a divergence)

                own_fork(self, o, parted)

    # -- dependencies (§9.9) -------------------------------------------------------------------

    def classify(self, wanted: list[Outcome], targets: list[Outcome] | None = None) -> None:
        from ...core import dependencies
        from ...core.projection import Context, project
        from ...store.resolver import Resolver

        live = [o for o in (targets if targets is not None else wanted) if o.alive]
        if not live:
            return
        if self.accepted is None:
            for o in live:
                o.fail("relationship-invalid", f"selection memory {o.id} cannot inspect accepted memory projection"
                       + (f": {self.accepted_error}" if self.accepted_error else ""))
            return
        selected = set(self.sel.memories)
        cands = [dependencies.Candidate(o.id, o.actor, tuple(o.memories), self.sel.all or o.id in selected)
                 for o in live]
        holders = {}  # memory ID -> the stream holding it (one value per stream, shared)
        for o in wanted:
            holder = dependencies.Candidate(o.id, o.actor, (), self.sel.all or o.id in selected)
            holders.update(dict.fromkeys((m.memory_id for m in o.memories), holder))
        mine = {m.memory_id: m for c in cands for m in c.memories}
        # the closure the candidates' relationships need: the memories they target, wherever
        names = {m.envelope.target for m in mine.values() if m.envelope.target} - set(mine)
        union = dict(mine)
        union.update(self.accepted.load(names))
        cited = {t for m in mine.values() for t in dependencies.memory_needs(m)}
        known = set(union) | self.accepted.present(cited - set(union))
        resolver = Resolver(self.q.repo, pending=self.repo.pending().denied)
        resolver.prefetch_types({oid for c in cands for oid in dependencies.exact_needs(c.memories)})
        proj = project(list(union.values()), Context("", "", "", None, ""), resolver, known=known)

        def present(oid: str) -> bool:
            try:
                return resolver.object_type(oid) is not None
            except Exception:  # noqa: BLE001 - a probe error is not "missing"; projection judged it
                return True

        shallow = self.repo.is_shallow()
        if shallow and (not self.sel.saved or self.sel.all):  # §9.18 refuses --recover-shallow there
            shallow = dependencies.DEEPEN
        failed = dependencies.classify(cands, proj, present, holders, remote=self.remote, shallow=shallow,
                                       partial=self.partial)
        for o in live:
            f = failed.get(o.id)
            if f is not None:
                o.fail(f.status, f.diagnostic, **f.fields)
                o.prefix = f.prefix if o.memories and o.walked is not None else 0

