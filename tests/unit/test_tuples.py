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


@pytest.mark.parametrize("fields,defaults", [(["v"], None), (["v"], (1,)), (["a", "b", "c"], None),
                                             (["a", "b", "c"], (2, 3)), ([f"f{i}" for i in range(40)], (0,) * 7)])
def test_the_class_factory_makes_what_collections_namedtuple_makes(fields, defaults):
    import collections
    import inspect

    from git_hn.core.tuples import namedtuple

    ours = namedtuple("Shape", fields, defaults=defaults, module=__name__)
    theirs = collections.namedtuple("Shape", fields, defaults=defaults, module=__name__)
    for attr in ("__doc__", "_fields", "_field_defaults", "__match_args__", "__slots__", "__module__",
                 "__qualname__"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    for name in ("__new__", "_make", "_replace", "__repr__", "_asdict", "__getnewargs__"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert (a.__name__, a.__qualname__, a.__doc__) == (b.__name__, b.__qualname__, b.__doc__), name
    assert inspect.signature(ours.__new__) == inspect.signature(theirs.__new__)
    assert [getattr(ours, f).__doc__ for f in fields] == [getattr(theirs, f).__doc__ for f in fields]
    values = list(range(len(fields)))
    a, b = ours(*values), theirs(*values)
    assert a == b and repr(a) == repr(b) and a._asdict() == b._asdict()
    assert a._replace(**{fields[-1]: "x"}) == b._replace(**{fields[-1]: "x"})
    assert ours._make(values) == a and a.__getnewargs__() == tuple(values)
    if defaults:
        assert ours(*values[:len(values) - len(defaults)]) == theirs(*values[:len(values) - len(defaults)])
    for wrong in (lambda c: c(*values, 1), lambda c: c._make(values + [1]), lambda c: c(*values)._replace(zz=1)):
        with pytest.raises((TypeError, ValueError)) as mine:
            wrong(ours)
        with pytest.raises((TypeError, ValueError)) as std:
            wrong(theirs)
        assert (type(mine.value), str(mine.value)) == (type(std.value), str(std.value))


def test_the_class_factory_refuses_what_collections_refuses():
    from git_hn.core.tuples import namedtuple

    for fields in (["a", "a"], ["_a"], ["class"], ["1a"]):
        with pytest.raises(ValueError):
            namedtuple("Bad", fields)
    with pytest.raises(TypeError):
        namedtuple("Bad", ["a"], defaults=(1, 2))


def test_without_the_packages_compiler_the_classes_come_from_collections(monkeypatch):
    """The core compiles no code: the constructor's compiler is installed by ``git_hn/__init__``;
    without it the factory hands over to ``collections.namedtuple``, whose classes are the same."""
    import git_hn
    from git_hn.core import tuples

    assert tuples.compile_new is git_hn._compile_new
    made = tuples.namedtuple("Pair", ["a", "b"], defaults=(2,), module=__name__)
    monkeypatch.setattr(tuples, "compile_new", None)
    slow = tuples.namedtuple("Pair", ["a", "b"], defaults=(2,), module=__name__)
    assert made.__new__.__code__ is not slow.__new__.__code__
    assert (made(1), made._fields, made.__doc__, made._field_defaults) == \
        (slow(1), slow._fields, slow.__doc__, slow._field_defaults)
