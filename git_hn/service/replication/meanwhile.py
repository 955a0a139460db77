"""What a sync does while its quarantine fetch runs (issue 11: the main thread only waits then,
and one of the two cores is idle): the modules validation and promotion load, and the
quarantine's object reader. Nothing here reads what the fetch brings.
"""

from __future__ import annotations

from ...errors import HnError


_LATER = ("shutil", "...core.dependencies", "...core.projection", "...store.resolver", "...store.state",
          "...store.stateview", "...store.streams", "...store.verify", ".accepted", ".measure", ".publish",
          ".shallow",
          # and what promotion and the sync's end load (each was imported after the fetch, on the
          # command's critical path: ~6 ms together on a quiet machine)
          "...store.identity", "...store.given", "...store.promisor", "...store.workers",
          "...store.objects", "...store.reanchor", "..index_refresh", ".failures", ".atrisk", ".lost",
          ".tracked", ".moved", ".push_targets", ".remote_branches", "...core.invisible")


BULK_HASHING_FROM = 1024  # streams fetched: enough memories for ``hashlib`` to pay for itself


def prepare_validation(streams: int) -> None:
    """What validating the memories of ``streams`` fetched streams loads, loaded while the
    fetch runs (the main thread only waits then): the Ed25519 backend (~14 ms of imports), for
    many streams ``hashlib`` (each memory ID is a hash; for a few hundred memories the built-in
    hashes cost less than loading OpenSSL: ``core.hashing``), and the modules that measurement,
    validation, classification and publication use (imported only now, so that the fetch starts
    sooner)."""
    from importlib import import_module

    from ...core import hashing, keys

    keys.load()
    if streams >= BULK_HASHING_FROM:
        hashing.load_bulk()
    for name in _LATER:
        import_module(name, __package__ if name.startswith(".") else None)


def while_fetching(run, streams: int) -> None:
    """``Quarantine.fetch``'s ``meanwhile`` for the import ``run`` of ``streams`` streams: the
    quarantine's object reader is started, which measurement asks first (Git looks its packs up
    again for an object it does not find, so it reads the pack the fetch installs after it
    started), and ``prepare_validation``."""
    try:
        run.q.git.start_early((), batch=True)
    except (OSError, HnError):
        pass  # (started when first asked, which reports what fails)
    prepare_validation(streams)

