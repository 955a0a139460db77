"""Pure parts of the brief and digest (CONTRACT §7.15): fences, the byte bound, UTC months."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_hn.core import away, brief
from git_hn.errors import InputError


def row(i: int, kind="decision", content="c", ts="2026-08-30T12:00:00Z", stale=(), handoff=None,
        challenged=None):
    data = {"kind": kind, "content": content, "anchor": {"commit": "a" * 40},
            "applicability": {"mode": "descendants"}, "topics": [], "evidence": []}
    if handoff is not None:
        data["handoff"] = handoff
    r = {"id": f"sha256:{i:064x}", "stream": "sha256:" + "5" * 64, "actor": "1" * 64,
         "signedTimestamp": ts, "kind": kind, "contentDigest": "sha256:" + "0" * 64,
         "anchor": data["anchor"], "signature": "valid", "lifecycle": "active", "challengers": [],
         "successors": [], "retractions": [], "applicability": "applicable", "evidence": "resolved",
         "evidenceDetails": [], "dependencies": [], "trust": "qualified", "data": data}
    return brief.item(r, list(stale), challenged)


@pytest.mark.parametrize("text,ticks", [("plain", 3), ("a `b` c", 3), ("``", 3), ("x ``` y", 4),
                                         ("````` five", 6), ("ends with ```", 4)])
def test_fence_is_longer_than_any_backtick_run(text, ticks):
    block = brief.fence(text)
    fence = "`" * ticks
    assert block == f"{fence}text\n{text}\n{fence}\n"
    assert "`" * (ticks + 1) not in block


def test_fence_sanitizes_controls_but_keeps_newlines():
    assert brief.fence("a\x1b[31mred\nb\tc") == "```text\na\ufffd[31mred\nb\tc\n```\n"
    assert brief.fence("ends\n") == "```text\nends\n```\n"


def test_markdown_escapes_bidi_controls_and_keeps_author_text_fenced():
    it = row(1, content="safe \u202e evil", stale=["we`ird/path"])
    md = brief.markdown_bytes({**brief.head("c" * 40, "sha256:" + "d" * 64, 0),
                               **{s: [] for s in brief.SECTIONS}, "decisions": [it]}).decode()
    assert "\u202e" not in md and "safe \\u{202e} evil" in md
    assert "stale: anchored paths changed since it was written: ``we`ird/path``" in md


def test_sections_pick_latest_handoff_per_stream_and_limit_failures():
    h_old = row(1, "handoff", ts="2026-08-30T12:00:00Z",
                handoff={"completed": [], "assumptions": [], "blockers": [], "nextActions": []})
    h_new = row(2, "handoff", ts="2026-08-30T11:00:00Z",  # newer by sequence, older clock
                handoff={"completed": [], "assumptions": [], "blockers": [], "nextActions": []})
    fails = [row(10 + i, "attempt", ts=f"2026-08-30T12:00:{i:02d}Z") for i in range(12)]
    for f in fails:
        f["data"]["attemptOutcome"] = "failed"
    challenged = row(3, "assumption", challenged=[{"memoryId": "sha256:" + "9" * 64, "actor": "2" * 64,
                                                   "reason": "x", "evidence": []}])
    challenged["challengers"] = ["sha256:" + "9" * 64]
    out = brief.sections([h_old, h_new, challenged, *fails], {h_old["id"]: 1, h_new["id"]: 2})
    assert [i["id"] for i in out["handoffs"]] == [h_new["id"]]
    assert [i["id"] for i in out["failedAttempts"]] == [f["id"] for f in reversed(fails)][:10]
    assert out["assumptions"][0]["id"] == challenged["id"] and "challengedBy" not in out["assumptions"][0]
    assert out["challenges"][0]["challengedBy"][0]["reason"] == "x"


def entry(section: str, n: int, content: str, stale) -> dict:
    """An item of the shape ``section`` holds."""
    if section in brief.DERIVED:
        return {"memoryId": f"sha256:{n:064x}", "actor": "1" * 64, "text": content}
    if section == "staleAnchors":
        return brief.stale_anchor(row(n, content=content, stale=stale or ["a"]))
    if section == "handoffs":
        return row(n, "handoff", content=content, stale=stale,
                   handoff={"completed": [content], "assumptions": [], "blockers": [content],
                            "nextActions": [content]})
    return row(n, content=content, stale=stale)


@given(st.lists(st.tuples(st.sampled_from(brief.SECTIONS), st.text(max_size=300),
                          st.lists(st.sampled_from(["a", "b/c", "d`e"]), max_size=2)),
                max_size=12),
       st.integers(min_value=200, max_value=6000), st.sampled_from(["json", "markdown"]),
       st.integers(min_value=0, max_value=12))
def test_bounded_size_is_exact_and_keeps_the_order(items, bound, fmt, excluded):
    """The additive size computation agrees with the real rendering, byte for byte; each section
    keeps some of its items in their order (git-hn's shares decide how many; no longer a prefix:
    a later, smaller item is taken where an earlier one did not fit); every omitted item did not
    fit (up to the few bytes the fixed part is reserved at its largest)."""
    full = {name: [] for name in brief.SECTIONS}
    for n, (section, content, stale) in enumerate(items):
        full[section].append(entry(section, n + 1, content, stale))
    top = brief.head("c" * 40, "sha256:" + "d" * 64, excluded)
    try:
        doc, data = brief.bounded(top, full, bound, fmt)
    except InputError as exc:
        head, _, smallest = exc.message.partition("; the smallest bound that fits is ")
        assert head == f"memory brief does not fit in {bound} bytes", exc.message
        assert smallest.endswith(" bytes (a brief that lists no memory)"), exc.message
        smallest = int(smallest.split(" ")[0])  # (git-hn's help: the bound that fits, exactly)
        assert smallest > bound and len(brief.bounded(top, full, smallest, fmt)[1]) <= smallest
        with pytest.raises(InputError):
            brief.bounded(top, full, smallest - 1, fmt)
        return
    left, room = [], 0
    if fmt == "markdown" and doc["omitted"]:  # the first omitted items are named (a git-hn block)
        left = omitted_named(full, doc)
        by_section = [(str(len(full[s]) - len(doc[s])), brief.LEFT_COUNTED[s]) for s in brief.SECTIONS
                      if len(full[s]) > len(doc[s])]
        widest = [("9" * len(str(len(items))), brief.LEFT_COUNTED[s]) for s in brief.SECTIONS if full[s]]
        room = len(brief._left_markdown([("sha256:" + "0" * 64, "next action of handoff")] * min(3, len(items)),
                                        widest))
        if data != brief.markdown_bytes(doc, {}, left, (), by_section):  # (no room: the fill without it)
            assert len(brief.markdown_bytes(doc, {}, left, (), by_section)) > bound or \
                len(brief.markdown_bytes(brief.bounded(top, full, bound - room, fmt)[0], {}, left)) > bound
            left, room, by_section = [], 0, []
    else:
        by_section = []
    render = brief.json_bytes if fmt == "json" else (lambda d: brief.markdown_bytes(d, {}, left, (), by_section))
    assert data == render(doc) and len(data) <= bound
    flat = [i for s in brief.SECTIONS for i in full[s]]
    kept = [i for s in brief.SECTIONS for i in doc[s]]
    for s in brief.SECTIONS:  # in order: the positions taken increase
        positions = [next(k for k, it in enumerate(full[s]) if it is kept or it == kept) for kept in doc[s]]
        assert positions == sorted(set(positions)) and [full[s][k] for k in positions] == doc[s]
    assert doc["omitted"] == len(flat) - len(kept)
    assert doc["truncated"] == (doc["omitted"] > 0)
    empty = {**doc, **{s: [] for s in brief.SECTIONS}}
    reserve = max(len(render({**empty, "omitted": len(flat), "truncated": bool(flat)})),
                  len(render({**empty, "omitted": 0, "truncated": False})))
    slack = reserve - len(render(empty))
    for s in brief.SECTIONS:  # each item left out really did not fit
        for k, it in enumerate(full[s]):
            if any(kept == it for kept in doc[s]):
                continue
            others = [i for i in full[s][:k] if any(kept == i for kept in doc[s])]
            bigger = {**doc, s: others + [it] + doc[s][len(others):], "omitted": doc["omitted"] - 1,
                      "truncated": doc["omitted"] - 1 > 0}
            assert len(render(bigger)) > bound - room - slack


def omitted_named(full: dict, doc: dict) -> list[tuple[str, str]]:
    """The block's entries: the first three omitted items' memory IDs, in section order, each once."""
    out = []
    for s in brief.SECTIONS:
        for it in [i for i in full[s] if not any(kept == i for kept in doc[s])]:
            ident = it.get("memoryId") or it["id"]
            if len(out) < 3 and all(ident != i for i, _label in out):
                out.append((ident, brief.LEFT_LABELS[s]))
    return out


def test_a_markdown_brief_names_the_items_it_left_out():
    """An agent whose session starts with a long handoff left out (it did not fit) is told its ID,
    so that it can show it; the JSON brief stays the contract's document."""
    full = {name: [] for name in brief.SECTIONS}
    full["handoffs"].append(entry("handoffs", 1, "long " * 4000, []))
    full["decisions"] += [entry("decisions", 2, "short decision", []), entry("decisions", 3, "x " * 3000, [])]
    top = brief.head("c" * 40, "sha256:" + "d" * 64, 0)
    doc, data = brief.bounded(top, full, 4096, "markdown")
    text = data.decode()
    assert len(data) <= 4096 and doc["omitted"] == 2 and [d["id"] for d in doc["decisions"]] == [full["decisions"][0]["id"]]
    assert (f"{brief.LEFT_LINE}\n- {full['handoffs'][0]['id']} (handoff)\n"
            f"- {full['decisions'][1]['id']} (decision)\n"
            f"{brief.LEFT_BY_SECTION}handoffs 1, decisions 1\n") in text
    assert text.index(brief.LEFT_LINE) < text.index("## Decisions")
    jdoc, jdata = brief.bounded(top, full, 4096, "json")
    assert b"Left out" not in jdata and set(jdoc) == set(brief.head("c", "d", 0)) | set(brief.SECTIONS)
    whole, wdata = brief.bounded(top, full, 100_000, "markdown")  # nothing left out: no block
    assert whole["omitted"] == 0 and brief.LEFT_LINE.encode() not in wdata


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_a_bound_with_room_only_for_the_brief_that_omits_everything_gives_that_brief(fmt):
    """The fixed part is reserved at its largest (``"truncated":false``, a byte longer): a bound
    exactly the size of the brief with every item omitted refused to answer (an auditor's case)."""
    full = {name: [] for name in brief.SECTIONS}
    for n in range(3):
        full["decisions"].append(entry("decisions", n + 1, "some decision text", []))
    top = brief.head("c" * 40, "sha256:" + "d" * 64, 0)
    render = brief.json_bytes if fmt == "json" else brief.markdown_bytes
    empty = render({**brief.bounded(top, full, 100_000, fmt)[0], "decisions": [], "omitted": 3,
                    "truncated": True})
    doc, data = brief.bounded(top, full, len(empty), fmt)
    assert (data, doc["omitted"]) == (empty, 3)
    with pytest.raises(InputError, match=f"^memory brief does not fit in {len(empty) - 1} bytes; the smallest "
                                         rf"bound that fits is {len(empty)} bytes \(a brief that lists no memory\)$"):
        brief.bounded(top, full, len(empty) - 1, fmt)


