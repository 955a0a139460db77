"""What a sync does while its quarantine fetch runs (issue 11: the main thread only waits then,
and one of the two cores is idle): the modules validation and promotion load (and, for many
streams, the commit headers' expression), the quarantine's object reader, and a verified state
that does not exist yet. Nothing here reads what the fetch brings.
"""

from __future__ import annotations

from ...errors import HnError


_LATER = ("...core.dependencies", "...core.projection", "...store.resolver", "...store.state",
          "...store.stateview", "...store.streams", "...store.verify", ".accepted", ".measure", ".publish",
          ".shallow",
          # and what promotion and the sync's end load (each was imported after the fetch, on the
          # command's critical path: ~6 ms together on a quiet machine)
          "...store.identity", "...store.given", "...store.promisor", "...store.workers",
          "...store.objects", "...store.reanchor", "..index_refresh", ".failures", ".atrisk", ".lost",
          ".tracked", ".moved", ".push_targets", ".remote_branches", "...core.invisible",
          # and the four a sync-100 still imported after its fetch (f138: ~1.2 ms of its critical
          # path): the promotion's plan, the URL note, the sync's warning of lost streams
          ".groups", ".renamed", "..lost_streams",
          # and the count of what it accepted on commits not merged here (f163)
          ".not_merged", "...core.not_merged")


MANY_STREAMS = 32  # streams fetched: at least that many new commits (signatures checked on threads)


BULK_HASHING_FROM = 1024  # streams fetched: enough memories for ``hashlib`` to pay for itself


def prepare_validation(streams: int) -> None:
    """What validating the memories of ``streams`` fetched streams loads, loaded while the
    fetch runs (the main thread only waits then): the Ed25519 backend (~14 ms of imports), for
    many streams ``hashlib`` (each memory ID is a hash; for a few hundred memories the built-in
    hashes cost less than loading OpenSSL: ``core.hashing``), from ``MANY_STREAMS`` streams
    ``threading`` (the signature checks' threads) and the commit headers' expression
    (``chain.compile_header_check``), and the modules that measurement, validation,
    classification, promotion and publication use (imported only now, so that the fetch starts
    sooner)."""
    from importlib import import_module

    from ...core import chain, hashing, keys

    keys.load()
    if streams >= BULK_HASHING_FROM:
        hashing.load_bulk()
    if streams >= MANY_STREAMS:
        chain.compile_header_check()
    for name in _LATER + (("threading",) if streams >= MANY_STREAMS else ()):  # (``store.workers``)
        import_module(name, __package__ if name.startswith(".") else None)


def while_fetching(run, streams: int) -> None:
    """``Quarantine.fetch``'s ``meanwhile`` for the import ``run`` of ``streams`` streams: the
    quarantine's object reader is started, which measurement asks first (Git looks its packs up
    again for an object it does not find, so it reads the pack the fetch installs after it
    started), ``prepare_validation``, and ``state_ahead``."""
    try:
        run.q.git.start_early((), batch=True)
    except (OSError, HnError):
        pass  # (started when first asked, which reports what fails)
    prepare_validation(streams)
    state_ahead(run.repo)


def state_ahead(repo) -> None:
    """The verified state made while the fetch runs, when it does not exist and that verifies
    nothing: no memory ref is listed (a fresh clone's first sync: creating the state cost ~9 ms
    after the fetch, on the sync's critical path). The state's lock is held only for
    that moment, never across the network (the fetch goes on meanwhile; nothing waits on it), and
    not waited for: busy, the state is brought up after the fetch, as before. Anything to verify
    is left for then too (the fetch's watchdog and Git's progress wait while this runs). After the
    fetch the import lists the refs again, under the acceptance lock, and finds the state current
    unless a ref moved meanwhile (then it updates it, as before)."""
    import os

    from ...store import statedb, stateview, streams

    if os.path.lexists(statedb.paths(repo)[1]):
        return  # (a state to bring up, if any, is checked after the fetch: nothing is gained here)
    try:
        listing = streams.list_sources(repo)
    except (OSError, HnError):
        return  # (said after the fetch, where it is read again)
    if not listing:
        stateview.catch_up(repo, wait=0, listing=listing)

