"""The Markdown brief's header says how many memories it left out as work not merged here (f173):
f169 said it on stderr only, but the session-start hook ``git hn setup`` installs passes the agent
the brief's stdout alone, so an agent started by it was never told of a teammate's decisions on a
fetched, unmerged branch. The header now carries the line, within the byte bound (never over it,
no item cut: when the bound has no room for the notes, the brief goes without, and stderr says it
instead), counting the handoffs whose newer-handoff line the bound dropped; stderr no longer says
it twice. The same inputs give the same bytes. Real clones of a real bare remote, a real fetch
through the installed hooks."""

from __future__ import annotations

import json
import re

from helpers import commit_on, git, hn
from test_brief_not_merged import _bob_hands_off, _handoff_at, _hints, _on_ref, _ok, _said, _team

from git_hn.service.setup_content import BRIEF_COMMAND

HOOK_ARGS = BRIEF_COMMAND.split()[4:]  # (the session-start hook's own flags: --markdown --max-bytes 9000)
HINT = "git-hn: hint: "
STREAM_LINE = ("1 stream's latest handoff is left out of this brief: it applies to a subject or to commits not in "
               "this commit's history")


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
    header, bobs = _header(hook.out), _handoff_at(alice, anchor)
    # (on the line naming Bob's handoff, whose count it is not part of: its brief lists them, f177)
    assert _on_ref(bobs, anchor, style="markdown") in header, hook.out
    assert _hints(hook.err) == [], hook.err  # (said once: the reader of both read it twice)
    assert _on_ref(bobs, anchor, style="markdown") in _header(_ok(alice, "memory", "brief"))  # (the default: Markdown)
    assert _hints(hn(alice, "memory", "brief", "--json").err) == [_on_ref(bobs, anchor)]

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
    assert _on_ref(_handoff_at(alice, anchor), anchor, style="markdown") in _header(both.out), both.out  # (Bob's two)
    assert "Alice's own work in progress" not in both.out


def test_the_bound_holds_the_note_goes_first_and_no_item_is_cut(tmp_path):
    """At every bound from the smallest that fits to the whole brief: never over it, each item
    listed whole (as the unbounded brief lists it), and the line said exactly once, in the header
    or (the bound has no room for the notes) on stderr. Some bound goes without it, some keeps it
    while leaving items out. On stderr it is the handoff's line that says the count, as after
    ``--json`` (f178: stderr said "2 more active memories" of a handoff line never printed), with
    the streams' count line the header went without."""
    alice, bob = _team(tmp_path)
    for k in range(4):
        _ok(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
            "--content", f"Alice's decision {k} on main: " + "words " * 40)
    anchor = _bob_hands_off(bob)
    git(alice, "fetch", "origin")
    whole = _ok(alice, "memory", "brief", "--max-bytes", "100000")
    # (on the line of Bob's handoff: in the header, or on stderr in the CLI's words, as after --json)
    bobs = _handoff_at(alice, anchor)
    items, line, on_err = _items(whole), _on_ref(bobs, anchor, style="markdown"), _on_ref(bobs, anchor)
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
        in_header, on_stderr = line in _header(r.out), _hints(r.err) == [on_err]
        assert in_header != on_stderr, (bound, r.out, r.err)
        assert "more active memories were left out" not in r.err, (bound, r.err)  # (no line of its own: folded)
        if on_stderr:
            without.append(bound)
            assert not any("left out" in note for note in _header(r.out)), (bound, r.out)
            assert f"{HINT}{STREAM_LINE[:1].lower()}{STREAM_LINE[1:]}\n{HINT}{on_err}\n" in r.err, (bound, r.err)
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
    assert "Bob's older handoff" in roomy and "not merged here" not in roomy.replace(
        _on_ref("", anchor, style="markdown").split(" prints it", 1)[1], ""), roomy
    assert any(line.startswith("Handoff sha256:") and "is not the latest of its stream" in line  # (with the count)
               and line.endswith(_on_ref("", anchor, style="markdown").split(" prints it", 1)[1])
               for line in _header(roomy)), roomy
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
    assert _on_ref(_handoff_at(alice, anchor), anchor, style="markdown") in _header(first.out)
    assert hn(alice, "memory", "brief", *HOOK_ARGS).out_bytes == first.out_bytes
    from git_hn.service import brief as service
    from git_hn.store.repo import open_repo

    repo = open_repo(str(alice))
    for bound in (9000, 2000):
        assert service.brief(repo, "HEAD", max_bytes=bound) == service.brief_full(repo, "HEAD", max_bytes=bound)
    assert service.brief(repo, "HEAD", max_bytes=9000)[1] == first.out_bytes
    _ok(alice, "memory", "index", "rebuild")
    assert hn(alice, "memory", "brief", *HOOK_ARGS).out_bytes == first.out_bytes


