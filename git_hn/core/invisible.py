"""The characters that render as nothing, and how human views show them (git-hn).

Pure, no I/O. One definition, read by every human view (the terminal and piped lines of recall,
show, log, digest and the brief, display names, ``git-hn:`` error and hint lines, the Markdown
export and the HTML page) and by the secret lint.

Author text is hostile. A character that a terminal or browser draws as nothing can hide a
difference a reader is asked to judge: a sentence written in Unicode tag characters
(U+E0020–U+E007F) is invisible on screen but read by a language model (*ASCII smuggling*,
*prompt injection*); variation selectors after a letter carry arbitrary bytes (*emoji
smuggling*); a display name with an invisible suffix looks exactly like another actor's
(*impersonation*); direction controls and marks reorder a line (*Trojan Source*, CONTRACT §0.5
names U+202A–U+202E and U+2066–U+2069). Human views therefore spell each of them as
``\\u{…}`` (lowercase hex), the form §0.5 gives the bidirectional controls. JSON output is
protocol data and never passes here. A backslash of author text that begins ``\\u{`` is spelled
too, ``\\u{5c}`` (``gostr.spell_backslash``): typed, ``\\u{202e}`` would show as a real U+202E
does (*spoofing*), so a ``\\u{…}`` shown is always a character spelled here. That is done once,
where the author text is first spelled; text spelled as a whole after its parts were
(``spelled``) keeps its backslashes.

Not spelled out: U+200C and U+200D (zero-width non-joiner and joiner) between two drawn
non-ASCII characters, which scripts such as Persian and Indic ones and emoji sequences need
(beside an ASCII letter, at an edge or in a run they are spelled: a review found ``Alice`` and
``Alice`` + U+200C alike in the log); the tag characters of the three subdivision flags
(England, Scotland, Wales), the only tag sequences drawn; and one emoji presentation selector (U+FE0E,
U+FE0F) directly after a non-ASCII character that is not itself invisible (``❤️``), or between a
keycap base and U+20E3 (``1️⃣``). Such a selector carries at most one bit and changes only how an
already visible character is drawn; a second selector, or one after an ASCII letter, is spelled.

Spelled too, though drawn as a blank: the space separators other than U+0020 (``SPACES``), which
no reader tells from an ASCII space; but in a memory's content shown as a block, which is prose. Two names that are one text in two Unicode normalizations
draw alike; a view that shows both says how each is written (``lookalikes``).
"""

from __future__ import annotations

from .gostr import Lazy, one_line, spell_backslash

# The class, as a regular-expression character set body (Default_Ignorable_Code_Point without
# U+200C/U+200D, plus the line and paragraph separators, the bidirectional controls and the
# interlinear annotation controls): soft hyphen, combining grapheme joiner, Arabic letter mark,
# Hangul fillers, Khmer inherent vowels, Mongolian free variation selectors and vowel separator,
# zero-width space, left-to-right and right-to-left marks, line and paragraph separators,
# embeddings and overrides, word joiner, invisible operators, isolates, deprecated format
# controls, the blank Braille pattern (a review: ``Alice`` + U+2800 looked like ``Alice``),
# variation selectors, zero-width no-break space, the unassigned specials and
# annotation controls, shorthand format controls, musical format controls, tags and the
# supplementary variation selectors.
HIDDEN = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200e\u200f"
          "\u2028\u2029\u202a-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
          "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
# removed, not spelled, before the secret lint's detectors: HIDDEN and the two joiners
FOLDED = HIDDEN + "\u200c\u200d"
# spelled, not removed: the space separators (category Zs) other than U+0020, drawn as a blank
# no reader tells from an ASCII space (a trial: ``nor`` U+00A0 ``mal.txt`` and ``nor mal.txt``
# looked alike in the brief, the page and the warnings); the lint reads them as the words they part
SPACES = "\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
# the direction controls among them (CONTRACT §0.5's embeddings, overrides and isolates, and
# the three marks): they reorder the text around them (*Trojan Source*)
DIRECTION = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"

_hidden = None  # compiled at the first non-ASCII text (a command's fixed cost)
_prose = None  # the same without SPACES
_folded = None
_PRESENTATION = "\ufe0e\ufe0f"
_JOINERS = "\u200c\u200d"
_KEYCAP_BASE = "0123456789#*"
_BLACK_FLAG = "\U0001f3f4"
# the three subdivision flags Unicode recommends (England, Scotland, Wales): the only tag
# sequences drawn as something; any other tag character is spelled
_FLAGS = Lazy(_BLACK_FLAG + "\U000e0067\U000e0062(?:\U000e0065\U000e006e\U000e0067|\U000e0073\U000e0063\U000e0074"
                    "|\U000e0077\U000e006c\U000e0073)\U000e007f")


