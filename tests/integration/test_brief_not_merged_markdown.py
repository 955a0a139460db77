"""The Markdown brief's header says how many memories it left out as work not merged here (f173):
f169 said it on stderr only, but the session-start hook ``git hn setup`` installs passes the agent
the brief's stdout alone, so an agent started by it was never told of a teammate's decisions on a
fetched, unmerged branch. The header now carries the line, within the byte bound (never over it,
no item cut: when the bound has no room for the notes, the brief goes without, and stderr says it
instead), counting the handoffs whose newer-handoff line the bound dropped; stderr no longer says
it twice. The same inputs give the same bytes. Real clones of a real bare remote, a real fetch
through the installed hooks."""

from __future__ import annotations

import re

from helpers import commit_on, git, hn
from test_brief_not_merged import _bob_hands_off, _hints, _ok, _said, _team

from git_hn.service.setup_content import BRIEF_COMMAND

HOOK_ARGS = BRIEF_COMMAND.split()[4:]  # (the session-start hook's own flags: --markdown --max-bytes 9000)


def _header(markdown: str) -> list[str]:
    """The Markdown brief's header lines: up to its first section (author text comes only after)."""
    return markdown.split("\n## ", 1)[0].splitlines()


def _items(markdown: str) -> dict[str, str]:
    """Each item of the brief's sections (``### ID`` to the next item or section), by ID."""
    body = markdown.split("\n## ", 1)[1] if "\n## " in markdown else ""
    return {m.group(1): m.group(0) for m in re.finditer(r"### (sha256:[0-9a-f]{64})\n.*?(?=\n### |\n## |\Z)", body,
                                                        re.S)}


def test_the_markdown_header_counts_a_teammates_memories_not_merged_here_until_the_merge(tmp_path):
    """Bob's handoff and two decisions on his pushed branch, imported by Alice's ``git fetch``
    hook: the brief the session-start hook runs says in its header, on stdout, how many it left
    out besides the handoff its own line names, and the brief that lists them; stderr does not say
    it again (a JSON brief still does: its document has no member for it). After the merge:
    listed, and nothing said."""
    alice, bob = _team(tmp_path)
    anchor = _bob_hands_off(bob)
    assert git(alice, "fetch", "origin") == ""  # (the hook imports Bob's stream)

    hook = hn(alice, "memory", "brief", *HOOK_ARGS)
    assert hook.code == 0 and "Bob's" not in hook.out
    header = _header(hook.out)
    assert _said(2, anchor) in header, hook.out
    # after the line naming Bob's handoff, whose count it is not part of
    assert [k for k, line in enumerate(header) if "the latest of its stream, is left out" in line][0] \
        < header.index(_said(2, anchor))
    assert _hints(hook.err) == [], hook.err  # (said once: the reader of both read it twice)
    assert _said(2, anchor) in _header(_ok(alice, "memory", "brief"))  # (the default format is Markdown)
    assert _hints(hn(alice, "memory", "brief", "--json").err) == [_said(2, anchor)]

    git(alice, "merge", "-q", "--no-edit", "origin/feature")
    merged = hn(alice, "memory", "brief", *HOOK_ARGS)
    assert merged.code == 0 and "Bob's first decision" in merged.out
    assert not any("not merged here" in line for line in _header(merged.out)), merged.out
    assert _hints(merged.err) == []


def test_ones_own_memories_on_an_open_branch_are_not_counted_in_the_header(tmp_path):
    """Alice's own decision on her own unmerged branch is left out of her brief on main, as
    before, without a word (a review pinned that silence: ``test_squash_left_out``); the header
    counts Bob's alone."""
    alice, bob = _team(tmp_path)
    commit_on(alice, "wip", "wip.py")
    _ok(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
        "--content", "Alice's own work in progress")
    git(alice, "checkout", "-q", "main")
    alone = hn(alice, "memory", "brief", *HOOK_ARGS)
    assert alone.code == 0 and "not merged here" not in alone.out + alone.err, alone.out

    anchor = _bob_hands_off(bob)
    git(alice, "fetch", "origin")
    both = hn(alice, "memory", "brief", *HOOK_ARGS)
    assert _said(2, anchor) in _header(both.out), both.out  # (Bob's two decisions: not Alice's own)
    assert "Alice's own work in progress" not in both.out


