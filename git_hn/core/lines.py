"""The lines of Git's output, of a hook's input and of git-hn's own line files: split on "\n"
alone (CONTRACT §3.5: names come from hostile components).

``str.splitlines`` also splits on U+0085, U+2028 and U+2029 (and \v, \f, \x1c–\x1e, \r), and
Git allows the first three in ref names, branch names, paths and configuration values. An
audit: a ref ``refs/hn/x<U+2028>y`` that anyone with push access created failed every
teammate's sync ("replication advertisement validation failed"), and a branch
``main<U+2028>z`` read as a second line ``z`` … replaced main's tip. Pure; imports nothing.
"""

from __future__ import annotations


def lines_of(text: str) -> list[str]:
    """``text``'s lines, split on "\\n" alone, without the empty piece after a final newline."""
    out = text.split("\n")
    if out[-1] == "":
        out.pop()
    return out
