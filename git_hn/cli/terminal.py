"""Human output on a terminal (issue 14): short IDs, author names, lines fitted to the width, colour.

Only used when stdout is a terminal; piped or redirected output keeps the contract's line formats
(``render.lines``) and never comes here, so rich is imported only on a terminal. Colour is off
when ``NO_COLOR`` is set (any non-empty value), ``TERM`` is ``dumb`` or unset, or ``--no-color``
is given (after the command, or before it: ``git hn --no-color memory log``); the layout stays the readable one.

Trust boundary: every string taken from a memory, an identity name, a remote or a ref is author
text. It reaches the terminal only as the plain text of a rich ``Text`` span built here, after
``core.log.inert`` (C0/C1 controls shown as U+FFFD or a space, bidirectional controls as
``\\u{…}``), with rich's markup, emoji and highlighting off (*markup injection*, *terminal
escape injection*, *Trojan Source*). The only escape sequences written are the SGR codes of the
fixed styles below, chosen by protocol class, never by author text. Every line is cut to the
terminal's width (display cells, wide characters counted as two) rather than wrapped inside an
identifier; only free text (content, the warning) is wrapped, and a memory's classes (kind,
lifecycle, trust), which are never cut, continue on the next line where they do not fit.
"""

from __future__ import annotations

import io
import os
import re
import sys

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from ..core import log as logcore
from ..core.gostr import safe_text, short_id
from ..core.grammar import utc_timestamp
from ..core.invisible import spell_invisible

# -- styles: one table for every command (and ``memory log``) ----------------------------------

ID = "yellow"
DATE = "blue"
NAME = "bold"
LABEL = "dim"
WARNING = "dim"
KIND = "cyan"
LIFECYCLE = {"active": "green", "superseded": "yellow", "retracted": "red", "branching": "magenta",
             "dependency-missing": "magenta"}
TRUST = {"qualified": "green"}  # every other trust class: red
QUIET = {"applicable", "resolved"}  # recall's usual classes, not shown on its short lines
VERB = {"record": "Recorded", "supersede": "Recorded", "retract": "Retracted with",
        "challenge": "Challenged with"}
TARGET_LABEL = {"supersede": "Supersedes", "retract": "Retracts", "challenge": "Challenges"}


def trust_style(trust: str) -> str:
    return TRUST.get(trust, "red")


def wants_colour(no_color: bool = False) -> bool:
    """Colour on a terminal unless ``--no-color``, ``NO_COLOR`` (non-empty) or a dumb terminal."""
    from . import render

    if no_color or render.no_color_first or os.environ.get("NO_COLOR"):
        return False
    return os.environ.get("TERM", "") not in ("", "dumb")


def width() -> int:
    """The terminal's columns: ``COLUMNS`` when it is a positive number (as Git and rich honour
    it), else the terminal's own size, else 80."""
    from .render import size_setting

    given = size_setting("COLUMNS")
    if given:
        return given
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns or 80
    except (OSError, ValueError):
        return 80