def test_the_bound_holds_the_note_goes_first_and_no_item_is_cut(tmp_path):
    """At every bound from the smallest that fits to the whole brief: never over it, each item
    listed whole (as the unbounded brief lists it), and the line said exactly once, in the header
    or (the bound has no room for the notes) on stderr. Some bound goes without it, some keeps it
    while leaving items out."""
    alice, bob = _team(tmp_path)
    for k in range(4):
        _ok(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
            "--content", f"Alice's decision {k} on main: " + "words " * 40)
    anchor = _bob_hands_off(bob)
    git(alice, "fetch", "origin")
    whole = _ok(alice, "memory", "brief", "--max-bytes", "100000")
    items, line = _items(whole), _said(2, anchor)
    assert len(items) == 5 and line in _header(whole)
    smallest = int(re.search(r"the smallest bound that fits is ([0-9]+) bytes",
                             hn(alice, "memory", "brief", "--max-bytes", "50").err).group(1))
    without, noted_short = [], []
    for bound in range(smallest, len(whole.encode()) + 1, 97):
        r = hn(alice, "memory", "brief", "--max-bytes", str(bound))
        assert r.code == 0, (bound, r.err)
        assert len(r.out_bytes) <= bound, bound
        shown = _items(r.out)
        assert all(items[i] == text for i, text in shown.items()), bound  # (never cut)
        in_header, on_stderr = line in _header(r.out), _hints(r.err) == [line]
        assert in_header != on_stderr, (bound, r.out, r.err)
        if on_stderr:
            without.append(bound)
        elif len(shown) < len(items):
            noted_short.append(bound)
    assert without and noted_short, (without, noted_short)


def test_a_handoff_the_bound_leaves_out_gets_no_line_and_is_counted_instead(tmp_path):
    """Bob's older handoff, on main, is his stream's latest there; his newer one on the branch
    gets a line naming it while the older one is listed, and is not counted. A bound that leaves
    the long older handoff out drops that line (it spoke of a handoff not shown): the header's
    count then includes the newer handoff, as stderr's does for a JSON brief at that bound."""
    alice, bob = _team(tmp_path)
    _ok(bob, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content",
        "Bob's older handoff, on main: " + "detail " * 300)
    _ok(bob, "sync")
    git(alice, "fetch", "origin")
    anchor = _bob_hands_off(bob)
    git(alice, "fetch", "origin")
    roomy = _ok(alice, "memory", "brief", *HOOK_ARGS)
    assert "Bob's older handoff" in roomy and _said(2, anchor) in _header(roomy), roomy
    assert any(line.startswith("Handoff sha256:") and "is not the latest of its stream" in line
               for line in _header(roomy))
    tight = hn(alice, "memory", "brief", "--max-bytes", "2500")
    assert tight.code == 0 and len(tight.out_bytes) <= 2500 and "Bob's older handoff" not in tight.out, tight.out
    assert not any("is not the latest of its stream" in line for line in _header(tight.out)), tight.out
    assert _said(3, anchor, more=False) in _header(tight.out), tight.out
    assert _hints(tight.err) == []
    assert _hints(hn(alice, "memory", "brief", "--json", "--max-bytes", "2500").err) == [_said(3, anchor, more=False)]


def test_the_same_inputs_give_the_same_bytes(tmp_path):
    """The header's count reads no clock and writes no memo: the same brief twice is the same
    bytes, from the state as from a full projection, and after the state is rebuilt."""
    alice, bob = _team(tmp_path)
    anchor = _bob_hands_off(bob)
    git(alice, "fetch", "origin")
    first = hn(alice, "memory", "brief", *HOOK_ARGS)
    assert _said(2, anchor) in _header(first.out)
    assert hn(alice, "memory", "brief", *HOOK_ARGS).out_bytes == first.out_bytes
    from git_hn.service import brief as service
    from git_hn.store.repo import open_repo

    repo = open_repo(str(alice))
    for bound in (9000, 2000):
        assert service.brief(repo, "HEAD", max_bytes=bound) == service.brief_full(repo, "HEAD", max_bytes=bound)
    assert service.brief(repo, "HEAD", max_bytes=9000)[1] == first.out_bytes
    _ok(alice, "memory", "index", "rebuild")
    assert hn(alice, "memory", "brief", *HOOK_ARGS).out_bytes == first.out_bytes
