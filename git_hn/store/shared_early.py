"""Early questions that share one Git process (issue 11, sync-100): a sync's first questions are
two ref listings (the remote's accepted memory refs and the user's own streams) and two settings
(``hn.syncStallTimeout`` and ``remote.<name>.hnPublish``). Each pair is asked of one ``git
for-each-ref`` or one ``git config --get-regexp``, started early (``cli.main``), and each question's
answer is derived from it, byte for byte what its own process would have said; ``Git.run`` with
the question's own arguments collects it (``store.git``'s early answers). Each process started is
~0.3 ms of the command's start on a quiet machine, several under load, all before the quarantine
fetch starts.

Trusts: Git's output for the repository's own refs and configuration (the same Git that would
have answered each question). Anything that is not exactly the expected shape (a failed process,
a value Git reads in a way not restated here, a key set twice, an output limit) is answered by the
question's own process instead: a derived answer is never a guess.
"""

from __future__ import annotations

from .git import _early_key
from .process import Completed


class _Part:
    """One question's view of a shared early process (``Started``'s interface: ``finish``,
    ``abandon``, ``proc``, ``timeout``)."""

    def __init__(self, runner, shared, args: tuple, derive):
        self.runner, self.shared, self.args, self.derive = runner, shared, tuple(args), derive
        self.result: Completed | None = None

    @property
    def proc(self):
        return self.shared.proc

    @property
    def timeout(self) -> float:
        return self.shared.timeout

    @timeout.setter
    def timeout(self, value: float) -> None:
        self.shared.timeout = value

    def finish(self, data: bytes | None = None, limit: int | None = None) -> Completed:
        if self.result is None:
            got = self.shared.finish()
            derived = self.derive(got) if limit is None and data is None else None
            if derived is None:  # (the question's own process: exactly its answer)
                own = self.runner.spawn(self.args)
                own.timeout = self.shared.timeout
                derived = own.finish(data, limit)
            self.result = derived
        return self.result

    def abandon(self) -> None:
        self.shared.abandon()


def _share(runner, combined: tuple, parts: dict, ok=(0,)) -> None:
    """Start ``combined`` early and leave, for each question of ``parts`` (args -> derive: the
    shared answer and the question's argv to the question's own answer, or None), its early
    answer. A shared process that ends with a status outside ``ok`` answers none of them."""
    parts = {args: derive for args, derive in parts.items() if _early_key(args, None) not in runner._early}
    if not parts:  # (each asked already: its own answer stands)
        return
    started = runner.ask_early(combined)
    runner._early.pop(_early_key(combined, None), None)  # (only its parts collect it)
    for args, derive in parts.items():
        runner._early[_early_key(args, None)] = _Part(runner, started, args, lambda got, d=derive, a=args: (
            d(got, ["git", *a]) if got.returncode in ok else None))


# -- the two ref listings ----------------------------------------------------------------------

LISTED = "--format=%(objectname) %(refname)"


def ask_listings(runner, accepted: tuple, local: tuple) -> None:
    """``accepted`` (``for-each-ref --format=%(objectname) %(refname) <prefix>``) and ``local``
    (``for-each-ref --format=%(refname) refs/hn/memory/``) in one listing of both prefixes:
    Git sorts by ref name either way, and no ref name holds a space or a newline, so each line
    is one ref, and its name says which listing it belongs to."""
    prefixes = (accepted[-1].encode(), local[-1].encode())

    def of(prefix: bytes, names_only: bool):
        def derive(got: Completed, args: list) -> Completed | None:
            if got.stdout and not got.stdout.endswith(b"\n"):
                return None
            kept = []
            for line in got.stdout.split(b"\n")[:-1]:
                _oid, space, name = line.partition(b" ")
                if not space or b" " in name or not name.startswith(prefixes):
                    return None
                if name.startswith(prefix):
                    kept.append(name if names_only else line)
            return Completed(args, 0, b"".join(k + b"\n" for k in kept), b"")
        return derive

    _share(runner, ("for-each-ref", LISTED, local[-1], accepted[-1]),
           {tuple(accepted): of(prefixes[0], False), tuple(local): of(prefixes[1], True)})


# -- the two settings --------------------------------------------------------------------------

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


def ask_settings(runner, stall: tuple, publish: tuple, remote: str) -> None:
    """``stall`` (``config --get hn.syncStallTimeout``) and ``publish`` (``config --type=bool --get
    remote.<remote>.hnPublish``) in one ``config -z --get-regexp`` of both keys (Git's canonical
    form: section and name in lower case, the subsection as written; status 1 when neither is
    set). ``remote`` is a remote name git-hn accepts (letters, digits, ``_``, ``.``, ``-``: only
    ``.`` needs escaping). A key set more than once, or a publication value other than Git's
    plain boolean words, is asked of its own process."""
    from ..core.remotes import is_remote_name

    if not is_remote_name(remote):  # (never so: ``cli.main`` asks for such a remote only)
        for args in (stall, publish):
            runner.ask_early(args)
        return
    keys = (stall[-1].lower(), f"remote.{remote}.hnpublish")
    pattern = "^(" + "|".join(k.replace(".", r"\.") for k in keys) + ")$"

    def values(got: Completed, key: str) -> list | None:
        """The values set for ``key`` (None: a bare key), in Git's order; None when unusual."""
        if got.returncode == 1:
            return [] if not got.stdout else None
        if not got.stdout.endswith(b"\0"):
            return None
        found = []
        for entry in got.stdout.split(b"\0")[:-1]:
            name, newline, value = entry.partition(b"\n")
            if name.decode("utf-8", "surrogateescape") not in keys:
                return None
            if name.decode("utf-8", "surrogateescape") == key:
                found.append(value if newline else None)
        return found

    def stall_answer(got: Completed, args: list) -> Completed | None:
        found = values(got, keys[0])
        if found is None or len(found) > 1:
            return None
        # (``--get`` prints a bare key's value as an empty line)
        return Completed(args, 0, (found[0] or b"") + b"\n", b"") if found else Completed(args, 1, b"", b"")

    def publish_answer(got: Completed, args: list) -> Completed | None:
        found = values(got, keys[1])
        if found is None or len(found) > 1 or (found and found[0] is None):
            return None
        if not found:
            return Completed(args, 1, b"", b"")
        word = found[0].decode("ascii", "replace").lower()
        if word in _TRUE or word in _FALSE:
            return Completed(args, 0, b"true\n" if word in _TRUE else b"false\n", b"")
        return None  # (an empty value, a number, "1k": Git's own reading)

    _share(runner, ("config", "-z", "--get-regexp", pattern), {tuple(stall): stall_answer,
                                                              tuple(publish): publish_answer}, ok=(0, 1))