class Screen:
    """A rich console writing into a buffer at the terminal's width (``text``: what it wrote)."""

    def __init__(self, no_color: bool = False, columns: int | None = None):
        self.width = max(columns or width(), 20)
        self.colour = wants_colour(no_color)
        self.buf = io.StringIO()
        self.console = Console(file=self.buf, width=self.width, force_terminal=self.colour,
                               color_system="standard" if self.colour else None, no_color=not self.colour,
                               markup=False, emoji=False, highlight=False, legacy_windows=False)

    def line(self, text: Text) -> None:
        """One line, never wider than the terminal (cut with an ellipsis, never wrapped)."""
        self.console.print(text, markup=False, emoji=False, highlight=False, no_wrap=True,
                           overflow="ellipsis", crop=True, soft_wrap=False)

    def copyable(self, text: Text) -> None:
        """A line someone copies a value from (a full ID, a key): never cut; wider than the
        terminal, it is left to the terminal to wrap (no newline inserted), so that selecting it
        still copies the whole value."""
        if text.cell_len <= self.width:
            self.line(text)
        else:
            self.console.print(text, markup=False, emoji=False, highlight=False, soft_wrap=True)

    def whole(self, label: str, values, pad: int, every: bool = False) -> None:
        """``values`` someone copies (a full ID, an evidence ID), each whole on its line: in the
        value column after ``label`` (on the first line, or with ``every`` on each) when every one
        fits the width there; else ``label`` alone on its line (none when it is empty) and each
        value under it, two columns in, as content is (a newcomer trial saw a ``memory:sha256:…``
        evidence item cut at 80 columns), left to the terminal to wrap where wider still."""
        if all(pad + cell_len(value) <= self.width for value in values):
            for n, value in enumerate(values):
                self.copyable(labelled(label if every or not n else "", value, pad=pad))
            return
        if label:
            self.line(Text(label, style=LABEL))
        for value in values:
            self.copyable(Text("  " + value))

    def wrapped(self, text: Text) -> None:
        """Free text, wrapped at the width (long words folded)."""
        text.no_wrap, text.overflow = False, "fold"
        self.console.print(text, markup=False, emoji=False, highlight=False, soft_wrap=False)

    def indented(self, text: Text, indent: int) -> None:
        """Free text wrapped at the width, every line of it (continuations too) indented."""
        from rich.padding import Padding

        if not text.plain:  # (a padded empty text renders as no line at all: a blank line is content)
            self.console.print()
            return
        text.no_wrap, text.overflow = False, "fold"
        self.console.print(Padding(text, (0, 0, 0, indent), expand=False), markup=False, emoji=False, highlight=False,
                           soft_wrap=False)

    def text(self) -> str:
        return self.buf.getvalue()


def span(*parts) -> Text:
    """A line from (text, style) pairs joined by one space; empty parts are left out."""
    out = Text(no_wrap=True, overflow="ellipsis")
    for part, style in parts:
        if part:
            if len(out):
                out.append(" ")
            out.append(part, style=style or None)
    return out


def inert(text: str, spaces: bool = True) -> str:
    return logcore.inert(text, spaces)


def who(name: str, actor: str, room: int | None = None, least: int = 4) -> Text:
    """``Name (actor12)``; with ``room`` columns, the name gives way, never the actor (down to
    ``least`` columns: below that the actor is cut, unless the caller moves the line, ``beside``)."""
    tail = f" ({short_id(actor)})"
    out = Text(inert(name).strip() or "?", style=NAME, no_wrap=True, overflow="ellipsis")
    if room is not None and out.cell_len + len(tail) > room:
        out.truncate(max(room - len(tail), least), overflow="ellipsis")
    out.append(tail, style=LABEL)
    return out


def labelled(label: str, value, style: str | None = None, *, pad: int) -> Text:
    """``Label  value``: the label padded to ``pad`` columns (at least one space after it); a
    block's ``pad`` is its ``label_column``."""
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(label.ljust(pad) if len(label) < pad else label + " ", style=LABEL)
    if isinstance(value, Text):
        out.append_text(value)
    else:
        out.append(value, style=style)
    return out


def label_column(*labels: str) -> int:
    """The one rule for a block of labelled lines (``show``, what an append wrote, an import, an
    identity): one space after its longest label, so every value starts in one column. (Before
    f171 each view had its own width: 9 for ``show``, 10 for ``record``, 11 for ``supersede``.)"""
    return max(len(label) for label in labels) + 1


def beside(screen: Screen, label: str, value, pad: int, least: int, style: str | None = None) -> None:
    """``label`` and a value that begins with a short ID (``least``: the columns the ID takes,
    with the space and the ``…`` of a cut when more follows it, ``kept``): on one line where they
    fit beside the label, else the label alone and the value under it, two columns in, as
    ``Screen.whole`` puts a full ID (f158's relations; below 26 columns a ``Stream``, ``Stored``
    or ``Supersedes`` ID was cut, f167), what follows the ID cut at the width."""
    if pad + least <= screen.width:
        screen.line(labelled(label, value, style, pad=pad))
        return
    screen.line(Text(label, style=LABEL))
    screen.line(labelled("", value, style, pad=2))


