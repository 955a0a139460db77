"""Questions about many objects that the persistent reader (``store.reader``) would answer slowly,
each in processes of its own that ``store.git``'s runner (``git``: a ``store.git.Git``) delegates
to, started in its directory and environment (``Git._listed_presence``).

Owns: telling which of many object IDs a store holds by listing the whole store once
(``listed_presence``, ``cat-file --batch-all-objects``: Git rescans its packs for every missing
object it is asked about), when that is the cheaper way (``Git.LIST_FROM`` questions or more, a
store at most ``Git.LIST_RATIO`` times their number, no alternates). Trusts: the ``git`` found
on PATH, and its listing only as object IDs compared with full lowercase ones
(any other question, or an unusual answer, goes back to the caller's object-by-object way).
"""

from __future__ import annotations

from .process import DEVNULL, PIPE, not_started, popen

_HEX = frozenset("0123456789abcdef")


def listed_presence(git, oids: list[str]) -> list[bool] | None:
    """``presence`` by listing the store, or None when that is not the cheaper way (or an
    answer is unusual: the caller then asks object by object)."""
    if {len(o) for o in oids} - {40, 64} or not all(map(_HEX.issuperset, oids)):
        return None  # only full lowercase object IDs compare equal to the listing's lines
    proc = git.run(["count-objects", "-v"])
    if proc.returncode != 0:
        return None
    counts = {}
    for line in proc.stdout.decode("ascii", "replace").splitlines():
        key, _sep, value = line.partition(": ")
        if key == "alternate":
            return None  # their objects are not counted: their size is unknown
        counts[key] = value
    try:
        stored = int(counts["count"]) + int(counts["in-pack"])
    except (KeyError, ValueError):
        return None
    if stored > git.LIST_RATIO * len(oids):
        return None
    missing = set(oids)  # (what is not listed: no copies of the names, no set of those found)
    try:
        proc = popen(["git", "cat-file", "--batch-all-objects", "--batch-check=%(objectname)",
                      "--unordered"], stdin=DEVNULL, stdout=PIPE, stderr=DEVNULL, cwd=git.cwd,
                     env=git.env)
    except OSError as exc:
        raise not_started(["cat-file"], exc) from None
    with proc:
        rest = b""
        while True:
            chunk = proc.stdout.read(1 << 20)
            if not chunk:
                break
            data = rest + chunk
            cut = data.rfind(b"\n") + 1
            missing.difference_update(data[:cut].decode("ascii", "replace").split("\n"))
            rest = data[cut:]
    if proc.returncode != 0 or rest:
        return None
    return [o not in missing for o in oids]
