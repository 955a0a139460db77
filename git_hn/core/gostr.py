"""Go string-function semantics with pinned Unicode 15.0.0 tables (CONTRACT §1.7, §0.5, §7.9).

Pure functions. Python's ``str.strip``, ``str.lower`` and ``unicodedata`` differ from Go's
``strings``/``unicode`` packages and change with the interpreter's Unicode version, so topic
validation, index tokens and recall matches would drift between machines; these functions use
only the tables in ``_unicode15``.
"""

from __future__ import annotations

# Go unicode.IsSpace (Latin-1 White_Space plus the Unicode White_Space property).
_SPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


class Lazy:
    """A regular expression compiled at its first use: its attributes (``fullmatch``, ``search``,
    ``sub``, ...) are the compiled pattern's, each looked up once and then held here. Compiling
    costs ~0.2 M instructions a pattern, and a command uses few of the patterns of the modules it
    loads: compiled at import, the unused ones cost a record ~1.5 M instructions, a brief ~3 M
    (issue 11, fixed cost). ``re`` itself is imported at the first use of any of them: it costs
    ~13 M instructions (with ``enum``; the ``functools`` it loads comes with the state's
    ``_sqlite3`` anyway), and a record, recall, show or brief of ordinary text uses none (the
    checks below are written without it)."""

    def __init__(self, pattern, flags: int = 0):
        self._source = (pattern, flags)

    def __getattr__(self, name: str):
        import re  # (with ``enum``: ~13 M instructions)

        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)
        return value


# The Cc runes (U+0000-U+001F, U+007F-U+009F), mapped for ``str.translate``: each to a space
# (``one_line``), to U+FFFD but newline and tab (``safe_text``), or removed (``has_control``).
# A translation is the same as substituting a character class, and needs no ``re``.
_CC = [*range(0x20), *range(0x7F, 0xA0)]
_CONTROL_TO_SPACE = dict.fromkeys(_CC, " ")
_NON_TEXT_TO_FFFD = {c: "\ufffd" for c in _CC if c not in (0x09, 0x0A)}
_NO_CONTROL = dict.fromkeys(_CC)
_lower = None  # the Unicode 15 lowercase table (``_lowering``)
_word = None
# ASCII text's §7.9 tokens: every character but a letter or a digit becomes a space, then the
# words between spaces are the runs of ``[A-Za-z0-9]+`` (L* and N* restricted to ASCII)
# ASCII text's §7.9 words in one byte table: a letter lowercased, a digit itself, anything else a
# space (bytes above 127 never reach it: ``token_sequence`` takes this path for ASCII text only)
_ASCII_WORDS = bytes(c | 0x20 if chr(c).isalpha() else c if chr(c).isdigit() else 0x20 for c in range(128)) \
    + bytes(range(128, 256))
HEX_DIGITS = "0123456789abcdef"


def is_lower_hex(s: str, length: int = 0) -> bool:
    """``[0-9a-f]+`` matches all of ``s`` (and it has ``length`` characters, unless 0), without
    ``re``: an object ID or digest check on every command's path."""
    return (len(s) == length if length else s != "") and not s.strip(HEX_DIGITS)


def trim_space(s: str) -> str:
    """Go ``strings.TrimSpace``."""
    return s.strip(_SPACE)


def to_lower(s: str) -> str:
    """Go ``strings.ToLower``: the simple one-to-one mapping, rune by rune."""
    if s.isascii():  # ASCII case mapping is the same in every Unicode version, and C-fast
        return s.lower()
    return s.translate(_lowering())


def _lowering() -> dict:
    """``str.maketrans`` of the Unicode 15 simple lowercase mapping, made at its first use: its
    tables' import and the table cost ~1.3 M instructions, and a command given ASCII text only
    (nearly every record, recall, show and brief) never lowercases anything else."""
    global _lower
    if _lower is None:
        from . import _unicode15

        _lower = str.maketrans(_unicode15.LOWER_FROM, _unicode15.LOWER_TO)
    return _lower


def has_control(s: str) -> bool:
    """True if any rune is of category Cc (Go ``unicode.IsControl``). (Every Cc rune is
    unprintable for ``str.isprintable``, in any Unicode version: the C test settles most text.)"""
    return not s.isprintable() and len(s.translate(_NO_CONTROL)) != len(s)


def is_utf8(s: str) -> bool:
    """True unless ``s`` holds a surrogate code point (e.g. from ``surrogateescape``), which has
    no UTF-8 encoding: the contract's "valid UTF-8" for text built in Python. Asked of the
    encoder itself, which refuses exactly those (a character class of the surrogates costs
    2.3 M instructions to compile, ~0.5 ms of every command)."""
    if s.isascii():
        return True
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_blank(s: str) -> bool:
    return trim_space(s) == ""


def one_line(s: str) -> str:
    """``oneLine``/``safeDiagnostic``: every Cc rune becomes a space."""
    return s if s.isprintable() else s.translate(_CONTROL_TO_SPACE)


ECHO_LIMIT = 80  # characters of an argument an error repeats (a full memory ID is 71)
PATH_LIMIT = 240  # characters of a path it repeats: a real absolute one whole, a pasted blob cut