def kept(short: str, more: bool) -> int:
    """The columns ``beside`` keeps for a short ID: the ID, and a space and ``…`` when a value goes
    on after it (cut right after the ID, ``a1b2c3d4e5f6…`` would read as a longer, cut ID)."""
    return cell_len(short) + (2 if more else 0)


def led(screen: Screen, label: str, pad: int, first: str) -> Text:
    """The lead of a ``flow`` that starts with the short ID ``first``: ``label`` padded, or, where
    the ID does not fit beside it, ``label`` alone on its line and a lead two columns in."""
    if pad + cell_len(first) <= screen.width:
        return labelled(label, "", pad=pad)
    screen.line(Text(label, style=LABEL))
    return labelled("", "", pad=2)


def memory_line(f: logcore.Fields) -> Text:
    """One memory as ``memory log`` shows it: short ID, date, name, kind, lifecycle, trust, its
    mark (``challenged``), summary."""
    return span((f.short, ID), (f.date, DATE), (f.name, NAME), (f.actor, LABEL), (f.kind, KIND),
                (f.lifecycle, LIFECYCLE.get(f.lifecycle, "")), (f.trust, trust_style(f.trust)), (f.marks, "red"),
                (f.summary, ""))


def first_line(content: str) -> tuple[str, int]:
    """The content's first non-blank line (inert) and how many lines the view hides: every line
    after it up to the last non-blank one, blank lines between included (a newcomer trial saw an
    8-line memory with one blank line said as "+6 lines")."""
    lines = content.split("\n")
    shown = [i for i, line in enumerate(lines) if line.strip()]
    if not shown:
        return "", 0
    return inert(lines[shown[0]].strip(), spaces=False), shown[-1] - shown[0]


def header(screen: Screen, short: str, date: str, name: str, actor: str, kind: str, lifecycle: str,
           trust: str, extra: tuple[str, ...] = ()) -> None:
    """A memory's first line in recall and digest blocks (``actor``: its tag, or ""); only the
    author name is ever cut."""
    memory_lines(screen, logcore.Fields(short, date, logcore.shown_name(name), actor, kind, lifecycle, trust, ""),
                 extra)


def more_note(more: int) -> str:
    """What a one-line view says of the content lines it hides (recall, log)."""
    return f"(+{more} {'line' if more == 1 else 'lines'})" if more else ""


def memory_lines(screen: Screen, f: logcore.Fields, extra: tuple[str, ...] = (), note: str = "") -> None:
    """A memory's line (``memory_line``, then ``extra`` classes in red) fitted to the width by
    ``logcore.fit``: the summary, then the name, give way. Where even the ID, date, name (at
    ``MIN_NAME``), actor tag and classes are wider than the terminal (40 columns: a newcomer saw
    ``f2739ac64cb5 2026-12-05 N... decision a…``, lifecycle and trust cut away), the classes
    that do not fit move to the following lines, aligned under the date, and are never cut; the
    summary, if any, gets a line of its own there. ``note`` (``more_note``) follows the summary,
    never cut: the summary gives way to it."""
    note = note if f.summary else ""
    tail = sum(cell_len(x) + 1 for x in extra) + (cell_len(note) + 2 if note else 0)
    fitted = logcore.fit(f, screen.width - tail, cell_len)
    line = memory_line(fitted)
    if note:
        line.append("  ")
        line.append(note, style=LABEL)
    for x in extra:
        line.append(" ")
        line.append(x, style="red")
    if line.cell_len <= screen.width:
        screen.line(line)
        return
    head = logcore.fit(f._replace(kind="", lifecycle="", trust="", marks="", summary=""), screen.width, cell_len)
    parts = [(head.short, ID), (head.date, DATE), (head.name, NAME), (head.actor, LABEL), (f.kind, KIND),
             (f.lifecycle, LIFECYCLE.get(f.lifecycle, "")), (f.trust, trust_style(f.trust)), (f.marks, "red"),
             *((x, "red") for x in extra)]
    # under the date where the longest class fits there, else just off the edge
    indent = cell_len(f.short) + 1 if screen.width - cell_len(f.short) > len("dependency-missing") else 2
    flow(screen, parts, indent)
    if f.summary:
        summary_line(screen, f.summary, indent, note)


