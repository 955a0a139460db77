"""``NamedTuple`` without importing ``typing``.

``typing`` costs every command ~2 ms to import and its ``NamedTuple`` ~50 µs more per class than
``collections.namedtuple`` (about 40 classes are defined on the way to an answer); the fixed cost
of a command is a budget (issue 11). The classes made here are what ``typing.NamedTuple`` makes:
a ``collections.namedtuple`` with the annotated fields in order, their defaults, the annotations,
the module and qualified name (so instances pickle), and the class body's methods and docstring.

Pure: no I/O.
"""

from __future__ import annotations

from collections import namedtuple

_SPECIAL = frozenset({"__module__", "__qualname__", "__annotations__", "__doc__", "__orig_bases__",
                      "__classcell__", "__static_attributes__", "__firstlineno__"})
_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields",
                         "_field_defaults", "_make", "_replace", "_asdict", "_source"})


class _Maker(type):
    def __new__(mcls, name, bases, ns):
        if ns.get("__module__") == __name__ and name == "NamedTuple":
            return super().__new__(mcls, name, bases, ns)
        annotations = ns.get("__annotations__", {})
        fields = list(annotations)
        defaults = []
        for field in fields:
            if field in ns:
                defaults.append(ns[field])
            elif defaults:
                raise TypeError(f"non-default namedtuple field {field} cannot follow default fields")
        cls = namedtuple(name, fields, defaults=defaults, module=ns["__module__"])
        cls.__annotations__ = dict(annotations)
        cls.__qualname__ = ns.get("__qualname__", name)
        if ns.get("__doc__") is not None:
            cls.__doc__ = ns["__doc__"]
        for key, value in ns.items():
            if key in _PROHIBITED:
                raise AttributeError(f"cannot overwrite NamedTuple attribute {key}")
            if key not in _SPECIAL and key not in annotations:
                setattr(cls, key, value)
        return cls


class NamedTuple(metaclass=_Maker):
    """Base of a named tuple class written as annotated fields (``typing.NamedTuple``'s form)."""