def test_one_teammate_branch_names_its_brief_once_by_the_ref(tmp_path):
    """f177: Bob's handoff and two decisions on his one branch ``feature/cache`` took three header
    lines, and named the same brief twice: ``--at origin/feature/cache`` on the handoff's line,
    then ``--at`` its commit on the count's. Now two lines, one command, by the ref Alice knows;
    stderr after ``--json`` and MCP's ``hint`` say it the same way."""
    from test_agent_mcp import document, run

    alice, bob = _team(tmp_path)
    anchor = _bob_hands_off(bob, "feature/cache")
    git(alice, "fetch", "origin")
    hook = hn(alice, "memory", "brief", *HOOK_ARGS)
    bobs, header = _handoff_at(alice, anchor), _header(hook.out)
    about = [line for line in header if "left out" in line]
    assert about == [STREAM_LINE, _on_ref(bobs, anchor, ref="origin/feature/cache", style="markdown")], hook.out
    assert hook.out.count("git hn memory brief --at") == 1 and anchor[:12] + " gives" not in hook.out
    assert _hints(hook.err) == []
    as_json = hn(alice, "memory", "brief", "--json")
    assert as_json.err.count("git hn memory brief --at") == 1, as_json.err
    assert _hints(as_json.err) == [_on_ref(bobs, anchor, ref="origin/feature/cache")]

    async def body(client):
        return await client.call_tool("memory_brief", {})

    hint = document(run(alice, body))["hint"]
    assert hint.count("memory_brief with atCommit") == 1, hint
    assert _on_ref(bobs, anchor, ref="origin/feature/cache", style="mcp") + "." in hint


def test_decisions_on_earlier_commits_of_the_handoffs_branch_are_said_on_its_line(tmp_path):
    """Bob's two decisions on a commit of ``feature/cache`` and his handoff on the next one: the
    brief at ``origin/feature/cache`` lists all three, so the handoff's line says the count, and
    no line names the decisions' commit (``held.holding_refs`` names it in the same processes:
    none more than before)."""
    alice, bob = _team(tmp_path)
    first = commit_on(bob, "feature/cache", "cache.py")
    for text in ("Bob's first decision", "Bob's second decision"):
        _ok(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
            "--content", text)
    tip = commit_on(bob, None, "cache2.py")
    _ok(bob, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "Bob's handoff",
        "--next-action", "finish cache.py")
    git(bob, "push", "-q", "origin", "feature/cache")
    _ok(bob, "sync")
    git(alice, "fetch", "origin")
    hook = hn(alice, "memory", "brief", *HOOK_ARGS)
    line = _on_ref(_handoff_at(alice, tip), tip, ref="origin/feature/cache", style="markdown")
    assert line in _header(hook.out) and first[:12] not in hook.out, hook.out
    assert hook.out.count("git hn memory brief --at") == 1
    as_json = hn(alice, "memory", "brief", "--json")
    assert _hints(as_json.err) == [_on_ref(_handoff_at(alice, tip), tip, ref="origin/feature/cache")], as_json.err
    there = json.loads(_ok(alice, "memory", "brief", "--json", "--at", "origin/feature/cache"))  # (as said: all three)
    assert {d["data"]["content"] for d in there["decisions"]} >= {"Bob's first decision", "Bob's second decision"}
    assert [h["data"]["content"] for h in there["handoffs"]] == ["Bob's handoff"]


