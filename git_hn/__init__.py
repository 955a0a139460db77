"""git-hn: signed, verifiable project memory carried by Git (protocol hn-memory/0).

The one thing done on import: ``core.tuples`` is given the compiler of its named-tuple
constructors, so that the protocol core itself never compiles code (``tests/unit/
test_core_purity.py``) while every command still makes its ~32 named-tuple classes without
compiling each constructor from source.
"""

from .core import tuples as _tuples


def _compile_new(n: int):
    """The code of ``lambda _cls, _0, …, _n-1: _tuple_new(_cls, (_0, …, _n-1))`` (from integers
    only: nothing outside this function reaches the compiled text)."""
    args = ", ".join(f"_{i}" for i in range(n)) + ("," if n == 1 else "")
    return eval(f"lambda _cls, {args}: _tuple_new(_cls, ({args}))",  # noqa: S307 - constant text
                {"_tuple_new": tuple.__new__, "__builtins__": {}}).__code__


_tuples.compile_new = _compile_new
