"""Small lookups for people and shells: the signed author name of memories (terminal output) and
the verified memory IDs under a prefix (shell completion).

Both read the verified state (``stateview.serve``), or a full collection when the state cannot
answer, exactly as ``show`` finds memories. Trusts: what the state serves (payloads re-checked by
``View.load``; IDs from its sealed ``memories`` table).
"""

from __future__ import annotations

from ..store import stateview, streams
from ..store.repo import Repo


def author_names(repo: Repo, ids) -> dict[str, str]:
    """The signed author name (``actorName``) of each memory in ``ids``."""
    want = list(dict.fromkeys(ids))
    if not want:
        return {}

    def with_view(view) -> dict[str, str]:
        return {i: m.envelope.actor_name for i, m in view.load(want).items()}

    def full() -> dict[str, str]:
        keep = set(want)
        return {m.memory_id: m.envelope.actor_name for m in streams.collect(repo).memories
                if m.memory_id in keep}

    return stateview.serve(repo, with_view, full)


def memory_ids(repo: Repo, hexprefix: str, targets: bool = False) -> list[str]:
    """Sorted verified memory IDs starting with ``sha256:<hexprefix>``; with ``targets``, only
    records and supersedes (what ``supersede``, ``retract`` and ``challenge`` can name)."""
    from ..store.state import ROW_OPS

    ops = tuple(ROW_OPS) if targets else None
    low = "sha256:" + hexprefix

    def full() -> list[str]:
        return sorted(m.memory_id for m in streams.collect(repo).memories
                      if m.memory_id.startswith(low) and (ops is None or m.envelope.operation in ops))

    return stateview.serve(repo, lambda view: view.ids(hexprefix, ops), full)