def _pattern():
    global _hidden
    if _hidden is None:
        import re  # (only for non-ASCII text: ``gostr.Lazy``)

        _hidden = re.compile("[" + FOLDED + SPACES + "]")
    return _hidden


def _prose_pattern():
    global _prose
    if _prose is None:
        import re

        _prose = re.compile("[" + FOLDED + "]")
    return _prose


# the scripts whose spelling needs a joiner or non-joiner between letters: Arabic, Syriac, Thaana,
# N'Ko and the Arabic supplements and presentation forms; the Indic scripts; Myanmar; Khmer;
# Mongolian
_JOINING = ((0x0600, 0x08FF), (0x0900, 0x0DFF), (0x1000, 0x109F), (0x1780, 0x18AF), (0xA8E0, 0xA8FF),
            (0xFB50, 0xFDFF), (0xFE70, 0xFEFF))


# emoji whose base is not a symbol of category So (‼ ⁉ ™ ℹ ↔…↙ ↩ ↪ Ⓜ ◻…◾ ⤴ ⤵ 〰 〽 ㊗ ㊙)
_EMOJI_ELSEWHERE = ((0x203C, 0x203C), (0x2049, 0x2049), (0x2122, 0x2122), (0x2139, 0x2139), (0x2194, 0x2199),
                    (0x21A9, 0x21AA), (0x24C2, 0x24C2), (0x25FB, 0x25FE), (0x2934, 0x2935), (0x3030, 0x3030),
                    (0x303D, 0x303D), (0x3297, 0x3297), (0x3299, 0x3299))
# symbols of category So that no emoji is made of: box drawing, block elements, Braille (its
# blank pattern draws nothing)
_NOT_EMOJI = ((0x2500, 0x259F), (0x2800, 0x28FF))


def _emoji(ch: str) -> bool:
    """A character emoji sequences are made of (a symbol of category So but box drawing, blocks
    and Braille; the few emoji of other categories; the skin tone modifiers)."""
    import unicodedata

    o = ord(ch)
    if any(a <= o <= b for a, b in _EMOJI_ELSEWHERE) or 0x1F3FB <= o <= 0x1F3FF:
        return True
    return unicodedata.category(ch) == "So" and not any(a <= o <= b for a, b in _NOT_EMOJI)


def _scripted(ch: str) -> bool:
    """A letter or mark of a script that needs joiners (``_JOINING``)."""
    o = ord(ch) if ch else 0
    return any(a <= o <= b for a, b in _JOINING)


def _drawn(ch: str) -> bool:
    return bool(ch) and not ch.isascii() and _pattern().match(ch) is None


def _joiner_kept(s: str, i: int) -> bool:
    """Whether the joiner at ``s[i]`` joins what it may (a review: ``Alice`` and ``Alice`` with a
    zero-width non-joiner after it looked the same, and so did Cyrillic or accented names, and
    two emoji with a non-joiner between them): a zero-width joiner between two emoji (one
    presentation selector before it is looked past); either joiner after a letter or mark of a
    script that needs joiners, before another or at the end of a word (Malayalam's older chillu
    letters end with one)."""
    left = s[i - 2] if i >= 2 and s[i - 1] in _PRESENTATION else (s[i - 1] if i else "")
    right = s[i + 1:i + 2]
    if s[i] == "\u200d" and _drawn(left) and _drawn(right) and _emoji(left) and _emoji(right):
        return True
    if not (_drawn(left) and _scripted(left)):
        return False
    return _drawn(right) and _scripted(right) or not right or right.isspace() or (
        right.isascii() and not right.isalnum())


def _presentation_kept(s: str, i: int) -> bool:
    """Whether the presentation selector at ``s[i]`` only picks how the character before it is
    drawn (see the module docstring)."""
    if i == 0:
        return False
    before = s[i - 1]
    if before in _KEYCAP_BASE:
        return s[i + 1:i + 2] == "\u20e3"
    # (after a symbol only: after a letter, ``Zoë`` and ``Zoë`` + U+FE0F looked the same, a review)
    return not before.isascii() and _pattern().match(before) is None and _emoji(before)


def has_direction_control(s: str) -> bool:
    """Whether ``s`` holds a direction control (``DIRECTION``)."""
    if s.isascii():
        return False
    import re

    return re.search("[" + DIRECTION + "]", s) is not None


