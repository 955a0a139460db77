"""The wording of the hints that memory is anchored on commits not merged here
(``core.not_merged``, f163, f169's brief): every count and place, one line, a teammate's ref name
inert."""

from __future__ import annotations

from git_hn.core.away import Newer, newer_notes
from git_hn.core.not_merged import brief_left_out, brief_lines, folded, imported, left_out

C = "ab" * 20


def test_the_import_hint_names_the_ref_holding_all_some_or_none_of_them():
    text, (what, way, key) = imported(2, 2, "origin/main", 2, C, 1, "origin")
    assert text == ("the 2 imported memories are anchored on commits not merged here (on origin/main): recall lists "
                    "them once you merge origin/main, or now with git hn memory recall --at origin/main")
    assert (what, way) == ("the 2 imported memories are anchored on commits not merged here",
                           "git hn memory recall --at origin/main lists them")
    assert key == imported(5, 9, "origin/main", 5, "cd" * 20, 5, "origin")[1][2] != \
        imported(2, 2, "origin/main", 2, C, 1, "upstream")[1][2]  # (per remote and ref, whatever the count)
    assert imported(3, 4, "origin/f", 2, C, 1, "origin")[0] == (
        "3 of the imported memories are anchored on commits not merged here (2 of them on origin/f): recall lists "
        "them once merged, and those now with git hn memory recall --at origin/f")
    assert imported(1, 1, "", 0, C, 1, "origin")[0] == (
        f"the imported memory is anchored on a commit not merged here (on commit {C[:12]}): recall lists it once "
        f"merged, or now with git hn memory recall --at {C[:12]}")
    assert imported(2, 3, "", 0, C, 1, "origin")[1][1] == f"git hn memory recall --at {C[:12]} lists what applies there"


def test_the_import_hint_says_a_commit_when_all_are_on_one_and_such_as_only_for_several():
    """f175 (a newcomer trial): three memories on one commit of one branch read "commits ... such
    as", as if spread over several; all on one commit is said so, and "such as" names the commit
    with the most only when there are several."""
    text, (what, way, _key) = imported(3, 3, "origin/feature/x", 3, C, 3, "origin")
    assert text == ("the 3 imported memories are anchored on a commit not merged here (on origin/feature/x): recall "
                    "lists them once you merge origin/feature/x, or now with git hn memory recall --at "
                    "origin/feature/x")
    assert what == "the 3 imported memories are anchored on a commit not merged here"
    assert imported(3, 3, "", 0, C, 3, "origin") == (
        f"the 3 imported memories are anchored on a commit not merged here (on commit {C[:12]}): recall lists them "
        f"once merged, or now with git hn memory recall --at {C[:12]}",
        ("the 3 imported memories are anchored on a commit not merged here",
         f"git hn memory recall --at {C[:12]} lists them", f"imported memories not merged here: origin {C[:12]}"))
    assert imported(3, 3, "", 0, C, 2, "origin")[0] == (
        f"the 3 imported memories are anchored on commits not merged here (such as commit {C[:12]}, 2 of them): "
        f"recall lists them once merged, or what applies there now with git hn memory recall --at {C[:12]}")


def test_a_hostile_ref_name_is_one_quoted_word_with_its_invisible_characters_spelled():
    """*Command injection and a reversed line through a teammate's branch name*: the command to
    paste names it as one shell word, a U+202E spelled, no newline."""
    text = imported(1, 1, "origin/$(touch${IFS}x)\u202e\nnext", 1, C, 1, "origin")[0]
    assert "\u202e" not in text and "\n" not in text
    assert "--at 'origin/$(touch${IFS}x)\\u{202E} next'" in text or "--at 'origin/$(touch${IFS}x)\\u{202e} next'" \
        in text, text


