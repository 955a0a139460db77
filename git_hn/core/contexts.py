"""``contextlib.contextmanager`` without importing ``contextlib``.

``contextlib`` defines some fifteen classes, abstract ones among them, when it is imported: ~3 M
instructions, 2% of a record, paid by every command whose state, lock or append used its decorator
(issue 11, fixed cost). The decorator here makes the same context managers: ``__enter__`` runs the
generator to its ``yield`` and returns what it yields; ``__exit__`` resumes it, or throws the
exception of the ``with`` block into it, with the outcomes, errors and tracebacks of
``contextlib``'s ``_GeneratorContextManager.__exit__`` (Python 3.12's, which 3.11's equals for
these generators). Not provided: using one as a function decorator (``ContextDecorator``), which
git-hn never does. A test runs both on the same generators.

The decorated function is named as ``functools.wraps`` names it (``_named``), without importing
``functools``, which loads ``collections``, ``keyword``, ``operator``, ``reprlib`` and ``types``:
~7 M instructions, 6% of a record, which used nothing else of them (issue 11, fixed cost; the
SQLite module no longer loads it either: ``store.sqlitelib``).

Pure: no I/O.
"""

from __future__ import annotations

# what ``functools.wraps`` assigns (its WRAPPER_ASSIGNMENTS; 3.12's adds ``__type_params__``,
# which a function of 3.11 does not have), before it merges ``__dict__`` and sets ``__wrapped__``
_ASSIGNED = ("__module__", "__name__", "__qualname__", "__doc__", "__annotations__", "__type_params__")


class _GeneratorContextManager:
    """One ``with`` of a generator function decorated by ``contextmanager``."""

    def __init__(self, func, args, kwds):
        self.gen = func(*args, **kwds)
        doc = getattr(func, "__doc__", None)
        self.__doc__ = type(self).__doc__ if doc is None else doc

    def __enter__(self):
        try:
            return next(self.gen)
        except StopIteration:
            raise RuntimeError("generator didn't yield") from None

    def __exit__(self, typ, value, traceback):
        if typ is None:
            try:
                next(self.gen)
            except StopIteration:
                return False
            else:
                try:
                    raise RuntimeError("generator didn't stop")
                finally:
                    self.gen.close()
        if value is None:
            # Need to force instantiation so we can reliably tell if we get the same exception back
            value = typ()
        try:
            self.gen.throw(value)
        except StopIteration as exc:
            # Suppress StopIteration *unless* it's the same exception that was passed to throw()
            return exc is not value
        except RuntimeError as exc:
            # Don't re-raise the passed in exception (the caller does)
            if exc is value:
                exc.__traceback__ = traceback
                return False
            # A StopIteration raised inside the with block, turned into a RuntimeError by the
            # generator (PEP 479): the caller re-raises the original
            if isinstance(value, StopIteration) and exc.__cause__ is value:
                value.__traceback__ = traceback
                return False
            raise
        except BaseException as exc:
            # Only re-raise if it's *not* the exception that was passed to throw(), because
            # __exit__() must not raise an exception unless __exit__() itself failed
            if exc is not value:
                raise
            exc.__traceback__ = traceback
            return False
        try:
            raise RuntimeError("generator didn't stop after throw()")
        finally:
            self.gen.close()


def contextmanager(func):
    """``@contextlib.contextmanager``: a generator function that yields once becomes a function
    returning a context manager."""

    def helper(*args, **kwds):
        return _GeneratorContextManager(func, args, kwds)

    return _named(helper, func)


def _named(wrapper, wrapped):
    """``functools.update_wrapper(wrapper, wrapped)``: the attributes ``wraps`` assigns, the
    wrapped function's ``__dict__`` merged in, and ``__wrapped__`` set last."""
    for name in _ASSIGNED:
        try:
            value = getattr(wrapped, name)
        except AttributeError:
            continue
        setattr(wrapper, name, value)
    wrapper.__dict__.update(getattr(wrapped, "__dict__", {}))
    wrapper.__wrapped__ = wrapped
    return wrapper
