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
