"""``core.contexts.contextmanager`` makes the context managers ``contextlib.contextmanager`` makes
(without importing contextlib: ~3 M instructions of every command, issue 11): the same values,
suppressions, exceptions, causes and messages, run side by side on the same generators."""

from __future__ import annotations

import contextlib
import sys

import pytest

from git_hn.core import contexts

EVENTS: list = []


def plain():
    EVENTS.append("enter")
    try:
        yield 1
    finally:
        EVENTS.append("exit")


def suppressing():
    try:
        yield 2
    except KeyError:
        EVENTS.append("suppressed")


def translating():
    try:
        yield 3
    except KeyError as exc:
        raise ValueError("translated") from exc


def reraising():
    try:
        yield 4
    except BaseException:
        EVENTS.append("seen")
        raise


def never_yields():
    if False:  # pragma: no cover
        yield


def yields_twice():
    yield 5
    yield 6


def keeps_yielding_after_throw():
    try:
        yield 7
    except KeyError:
        yield 8


def _outcome(make, body):
    """What a ``with make() as v: body(v)`` gives: (value, events, exception type, message,
    the exception's cause type)."""
    EVENTS.clear()
    try:
        with make() as value:
            EVENTS.append(("value", value))
            body()
    except BaseException as exc:  # noqa: BLE001 - compared as it is
        cause = type(exc.__cause__).__name__ if exc.__cause__ is not None else None
        return list(EVENTS), type(exc).__name__, str(exc), cause
    return list(EVENTS), None, None, None


def _nothing():
    pass


def _key_error():
    raise KeyError("k")


def _stop_iteration():
    raise StopIteration("s")


def _runtime_error():
    raise RuntimeError("r")


def _interrupt():
    raise KeyboardInterrupt


GENERATORS = [plain, suppressing, translating, reraising, never_yields, yields_twice, keeps_yielding_after_throw]
BODIES = [_nothing, _key_error, _stop_iteration, _runtime_error, _interrupt]


@pytest.mark.parametrize("gen", GENERATORS, ids=lambda g: g.__name__)
@pytest.mark.parametrize("body", BODIES, ids=lambda b: b.__name__)
def test_the_same_outcome_as_contextlib(gen, body):
    ours = _outcome(contexts.contextmanager(gen), body)
    theirs = _outcome(contextlib.contextmanager(gen), body)
    if sys.version_info < (3, 12) and gen in (yields_twice, keeps_yielding_after_throw):
        # (3.11's contextlib leaves such a generator unclosed; since 3.12 it closes it, as here)
        ours, theirs = ours[1:], theirs[1:]
    assert ours == theirs


def test_the_exception_of_the_block_comes_out_with_its_own_traceback():
    def body():
        raise KeyError("k")

    for decorator in (contexts.contextmanager, contextlib.contextmanager):
        try:
            with decorator(reraising)():
                body()
        except KeyError as exc:
            frames = []
            tb = exc.__traceback__
            while tb is not None:
                frames.append(tb.tb_frame.f_code.co_name)
                tb = tb.tb_next
            assert frames[-1] == "body", frames


def test_the_decorated_function_keeps_its_name_and_doc():
    def named():
        """Its doc."""
        yield

    made = contexts.contextmanager(named)
    assert made.__name__ == "named" and made.__doc__ == "Its doc." and made.__wrapped__ is named
    assert made().__doc__ == "Its doc."
    assert isinstance(made(), contextlib.AbstractContextManager)  # (by its methods, as contextlib's)


def test_the_decorated_function_is_named_as_functools_names_it():
    """``_named`` (which spares every command ``functools``) assigns, merges and sets what
    ``functools.update_wrapper`` does: on a function with a doc, annotations and attributes of its
    own, and on one with none of them."""
    import functools

    def documented(a: int, b: str = "") -> int:
        """Doc."""
        yield a

    documented.extra = {"kept": True}

    def bare():
        yield

    bare.__doc__ = None
    for func in (documented, bare):
        ours = contexts._named(lambda: None, func)
        theirs = functools.update_wrapper(lambda: None, func)
        for name in (*functools.WRAPPER_ASSIGNMENTS, "__wrapped__"):
            assert getattr(ours, name, "absent") == getattr(theirs, name, "absent"), (func, name)
        assert ours.__dict__ == theirs.__dict__, func