def summary_line(screen: Screen, summary: str, indent: int, note: str = "") -> None:
    """A summary on a line of its own, ``indent`` columns in, cut to the width before ``note``."""
    rest = Text(" " * indent, no_wrap=True, overflow="ellipsis")
    room = screen.width - indent - (cell_len(note) + 2 if note else 0)
    rest.append(logcore.fit(logcore.Fields("", "", "", "", "", "", "", summary), max(room, 1), cell_len).summary)
    if note:
        rest.append("  ")
        rest.append(note, style=LABEL)
    screen.line(rest)


def flow(screen: Screen, parts, indent: int | None = None, lead: Text | None = None) -> None:
    """``(text, style)`` parts after ``lead``, joined by one space; a part that does not fit on
    the line starts the next one, indented by ``indent`` columns (default: under the first part,
    after ``lead``). No part is ever cut: one wider than a whole line is left to the terminal to
    wrap (``copyable``)."""
    line = lead.copy() if lead is not None else Text(no_wrap=True, overflow="ellipsis")
    indent = line.cell_len if indent is None else indent
    started = False  # (a part on this line: the next one fits beside it or starts a line)
    for text, style in parts:
        if not text:
            continue
        gap = 1 if line.plain and not line.plain.endswith(" ") else 0
        if started and line.cell_len + gap + cell_len(text) > screen.width:
            screen.copyable(line)
            line, gap = Text(" " * indent, no_wrap=True, overflow="ellipsis"), 0
        if gap:
            line.append(" ")
        line.append(text, style=style or None)
        started = True
    screen.copyable(line)


def content_line(screen: Screen, content: str) -> None:
    text, more = first_line(content)
    line = Text("    ", no_wrap=True, overflow="ellipsis")
    line.append(text)
    if more:
        suffix = f"  {more_note(more)}"
        room = screen.width - cell_len(suffix)
        if line.cell_len > room:
            line.truncate(max(room, 8), overflow="ellipsis")
        line.append(suffix, style=LABEL)
    screen.line(line)


# -- commands --------------------------------------------------------------------------------


# the options that raise each bound a page stops at (``core.recall.fill``'s ``why``)
_RAISE = {"records": "--max-records", "content": "--max-content-bytes", "bytes": "--max-bytes"}


def recall(doc: dict, names: dict[str, str], no_color: bool = False, columns: int | None = None,
           known=(), stopped=()) -> str:
    """``memory recall``: the warning, a count, then two lines per memory (``known``: the
    ``(name, actor)`` pairs of ``names.known_authors``, for telling namesakes apart; ``stopped``:
    the bounds the page stopped at, whose options the last line names, f162)."""
    screen = Screen(no_color, columns)
    screen.wrapped(Text(doc["warning"], style=WARNING))
    rows = doc["memories"]
    matched, returned = doc["matched"], doc["returned"]
    count = f"{matched} {'memory' if matched == 1 else 'memories'} matched"
    if doc["truncated"] or returned != matched:
        count += f", {returned} shown"
    screen.line(Text(count, style=LABEL))
    shared = logcore.shared_names([*((names.get(row["id"], ""), row["actor"]) for row in rows), *known])
    for row in rows:
        extra = tuple(x for x in (row["applicability"], row["evidence"]) if x not in QUIET) + challenged(row)
        name = names.get(row["id"], "")
        header(screen, short_id(row["id"]), utc_timestamp(row["signedTimestamp"])[:10], name,
               logcore.actor_tag(name, row["actor"], shared), row["kind"], row["lifecycle"], row["trust"],
               extra)
        content_line(screen, row["data"]["content"])
    if "nextCursor" in doc:
        # the cursor itself (hundreds of characters) is not printed here: it is for scripts
        # (a newcomer trial: 20 records, the default, said to raise a content bound never reached)
        raise_ = " and ".join(_RAISE[b] for b in _RAISE if b in stopped) or "--max-records or --max-content-bytes"
        screen.wrapped(Text(f"More memories match: raise {raise_}, or page with the cursor that --json "
                            "(nextCursor) or piped output prints", style=LABEL))
    return screen.text()


