"""Output: machine JSON lines, human lines, and the one error line (CONTRACT §0.5).

Human output is written exactly as the contract's line formats when stdout is not a terminal (a
pipe, a file: scripts and other implementations read these lines). On a terminal, the commands
that have a readable view (``terminal``: short IDs, author names, fitted lines, colour) use it;
the others send the same lines through rich with markup, emoji and highlighting off, so that
author text can never be interpreted as rich markup (*markup injection*). Every author string reaching a
human line has already passed ``one_line``/``safe_text``; bidirectional controls and the other
invisible characters (``core.invisible``) are shown as ``\\u{…}`` so that a memory cannot visually
reorder a terminal line (*Trojan Source*) or hide text in it (*ASCII smuggling*).
"""

from __future__ import annotations

import sys

# ``core.canonical`` (and ``json`` under it) and ``core.gostr`` are imported where they are used:
# ``cli.main`` imports this module first, and a command that starts Git processes early (sync,
# the fetch-side hook) starts them before loading what its output needs


# ``git hn --no-color <command>`` (set by ``main.dispatch`` for this run): as a command's own
# ``--no-color``, for every command (``terminal.wants_colour``)
no_color_first = False


def json_line(value) -> None:
    from ..core import canonical

    sys.stdout.buffer.write(canonical.compact_line(value))  # (JSON: UTF-8 on a terminal too)
    sys.stdout.flush()


def on_terminal() -> bool:
    """Whether human output gets the terminal views (``terminal``) rather than contract lines."""
    try:
        return sys.stdout.isatty()
    except ValueError:  # closed
        return False


def stderr_on_terminal() -> bool:
    """Whether stderr is a terminal (where ``notice`` may draw its line)."""
    try:
        return sys.stderr.isatty()
    except ValueError:  # closed
        return False


# the error handler ``set_up_streams`` gives a terminal whose encoding is not UTF-8
SPELL = "git-hn-spell"


