"""``core.tuples.NamedTuple`` makes what ``typing.NamedTuple`` makes (it exists so that no command
imports ``typing``): the same fields, defaults, methods, docstring, pickling and errors."""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing

import pytest

from git_hn.core.tuples import NamedTuple


class Point(NamedTuple):
    """A point."""

    x: int
    y: int = 0
    label: str = ""

    def moved(self, dx: int) -> "Point":
        return self._replace(x=self.x + dx)

    @property
    def norm1(self) -> int:
        return abs(self.x) + abs(self.y)


class TypingPoint(typing.NamedTuple):
    """A point."""

    x: int
    y: int = 0
    label: str = ""


def test_the_class_is_the_same_shape_as_typing_namedtuple():
    assert Point._fields == TypingPoint._fields == ("x", "y", "label")
    assert Point._field_defaults == TypingPoint._field_defaults == {"y": 0, "label": ""}
    assert list(Point.__annotations__) == list(TypingPoint.__annotations__)  # strings here (PEP 563)
    assert Point.__doc__ == "A point."
    assert Point.__module__ == __name__ and Point.__qualname__ == "Point"
    assert Point.__mro__ == (Point, tuple, object)
    p = Point(3)
    assert p == (3, 0, "") == TypingPoint(3)
    assert p.moved(2) == Point(5, 0, "") and p.norm1 == 3
    assert p._asdict() == {"x": 3, "y": 0, "label": ""}
    assert Point._make([1, 2, "a"]).label == "a"
    assert repr(Point(1, 2, "a")) == "Point(x=1, y=2, label='a')"
    assert pickle.loads(pickle.dumps(Point(1, 2, "b"))) == Point(1, 2, "b")
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(AttributeError):
        p.x = 4  # noqa: B010 - immutable, as a tuple


def test_a_field_without_a_default_after_one_with_a_default_is_refused():
    with pytest.raises(TypeError, match="cannot follow default"):
        class Bad(NamedTuple):
            a: int = 1
            b: int


def test_namedtuple_internals_cannot_be_overwritten():
    with pytest.raises(AttributeError, match="_replace"):
        class Bad(NamedTuple):
            a: int

            def _replace(self):  # pragma: no cover - refused when the class is made
                return self


def test_no_command_path_imports_typing():
    """The record, recall, show and brief paths (and the whole package's core) load without
    ``typing``: that import is what ``core.tuples`` saves."""
    code = ("import sys\n"
            "import git_hn.cli.main, git_hn.cli.fast, git_hn.service.memory, git_hn.service.recall, "
            "git_hn.service.show, git_hn.service.brief, git_hn.store.append, git_hn.store.state, "
            "git_hn.store.stateview, git_hn.service.replication.run\n"
            "print('typing' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def _pair(n: int, defaults: int):
    """A class of ``n`` fields (the last ``defaults`` of them with defaults) made here, and the
    same class made by ``typing.NamedTuple``."""
    names = [f"f{i}" for i in range(n)]
    ns = {"__annotations__": {name: "int" for name in names}, "__module__": __name__,
          "__qualname__": f"C{n}"}
    for i, name in enumerate(names[n - defaults:]):
        ns[name] = 100 + i
    ours = type(NamedTuple)(f"C{n}", (NamedTuple,), dict(ns))
    theirs = typing.NamedTuple(f"C{n}", [(name, int) for name in names])
    theirs.__new__.__defaults__ = tuple(100 + i for i in range(defaults)) or None
    theirs._field_defaults = {name: 100 + i for i, name in enumerate(names[n - defaults:])}
    return ours, theirs


def _outcome(call, expected=None):
    """What ``call`` gave: its value, or the message of the error it raised (which must be an
    instance of the type of ``expected``'s error: ``_replace`` of a name that is no field raises
    ValueError before Python 3.13, TypeError since, and core.tuples' error is both)."""
    try:
        value = call()
    except (TypeError, ValueError) as exc:
        if expected is not None:
            assert isinstance(exc, type(expected[2]))
        return "error", str(exc).replace("C", "").split(".", 1)[-1], exc
    return "ok", tuple(value), type(value).__name__


@pytest.mark.parametrize("n", [1, 2, 3, 7, 21, 24, 25, 30])
def test_every_number_of_fields_behaves_as_typing_namedtuple(n):
    """``__new__`` is a pre-written function with its parameters renamed (24 fields at most;
    more fall back to ``collections.namedtuple``): arguments bind, default and fail exactly as in
    the compiled one, and the class has the same public shape."""
    import inspect

    for defaults in {0, 1, n // 2, n}:
        ours, theirs = _pair(n, defaults)
        assert ours.__mro__ == (ours, tuple, object)
        assert ours._fields == theirs._fields and ours.__match_args__ == theirs.__match_args__
        assert ours._field_defaults == theirs._field_defaults
        assert [(p.name, p.default, p.kind) for p in inspect.signature(ours).parameters.values()] == \
            [(p.name, p.default, p.kind) for p in inspect.signature(theirs).parameters.values()]
        assert ours.__new__.__defaults__ == theirs.__new__.__defaults__
        assert [getattr(ours, f).__doc__ for f in ours._fields] == \
            [getattr(theirs, f).__doc__ for f in theirs._fields]
        args = list(range(n))
        calls = [lambda c: c(*args), lambda c: c(**{f"f{i}": i for i in range(n)}),
                 lambda c: c(*args[:n - defaults]), lambda c: c(*args[:max(n - defaults - 1, 0)]),
                 lambda c: c(*args, 0), lambda c: c(*args, f0=1), lambda c: c(*args, zz=1),
                 lambda c: c._make(args), lambda c: c._make(args[:-1]),
                 lambda c: c(*args)._replace(f0=-1), lambda c: c(*args)._replace(zz=1)]
        for call in calls:
            expected = _outcome(lambda: call(theirs))
            assert _outcome(lambda: call(ours), expected)[:2] == expected[:2]
        one = ours(*args)
        assert one == theirs(*args) and hash(one) == hash(tuple(args))
        assert one._asdict() == theirs(*args)._asdict()
        assert repr(one).split("(", 1)[1] == repr(theirs(*args)).split("(", 1)[1]
        assert [getattr(one, f) for f in ours._fields] == args
        match one:
            case ours(f0=first):
                assert first == 0
        if n <= 24:
            assert ours.__new__.__code__.co_filename.endswith("tuples.py")  # not compiled


def test_methods_and_a_classcell_of_the_body_are_kept():
    class Pair(NamedTuple):
        a: int
        b: int = 1

        def total(self) -> int:
            return self.a + self.b

        def kind(self) -> str:
            return __class__.__name__  # the body's class cell refers to the class made

    assert Pair(2).total() == 3 and Pair(2).kind() == "Pair"
    with pytest.raises(ValueError, match="underscore"):
        class Bad(NamedTuple):
            _a: int