def digest(doc: dict, names: dict[str, str], no_color: bool = False, columns: int | None = None,
           known=()) -> str:
    screen = Screen(no_color, columns)
    screen.wrapped(Text(doc["warning"], style=WARNING))
    screen.line(Text(f"Handoffs and decisions of {doc['month']}: {len(doc['memories'])}", style=LABEL))
    shared = logcore.shared_names([*((names.get(row["id"], ""), row["actor"]) for row in doc["memories"]),
                                   *known])
    for row in doc["memories"]:
        name = names.get(row["id"], "")
        header(screen, short_id(row["id"]), utc_timestamp(row["signedTimestamp"])[:10], name,
               logcore.actor_tag(name, row["actor"], shared), row["kind"], row["lifecycle"], row["trust"],
               challenged(row))
        content_line(screen, row["data"]["content"])
    return screen.text()


def challenged(row: dict) -> tuple[str, ...]:
    """A recall or digest row's mark when someone challenged it (``show``, ``log --graph`` and
    the page say so; a newcomer trial found recall silent): ``challenged``, with the count past one."""
    return challenge_mark(len(row.get("challengers") or ()))


def challenge_mark(n: int) -> tuple[str, ...]:
    """``challenged`` for ``n`` challengers, with the count past one (recall, digest and log)."""
    return () if not n else ("challenged",) if n == 1 else (f"challenged ({n})",)


def show(doc: dict, no_color: bool = False, columns: int | None = None, reasons: dict | None = None) -> str:
    """``memory show``; ``reasons``: each challenger's signed reason (``service.show.show``)."""
    screen = Screen(no_color, columns)
    env = doc["envelope"]
    screen.wrapped(Text(doc["warning"], style=WARNING))
    proj = doc.get("projection")
    operation = "" if env["operation"] == "record" else env["operation"]
    pad = _show_pad(doc)
    # (the classes are never cut: on a narrow terminal they continue on the next line)
    # (every short ID whole: where one does not fit beside its label, it goes under it, ``beside``)
    flow(screen, [(short_id(doc["memoryId"]), ID), (operation, ""),
                  *(((proj["kind"], KIND), (proj["lifecycle"], LIFECYCLE.get(proj["lifecycle"], "")),
                     (proj["trust"], trust_style(proj["trust"]))) if proj else ())],
         lead=led(screen, "Memory", pad, short_id(doc["memoryId"])))
    author = who(env["actorName"], env["actor"], screen.width - pad)
    if pad + author.cell_len > screen.width:  # (the actor's ID, whole under the label: the name gives way)
        author = who(env["actorName"], env["actor"], screen.width - 2, least=1)
    beside(screen, "Author", author, pad, author.cell_len)
    screen.line(labelled("Signed", utc_timestamp(env["timestamp"]), DATE, pad=pad))
    stream = short_id(env["stream"])
    beside(screen, "Stream", f"{stream} #{env['sequence']}", pad, kept(stream, True))
    # (a team trial read "Commit" as the anchor: it is the commit that stores the memory)
    beside(screen, "Stored", short_id(doc["commit"]), pad, kept(short_id(doc["commit"]), False))
    if env.get("target") and "targetProjection" not in doc:
        beside(screen, TARGET_LABEL.get(env["operation"], "Target"), short_id(env["target"]), pad,
               kept(short_id(env["target"]), False), ID)
    if env.get("reason"):
        screen.line(labelled("Reason", inert(env["reason"]), pad=pad))
    if env.get("evidence"):  # (a retraction's or challenge's own: no class, each item labelled)
        screen.whole("Evidence", [inert(item) for item in env["evidence"]], pad, every=True)
    if proj:
        _projection(screen, proj, pad, reasons or {})
    if "targetProjection" in doc:
        target = doc["targetProjection"]
        flow(screen, [(short_id(target["id"]), ID), (target["kind"], KIND),
                      (target["lifecycle"], LIFECYCLE.get(target["lifecycle"], "")),
                      (target["trust"], trust_style(target["trust"]))],
             lead=led(screen, TARGET_LABEL.get(env["operation"], "Target"), pad, short_id(target["id"])))
        _content(screen, target["data"]["content"], "Target content (inert)")  # (not this memory's own)
    # the one line to copy, whole (a label column widened by a relation: under its label)
    screen.whole("Full ID", [doc["memoryId"]], pad)
    return screen.text()


