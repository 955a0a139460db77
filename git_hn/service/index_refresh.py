"""Keeping the private index consistent after memory refs change (CONTRACT §8.4, "Refresh after
ref changes").

Until the index is built incrementally, the safe choice is to delete it: an absent index is always
consistent, and the next reader rebuilds it from verified streams. A failure to delete is reported
as a warning and never changes the command's exit status.
"""

from __future__ import annotations

import os
import sys

from ..store.repo import Repo


def after_ref_change(repo: Repo) -> None:
    path = repo.index_path()
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        sys.stderr.write(f"git-hn: warning: memory index removed: {exc.strerror}\n")