def test_bound_must_be_positive():
    with pytest.raises(InputError, match="^brief bound must be positive$"):
        brief.bounded(brief.head("c" * 40, "d", 0), {s: [] for s in brief.SECTIONS}, 0, "json")


@pytest.mark.parametrize("ts,utc", [
    ("2026-08-30T12:34:56.123456789Z", "2026-08-30T12:34:56.123456789Z"),
    ("2026-08-31T23:30:00-02:00", "2026-09-01T01:30:00Z"),
    ("2026-01-01T00:30:00.5+01:00", "2025-12-31T23:30:00.5Z"),
    ("2024-02-29T23:59:59.1-00:01", "2024-03-01T00:00:59.1Z"),
    ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
])
def test_utc_timestamp(ts, utc):
    assert brief.utc_timestamp(ts) == utc


def test_digest_rows_use_the_utc_month_and_order():
    rows = [row(1, ts="2026-09-01T00:30:00+01:00"),  # 2026-08-31T23:30Z
            row(2, ts="2026-08-31T23:30:00Z"),
            row(3, ts="2026-08-01T00:00:00Z", kind="observation"),
            row(4, "handoff", ts="2026-08-15T00:00:00Z"),
            row(5, ts="2026-09-01T00:00:00Z")]
    got = brief.digest_rows([r for r in rows], "2026-08")
    assert [r["id"] for r in got] == [rows[3]["id"], rows[0]["id"], rows[1]["id"]]