def quoted(s: str, limit: int = ECHO_LIMIT) -> str:
    """``cut``, then ``spell_backslash``: what an error repeats of an argument it was given (a
    100,000-character ``memory show`` argument made a 100,170-byte error line; a log or a
    terminal gets the error, not the argument), spelled once as author text is (``echoed``)."""
    return spell_backslash(cut(s, limit))


def cut(s: str, limit: int = ECHO_LIMIT) -> str:
    """``one_line``, and at most ``limit`` characters of it, then "…", its backslashes as they are:
    for text whose ``\\u{…}`` are git-hn's spellings already (a whole message, such as a stream's
    import error, that quoted its parts when it was made)."""
    s = one_line(s)
    return s if len(s) <= limit else s[:limit] + "…"


def echoed(s: str) -> str:
    """A value the user gave (an argument, a path, a remote's or an editor's name, an identity's
    name) on a ``git-hn:`` line or a plain line of ``cli.render.lines``: ``one_line``, and every
    backslash that begins ``\\u{`` spelled (``spell_backslash``), here and only here. Those lines
    are spelled as a whole with their backslashes kept (``spelled``: their author parts were
    spelled where they were put in), so a typed ``\\u{202e}`` in an argument would read as the
    U+202E a real one is spelled as (*spoofing*); spelled twice, the real one would read as typed."""
    return spell_backslash(one_line(s))


def shown_path(path: str) -> str:
    """What an error repeats of a path given on the command line: ``quoted`` to ``PATH_LIMIT``
    characters (a real absolute path whole; a 130,000-character ``--output`` made a
    130,000-character error line)."""
    return quoted(path, PATH_LIMIT)


def bounded(s: str, limit: int = 240) -> str:
    """``one_line`` and at most ``limit`` bytes of UTF-8, cut at a character boundary: what an
    error quotes of input it did not write (CONTRACT §0.5's 240 bytes)."""
    s = one_line(s)
    raw = s.encode("utf-8", "surrogatepass")
    return s if len(raw) <= limit else raw[:limit].decode("utf-8", "ignore")


def safe_text(s: str) -> str:
    """``safeText``: keep newline and tab, every other Cc rune becomes U+FFFD."""
    return s if s.isprintable() else s.translate(_NON_TEXT_TO_FFFD)


def spell_backslash(s: str) -> str:
    """``s`` with every backslash that begins ``\\u{`` written ``\\u{5c}`` (``\\u{5c}u{202e}``):
    author text that holds the six characters ``\\u{202e}`` would otherwise show exactly what a
    real U+202E shows, spelled (*spoofing*: a reader told there is a direction control where there
    is none, or a memory that mimics a hostile one). A ``\\u{…}`` of a human view is then always a
    character git-hn spelled. The one rule, for every human view (``invisible.spell_invisible``);
    where author text is put into text that is spelled as a whole later (its ``spelled``), it is
    applied to that author text there (``content_text``). ASCII text costs one substring search."""
    return s.replace("\\u{", "\\u{5c}u{") if "\\u{" in s else s


def content_text(s: str) -> str:
    """Author content on a plain-text human line (git-hn): ``safe_text``, with every line after
    the first indented by two spaces. Lines that start in column 0 are git-hn's own, so content
    cannot add a record line of its own making (another actor's ID, ``trust=qualified``) to
    piped recall, digest or show output. The Unicode line and paragraph separators, which many
    line readers (Python's ``splitlines``) take for line ends, are shown as ``\\u{…}`` by the
    spelling every such line passes (``cli.render.lines``: ``invisible.spell_invisible``); a
    backslash that begins ``\\u{`` is spelled here (``spell_backslash``), the only time."""
    return spell_backslash(safe_text(s)).replace("\n", "\n  ")


def tokens(text: str) -> list[str]:
    """The lexical tokenizer of CONTRACT §7.9: sorted unique lowercased letter/number runs."""
    return sorted(set(token_sequence(text)))


def token_sequence(text: str) -> list[str]:
    """The §7.9 tokens in text order, repeats kept (``tokens`` is its sorted set): what recall's
    phrases and relevance order read (``core.search``)."""
    if text.isascii():  # the same answer, without the large Unicode character class, in one pass
        return text.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()
    global _word
    if _word is None:
        import re

        from . import _unicode15

        _word = re.compile("[" + _unicode15.LETTER_NUMBER_CLASS + "]+")
    # Lowercasing first is equivalent (the simple mapping never moves a rune in or out of L*/N*,
    # pinned by a test over the tables) and costs one translate per text instead of per word.
    return _word.findall(to_lower(text))


def utf8_len(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def short_id(value: str) -> str:
    """The first 12 characters after removing any ``sha256:`` prefix (CONTRACT §1.9)."""
    if value.startswith("sha256:"):
        value = value[len("sha256:"):]
    return value[:12]


def and_joined(items, word: str = "and") -> str:
    """``items`` as an English list: "a", "a and b", "a, b and c"; "" for none (one spelling for
    every message that names several things; a reread found it written out seven times).
    ``word``: what comes before the last ("or": ``or_joined``)."""
    items = list(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}" if len(items) > 1 else "".join(items)


def or_joined(items) -> str:
    """``and_joined`` with "or": "a, b or c", the choices an option takes."""
    return and_joined(items, "or")