def _spelled(exc):
    """What a non-UTF-8 terminal gets for a character its encoding cannot show: ``\\u{…}``, the
    spelling of the invisible characters (``core.invisible``), and ``...`` for the ``…`` that ends
    every text git-hn cuts. Never a raw byte: a surrogate (a byte argv or a path could not decode)
    is spelled too."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return "".join("..." if ch == "\u2026" else f"\\u{{{ord(ch):x}}}" for ch in exc.object[exc.start:exc.end]), exc.end


def set_up_streams() -> None:
    """A locale whose encoding is not UTF-8 (``LC_ALL=en_US.ISO-8859-1``; ``LC_ALL=C`` without
    Python's UTF-8 mode): its strict codec made every human view end in ``internal error:
    UnicodeEncodeError`` at the first character it cannot encode (an em dash; the ``…`` of a cut
    line; a trial). A terminal, and stderr anywhere (read by people), keep the locale's encoding,
    so a byte means on screen the character it encodes and no UTF-8 continuation byte reaches an
    8-bit terminal as a C1 control (0x9B is CSI in ISO-8859-1: *terminal escape injection*);
    what it cannot encode is spelled (``_spelled``). Piped, stdout writes UTF-8, as the contract's
    lines and ``--json`` (written as bytes) always are."""
    import codecs  # (loaded by the interpreter's start-up: free)

    codecs.register_error(SPELL, _spelled)
    for stream, piped_utf8 in ((sys.stdout, True), (sys.stderr, False)):
        try:
            if codecs.lookup(stream.encoding).name == "utf-8":
                continue
            if piped_utf8 and not stream.isatty():
                stream.reconfigure(encoding="utf-8", errors="replace")
            else:
                stream.reconfigure(errors=SPELL)
        except (AttributeError, LookupError, TypeError, ValueError, OSError):
            pass  # (no stream, closed, or not a text stream of io's: left as it is)


def size_setting(name: str) -> int | None:
    """``COLUMNS`` or ``LINES`` when set to a positive number in ASCII digits, else None: as if
    unset. (``str.isdigit`` takes ``²`` and ``٣``, which ``int`` refuses.)"""
    import os

    given = os.environ.get(name, "")
    # (at most 9 digits: int() refuses more than 4300, and a review's 5,000 ended every command,
    # the pre-push hook's too, in a traceback)
    return int(given) if given.isascii() and given.isdigit() and len(given) <= 9 and int(given) > 0 else None


def ignore_bad_sizes() -> None:
    """``COLUMNS`` or ``LINES`` set to anything but a positive number is removed from this run's
    environment, so that everything reading it (rich's consoles, the pager) finds it unset: rich
    tests them with ``str.isdigit`` and then calls ``int``, and ``COLUMNS=²`` ended every terminal
    view in ``internal error: ValueError``; ``COLUMNS=0`` made rich print nothing at all (``hooks
    status`` on a terminal)."""
    import os

    for name in ("COLUMNS", "LINES"):
        if name in os.environ and size_setting(name) is None:
            del os.environ[name]


def for_terminal(data: bytes) -> bytes:
    """UTF-8 bytes of a human view (the brief, a Markdown export, the log for its pager) as the
    terminal takes them: as they are on a UTF-8 one or in a pipe, else in the terminal's own
    encoding, spelled where it cannot show a character (``set_up_streams``)."""
    import codecs

    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        if codecs.lookup(encoding).name == "utf-8" or not on_terminal():
            return data
    except LookupError:
        return data
    codecs.register_error(SPELL, _spelled)  # (idempotent: a caller other than ``main``)
    return data.decode("utf-8", "replace").encode(encoding, SPELL)


def write(text: str) -> None:
    """Text a terminal view has already made inert and fitted."""
    sys.stdout.write(text)
    sys.stdout.flush()


def lines(items: list[str]) -> None:
    """Lines on stdout, invisible characters spelled (content: its spaces kept). Their author
    text had its backslashes spelled where it was put in (``gostr.content_text``, ``log.inert``,
    ``hints.named_actor``), never here: the lines hold spellings (``invisible.spell_invisible``)."""
    from ..core.invisible import spell_invisible

    text = [spell_invisible(line, spaces=False, spelled=True) for line in items]
    if sys.stdout.isatty():
        from rich.console import Console

        console = Console(markup=False, emoji=False, highlight=False, soft_wrap=True)
        for line in text:
            console.print(line, markup=False, emoji=False, highlight=False, soft_wrap=True)
        return
    out = sys.stdout.buffer
    for line in text:
        out.write(line.encode("utf-8", "replace") + b"\n")
    out.flush()


def error(message: str) -> None:
    from ..core.invisible import diagnostic

    sys.stderr.write("git-hn: " + diagnostic(message) + "\n")
    sys.stderr.flush()


def warnings(texts) -> None:
    """One ``git-hn: warning:`` line on stderr per distinct text (a command that read on past a
    fault; a state answered twice may have noted it twice)."""
    from ..core.invisible import diagnostic

    for text in dict.fromkeys(texts):
        sys.stderr.write(fitted("git-hn: warning: " + diagnostic(text)) + "\n")
    sys.stderr.flush()


def hint(text: str) -> None:
    """One ``git-hn: hint:`` line on stderr: advice beside a command that succeeded (stdout keeps
    its formats)."""
    from ..core.invisible import diagnostic

    sys.stderr.write(fitted("git-hn: hint: " + diagnostic(text)) + "\n")
    sys.stderr.flush()


def fitted(line: str) -> str:
    """A ``hint:``/``warning:`` line as written: when stderr is a terminal narrower than it,
    wrapped at spaces to its width, each further line indented (a newcomer trial: a 60-column
    terminal broke them mid-word); else exactly the one line (scripts and tests read it). Under
    ``FittedLines`` as it is: that stream fits it when it is written."""
    if isinstance(sys.stderr, FittedLines) or not stderr_on_terminal():
        return line
    return wrapped(line, terminal_width(sys.stderr))


class FittedLines:
    """A terminal's stderr whose every whole line written is wrapped as ``fitted`` wraps a hint
    (``fitting``): the hooks' ``git-hn:`` lines, which their services write straight to
    ``sys.stderr``, wrapped as record's hints are (f179: a push's lines on a 60-column terminal
    broke mid-word). A write's unended tail (a status line drawn in place, ``notice``) is written
    as it is; of a line, what is before its last carriage return and an erase after it (Git's
    progress cleared first, ``post_rewrite.fresh_line``) is kept as it is, and only the rest,
    what shows, is fitted. Everything else is the stream's."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        *ended, tail = text.split("\n")
        if ended:
            width = terminal_width(self._stream)
            out = []
            for line in ended:
                cleared, sep, shown = line.rpartition("\r")
                erase = ERASE_LINE if shown.startswith(ERASE_LINE) else ""
                out.append(cleared + sep + erase + wrapped(shown[len(erase):], width))
            self._stream.write("\n".join(out) + "\n")
        if tail:
            self._stream.write(tail)
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self._stream, name)