def test_the_recall_hint_counts_and_names_a_commit():
    text, (what, way, key) = left_out(1, C, 1)
    assert text == (f"1 more matching memory was left out, anchored on a commit not merged here ({C[:12]}): git hn "
                    f"memory recall --at {C[:12]} lists it, and git branch -a --contains {C[:12]} names the branch "
                    "to merge")
    assert key == left_out(7, "cd" * 20, 3)[1][2]
    # (f175: all on one commit is "a commit", never "commits")
    assert left_out(3, C, 3)[0] == (f"3 more matching memories were left out, anchored on a commit not merged here "
                                    f"({C[:12]}): git hn memory recall --at {C[:12]} lists them, and git branch -a "
                                    f"--contains {C[:12]} names the branch to merge")
    assert left_out(3, C, 3, mcp=True)[1][0] == "3 more matching memories were left out, anchored on a commit not " \
        "merged here"
    assert left_out(3, C, 2)[0].startswith(f"3 more matching memories were left out, anchored on commits not merged "
                                           f"here (such as {C[:12]}, 2 of them): git hn memory recall --at {C[:12]} "
                                           "lists what applies there")


D = "cd" * 20


def test_the_brief_hint_counts_names_the_commit_with_the_most_and_not_the_handoffs_named_on_their_line():
    """f169: ``brief_left_out`` of (anchor -> memories), in full; the handoffs the brief's
    newer-handoff lines name (placed ``ref``, among the first three) are not counted again, and
    then the count is of the "more"; MCP names the tool's argument."""
    assert brief_left_out({}) == ""
    assert brief_left_out({C: 1}) == (
        f"1 active memory was left out of this brief, anchored on a commit not merged here ({C[:12]}): git hn memory "
        f"brief --at {C[:12]} gives the brief there, and git branch -a --contains {C[:12]} names the branch to merge")
    assert brief_left_out({C: 2, D: 3}).startswith(
        f"5 active memories were left out of this brief, anchored on commits not merged here (such as {D[:12]}, 3 of "
        f"them): git hn memory brief --at {D[:12]} gives")
    named = [Newer("", "sha256:" + "1" * 64, C, "descendants", "", ("ref", "origin/f"))]
    assert brief_left_out({C: 1}, named) == ""  # (its own line says all there is)
    assert brief_left_out({C: 3}, named, mcp=True) == (
        f"2 more active memories were left out of this brief, anchored on a commit not merged here ({C[:12]}): "
        f"memory_brief with atCommit {C[:12]} gives the brief there, and git branch -a --contains {C[:12]} names the "
        "branch to merge")
    unnamed = [named[0]._replace(place=("gone", "")), named[0]._replace(commit=D)]
    assert brief_left_out({C: 1}, unnamed).startswith("1 active memory was")  # (not its line's: counted)
    mine = named[0]._replace(id="sha256:" + "2" * 64)  # (one's own: never in the count)
    assert brief_left_out({C: 2}, [mine, *named], mine={mine.id}).startswith("1 more active memory was")
    past = [named[0]._replace(id=str(i)) for i in range(3)] + [named[0]]  # (the fourth is only counted)
    assert brief_left_out({C: 4}, past).startswith("1 more active memory was")


def test_the_headers_count_line_is_settled_with_the_handoffs_named_and_never_outgrows_its_room():
    """The Markdown header's count line (f173) is settled with the newer-handoff lines once the
    bound chose the items (``service.brief._noted``): a handoff whose line went (the bound left
    out the one it spoke of) is counted instead; a settled set larger than the room the fill
    reserved for the notes goes without the count's line, so the bound holds whatever the
    wording."""
    from git_hn.core.brief import notes_size
    from git_hn.service.brief import _noted

    shown = "sha256:" + "a" * 64
    found = [Newer(shown, "sha256:" + "b" * 64, C, "descendants", "", ("ref", "origin/feature"))]
    held = {C: 2, D: 1}  # (two commits: the count has a line of its own)
    reserved, settle = _noted(("A note",), found, "markdown", None,
                              lambda named: brief_lines(named, held, "markdown"))
    assert reserved[0] == "A note" and reserved[-1] == brief_left_out(held, found)
    assert reserved[-1].startswith("2 more active memories") and len(reserved) == 3
    assert settle({"handoffs": [{"id": shown}]}) == reserved
    assert settle({"handoffs": []}) == ("A note", brief_left_out(held, []))  # (the line went: counted)
    assert brief_left_out(held, []).startswith("3 active memories")
    # (all on the handoff's commit: said on its line, f177; counted on a line of its own once that went)
    reserved, settle = _noted(("A note",), found, "markdown", None,
                              lambda named: brief_lines(named, {C: 3}, "markdown"))
    assert len(reserved) == 2 and reserved[-1].endswith(
        "git hn memory brief --at origin/feature gives the brief there, which also lists 2 more active memories this "
        "brief left out (work not merged here)")
    assert settle({"handoffs": []}) == ("A note", brief_left_out({C: 3}, []))
    # (a wording that outgrew the room: the count goes, never the bound)
    _reserved, settle = _noted(("A note",), found, "markdown", None,
                               lambda named: ["short"] if named else ["long " * 300])
    assert settle({"handoffs": []}) == ("A note",)
    assert notes_size(settle({"handoffs": []})) <= notes_size(_reserved)