@pytest.mark.parametrize("month", ["2026-00", "2026-13", "202-01", "2026-1", "2026/01", " 2026-01", ""])
def test_invalid_months(month):
    with pytest.raises(InputError, match="^invalid digest month"):
        brief.check_month(month)


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_one_long_item_does_not_hide_the_shorter_ones_after_it(fmt):
    """A trial's case: one oversized memory hid every later item of its section (§7.15 stops a
    section at its first item that does not fit). It is left out, counted and (in Markdown)
    named; the short ones after it are taken, in their order."""
    full = {name: [] for name in brief.SECTIONS}
    full["handoffs"] += [entry("handoffs", 1, "long " * 4000, []), entry("handoffs", 2, "short handoff", [])]
    full["decisions"] += [entry("decisions", 3, "first decision", []), entry("decisions", 4, "x " * 3000, []),
                          entry("decisions", 5, "last decision", [])]
    top = brief.head("c" * 40, "sha256:" + "d" * 64, 0)
    doc, data = brief.bounded(top, full, 6000, fmt)
    assert len(data) <= 6000 and doc["omitted"] == 2 and doc["truncated"]
    assert [h["id"] for h in doc["handoffs"]] == [full["handoffs"][1]["id"]]
    assert [d["id"] for d in doc["decisions"]] == [full["decisions"][0]["id"], full["decisions"][2]["id"]]
    if fmt == "markdown":
        text = data.decode()
        assert (f"{brief.LEFT_LINE}\n- {full['handoffs'][0]['id']} (handoff)\n"
                f"- {full['decisions'][1]['id']} (decision)\n"
                f"{brief.LEFT_BY_SECTION}handoffs 1, decisions 1\n") in text
        assert text.index(full["decisions"][0]["id"]) < text.index(full["decisions"][2]["id"])


