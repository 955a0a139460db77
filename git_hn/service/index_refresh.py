"""Keeping the private index consistent after memory refs change (CONTRACT §8.4, "Refresh after
ref changes").

Until the index is built incrementally, the safe choice is to delete it: an absent index is always
consistent, and the next reader rebuilds it from verified streams. A failure to delete is reported
as a warning and never changes the command's exit status.
"""

from __future__ import annotations

from ..store.repo import Repo


def after_ref_change(repo: Repo) -> None:
    from . import index

    index.after_ref_change(repo)