def spell_invisible(s: str, spaces: bool = True, spelled: bool = False) -> str:
    """Human output only: every invisible character of ``HIDDEN`` and every space of ``SPACES``
    written as ``\\u{…}``, and a zero-width joiner or non-joiner unless it joins two drawn
    non-ASCII characters; and every backslash that begins ``\\u{`` written ``\\u{5c}``
    (``spell_backslash``). ``spaces=False``: the spaces are kept, for a memory's content shown as
    a block (prose: French puts U+00A0 or U+202F before ``!`` and ``:``, Japanese U+3000 between
    phrases; what tells one file or name from another is a path's or a name's own line).
    ``spelled``: text whose backslashes are spelled already or need no spelling: its author
    parts were spelled where they were put in (a ``git-hn:`` line, the brief's Markdown, the
    lines ``cli.render.lines`` writes), or it escapes every backslash itself
    (``hints.quoted_text``); spelled twice, every ``\\u{…}`` would read as typed."""
    if not spelled:
        s = spell_backslash(s)
    if s.isascii():
        return s
    if _BLACK_FLAG in s and _FLAGS.search(s):  # (its tag characters stay, as one flag)
        parts = _FLAGS.split(s)
        flags = _FLAGS.findall(s)
        return "".join(spell_invisible(p, spaces, spelled=True) + (flags[k] if k < len(flags) else "")
                       for k, p in enumerate(parts))

    def spell(m) -> str:
        ch = m.group()
        if ch in _PRESENTATION and _presentation_kept(s, m.start()):
            return ch
        if ch in _JOINERS and _joiner_kept(s, m.start()):
            return ch
        return "\\u{%x}" % ord(ch)

    return (_pattern() if spaces else _prose_pattern()).sub(spell, s)


def diagnostic(text: str) -> str:
    """A ``git-hn:`` line's text as stderr gets it (``cli.render``'s error, warning and hint
    lines, and the hooks' lines that repeat a value of the user's, such as a remote's name):
    ``one_line``, its invisible characters spelled, its backslashes kept (``spelled``: the user's
    values in it were put in through ``gostr.echoed`` or ``quoted``), and each byte that was not
    UTF-8 (an argv or a path decoded with ``surrogateescape``: a lone surrogate U+DC80-U+DCFF)
    spelled ``\\xff``, as Git and a shell spell a byte; stderr's own handler wrote ``\\udcff`` (a
    differential trial). One rule, so that no such line writes a direction control raw (f167: the
    pager's and the page's lines, and a pre-push's invalid remote name, did)."""
    text = spell_invisible(one_line(text), spelled=True)
    if text.isascii():
        return text
    import re

    return re.sub("[\udc80-\udcff]", lambda m: "\\x%02x" % (ord(m.group()) - 0xDC00), text)


def remove_invisible(s: str) -> str:
    """``s`` without any character of ``FOLDED``: what a token pasted with invisible characters
    inside it reads as (the secret lint's second spelling)."""
    if s.isascii():
        return s
    global _folded
    if _folded is None:
        import re

        _folded = re.compile("[" + FOLDED + "]")
    return _folded.sub("", s)


def clusters(name: str) -> list[str]:
    """``name`` cut before each character that is not a combining mark."""
    import unicodedata

    out: list[str] = []
    for c in name:
        if out and unicodedata.combining(c):
            out[-1] += c
        else:
            out.append(c)
    return out


def spelled_cluster(cluster: str, between: str = " (", after: str = ")") -> str:
    """How a letter is written, visibly: ``decomposed (e + U+0301)``, ``composed (U+00E9)``."""
    import unicodedata

    form = "decomposed" if unicodedata.normalize("NFD", cluster) == cluster else "composed"
    return form + between + _code_points(cluster) + after


def _code_points(s: str) -> str:
    return " + ".join(c if " " < c < "\x7f" else f"U+{ord(c):04X}" for c in s)


def lookalikes(names) -> dict[str, str]:
    """Of ``names`` (the exact author strings one human view shows: paths), each that another of
    them would look identical to, being the same text in another Unicode normalization (NFC
    ``café.txt``, NFD ``cafe`` + U+0301 ``.txt``), mapped to what tells it apart, to be shown after
    it: ``decomposed e + U+0301``, each letter written otherwise than in another of its
    group. A name no other one looks like has no entry: an accented name alone is shown as it is."""
    import unicodedata

    groups: dict[str, set] = {}
    for n in names:
        if not n.isascii():
            groups.setdefault(unicodedata.normalize("NFC", n), set()).add(n)
    out: dict[str, str] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        cut = {n: clusters(n) for n in group}
        notes = {}
        if len({len(c) for c in cut.values()}) == 1:
            differ = [k for k in range(len(next(iter(cut.values())))) if len({c[k] for c in cut.values()}) > 1]
            notes = {n: ", ".join(spelled_cluster(cut[n][k], " ", "") for k in differ) for n in group}
        if len(set(notes.values())) < len(group):  # (every code point, where letters do not tell)
            notes = {n: _code_points(n) for n in group}
        out.update(notes)
    return out