def test_a_handoff_keeps_its_place_among_the_latest_when_an_earlier_one_is_left_out():
    """Only the latest ``FROM_HANDOFFS`` handoffs have their next actions listed in a section of
    their own; a later one keeps them inline. With the first handoff left out, the eleventh is
    the tenth shown, and still keeps its next actions inline (what it is depends on its place in
    the section, not on what else fit)."""
    full = {name: [] for name in brief.SECTIONS}
    full["handoffs"].append(entry("handoffs", 1, "long " * 4000, []))
    full["handoffs"] += [entry("handoffs", n, f"handoff {n}", []) for n in range(2, 13)]
    top = brief.head("c" * 40, "sha256:" + "d" * 64, 0)
    doc, data = brief.bounded(top, full, 16_000, "markdown")
    assert [h["id"] for h in doc["handoffs"]] == [h["id"] for h in full["handoffs"][1:]]
    text = data.decode()
    tenth, eleventh, twelfth = (text.index(f"### {full['handoffs'][k]['id']}") for k in (9, 10, 11))
    assert brief.NEXT_ACTIONS not in text[tenth:eleventh] and brief.NEXT_ACTIONS in text[eleventh:twelfth]
    assert len(data) <= 16_000 and data == brief.markdown_bytes(doc, {}, *_left_of(text, full))


