"""The process table, where the system has one (Linux ``/proc``): a process's
``/proc/<pid>/stat`` (``read_stat``), and killing a child process with every process below it
(``kill_tree``: a git past its time bound, with ssh and its ProxyCommand below it).

Owns: which processes belong to a tree being killed, and the order of its signals. Without
``/proc`` nothing below the child is found: the child alone is killed.

Trusts: the system's process table.
"""

from __future__ import annotations

import os


def read_stat(pid: int) -> tuple[bytes, list[str]]:
    """(command name, the fields after it) of ``/proc/<pid>/stat``; OSError where there is none."""
    with open(f"/proc/{pid}/stat", "rb") as fh:
        head, tail = fh.read().rsplit(b")", 1)
    return head.split(b"(", 1)[1], tail.decode("ascii").split()


def kill_tree(root: int) -> None:
    """Kill ``root`` (a child of this process's, not yet reaped) and first every process below
    it: a timed-out ``git ls-remote`` over ssh left ``sh -c ssh …``, ssh and its ProxyCommand
    running on, reparented to init (a trial)."""
    import _signal

    for pid in _descendants(root):
        try:
            os.kill(pid, _signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.kill(root, _signal.SIGKILL)
    except ProcessLookupError:
        pass


def _descendants(root: int) -> list[int]:
    """The processes below ``root``, deepest first (none without ``/proc``)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    below: dict[int, list[int]] = {}
    for name in names:
        if name.isdigit():
            try:
                below.setdefault(int(read_stat(int(name))[1][1]), []).append(int(name))
            except (OSError, IndexError, ValueError, UnicodeDecodeError):
                continue  # (ended meanwhile)
    found, todo = [], [root]
    while todo:
        children = below.get(todo.pop(), [])
        found.extend(children)
        todo.extend(children)
    return found[::-1]
