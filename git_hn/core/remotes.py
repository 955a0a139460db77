"""Remote names (CONTRACT §3.2), git-hn's ref namespaces and the file a remote's saved selection
is kept in: a leaf without ``re``, ``json`` or ``base64`` (issue 11).

The fetch hook and ``git hn sync`` check the remote's name, find its selection file and start the
remote's advertisement before they import anything else: ``re`` and the modules it brings
(``enum``, ``functools``) take 5–12 ms to import on a 2-core machine, and the round trip no longer
waits for them. (Measured on the whole hook: inside the noise, since its Python process is
CPU-bound; see docs/benchmarks.md.) ``core.grammar`` and ``core.selection`` re-export these
names: nothing else about them changes.
"""

from __future__ import annotations

LOCAL_PREFIX = "refs/hn/memory/"
REMOTES_PREFIX = "refs/hn/remotes/"

SELECTION_MAX_BYTES = 65_536  # a saved selection file's size limit (``core.selection.MAX_FILE``)

_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_REST = _FIRST | frozenset(".-")


def is_remote_name(s: str, memory: bool = True) -> bool:
    """CONTRACT §3.2: ``[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}``, not ending in ``.``, without ``..``;
    memory refs additionally refuse a ``.lock`` suffix."""
    if not isinstance(s, str) or not 1 <= len(s) <= 128 or s[0] not in _FIRST:
        return False
    if not _REST.issuperset(s) or s.endswith(".") or ".." in s:
        return False
    return not (memory and s.endswith(".lock"))


REMOTE_NAME_RULE = ("a remote git-hn replicates with is named by letters, digits and _ (then also . and -; "
                    "no .., no final ., at most 128): git remote rename OLD NEW")


_URLSAFE = str.maketrans("+/", "-_")


def selection_file_name(remote: str) -> str:
    """The file name of ``remote``'s saved selection (and of its learnt owners): the name in
    unpadded URL-safe base64, then ``.json``."""
    import binascii

    encoded = binascii.b2a_base64(remote.encode("utf-8"), newline=False).decode("ascii")
    return encoded.translate(_URLSAFE).rstrip("=") + ".json"


def refspec_star(pattern: str, ref: str) -> str | None:
    """What the ``*`` of a refspec side ``pattern`` stands for in ``ref`` ("" when ``pattern``
    has none and is ``ref``), or None when it does not name ``ref``; as Git's, at most one ``*``,
    matching any characters (the one matcher of the pre-push hint, the gate's branch question and
    the tracked tips)."""
    if "*" not in pattern:
        return "" if ref == pattern else None
    if pattern.count("*") > 1:
        return None
    head, tail = pattern.split("*")
    if len(ref) >= len(head) + len(tail) and ref.startswith(head) and ref.endswith(tail):
        return ref[len(head):len(ref) - len(tail)]
    return None


def tracking_ref(ref: str, remote: str, specs: list[str]) -> str | None:
    """The remote-tracking ref the first of ``specs`` (fetch refspecs) that maps ``ref`` under
    ``refs/remotes/<remote>/`` names for it, or None (what Git decides a non-fast-forward push of
    ``ref`` from: ``refused_branches``, and the record's hint, ``unpushed``)."""
    for spec in specs:
        src, sep, dst = spec.lstrip("+").partition(":")
        star = refspec_star(src, ref) if sep and src.count("*") == dst.count("*") else None
        if star is not None and dst.replace("*", star).startswith(f"refs/remotes/{remote}/"):
            return dst.replace("*", star)
    return None