def _left_of(text, full):
    """(left, notes, by_section) as the brief above names them: its first omitted handoff."""
    return [(full["handoffs"][0]["id"], brief.LEFT_LABELS["handoffs"])], (), [("1", brief.LEFT_COUNTED["handoffs"])]


def test_a_newer_handoff_elsewhere_is_the_newest_of_its_stream_signed_after_the_one_shown():
    """``newer_elsewhere``: per shown handoff, the highest sequence of its own stream that is
    higher than the shown one's; older ones are not named; then each stream of which nothing is
    shown, by its newest handoff, the newest first (an agent trial: a subject handoff and one on
    an unpushed branch, in streams of their own, were in no brief and no hint)."""
    a, b = "1" * 64, "2" * 64
    s1, s2 = "sha256:" + "5" * 64, "sha256:" + "6" * 64
    ts = "2026-01-0{}T00:00:00Z".format
    shown = [("h1", a, s1, 4), ("h2", b, s1, 2), ("h3", a, s2, 9)]
    elsewhere = [("e1", a, s1, 5, "c" * 40, "descendants", "", ts(1)), ("e2", a, s1, 7, "d" * 40, "exact", "", ts(2)),
                 ("e3", a, s1, 3, "e" * 40, "descendants", "", ts(3)),
                 ("e4", b, s2, 8, "f" * 40, "subject", "issue:x", ts(4)),
                 ("e5", a, s2, 8, "0" * 40, "descendants", "", ts(5)),
                 ("e6", b, s2, 6, "a" * 40, "descendants", "", ts(6))]
    assert away.newer_elsewhere(shown, elsewhere) == [("h1", "e2", "d" * 40, "exact", "", ("gone", "")),
                                                      ("", "e4", "f" * 40, "subject", "issue:x", ("gone", ""))]
    many = [away.Newer(f"h{n}", f"e{n}", "c" * 40, "descendants", "") for n in range(5)]
    notes = away.newer_notes(many)
    assert len(notes) == away.NEWER_NAMED + 1 and notes[-1].startswith("2 more handoffs, the latest of their")
    assert "memory_show with memory e0" in away.newer_notes(many[:1], "mcp")[0]
    # why each does not apply here, asked of the caller only for the handoffs named
    asked = []
    placed = away.placed([away.Newer("", "x", "1" * 40, "subject", "issue:y"),
                          away.Newer("", "y", "2" * 40, "exact", ""),
                          away.Newer("", "z", "3" * 40, "descendants", ""),
                          away.Newer("", "w", "4" * 40, "descendants", "")],
                         lambda c: c == "2" * 40, lambda c: True, lambda c: asked.append(c) or "")
    assert [n.place for n in placed] == [("subject", "issue:y"), ("exact", "earlier"), ("gone", ""), ("", "")]
    assert asked == ["3" * 40] and "(--applies exact), an earlier commit" in away.newer_notes(placed)[2]
    # once the bound left a shown handoff out, its line goes; one never asked about is not named
    # in its place (it would be said "on no ref"), it is counted (the lines are those, or fewer)
    four = away.placed([away.Newer(f"h{n}", f"e{n}", "c" * 40, "descendants", "") for n in range(4)],
                       lambda c: False, lambda c: True, lambda c: "feature")
    lines = away.newer_notes(four)
    settled = away.newer_notes(away.kept(four, {"h1", "h2", "h3"}))
    assert len(lines) == 4 and settled == lines[1:] and settled[-1].startswith("1 more handoff, the latest of its")


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_a_brief_that_lists_no_item_knows_the_bound_that_lists_one(fmt):
    """``Brief.one_fits``: with no item listed while there are some, the fixed part at its largest
    plus the smallest first item of a section; at that bound the same brief lists one, and it is
    None once one is listed (git-hn: what the MCP tool tells an agent that asked for too little)."""
    full = {name: [] for name in brief.SECTIONS}
    full["decisions"] = [entry("decisions", 1, "d" * 300, []), entry("decisions", 2, "d" * 900, [])]
    full["assumptions"] = [entry("assumptions", 3, "a" * 200, [])]
    top = brief.head("c" * 40, "sha256:" + "d" * 64, 0)
    smallest = brief.bounded(top, full, 10_000, fmt)[0]
    assert smallest["omitted"] == 0 and smallest.one_fits is None
    empty_size = len(brief.bounded(top, {n: [] for n in brief.SECTIONS}, 10_000, fmt)[1])
    doc = brief.bounded(top, full, empty_size + 40, fmt)[0]
    assert doc["omitted"] == 3 and doc.one_fits is not None
    one = brief.bounded(top, full, doc.one_fits, fmt)[0]
    assert ([i["id"] for i in one["assumptions"]], one.one_fits) == ([entry("assumptions", 3, "", [])["id"]], None)
    assert brief.bounded(top, full, doc.one_fits - 1, fmt)[0]["omitted"] == 3
    assert doc == brief.bounded(top, full, empty_size + 40, fmt)[0]  # (the bound is no part of the document)