def test_all_on_one_handoffs_commit_is_said_on_its_line_and_names_the_brief_once():
    """f177: a teammate's handoff and decisions on one branch took three lines of the header and
    named the same brief twice (``--at origin/feature/cache``, then ``--at`` its commit). When
    every memory the count has is on the commit of a handoff a line names on a ref (or on commits
    that ref holds), that line says the count and no line of its own names the brief by its
    commit; else the lines are f169's, in every style."""
    bobs = Newer("", "sha256:" + "b" * 64, C, "descendants", "", ("ref", "origin/feature/cache"))
    assert folded({C: 3}, [bobs]) == (bobs.id, 2)
    for style, brief in (("cli", "git hn memory brief --at"), ("markdown", "git hn memory brief --at"),
                         ("mcp", "memory_brief with atCommit")):
        lines = brief_lines([bobs], {C: 3}, style)
        assert len(lines) == 2 and "\n".join(lines).count(brief) == 1, lines
        assert lines[-1].endswith(f"{brief} origin/feature/cache gives the brief there, which also lists 2 more "
                                  "active memories this brief left out (work not merged here)")
        assert brief_lines([bobs], {C: 2}, style)[-1].endswith("lists 1 more active memory this brief left out "
                                                               "(work not merged here)")
        several = brief_lines([bobs], {C: 3, D: 1}, style)  # (two commits: f169's line, as before)
        assert len(several) == 3 and several[-1] == brief_left_out({C: 3, D: 1}, [bobs], style == "mcp")
        assert several[1] == newer_notes([bobs], style)[1]
    assert folded({D: 2}, [bobs]) == ("", 0)  # (another commit than the handoff's)
    assert folded({C: 1}, [bobs]) == ("", 0) and brief_lines([bobs], {C: 1}) == newer_notes([bobs])  # (said all)
    assert folded({C: 2}, [bobs._replace(place=("gone", ""))]) == ("", 0)  # (no ref named: f169's line)
    mine = bobs._replace(id="sha256:" + "2" * 64, place=("ref", "wip"))  # (one's own line, first: it says it)
    assert folded({C: 3}, [mine, bobs], mine={mine.id}) == (mine.id, 2)
    assert brief_lines([bobs], None) == newer_notes([bobs])  # (not counted: a shallow clone)
    # (on commits the handoff's ref holds, ``held.holding_refs``' names: that ref's brief lists them too)
    assert folded({C: 1, D: 2}, [bobs], refs={D: "origin/feature/cache"}) == (bobs.id, 2)
    assert folded({C: 1, D: 2}, [bobs], refs={D: "origin/other"}) == ("", 0)  # (another ref: two briefs)
    assert folded({C: 1, D: 2}, [bobs]) == ("", 0)  # (a ref not named: f169's line)
    odd = bobs._replace(place=("ref", "origin/we ird"))  # (a command names the handoff's commit, not this ref)
    assert folded({C: 1, D: 2}, [odd], refs={D: "origin/we ird"}) == ("", 0) and folded({C: 3}, [odd]) == (odd.id, 2)
