"""``NamedTuple`` without importing ``typing``.

``typing`` costs every command ~2 ms to import and its ``NamedTuple`` ~50 µs more per class than
``collections.namedtuple`` (about 40 classes are defined on the way to an answer); the fixed cost
of a command is a budget (issue 11). The classes made here are what ``typing.NamedTuple`` makes:
a ``collections.namedtuple`` with the annotated fields in order, their defaults, the annotations,
the module and qualified name (so instances pickle), and the class body's methods and docstring.

Pure: no I/O.
"""

from __future__ import annotations

from _collections import _tuplegetter
from keyword import iskeyword

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


_NEW_CODE: dict[int, object] = {}  # number of fields -> the code of a ``__new__`` taking that many

# ``n -> code`` of ``lambda _cls, _0, …, _n-1: _tuple_new(_cls, (_0, …, _n-1))``, installed by the
# package (``git_hn/__init__.py``): the core compiles no code itself. Without it, classes are made
# by ``collections.namedtuple`` (the same classes, slower to make).
compile_new = None


def namedtuple(typename: str, field_names, *, defaults=None, module=None):
    """``collections.namedtuple(typename, field_names, defaults=defaults, module=module)``: the same
    class (methods, docstrings, qualified names, ``__match_args__``, errors), made in about a
    third of the time. ``collections`` compiles each class's ``__new__`` from source with
    ``eval``; here the code for a number of fields is compiled once (``compile_new``) and given
    the fields' names (``CodeType.replace``: the body reads its arguments by position, so only
    their names change). Field names come from the class body, where the same rules hold
    (identifiers, no keyword, no leading underscore, no repeat); they are checked all the same."""
    if compile_new is None:
        from collections import namedtuple as made_by_collections

        return made_by_collections(typename, field_names, defaults=defaults, module=module)
    field_names = tuple(field_names)
    for name in (typename, *field_names):
        if type(name) is not str or not name.isidentifier() or iskeyword(name):
            raise ValueError(f"Type names and field names must be valid identifiers: {name!r}")
    if len(set(field_names)) != len(field_names) or any(f.startswith("_") for f in field_names):
        raise ValueError(f"Field names must be unique and not start with an underscore: {field_names!r}")
    field_defaults = {}
    if defaults is not None:
        defaults = tuple(defaults)
        if len(defaults) > len(field_names):
            raise TypeError("Got more default values than field names")
        field_defaults = dict(zip(field_names[len(field_names) - len(defaults):], defaults))
    num_fields = len(field_names)
    arg_list = ", ".join(field_names) + ("," if num_fields == 1 else "")
    repr_fmt = "(" + ", ".join(f"{name}=%r" for name in field_names) + ")"
    tuple_new = tuple.__new__
    code = _NEW_CODE.get(num_fields)
    if code is None:
        code = _NEW_CODE[num_fields] = compile_new(num_fields)
    __new__ = type(_tuple_len)(code.replace(co_varnames=("_cls", *field_names) + code.co_varnames[num_fields + 1:]),
                               {"_tuple_new": tuple_new, "__builtins__": {}, "__name__": f"namedtuple_{typename}"})
    __new__.__name__ = "__new__"
    __new__.__doc__ = f"Create new instance of {typename}({arg_list})"
    if defaults is not None:
        __new__.__defaults__ = defaults

    @classmethod
    def _make(cls, iterable):
        result = tuple_new(cls, iterable)
        if _tuple_len(result) != num_fields:
            raise TypeError(f"Expected {num_fields} arguments, got {len(result)}")
        return result

    _make.__func__.__doc__ = f"Make a new {typename} object from a sequence or iterable"

    def _replace(self, /, **kwds):
        result = self._make(map(kwds.pop, field_names, self))
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    _replace.__doc__ = f"Return a new {typename} object replacing specified fields with new values"

    def __repr__(self):
        "Return a nicely formatted representation string"
        return self.__class__.__name__ + repr_fmt % self

    def _asdict(self):
        "Return a new dict which maps field names to their values."
        return dict(zip(self._fields, self))

    def __getnewargs__(self):
        "Return self as a plain tuple.  Used by copy and pickle."
        return tuple(self)

    for method in (__new__, _make.__func__, _replace, __repr__, _asdict, __getnewargs__):
        method.__qualname__ = f"{typename}.{method.__name__}"
    namespace = {"__doc__": f"{typename}({arg_list})", "__slots__": (), "_fields": field_names,
                 "_field_defaults": field_defaults, "__new__": __new__, "_make": _make,
                 "_replace": _replace, "__repr__": __repr__, "_asdict": _asdict,
                 "__getnewargs__": __getnewargs__, "__match_args__": field_names}
    for index, name in enumerate(field_names):
        namespace[name] = _tuplegetter(index, _FIELD_DOCS[index] if index < len(_FIELD_DOCS)
                                       else f"Alias for field number {index}")
    result = type(typename, (tuple,), namespace)
    if module is not None:
        result.__module__ = module
    return result


def _tuple_len(value) -> int:
    return len(value)


_FIELD_DOCS = tuple(f"Alias for field number {i}" for i in range(32))


class NamedTuple(metaclass=_Maker):
    """Base of a named tuple class written as annotated fields (``typing.NamedTuple``'s form)."""