def test_one_streams_latest_handoff_left_out_is_possessive():
    """A team trial read "1 stream' latest handoff is left out"."""
    from git_hn.core.away import Newer, newer_notes

    fields = {f: "" for f in Newer._fields}
    one = Newer(**{**fields, "id": "sha256:" + "a" * 64, "place": ("", "")})
    assert newer_notes([one])[0].startswith("1 stream's latest handoff is left out of this brief: it applies")
    assert newer_notes([one, one])[0].startswith("2 streams' latest handoffs are left out of this brief")


@pytest.mark.parametrize("fmt,bound", [("json", 6000), ("markdown", 4000)])
def test_every_streams_latest_handoff_comes_before_the_routine_memories(fmt, bound):
    """A trial (S88, finding 5): at 8,000 bytes the JSON brief listed one of two streams' latest
    handoffs, and a routine decision, observation and assumption each. §7.15 puts the handoffs
    first; git-hn's shares gave each section its one item before the second handoff. Every latest
    handoff that fits now comes right after the challenged memories (f62), before the routine
    decisions, observations and assumptions get their one; their shares are still theirs."""
    full = {name: [] for name in brief.SECTIONS}
    full["handoffs"] += [entry("handoffs", n, f"handoff {n}: " + "state. " * 10, []) for n in (1, 2)]
    for n, section in enumerate(("decisions", "observations", "assumptions"), 3):
        full[section] += [entry(section, 10 * n + k, f"{section} {k}: " + "a routine note. " * 30, [])
                          for k in range(3)]
    top = brief.head("c" * 40, "sha256:" + "d" * 64, 0)
    doc, data = brief.bounded(top, full, bound, fmt)
    assert len(data) <= bound and doc["omitted"], doc["omitted"]
    assert [h["id"] for h in doc["handoffs"]] == [h["id"] for h in full["handoffs"]], \
        {s: len(doc[s]) for s in brief.SECTIONS}
    assert doc["decisions"] or doc["observations"] or doc["assumptions"]  # (they still get the rest)