def _show_pad(doc: dict) -> int:
    """The label column of ``show``: one space after its longest label, so every value starts in
    one column (a newcomer trial saw ``Full ID`` and ``Challenges`` out of line). 9 for the
    usual labels (``Evidence``), so that ``Full ID`` and a 71-character ID fit 80 columns."""
    labels = ["Evidence"]
    env = doc["envelope"]
    if env.get("target"):
        labels.append(TARGET_LABEL.get(env["operation"], "Target"))
    proj = doc.get("projection") or {}
    labels += [label for key, label in RELATION_LABEL if proj.get(key)]
    return label_column(*labels)


RELATION_LABEL = (("successors", "Superseded by"), ("retractions", "Retracted by"),
                  ("challengers", "Challenged by"))


def _projection(screen: Screen, row: dict, pad: int, reasons: dict) -> None:
    anchor = row["anchor"]["commit"][:12]
    beside(screen, "Anchor", f"{anchor} ({row['applicability']})", pad, kept(anchor, True))
    screen.line(labelled("Evidence", row["evidence"], pad=pad))
    # its items in the same column, under their class (a newcomer trial read two "Evidence" lines,
    # "resolved" and "memory:sha256:…", as two different things; the page says "Evidence refs")
    # (IDs to copy: never cut; where one does not fit the column, all go under the class)
    screen.whole("", [inert(item) for item in row["data"].get("evidence", ())], pad)
    for key, label in RELATION_LABEL:
        for other in row.get(key, ()):
            short = short_id(other)
            column = pad if pad + len(short) <= screen.width else 2
            if column == pad:
                line = labelled(label, short, ID, pad=pad)
            else:  # (below 26 columns: the short ID, to copy, whole under its label, as ``Screen.whole``)
                screen.line(Text(label, style=LABEL))
                line = labelled("", short, ID, pad=column)
            why = inert(reasons.get(other, "")) if key == "challengers" else ""
            if why and line.cell_len + 1 + cell_len(why) > screen.width:  # (on the next line, in the column)
                screen.line(line)
                line = labelled("", "", pad=column)
            elif why:
                line.append(" ")
            line.append(why)  # (why, as the page says it; cut at the width like a summary)
            screen.line(line)
    data = row["data"]
    _typed_again(screen, "Topics", [inert(topic) for topic in data.get("topics") or ()], pad)
    _typed_again(screen, "Paths", [inert(p["path"]) for p in row["anchor"].get("paths", ())], pad)
    if row["anchor"].get("subject"):
        screen.line(labelled("Subject", inert(row["anchor"]["subject"]), pad=pad))
    if data.get("attemptOutcome"):
        screen.line(labelled("Outcome", data["attemptOutcome"], pad=pad))
    _content(screen, data["content"])
    handoff = data.get("handoff")
    for key, title in logcore.HANDOFF_PARTS if handoff else ():
        if handoff[key]:
            screen.line(Text(title, style=LABEL))
            for entry in handoff[key]:
                text = spell_invisible(safe_text(entry), spaces=False).expandtabs(4)
                screen.indented(Text("- " + text.replace("\n", "\n  ")), 2)


def _typed_again(screen: Screen, label: str, values: list[str], pad: int) -> None:
    """Values someone types again (a path for ``recall --path``, a topic for ``--topic``), never
    cut: together on ``label``'s line where they fit there, else each whole on a line of its own
    (``Screen.whole``; a newcomer trial at 60 columns saw an anchored path end in ``…``, f174)."""
    joined = ", ".join(values)
    if not values or pad + cell_len(joined) <= screen.width:
        if values:
            screen.line(labelled(label, joined, pad=pad))
        return
    screen.whole(label, values, pad)


