"""``NamedTuple`` without importing ``typing``, and without ``collections.namedtuple``'s ``eval``.

``typing`` costs every command ~2 ms to import and its ``NamedTuple`` ~50 µs more per class than
``collections.namedtuple``; ``collections.namedtuple`` itself compiles a ``__new__`` from source
for every class (``eval``), about 0.4 M instructions each, and a record defines 32 classes on the
way to its answer (13 M instructions: ~3 ms of a ~50 ms command; the fixed cost of a command is a
budget, issue 11). The classes made here are what ``typing.NamedTuple`` makes: a subclass of
``tuple`` with the annotated fields in order, their defaults, the annotations, the module and
qualified name (so instances pickle), ``_fields``, ``_field_defaults``, ``_make``, ``_replace``,
``_asdict``, ``__match_args__``, the same ``repr`` and errors, and the class body's methods and
docstring. Field access is ``collections``' own C descriptor (``_tuplegetter``).

``__new__`` is not compiled: it is one of the pre-written functions below, for the class's number
of fields, whose parameters are renamed to the field names (``CodeType.replace``), so keyword
arguments, defaults, ``inspect.signature`` and the messages of a wrong call are those of the
compiled one, at the same speed. A class of more fields than the table has falls back to
``collections.namedtuple``.

Pure: no I/O.
"""

from __future__ import annotations

from _collections import _tuplegetter

_SPECIAL = frozenset({"__module__", "__qualname__", "__annotations__", "__doc__", "__orig_bases__",
                      "__classcell__", "__static_attributes__", "__firstlineno__"})
_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields",
                         "_field_defaults", "_make", "_replace", "_asdict", "_source"})

_new = tuple.__new__
_function = type(lambda: None)

# ``__new__`` of a class of n fields is _NEW[n] with its parameters renamed: each builds the
# tuple from its n arguments, as the function ``collections.namedtuple`` compiles does.
_NEW = (
    None,
    lambda _cls, a: _new(_cls, (a,)),
    lambda _cls, a, b: _new(_cls, (a, b)),
    lambda _cls, a, b, c: _new(_cls, (a, b, c)),
    lambda _cls, a, b, c, d: _new(_cls, (a, b, c, d)),
    lambda _cls, a, b, c, d, e: _new(_cls, (a, b, c, d, e)),
    lambda _cls, a, b, c, d, e, f: _new(_cls, (a, b, c, d, e, f)),
    lambda _cls, a, b, c, d, e, f, g: _new(_cls, (a, b, c, d, e, f, g)),
    lambda _cls, a, b, c, d, e, f, g, h: _new(_cls, (a, b, c, d, e, f, g, h)),
    lambda _cls, a, b, c, d, e, f, g, h, i: _new(_cls, (a, b, c, d, e, f, g, h, i)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j: _new(_cls, (a, b, c, d, e, f, g, h, i, j)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k: _new(_cls, (a, b, c, d, e, f, g, h, i, j, k)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l: _new(_cls, (a, b, c, d, e, f, g, h, i, j, k, l)),  # noqa: E741
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w)),
    lambda _cls, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x: _new(  # noqa: E741
        _cls, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x)),
)


def _make(cls, iterable):
    result = _new(cls, iterable)
    if len(result) != len(cls._fields):
        raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(result)}")
    return result


class _UnexpectedFields(TypeError, ValueError):
    """``_replace`` with a name that is not a field: ``namedtuple`` raises ValueError before
    Python 3.13 and TypeError since; this is both."""


def _replace(self, /, **kwds):
    result = self._make(map(kwds.pop, self._fields, self))
    if kwds:
        raise _UnexpectedFields(f"Got unexpected field names: {list(kwds)!r}")
    return result


def __repr__(self):
    return self.__class__.__name__ + "(" + ", ".join(
        [f"{name}={value!r}" for name, value in zip(self._fields, self)]) + ")"


def _asdict(self):
    return dict(zip(self._fields, self))


def __getnewargs__(self):
    return tuple(self)


_SHARED = {"_make": classmethod(_make), "_replace": _replace, "__repr__": __repr__,
           "_asdict": _asdict, "__getnewargs__": __getnewargs__}
_GETTERS: list = []  # _GETTERS[i]: the descriptor of field number i (shared by every class)


def _getter(index: int):
    while len(_GETTERS) <= index:
        _GETTERS.append(_tuplegetter(len(_GETTERS), f"Alias for field number {len(_GETTERS)}"))
    return _GETTERS[index]


def _make_new(name: str, fields: tuple, defaults: list):
    template = _NEW[len(fields)]
    code = template.__code__.replace(co_varnames=("_cls",) + fields, co_name="__new__",
                                     co_qualname=f"{name}.__new__")
    new = _function(code, template.__globals__, "__new__", tuple(defaults) if defaults else None)
    new.__qualname__ = f"{name}.__new__"
    new.__doc__ = f"Create new instance of {name}({', '.join(fields)})"
    return new


class _Maker(type):
    def __new__(mcls, name, bases, ns):
        if ns.get("__module__") == __name__ and name == "NamedTuple":
            return super().__new__(mcls, name, bases, ns)
        annotations = ns.get("__annotations__", {})
        fields = tuple(annotations)
        defaults = []
        for field in fields:
            if field.startswith("_"):
                raise ValueError(f"Field names cannot start with an underscore: {field!r}")
            if field in ns:
                defaults.append(ns[field])
            elif defaults:
                raise TypeError(f"non-default namedtuple field {field} cannot follow default fields")
        for key in ns:
            if key in _PROHIBITED:
                raise AttributeError(f"cannot overwrite NamedTuple attribute {key}")
        if not 0 < len(fields) < len(_NEW):
            return _fallback(name, fields, defaults, ns, annotations)
        body = {"__doc__": f"{name}({', '.join(fields)})", "__slots__": (), "_fields": fields,
                "_field_defaults": dict(zip(fields[len(fields) - len(defaults):], defaults)),
                "__new__": _make_new(name, fields, defaults), "__match_args__": fields, **_SHARED}
        for index, field in enumerate(fields):
            body[field] = _getter(index)
        for key, value in ns.items():
            if key not in _SPECIAL and key not in annotations:
                body[key] = value
        body["__module__"] = ns["__module__"]
        body["__qualname__"] = ns.get("__qualname__", name)
        body["__annotations__"] = dict(annotations)
        if ns.get("__doc__") is not None:
            body["__doc__"] = ns["__doc__"]
        if "__classcell__" in ns:  # a method's ``__class__`` (or ``super()``) refers to this class
            body["__classcell__"] = ns["__classcell__"]
        return type(name, (tuple,), body)


def _fallback(name, fields, defaults, ns, annotations):
    """A class of no field or of more fields than ``_NEW`` has: ``collections.namedtuple``."""
    from collections import namedtuple

    cls = namedtuple(name, fields, defaults=defaults or None, module=ns["__module__"])
    cls.__annotations__ = dict(annotations)
    cls.__qualname__ = ns.get("__qualname__", name)
    if ns.get("__doc__") is not None:
        cls.__doc__ = ns["__doc__"]
    for key, value in ns.items():
        if key not in _SPECIAL and key not in annotations:
            setattr(cls, key, value)
    return cls


class NamedTuple(metaclass=_Maker):
    """Base of a named tuple class written as annotated fields (``typing.NamedTuple``'s form)."""