def test_two_teammate_branches_keep_the_count_on_a_line_of_its_own(tmp_path):
    """Bob's two decisions on ``feature/other`` and his handoff on ``feature/cache``: no one brief
    lists them all, so the header keeps f169's form: the handoff's line, and the count's own line
    naming the decisions' commit. Stderr after ``--json`` says the same two lines."""
    alice, bob = _team(tmp_path)
    other, cache = _on_two_branches(alice, bob)
    hook = hn(alice, "memory", "brief", *HOOK_ARGS)
    header = _header(hook.out)
    assert not any("which also lists" in line for line in header), header
    handoff = [line for line in header if line.startswith("Handoff ")]
    assert len(handoff) == 1 and f"on commit {cache[:12]}, on `origin/feature/cache`" in handoff[0], header
    assert handoff[0].endswith("git hn memory brief --at origin/feature/cache gives the brief there")
    assert [line for line in header if "not merged here" in line] == [_said(2, other)], header
    assert _hints(hook.err) == []
    as_json = hn(alice, "memory", "brief", "--json")
    assert _hints(as_json.err) == [_said(2, other)], as_json.err
    assert as_json.err.count("git hn memory brief --at") == 2  # (two briefs: each named once)


def _on_two_branches(alice, bob) -> tuple[str, str]:
    """Bob's two decisions on ``feature/other`` and his handoff on ``feature/cache``, pushed,
    published and fetched by Alice: (the decisions' commit, the handoff's)."""
    other = commit_on(bob, "feature/other", "other.py")
    for text in ("Bob's first decision", "Bob's second decision"):
        _ok(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
            "--content", text)
    git(bob, "push", "-q", "origin", "feature/other")
    git(bob, "checkout", "-q", "main")
    cache = commit_on(bob, "feature/cache", "cache.py")
    _ok(bob, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "Bob's handoff",
        "--next-action", "finish cache.py")
    git(bob, "push", "-q", "origin", "feature/cache")
    _ok(bob, "sync")
    git(alice, "fetch", "origin")
    return other, cache


def _smallest(repo) -> int:
    """The smallest bound at which ``repo``'s Markdown brief fits (without its header's notes)."""
    said = hn(repo, "memory", "brief", "--max-bytes", "50").err
    return int(re.search(r"the smallest bound that fits is ([0-9]+) bytes", said).group(1))


def _lowered(note: str) -> str:
    return HINT + note[:1].lower() + note[1:]