def _content(screen: Screen, content: str, label: str = "Content (inert)") -> None:
    screen.line(Text(label, style=LABEL))
    for line in spell_invisible(safe_text(content), spaces=False).expandtabs(4).split("\n"):
        screen.indented(Text(line), 2)


def result(memory_id: str, env, replayed: bool = False, no_color: bool = False,
           columns: int | None = None) -> str:
    """What record, handoff, supersede, retract and challenge appended. A retraction's or
    challenge's reason is on its own ``Reason`` line under the target, as ``show`` prints it (a
    newcomer trial read "Retracted with <id> obsolete", the reason unlabelled after the ID, as
    part of it), and a challenge's evidence under it, each item on an ``Evidence`` line as
    ``show`` lists them (f179); a record's kind stays after its ID. Pipes print §7.14's lines (``core.human``)."""
    screen = Screen(no_color, columns)
    kind = env.record.kind if env.record is not None else ""
    screen.line(span((VERB.get(env.operation, "Appended"), "bold"), (short_id(memory_id), ID),
                     (kind, KIND if kind else "")))
    reason = inert(env.reason) if env.record is None and env.reason else ""
    # (a challenge's own evidence, under its reason, as ``show`` lists it: f179, a trial saw the
    # reason and not what backs it)
    evidence = [inert(item) for item in env.evidence or ()] if env.record is None else []
    pad = label_column("Author", "Stream", *((TARGET_LABEL.get(env.operation, "Target"),) if env.target else ()),
                       *(("Reason",) if reason else ()), *(("Evidence",) if evidence else ()))
    if env.target:
        screen.line(labelled(TARGET_LABEL.get(env.operation, "Target"), short_id(env.target), ID, pad=pad))
    if reason:
        screen.line(labelled("Reason", reason, pad=pad))
    if evidence:
        screen.whole("Evidence", evidence, pad, every=True)
    screen.line(labelled("Author", who(env.actor_name, env.actor, screen.width - pad), pad=pad))
    screen.line(labelled("Stream", short_id(env.stream), pad=pad))
    if env.record is not None:
        screen.line(labelled("Anchor", env.record.anchor.commit[:12], pad=pad))
    if replayed:
        screen.line(Text("Replayed: existing memory returned; nothing appended", style="yellow"))
    return screen.text()


IMPORTED_SHOWN = 10  # new IDs an import lists on a terminal (--json lists every one)


def imported(result, name: str, no_color: bool = False, columns: int | None = None) -> str:
    """What ``memory import`` appended, in ``result``'s layout: the count, the new short IDs,
    the author (``name``: the signed one) and the stream; a replay says nothing was appended."""
    screen = Screen(no_color, columns)
    pad = label_column("New", "Author", "Stream")
    new = [line.memory_id for line in result.lines if not line.replayed]
    present = len(result.lines) - len(new)
    if new:
        head = span((f"Imported {len(new)} {'memory' if len(new) == 1 else 'memories'}", "bold"))
        if present:
            head.append(f", {present} {'draft' if present == 1 else 'drafts'} already present", style=LABEL)
        screen.line(head)
        more = len(new) - IMPORTED_SHOWN
        flow(screen, [*((short_id(i), ID) for i in new[:IMPORTED_SHOWN]), (f"and {more} more" if more > 0 else "",
                                                                           LABEL)],
             lead=labelled("New", "", pad=pad))
    else:
        n = len(result.lines)
        screen.line(Text(f"Replayed: {'the draft is' if n == 1 else f'all {n} drafts are'} already in the "
                         "stream; nothing appended", style="yellow"))
    screen.line(labelled("Author", who(name, result.actor, screen.width - pad), pad=pad))
    screen.line(labelled("Stream", short_id(result.stream), pad=pad))
    return screen.text()


def already_retracted(target: str, retraction: str, no_color: bool = False) -> str:
    screen = Screen(no_color)
    screen.line(span(("Memory", ""), (short_id(target), ID), ("is already retracted by", ""),
                     (short_id(retraction), ID), ("; nothing appended", "")))
    return screen.text()


