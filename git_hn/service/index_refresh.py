"""Keeping the exported index consistent after memory refs change (CONTRACT §8.4, "Refresh
after ref changes").

The verified state is what git-hn serves from, and the commands that change memory refs update it
themselves. ``index-v0.json``, the upstream-schema export written by ``git hn memory index
rebuild``, is deleted: an absent index is always consistent, and rewriting it would cost its whole
size (up to 256 MiB) for any change. Derived files of earlier git-hn versions go too. This runs
after every append, so it imports only ``os``. Nothing is followed: a symlinked ``hn/memory``
directory is left alone (the next rebuild repairs it), and a failure to delete is reported as a
warning that never changes the command's exit status.
"""

from __future__ import annotations

import os
import stat
import sys

from ..store.repo import Repo

REFRESHED = ("index-v0.json", "recall-v0.sqlite", "recall-v0.seal")  # deleted when refs change


def after_ref_change(repo: Repo) -> None:
    mem = repo.index_dir()
    try:
        st = os.lstat(mem)
    except FileNotFoundError:
        return
    except OSError as exc:
        sys.stderr.write(f"git-hn: warning: memory index removed: {exc.strerror}\n")
        return
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        return
    for name in REFRESHED:
        path = os.path.join(mem, name)
        try:
            if stat.S_ISDIR(os.lstat(path).st_mode):
                import shutil

                shutil.rmtree(path)
            else:
                os.unlink(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            sys.stderr.write(f"git-hn: warning: memory index removed: {exc.strerror}\n")
