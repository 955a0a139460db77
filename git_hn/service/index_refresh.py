"""Keeping the private index consistent after memory refs change (CONTRACT §8.4, "Refresh after
ref changes").

``index-v0.json`` is deleted: an absent index is always consistent, and the next recall rebuilds
it from verified streams. The recall database is kept: it is bound to the source fingerprint of
its build (and to the index file it was built with), so it is never served for the changed refs,
and the next rebuild reads which signatures that build verified and checks only the others (an
incremental rebuild). This runs after every append, so it imports only
``os`` (the index modules cost more to import than the whole deletion). Nothing is followed: a
symlinked ``hn/memory`` directory is left alone (the next rebuild repairs it), and a failure to
delete is reported as a warning that never changes the command's exit status.
"""

from __future__ import annotations

import os
import stat
import sys

from ..store.repo import Repo

NAMES = ("index-v0.json", "recall-v0.sqlite", "recall-v0.seal")  # the private index files
REFRESHED = ("index-v0.json",)  # deleted when memory refs change


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
