"""File names given as arguments, as the file system has them (git-hn).

``cli.main`` reads argv as UTF-8 whatever the locale: Git, the file system of a repository and
the signed protocol all spell text and paths in UTF-8, and under ``LC_ALL=en_US.ISO-8859-1``
Python's own decoding turned the bytes of ``--path café.txt`` into ``cafÃ©.txt``, which was then
signed (*altered input signed*). A byte that is not UTF-8 is kept as a lone surrogate
(``surrogateescape``), as Python does in a UTF-8 locale, and every signed field refuses it.

A file an argument names (``--content-file``, ``--input``, ``--output``, ``import FILE``, the
identity files, ``mcp --repo``) is opened through ``os_path``, which gives back the argument's
own bytes in the form the ``os`` functions take in this locale. Messages keep quoting the
argument as given. Pure: no I/O.
"""

from __future__ import annotations

import os


def os_path(arg: str) -> str:
    """``arg`` (text read as UTF-8, ``surrogateescape``) as a file name for ``os`` and ``open``:
    the same string in a UTF-8 locale; in another one, the string whose encoding in the locale's
    codec gives back ``arg``'s bytes."""
    return os.fsdecode(arg.encode("utf-8", "surrogateescape"))