def identities(rows, no_color: bool = False, columns: int | None = None) -> str:
    """``identity list`` as a table: name, short actor, active or stored."""
    from rich.table import Table

    screen = Screen(no_color, columns)
    table = Table(box=None, show_header=True, header_style=LABEL, pad_edge=False, expand=False)
    # the name is the only column that gives way: the short actor and the status are never cut
    table.add_column("Name", overflow="ellipsis", no_wrap=True, max_width=max(screen.width - 24, 4))
    table.add_column("Actor", no_wrap=True, width=12)
    table.add_column("Status", no_wrap=True, width=6)
    for ident, active in rows:
        table.add_row(Text(inert(ident.name).strip() or "?", style=NAME), Text(short_id(ident.actor), style=ID),
                      Text("active", style="green") if active else Text("stored", style=LABEL))
    screen.console.print(table, markup=False, emoji=False, highlight=False, crop=True)
    return screen.text()


def identity(ident, which: str, no_color: bool = False) -> str:
    screen = Screen(no_color)
    pad = label_column("Name", "Actor", "Full actor", *(("Public key",) if which == "public" else ()))
    screen.line(labelled("Name", Text(inert(ident.name), style=NAME), pad=pad))
    screen.line(labelled("Actor", short_id(ident.actor), ID, pad=pad))
    if which == "public":
        screen.copyable(labelled("Public key", ident.public_key, pad=pad))
    screen.copyable(labelled("Full actor", ident.actor, pad=pad))
    return screen.text()


LONG_ID = re.compile(r"\bsha256:([0-9a-f]{12})[0-9a-f]{52}\b")


def shortened_lines(lines: list[str]) -> str:
    """Lines without a layout of their own (``sync``): inert, every ``sha256:`` ID shortened to
    its 12 hex, wrapped at the width between words (a diagnostic is never cut), uncoloured. A
    suggested command (``git push origin <oid>:refs/…``) is never split: a newline inside it
    would leave someone who copies the first line with a different command (``git push
    origin``); a command or word wider than the terminal is left to the terminal to wrap."""
    screen = Screen(no_color=True)
    for line in lines:
        # (``spelled``: as piped, ``render.lines``; the author text in them was spelled where put in)
        for part in word_wrapped(LONG_ID.sub(r"\1", logcore.inert(line, spelled=True)), screen.width):
            screen.copyable(Text(part))
    return screen.text()


# words that end a command named inside a sentence ("..., then git hn sync origin and ...")
_AFTER_COMMAND = frozenset({"then", "and", "or", "if", "to", "which", "after", "before", "when", "so",
                            "until", "with", "for", "(a", "once"})
_COMMAND_WORDS = 8  # a command longer than this is prose that happens to start with "git"


def _starts_command(words: list[str], i: int) -> bool:
    """``git <subcommand>``, bare or opened by a bracket or a quote."""
    return words[i].lstrip("(`\"'") == "git" and i + 1 < len(words) and words[i + 1][:1].isalpha()


def word_wrapped(text: str, columns: int) -> list[str]:
    """``text`` in lines of at most ``columns`` display cells, broken only at spaces and never
    inside a ``git …`` command; a unit wider than ``columns`` gets a line of its own."""
    body = text.lstrip(" ")
    indent = text[:len(text) - len(body)]  # (kept on the first line)
    words = body.split(" ")
    units, i = [], 0
    while i < len(words):
        j = i + 1
        if _starts_command(words, i):
            while j < len(words) and j - i < _COMMAND_WORDS and words[j] not in _AFTER_COMMAND \
                    and not _starts_command(words, j) \
                    and not words[j - 1].endswith((",", ";", ".", ")", ":", "`", '"', "'")):
                j += 1
        units.append(" ".join(words[i:j]))
        i = j
    out, current = [], indent
    for unit in units:
        if current.strip() and cell_len(current) + 1 + cell_len(unit) > columns:
            out.append(current)
            current = unit
        else:
            current = f"{current} {unit}" if current.strip() else current + unit
    out.append(current)
    return out