def test_a_bound_with_no_room_for_the_notes_says_each_of_them_on_stderr(tmp_path, monkeypatch):
    """f178: a bound too small for the header's notes gave the brief without them, and stderr said
    only the count of memories not merged here, as "2 more" of a handoff line never printed; the
    memories not applying here and the newer handoff on a teammate's branch were said nowhere.
    Each is now said on stderr, one hint each, in the header's order (the handoff's line in the
    CLI's words, as after ``--json``), so the count's "more" speaks of the line said before it;
    stdout stays within the bound, and no Git process is added. A roomy bound says none of them
    there (the header does), and ``--json`` says the same lines as before."""
    from helpers import git_processes

    alice, bob = _team(tmp_path)
    commit_on(alice, "spike", "spike.py")  # (Alice's decision on a branch deleted unmerged: not applying here)
    _ok(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
        "--content", "Alice's spike decision")
    git(alice, "checkout", "-q", "main")
    git(alice, "branch", "-q", "-D", "spike")
    other, cache = _on_two_branches(alice, bob)
    roomy = hn(alice, "memory", "brief", *HOOK_ARGS)
    notes = [line for line in _header(roomy.out) if "left out" in line]
    handoff = [line for line in notes if line.startswith("Handoff ")]
    assert len(notes) == 4 and len(handoff) == 1, roomy.out
    assert notes[0].startswith("1 memory left out: it does not apply at this commit") and notes[1] == STREAM_LINE
    assert notes[3] == _said(2, other), roomy.out
    assert not any(line.startswith(HINT) and "left out" in line for line in roomy.err.splitlines()), roomy.err

    bound = _smallest(alice)
    trace = tmp_path / "trace"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    tight = hn(alice, "memory", "brief", "--max-bytes", str(bound))
    processes = git_processes(trace)
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    assert tight.code == 0 and len(tight.out_bytes) <= bound, tight.err
    assert not any("left out" in line for line in _header(tight.out)), tight.out
    cli_handoff = handoff[0].replace("`origin/feature/cache`", "origin/feature/cache")
    said = [line for line in tight.err.splitlines() if "left out" in line]
    assert said == [_lowered(notes[0]), _lowered(STREAM_LINE), _lowered(cli_handoff), HINT + _said(2, other)], \
        tight.err
    as_json = hn(alice, "memory", "brief", "--json")
    assert sorted(said) == sorted(line for line in as_json.err.splitlines() if "left out" in line), as_json.err

    # (the notes the header went without cost no Git process: as many as the brief that carries them)
    trace2 = tmp_path / "trace2"
    trace2.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace2))
    hn(alice, "memory", "brief", *HOOK_ARGS)
    assert sorted(map(tuple, processes)) == sorted(map(tuple, git_processes(trace2)))


def test_a_bound_with_no_room_for_the_first_notes_says_them_on_stderr(tmp_path):
    """f178: the header's line that this clone holds no memory imported from its remotes, dropped
    by a tight bound, is said on stderr (as after ``--json``); with room, only in the header."""
    from git_hn.service.brief import NOT_IMPORTED

    _remote, (alice, _bob) = __import__("helpers").shared_remote(tmp_path, "Alice", "Bob")
    _ok(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
        "--content", "Alice's, on main")
    roomy = hn(alice, "memory", "brief")
    assert NOT_IMPORTED in _header(roomy.out) and NOT_IMPORTED[1:] not in roomy.err, roomy.out
    bound = _smallest(alice)
    tight = hn(alice, "memory", "brief", "--max-bytes", str(bound))
    assert tight.code == 0 and len(tight.out_bytes) <= bound and NOT_IMPORTED not in tight.out, tight.out
    assert _lowered(NOT_IMPORTED) in tight.err.splitlines(), tight.err
    assert _lowered(NOT_IMPORTED) in hn(alice, "memory", "brief", "--json", "--max-bytes", str(bound)).err.splitlines()


def test_a_bound_with_no_room_for_the_drift_note_says_it_on_stderr(tmp_path):
    """f178: the header's policy drift line (Carol's main, behind ``origin/main``, still trusts
    Bob, whose key main revoked), dropped by a tight bound, is said on stderr in the header's words
    (no author name: those would cost the processes ``--json``'s hint runs for them)."""
    from test_policy_drift import _commit_policy, _handoff
    from test_policy_drift import _team as _policy_team

    from helpers import actor_of

    alice, bob, carol = _policy_team(tmp_path)
    _ok(alice, "policy", "untrust", actor_of(bob))
    _commit_policy(alice, "Revoke Bob's lost key")
    _handoff(bob, "Deploy handoff", "Run ./deploy.sh", at="main")
    _ok(bob, "sync")
    git(carol, "fetch", "-q", "origin")
    _ok(carol, "sync")
    roomy = hn(carol, "memory", "brief")
    drift = [line for line in _header(roomy.out) if "would be untrusted there" in line]
    assert len(drift) == 1 and "would be untrusted" not in roomy.err, roomy.out
    bound = _smallest(carol)
    tight = hn(carol, "memory", "brief", "--max-bytes", str(bound))
    assert tight.code == 0 and len(tight.out_bytes) <= bound and "would be untrusted" not in tight.out, tight.out
    assert [line for line in tight.err.splitlines() if "would be untrusted" in line] == [_lowered(drift[0])], \
        tight.err
