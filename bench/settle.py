"""Letting the file system forget a large deletion before anything is timed.

On ext4 without a journal (the benchmark machines' ``/`` is such a file system), the inode
allocator skips every free inode whose deletion is less than a minute old (``recently_deleted``
in the kernel's ``fs/ext4/ialloc.c``: 60 s, or 360 s while the inode table block is not yet
written back), looking each one up on the way. For a minute after thousands of files are removed
(a clone deleted, 10,000 loose refs packed, loose objects pruned), every file or directory created
in the same block group walks over all of them: measured here, a plain ``git fetch`` of 100 refs
into a new repository took 230-310 ms right after 20,000 files were removed, 85-100 ms a minute
later, and a ``git update-ref`` of 100 new refs spent 90 % of its time in that walk. Both sides of
a ratio pay it, each in proportion to the files it creates, and less with every second: a run
timed in that minute measures the deletion, not the command.

``settle`` writes dirty blocks back (``os.sync``) and waits the minute out, only on such a file
system (``/sys/fs/ext4/<device>/journal_task`` reads ``<none>``); elsewhere it returns at once.
"""

from __future__ import annotations

import os
import time

WINDOW = 61.0  # seconds: RECENTCY_MIN (60) once the inode tables are written back, and one more


def without_journal(path: str) -> bool:
    """Whether ``path`` is on an ext4 file system mounted without a journal."""
    dev = os.stat(path).st_dev
    wanted = f"{os.major(dev)}:{os.minor(dev)}"
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields = line.split()
                if fields[2] != wanted or "-" not in fields:
                    continue
                rest = fields[fields.index("-") + 1:]
                if rest[0] != "ext4":
                    return False
                name = os.path.basename(rest[1])
                with open(f"/sys/fs/ext4/{name}/journal_task") as j:
                    return j.read().strip() == "<none>"
    except OSError:
        return False
    return False


def settle(path: str, seconds: float = WINDOW) -> float:
    """After a large deletion under ``path``'s file system, before timing anything: the seconds
    waited (0 where inode allocation does not remember deletions)."""
    if seconds <= 0 or not without_journal(path):
        return 0.0
    t0 = time.monotonic()
    os.sync()
    time.sleep(seconds)
    return time.monotonic() - t0