ERASE_LINE = "\x1b[K"  # (``post_rewrite.fresh_line``'s, after its carriage return)


def fitting():
    """``sys.stderr`` made ``FittedLines`` when it is a terminal (the hooks' run, ``hooks_cmd``), and
    the stream it was, to put back; None when it is left as it is: a pipe, a log, a test read each
    line whole. (No ``contextlib``: a hook's run never loads it, ``tests/integration/test_fast_start``.)"""
    if not stderr_on_terminal() or isinstance(sys.stderr, FittedLines):
        return None
    was, sys.stderr = sys.stderr, FittedLines(sys.stderr)
    return was


def wrapped(text: str, width: int | None) -> str:
    """``text`` with each line longer than ``width`` columns wrapped at spaces, the further lines
    indented four more than it (never cut inside a word: a longer word stays whole), and never
    inside what is pasted or read as one (``together``)."""
    if width is None or all(len(line) <= width for line in text.split("\n")):
        return text
    import textwrap  # (on a terminal only: a piped run never loads it)

    out = []
    for line in text.split("\n"):
        lead = line[:len(line) - len(line.lstrip(" "))]
        out += textwrap.wrap(together(line), width, initial_indent="", subsequent_indent=lead + "    ",
                             break_long_words=False, break_on_hyphens=False) if len(line) > width else [line]
    return "\n".join(part.replace(KEPT, " ") for part in out)


KEPT = "\x00"  # (a space wrapping must not break at; no hint or help carries a NUL)
_COMMANDS = ("git ", "rm ", "cd ", "mv ")


def together(text: str, commands: bool = True) -> str:
    """``text`` with the spaces inside a command (from ``git ``, ``rm ``, ``cd `` or ``mv `` to the
    next ``;``, ``(``, ``)`` or ``, `` outside quotes), a quoted span (``'…'``, opened after a space or a
    bracket, not an apostrophe) and an option group (``[…]``) made ``KEPT``, for ``wrapped`` and
    the help's fill to keep on one line (a review: a 60-column terminal split ``git hn policy`` /
    ``trust ID`` and a ``rm -r PATH``, and pasting the lines ran two commands). A span longer than
    the width stays whole: the terminal wraps it, and a copy joins it again. ``commands`` False:
    quotes and groups only (a usage line, which is one command as a whole)."""
    out = []
    command = quote = double = False  # (``double``: a command's "…", or a quoted name in prose)
    depth = 0
    for i, ch in enumerate(text):
        before = text[i - 1] if i else " "
        if commands and not (quote or command) and text.startswith(_COMMANDS, i) and not before.isalnum():
            # (a command ends a quoted name left open: a review's subject, with quotes of its own)
            command, double = True, False
        if command and ch in "'\"" and not (double if ch == "'" else quote):
            # a command is shell-quoted: each quote opens or closes (``shlex.quote`` writes an
            # apostrophe as '"'"', which the prose rule below took for the end: a review saw
            # ``rm -r '/…/teachers'"'"' repos (2024)/…'`` broken before "(2024)")
            quote, double = (not quote, double) if ch == "'" else (quote, not double)
        elif ch == '"' and not quote:  # prose: a quoted name, whose own quotes are escaped
            if not double:
                double = not before.isalnum()
            elif (i - len(text[:i].rstrip("\\"))) % 2 == 0:  # (not after an odd run of backslashes)
                double = False
        elif double:
            pass  # (an apostrophe inside a quoted name opens no span: a review's name did)
        elif ch == "'" and not before.isalnum() and not quote:
            quote = True
        elif ch == "'" and quote and not text[i + 1:i + 2].isalnum():
            quote = False
        elif ch == "[" and not quote:
            depth += 1
        elif ch == "]" and not quote and depth:
            depth -= 1
        if command and not (quote or double) and (ch in ";()" or text.startswith(", ", i)):
            command = False
            if ch == "(" and out and out[-1] == KEPT:  # (the space before it is prose's)
                out[-1] = " "
        out.append(KEPT if ch == " " and (command or quote or depth) else ch)
    return "".join(out)


def terminal_width(stream) -> int | None:
    """The columns of the terminal ``stream`` is on (``COLUMNS`` when set to a positive number, as
    Git and Python's ``shutil`` take it); None when it cannot be told, or when under 20 (no useful
    wrapping)."""
    import os

    try:
        width = size_setting("COLUMNS") or os.get_terminal_size(stream.fileno()).columns
    except (ValueError, OSError):
        return None
    return width if width >= 20 else None
