"""Corrections without retyping (issue 14, item 5): ``supersede`` inherits what it is not given,
``--edit`` starts from the target's content, ``retract``/``challenge``/``supersede`` take the
prefixes ``show`` takes, and retracting a retracted memory appends nothing."""

from __future__ import annotations

from pathlib import Path

from agent_helpers import actor, record, second_identity, switch
from git_hn.service.editor import INSTRUCTIONS, SCISSORS
from helpers import git, hn, refs_snapshot, unhinted

def _data(repo, mid) -> dict:
    return hn(repo, "memory", "show", mid, "--json").json()["projection"]["data"]


def _rich(repo) -> str:
    """A memory with every inheritable field set, anchored one commit back."""
    (repo / "app.py").write_text("print(1)\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-q", "-m", "app")
    head = git(repo, "rev-parse", "HEAD")
    return record(repo, "--topic", "architecture", "--topic", "Cache", "--path", "app.py",
                  "--subject", "issue:sha256:" + "4" * 64, "--evidence", f"git:{head}", kind="assumption",
                  applies="subject", content="the cache is warm")["memoryId"]


def test_supersede_inherits_every_field_not_given(inited):
    old = _rich(inited)
    r = hn(inited, "memory", "supersede", old, "--json", "--content", "the cache is cold")
    assert r.code == 0, r.err
    new, before = _data(inited, r.json()["memoryId"]), _data(inited, old)
    assert new["content"] == "the cache is cold"
    assert {k: v for k, v in new.items() if k != "content"} == \
        {k: v for k, v in before.items() if k != "content"}
    assert new["anchor"]["paths"][0]["path"] == "app.py" and new["topics"] == ["architecture", "cache"]
    assert hn(inited, "memory", "show", old, "--json").json()["projection"]["lifecycle"] == "superseded"


def test_supersede_given_fields_win_and_inherited_paths_follow_a_new_anchor(inited):
    old = _rich(inited)
    (inited / "app.py").write_text("print(2)\n")
    git(inited, "commit", "-q", "-am", "change app")
    r = hn(inited, "memory", "supersede", old, "--json", "--at", "HEAD", "--kind", "decision",
           "--applies", "descendants", "--content", "decided: cold cache")
    assert r.code == 0, r.err
    new = _data(inited, r.json()["memoryId"])
    assert new["kind"] == "decision" and new["applicability"]["mode"] == "descendants"
    assert new["anchor"]["commit"] == git(inited, "rev-parse", "HEAD")
    assert new["anchor"]["paths"] == [{"path": "app.py", "blob": git(inited, "rev-parse", "HEAD:app.py")}]
    assert new["topics"] == ["architecture", "cache"]  # still inherited


def test_supersede_without_new_content_names_the_options_and_appends_nothing(inited):
    old = record(inited)["memoryId"]
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "supersede", old, "--topic", "x")
    assert (r.code, r.err) == (1, "git-hn: supersede needs new content: --content TEXT, "
                                  "--content-file PATH or --edit (or, to carry the "
                                  "memory to another commit as it is, --at REV --same-content)\n")
    r = hn(inited, "memory", "supersede", old, "--edit", "--content", "y")
    assert r.code == 1 and "--edit cannot be combined" in r.err
    assert refs_snapshot(inited) == before


def _editor(tmp_path, body: str) -> str:
    script = tmp_path / "editor.sh"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return str(script)


def test_supersede_edit_opens_the_editor_on_the_target_content(inited, tmp_path, monkeypatch):
    old = _rich(inited)
    seen = tmp_path / "seen"
    # the editor value is a shell command with an argument, as Git allows
    script = _editor(tmp_path, f'cp "$2" {seen}; stat -c %a "$2" >> {seen}.mode\n'
                               'printf "the cache is %s\\n" "$1" > "$2"\n')
    monkeypatch.delenv("GIT_EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{script} lukewarm")
    r = hn(inited, "memory", "supersede", old[7:19], "--edit", "--json")
    assert r.code == 0, r.err
    assert seen.read_text() == "the cache is warm\n\n" + INSTRUCTIONS
    assert (tmp_path / "seen.mode").read_text() == "600\n"
    new = _data(inited, r.json()["memoryId"])
    assert new["content"] == "the cache is lukewarm"  # the editor's final newline is dropped
    assert new["anchor"]["paths"][0]["path"] == "app.py"


def test_supersede_edit_strips_the_instructions_below_the_scissors_and_keeps_headings(inited, tmp_path, monkeypatch):
    """A newcomer trial: the buffer held only the old content, with no word on what is signed.
    As ``git commit --cleanup=scissors``: an instruction block below a scissors line, removed with
    everything after it; a line starting with # above it (a Markdown heading) is content."""
    old = record(inited)["memoryId"]
    monkeypatch.delenv("GIT_EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    # the editor writes a heading above the content it was given, and a note below the scissors
    monkeypatch.setenv("EDITOR", _editor(tmp_path, '{ printf "# Decision\\n\\n"; cat "$1"; '
                                                   'printf "# a note below\\n"; } > "$1.new"; mv "$1.new" "$1"\n'))
    r = hn(inited, "memory", "supersede", old, "--edit", "--json")
    assert r.code == 0, r.err
    old = r.json()["memoryId"]  # (the one to correct next: the first is superseded now)
    content = _data(inited, old)["content"]
    assert content.startswith("# Decision\n\n") and SCISSORS not in content and "Do not modify" not in content
    assert "a note below" not in content
    # a refused text is kept without the instructions, so --content-file reuses what was meant
    where = _edits_in(tmp_path, monkeypatch)
    token = "ghp_" + "A1b2C3d4" * 5
    monkeypatch.setenv("EDITOR", _editor(tmp_path, f'{{ printf "# Keys\\n{token}\\n"; cat "$1"; }} > "$1.new"; '
                                                   'mv "$1.new" "$1"\n'))
    r = hn(inited, "memory", "supersede", old, "--edit")
    assert r.code == 1 and "your text is kept in" in r.err
    kept = list(where.iterdir())
    assert len(kept) == 1 and SCISSORS not in kept[0].read_text() and kept[0].read_text().startswith("# Keys\n")


def test_supersede_edit_to_empty_aborts_without_appending(inited, tmp_path, monkeypatch):
    old = record(inited)["memoryId"]
    monkeypatch.delenv("GIT_EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", _editor(tmp_path, 'printf "\\n \\n" > "$1"\n'))
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "supersede", old, "--edit")
    assert (r.code, r.err) == (1, "git-hn: edited content is empty; nothing appended\n")
    failing = _editor(tmp_path, "exit 3\n")
    monkeypatch.setenv("EDITOR", failing)
    r = hn(inited, "memory", "supersede", old, "--edit")
    assert (r.code, r.err) == (1, f'git-hn: the editor "{failing}" failed (exit status 3); nothing appended\n')
    # a token in the editor's command is not repeated (a review)
    token = "ghp_" + "A1b2C3d4" * 5
    monkeypatch.setenv("EDITOR", f"env GITHUB_TOKEN={token} {failing}")
    r = hn(inited, "memory", "supersede", old, "--edit")
    assert r.code == 1 and token not in r.err
    assert r.err == ("git-hn: the editor (its command holds secret-shaped text, not shown) failed (exit status 3); "
                     "nothing appended\n")
    # saved as it was opened, as git commit aborts on an unchanged message: nothing to sign
    monkeypatch.setenv("EDITOR", "true")
    r = hn(inited, "memory", "supersede", old, "--edit")
    assert (r.code, r.err) == (1, "git-hn: content unchanged in the editor and no other field given; "
                                  "nothing appended\n")
    assert refs_snapshot(inited) == before
    r = hn(inited, "memory", "supersede", old, "--edit", "--topic", "moved")  # another field changes
    assert r.code == 0, r.err


def _edits_in(tmp_path, monkeypatch) -> Path:
    """The directory the editor's files are made in (git-hn runs in this process)."""
    import tempfile

    where = tmp_path / "edits"
    where.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    monkeypatch.delenv("GIT_EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    return where


def test_edited_text_that_is_refused_is_kept_and_named_like_commit_editmsg(inited, tmp_path, monkeypatch):
    """A secret-shaped token or invalid UTF-8 in the edited text is refused: the user's text stays
    in the file, which the one error line names, and a successful append removes it."""
    old = record(inited, content="the cache is warm")["memoryId"]
    where = _edits_in(tmp_path, monkeypatch)
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"
    monkeypatch.setenv("EDITOR", _editor(tmp_path, f'printf "rotate {token} now\\n" > "$1"\n'))
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "supersede", old, "--edit")
    [kept] = list(where.iterdir())
    assert (r.code, r.err) == (1, "git-hn: secret-shaped text in record.content (github-token); not signed; use "
                                  f"--allow-secret-shaped to override; your text is kept in {kept} (reuse it with "
                                  "--content-file)\n")
    assert kept.read_text() == f"rotate {token} now\n" and token not in r.err
    assert oct(kept.stat().st_mode & 0o777) == "0o600"

    monkeypatch.setenv("EDITOR", _editor(tmp_path, 'printf "caf\\351\\n" > "$1"\n'))  # Latin-1, not UTF-8
    r = hn(inited, "memory", "supersede", old, "--edit")
    [latin1] = [p for p in where.iterdir() if p != kept]
    assert r.code == 1 and r.err.startswith("git-hn: memory record content is invalid; ")
    assert r.err.endswith(f"; your text is kept in {latin1} (reuse it with --content-file)\n")
    assert latin1.read_bytes() == b"caf\xe9\n"
    assert refs_snapshot(inited) == before

    # the kept text signs with --content-file; an edit that is signed leaves no file behind
    r = hn(inited, "memory", "supersede", old, "--content-file", str(kept), "--allow-secret-shaped", "--json")
    assert r.code == 0, r.err
    kept.unlink(), latin1.unlink()
    monkeypatch.setenv("EDITOR", _editor(tmp_path, 'printf "the cache is cold\\n" > "$1"\n'))
    r = hn(inited, "memory", "supersede", old, "--edit", "--allow-branch")
    assert r.code == 0, r.err
    assert list(where.iterdir()) == []


def test_an_edit_left_unchanged_or_emptied_keeps_no_file(inited, tmp_path, monkeypatch):
    old = record(inited)["memoryId"]
    where = _edits_in(tmp_path, monkeypatch)
    for editor in ("true", _editor(tmp_path, 'printf "\\n" > "$1"\n'), _editor(tmp_path, "exit 3\n")):
        monkeypatch.setenv("EDITOR", editor)
        r = hn(inited, "memory", "supersede", old, "--edit")
        assert r.code == 1 and "kept" not in r.err, editor
        assert list(where.iterdir()) == []


def test_retract_challenge_and_supersede_accept_the_prefixes_show_accepts(inited):
    a = record(inited, content="a")["memoryId"]
    b = record(inited, content="b")["memoryId"]
    prefix = a[7:19]
    r = hn(inited, "memory", "retract", prefix, "--reason", "obsolete", "--json")
    assert r.code == 0, r.err
    assert hn(inited, "memory", "show", a, "--json").json()["projection"]["lifecycle"] == "retracted"
    r = hn(inited, "memory", "supersede", "sha256:" + b[7:17], "--content", "b2", "--json")
    assert r.code == 0, r.err
    assert hn(inited, "memory", "show", r.json()["memoryId"], "--json").json()["envelope"]["target"] == b
    alice = actor(inited)
    switch(inited, second_identity(inited))
    r = hn(inited, "memory", "challenge", b[7:15], "--reason", "evidence-mismatch", "--json")
    assert r.code == 0, r.err
    switch(inited, alice)
    # an unknown prefix fails exactly as show fails
    unknown = "0123abcd" if not any(m.startswith("sha256:0123abcd") for m in (a, b)) else "fedc9876"
    shown = hn(inited, "memory", "show", unknown)
    for op in (["retract", unknown, "--reason", "x"], ["challenge", unknown, "--reason", "x"],
               ["supersede", unknown, "--content", "x"]):
        r = hn(inited, "memory", *op)
        assert (r.code, r.err) == (shown.code, shown.err), op
    assert shown.err == (f"git-hn: memory {unknown} was not found in verified local or accepted streams; git hn "
                         "memory log lists the IDs this clone holds, and git hn sync REMOTE imports a teammate's\n")


def test_ambiguous_prefix_fails_as_show_does(inited, monkeypatch):
    """Two IDs sharing 8 hex digits cannot be made on demand; the lookup is made to see two."""
    from git_hn.store import stateview

    a = record(inited, content="a")["memoryId"]
    b = record(inited, content="b")["memoryId"]
    monkeypatch.setattr(stateview.View, "find", lambda self, hexprefix: sorted([a, b]))
    shown = hn(inited, "memory", "show", a[7:17])
    assert shown.err == f"git-hn: memory lookup {a[7:17]} is ambiguous; use the full memory ID\n"
    before = refs_snapshot(inited)
    for op in (["retract", a[7:17], "--reason", "x"], ["supersede", a[7:17], "--content", "x"]):
        assert hn(inited, "memory", *op).err == shown.err
    assert refs_snapshot(inited) == before


def test_retracting_a_retracted_memory_says_so_and_appends_nothing(inited):
    mid = record(inited, content="wrong")["memoryId"]
    first = hn(inited, "memory", "retract", mid, "--reason", "incorrect", "--json").json()
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "retract", mid, "--reason", "obsolete")
    # piped: the retraction's lines (CONTRACT §7.14), as --json gives its object, then what was not
    # done, as a replay ends (f171: the sentence alone had no Memory: line)
    assert (r.code, r.err) == (0, "")
    assert r.out.splitlines() == [f"Memory: {first['memoryId']}", f"Stream: {first['stream']}", f"Actor: {first['actor']}",
                                  f"Memory {mid} is already retracted by {first['memoryId']}; nothing appended"]
    r = hn(inited, "memory", "retract", mid[7:19], "--reason", "obsolete", "--json")
    assert r.json() == {**first, "alreadyRetracted": True, "target": mid}
    assert refs_snapshot(inited) == before
    # the same request again is still a replay of the head (CONTRACT §7.14)
    assert hn(inited, "memory", "retract", mid, "--reason", "incorrect", "--json").json() == \
        {**first, "replayed": True}
    assert refs_snapshot(inited) == before


def test_superseding_a_superseded_memory_again_is_refused_unless_a_branch_is_meant(inited):
    """A newcomer trial fixed a typo in a correction by running supersede on the same memory
    again: a second successor was signed, the memory branched for good, and only then a hint
    said so. Now refused before signing, naming the latest successor to supersede instead."""
    mid = record(inited, content="first")["memoryId"]
    first = hn(inited, "memory", "supersede", mid, "--content", "second", "--json")
    assert first.code == 0 and unhinted(first.err) == ""  # the first successor: nothing to say
    latest = first.json()["memoryId"]
    before = refs_snapshot(inited)
    again = hn(inited, "memory", "supersede", mid[7:19], "--content", "secnod fixed", "--json")
    assert (again.code, again.out) == (1, "")
    assert again.err == (f"git-hn: memory {mid[7:19]} is already superseded (latest: {latest}); a second successor "
                         "would split it for good (lifecycle branching): to correct the correction, supersede the "
                         f"latest instead (git hn memory supersede {latest}, with the new content), or add "
                         "--allow-branch to branch on purpose; nothing appended\n")
    assert refs_snapshot(inited) == before
    # the same request as the first is still its replay (CONTRACT §7.14), not a refusal
    replay = hn(inited, "memory", "supersede", mid, "--content", "second", "--json")
    assert replay.code == 0 and replay.json().get("replayed") and unhinted(replay.err) == ""
    # a line of corrections: the latest is named, not the first successor
    third = hn(inited, "memory", "supersede", latest, "--content", "third", "--json").json()["memoryId"]
    r = hn(inited, "memory", "supersede", mid, "--content", "x")
    assert r.code == 1 and f"(latest: {third})" in r.err
    # a retracted correction continues no line; it still counts as a successor (CONTRACT §5.4),
    # so the line's end is not named as "the latest" to supersede (a review: that advice was
    # refused in turn, "(latest: C)", a loop): the refusal says what is left
    assert hn(inited, "memory", "retract", third, "--reason", "incorrect").code == 0
    for query in (mid, latest):
        r = hn(inited, "memory", "supersede", query, "--content", "x")
        assert (r.code, r.err) == (1, f"git-hn: memory {query[7:19]} is already superseded; its latest successor "
                                      f"{third} was retracted: record anew (git hn memory record), supersede {third} "
                                      "with --allow-retracted, or add --allow-branch to branch on purpose; nothing "
                                      "appended\n")
    assert hn(inited, "memory", "retract", latest, "--reason", "incorrect").code == 0
    r = hn(inited, "memory", "supersede", mid, "--content", "x")
    assert r.code == 1 and f"its latest successor {latest} was retracted" in r.err
    assert refs_snapshot(inited) != before  # (the retractions)


def test_the_branch_refusal_names_a_memory_that_can_be_superseded(inited):
    # a review: A -> B -> C, C retracted: "supersede A" named B, and "supersede B" was refused
    a = record(inited, content="A")["memoryId"]
    d = hn(inited, "memory", "supersede", a, "--content", "D", "--json").json()["memoryId"]
    b = hn(inited, "memory", "supersede", a, "--content", "B", "--allow-branch", "--json").json()["memoryId"]
    c = hn(inited, "memory", "supersede", b, "--content", "C", "--json").json()["memoryId"]
    assert hn(inited, "memory", "retract", c, "--reason", "incorrect").code == 0
    r = hn(inited, "memory", "supersede", a, "--content", "fix")
    assert r.code == 1 and f"(latest: {d})" in r.err, r.err  # D, not the newer B (its successor was retracted)
    assert hn(inited, "memory", "supersede", d, "--content", "fix").code == 0


def test_supersede_edit_refuses_a_branch_before_the_editor_opens(inited, tmp_path, monkeypatch):
    mid = record(inited, content="first")["memoryId"]
    assert hn(inited, "memory", "supersede", mid, "--content", "second").code == 0
    opened = tmp_path / "opened"
    monkeypatch.delenv("GIT_EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", _editor(tmp_path, f'touch {opened}; printf "typed\\n" > "$1"\n'))
    r = hn(inited, "memory", "supersede", mid, "--edit")
    assert r.code == 1 and "is already superseded (latest: " in r.err, r.err
    assert not opened.exists()


def test_allow_branch_supersedes_again_and_says_it_branched(inited):
    mid = record(inited, content="first")["memoryId"]
    first = hn(inited, "memory", "supersede", mid, "--content", "second", "--json")
    again = hn(inited, "memory", "supersede", mid, "--content", "another second", "--allow-branch", "--json")
    assert again.code == 0, again.err
    assert unhinted(again.err) == (f"git-hn: hint: memory {mid[7:19]} was already superseded by "
                                   f"{first.json()['memoryId'][7:19]}; it now has 2 successors (lifecycle branching): "
                                   "to continue a line instead, supersede its latest memory (git hn memory log --graph "
                                   "shows the lines)\n")
    shown = hn(inited, "memory", "show", mid, "--json").json()["projection"]
    assert shown["lifecycle"] == "branching"
    # a replayed request is the same memory: no warning, with or without the flag
    replay = hn(inited, "memory", "supersede", mid, "--content", "another second", "--json")
    assert replay.json().get("replayed") and unhinted(replay.err) == ""


def test_mcp_retract_of_a_retracted_memory_appends_nothing(inited):
    """The MCP tool calls the same service: a second, different retraction is not signed."""
    from git_hn.service.mcp_calls import CALLS
    from git_hn.store.repo import open_repo

    mid = record(inited, content="wrong")["memoryId"]
    first = CALLS["memory_retract"](open_repo(str(inited)), {"memory": mid, "reason": "incorrect"})
    before = refs_snapshot(inited)
    again = CALLS["memory_retract"](open_repo(str(inited)), {"memory": mid, "reason": "obsolete"})
    assert again["result"] == {**first["result"], "alreadyRetracted": True, "target": mid}
    assert refs_snapshot(inited) == before


def test_supersede_edit_checks_the_target_before_the_editor_runs(inited, tmp_path, monkeypatch):
    old = record(inited)["memoryId"]
    marker = tmp_path / "ran"
    monkeypatch.delenv("GIT_EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", _editor(tmp_path, f'touch {marker}\n'))
    switch(inited, second_identity(inited))
    r = hn(inited, "memory", "supersede", old, "--edit")
    assert r.err == (f"git-hn: only the target author may supersede memory {old}; to dispute another author's memory, "
                     f"challenge it: git hn memory challenge {old[7:19]} --reason REASON; to record your own in its "
                     f"place, cite it: git hn memory record --kind decision --at HEAD --applies descendants --evidence "
                     f"memory:{old[7:19]} --content TEXT\n")
    assert not marker.exists()


def test_supersede_of_a_handoff_keeps_its_lists(inited):
    h = hn(inited, "memory", "handoff", "--json", "--at", "HEAD", "--applies", "descendants",
           "--content", "end of day", "--completed", "codec", "--next-action", "tests").json()["memoryId"]
    r = hn(inited, "memory", "supersede", h, "--json", "--blocker", "review", "--content", "end of day, really")
    assert r.code == 0, r.err
    data = _data(inited, r.json()["memoryId"])
    assert data["kind"] == "handoff"
    assert data["handoff"] == {"completed": ["codec"], "assumptions": [], "blockers": ["review"],
                               "nextActions": ["tests"]}


def test_supersede_checks_a_typed_outcome_like_record(inited):
    """An attempt's outcome given on the command line must be one of the known ones, as for
    record; an inherited outcome (perhaps from another implementation) is kept as it is."""
    first = hn(inited, "memory", "record", "--json", "--kind", "attempt", "--outcome", "failed", "--at", "HEAD",
               "--applies", "descendants", "--content", "tried caching").json()
    before = git(inited, "for-each-ref", "refs/hn")
    r = hn(inited, "memory", "supersede", first["memoryId"], "--outcome", "maybe", "--content", "tried again")
    assert r.code == 1 and r.err.startswith("git-hn: memory attempt outcome is unsupported; ")
    assert "maybe" not in r.err and git(inited, "for-each-ref", "refs/hn") == before
    ok = hn(inited, "memory", "supersede", first["memoryId"], "--content", "tried again, same outcome", "--json")
    assert ok.code == 0, ok.err


def test_superseding_a_retracted_memory_is_refused_before_signing_unless_allowed(inited, tmp_path, monkeypatch):
    """A newcomer trial superseded a memory it had retracted: an active successor of a withdrawn
    memory was signed, for good, without a word. It is refused before anything is signed (before
    the editor opens, and for ``--input`` requests), and ``--allow-retracted`` says it is meant."""
    mid = record(inited, content="use the old cache")["memoryId"]
    rid = hn(inited, "memory", "retract", mid, "--reason", "obsolete", "--json").json()["memoryId"]
    before = refs_snapshot(inited)
    refusal = (f"git-hn: memory {mid} is retracted (by {rid}): a successor would be active, bringing back what "
               "its author withdrew; add --allow-retracted if that is meant, or record a new memory with git hn "
               "memory record; nothing appended\n")
    r = hn(inited, "memory", "supersede", mid[7:19], "--content", "use the new cache")
    assert (r.code, r.out, r.err) == (1, "", refusal)
    marker = tmp_path / "ran"
    monkeypatch.delenv("GIT_EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", _editor(tmp_path, f'touch {marker}\n'))
    assert hn(inited, "memory", "supersede", mid, "--edit").err == refusal
    assert not marker.exists()
    request = tmp_path / "request.json"
    head = git(inited, "rev-parse", "HEAD")
    request.write_text('{"version":0,"kind":"decision","content":"use the new cache","anchor":{"commit":"%s"},'
                       '"applicability":{"mode":"descendants"},"topics":[],"evidence":[]}' % head)
    assert hn(inited, "memory", "supersede", mid, "--input", str(request), "--json").err == refusal
    assert refs_snapshot(inited) == before
    r = hn(inited, "memory", "supersede", mid, "--content", "use the new cache", "--allow-retracted", "--json")
    assert r.code == 0, r.err
    assert hn(inited, "memory", "show", r.json()["memoryId"], "--json").json()["projection"]["lifecycle"] == "active"
    assert hn(inited, "memory", "show", mid, "--json").json()["projection"]["lifecycle"] == "retracted"


def test_mcp_supersede_of_a_retracted_memory_is_refused_unless_allowed(inited):
    """As the CLI (a newcomer trial's case; the MCP tool signed it without a word): refused
    before signing, with the argument that says it is meant."""
    from test_agent_mcp import document, run, text

    mid = record(inited, content="use the old cache")["memoryId"]
    rid = hn(inited, "memory", "retract", mid, "--reason", "obsolete", "--json").json()["memoryId"]
    before = refs_snapshot(inited)

    async def body(client):
        refused = await client.call_tool("memory_supersede", {"memory": mid, "content": "use the new cache"})
        wrong = await client.call_tool("memory_supersede", {"memory": mid, "content": "x", "allowRetracted": "yes"})
        after = refs_snapshot(inited)
        meant = await client.call_tool("memory_supersede", {"memory": mid, "content": "use the new cache",
                                                            "allowRetracted": True})
        return refused, wrong, after, meant

    refused, wrong, after, meant = run(inited, body, "--allow-write")
    assert refused.is_error is True and text(refused) == (
        f"git-hn: memory {mid} is retracted (by {rid}): a successor would be active, bringing back what its author "
        "withdrew; add allowRetracted: true if that is meant, or record a new memory with memory_record; "
        "nothing appended")
    assert wrong.is_error is True and text(wrong) == ("git-hn: supersede input: allowRetracted must be true or "
                                                      "false, not string")
    assert after == before
    new = document(meant)["result"]["memoryId"]
    assert hn(inited, "memory", "show", new, "--json").json()["projection"]["lifecycle"] == "active"


def test_mcp_supersede_of_a_superseded_memory_is_refused_unless_a_branch_is_meant(inited):
    """As the CLI: refused before signing, naming the latest successor and ``allowBranch``."""
    from test_agent_mcp import document, run, text

    mid = record(inited, content="use the old cache")["memoryId"]
    latest = hn(inited, "memory", "supersede", mid, "--content", "use the new cache", "--json").json()["memoryId"]
    before = refs_snapshot(inited)

    async def body(client):
        refused = await client.call_tool("memory_supersede", {"memory": mid, "content": "use the neww cache"})
        wrong = await client.call_tool("memory_supersede", {"memory": mid, "content": "x", "allowBranch": 1})
        after = refs_snapshot(inited)
        meant = await client.call_tool("memory_supersede", {"memory": mid, "content": "a branch",
                                                            "allowBranch": True})
        return refused, wrong, after, meant

    refused, wrong, after, meant = run(inited, body, "--allow-write")
    assert refused.is_error is True and text(refused) == (
        f"git-hn: memory {mid[7:19]} is already superseded (latest: {latest}); a second successor would split it "
        "for good (lifecycle branching): to correct the correction, supersede the latest instead (memory_supersede "
        f"with memory {latest}), or add allowBranch: true to branch on purpose; nothing appended")
    assert wrong.is_error is True and text(wrong) == ("git-hn: supersede input: allowBranch must be true or "
                                                      "false, not number")
    assert after == before
    assert document(meant)["hint"].startswith(f"Memory {mid[7:19]} was already superseded by ")
    assert hn(inited, "memory", "show", mid, "--json").json()["projection"]["lifecycle"] == "branching"


def test_supersede_same_content_carries_a_published_memory_to_the_rebased_commit(tmp_path):
    """A team trial: "carrying a published memory over to a rebased commit means retyping it":
    ``supersede 51c8f5bad3ee --at 58fdf4c`` failed ``supersede needs new content``, and the
    rebase hint itself printed ``--content TEXT``. ``--same-content`` (git-hn) keeps the target's
    content; every other field is inherited as before (paths read again at the new commit), and
    what is given overrides it. Without the flag the contract's refusal stays; with it, another
    content source, or no other field at all, is refused, appending nothing."""
    from helpers import shared_remote

    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    old = _rich(alice)
    assert hn(alice, "sync").code == 0  # published: no rewrite can move it
    git(alice, "commit", "-q", "--amend", "-m", "app, amended")  # (no hooks: nothing re-anchors)
    new_commit = git(alice, "rev-parse", "HEAD")
    before = refs_snapshot(alice)
    at = ["--at", new_commit]
    for args, text in (
            (at, "supersede needs new content: --content TEXT, --content-file PATH or --edit (or, to carry the "
                 "memory to another commit as it is, --at REV --same-content)"),
            (["--same-content"], "--same-content with no other field would sign the target's record again "
                                 "unchanged: give what changes, such as --at REV; nothing appended"),
            ([*at, "--same-content", "--content", "x"], "--same-content cannot be combined with --content, "
             "--content-file, positional content or --edit: it keeps the target's content; nothing appended"),
            ([*at, "--same-content", "--edit"], "--same-content cannot be combined with --content, "
             "--content-file, positional content or --edit: it keeps the target's content; nothing appended"),
            (["--same-content", "--input", "-", "--json"], "--input cannot be combined with record flags or "
                                                           "positional content")):
        r = hn(alice, "memory", "supersede", old[7:19], *args, input=b"{}")
        assert (r.code, r.err) == (1, f"git-hn: {text}\n"), (args, r.err)
        assert refs_snapshot(alice) == before, args
    assert refs_snapshot(alice) == before
    r = hn(alice, "memory", "supersede", old[7:19], "--at", new_commit, "--same-content", "--json")
    assert r.code == 0, r.err
    was, now = _data(alice, old), _data(alice, r.json()["memoryId"])
    assert now["content"] == "the cache is warm" == was["content"]
    assert now["anchor"]["commit"] == new_commit
    for field in ("kind", "topics", "evidence", "applicability"):
        assert now[field] == was[field], field
    assert [p["path"] for p in now["anchor"]["paths"]] == ["app.py"]
    assert now["anchor"]["paths"][0]["blob"] == git(alice, "rev-parse", f"{new_commit}:app.py")
    assert hn(alice, "memory", "show", old, "--json").json()["projection"]["lifecycle"] == "superseded"
    # a field given overrides the target's; the content stays the target's
    r = hn(alice, "memory", "supersede", r.json()["memoryId"], "--same-content", "--topic", "moved", "--json")
    assert r.code == 0, r.err
    assert _data(alice, r.json()["memoryId"])["topics"] == ["moved"]
    assert _data(alice, r.json()["memoryId"])["content"] == "the cache is warm"


def test_supersede_same_content_or_an_unchanged_edit_with_the_targets_own_values_signs_nothing(inited, tmp_path,
                                                                                            monkeypatch):
    """Review finding: "supersede --same-content with an --at that changes nothing signs a
    duplicate". The record built is compared with the target's: fields given the target's own
    values are refused as no field is, appending nothing; ``--subject ""`` is a field (it clears
    the subject), signed when the target had one, refused when it had none."""
    old = _rich(inited)
    anchor = _data(inited, old)["anchor"]["commit"]
    same = ("--same-content with fields equal to the target's would sign the target's record again unchanged: "
            "give what changes, such as --at REV; nothing appended")
    before = refs_snapshot(inited)
    for args in (["--at", anchor], ["--at", anchor, "--kind", "assumption", "--topic", "cache", "--topic",
                                    "architecture"]):
        r = hn(inited, "memory", "supersede", old[7:19], "--same-content", *args)
        assert (r.code, r.out, r.err) == (1, "", f"git-hn: {same}\n"), (args, r.err)
        assert refs_snapshot(inited) == before
    where = _edits_in(tmp_path, monkeypatch)
    monkeypatch.setenv("EDITOR", "true")
    r = hn(inited, "memory", "supersede", old[7:19], "--edit", "--at", anchor)
    assert (r.code, r.err) == (1, "git-hn: content unchanged in the editor and the fields given equal the "
                                  "target's; nothing appended\n"), r.err
    assert refs_snapshot(inited) == before and list(where.iterdir()) == []
    plain = record(inited, kind="observation", content="no subject here")["memoryId"]
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "supersede", plain[7:19], "--same-content", "--subject", "")
    assert (r.code, r.err) == (1, f"git-hn: {same}\n"), r.err
    assert refs_snapshot(inited) == before
    # clearing a subject the target has is a change (applicability descendants: a subject is optional)
    subject = record(inited, "--subject", "issue:sha256:" + "5" * 64, content="about an issue")["memoryId"]
    r = hn(inited, "memory", "supersede", subject[7:19], "--same-content", "--subject", "", "--json")
    assert r.code == 0, r.err
    assert "subject" not in _data(inited, r.json()["memoryId"])["anchor"]
    assert _data(inited, subject)["anchor"]["subject"] == "issue:sha256:" + "5" * 64


def test_the_ways_out_of_a_refused_supersede_are_commands_that_run_as_given(inited):
    """A trial was told ``challenge MEMORY`` of a memory whose ID the refusal knew: both ways out
    (challenge it, or record one's own citing it, as README says of a departed teammate's
    decision) now name it, and run as they are given, with only the placeholders filled in."""
    import shlex

    old = record(inited, kind="observation", content="the cache is per process")["memoryId"]
    switch(inited, second_identity(inited))
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "supersede", old, "--content", "the cache is shared")
    assert r.code == 1 and refs_snapshot(inited) == before
    challenge, cite = (part.split(": ", 1)[1] for part in r.err.rstrip("\n").split("; ")[1:])
    assert cite.startswith("git hn memory record --kind observation "), cite
    for command in (challenge.replace("REASON", "incorrect"), cite.replace("TEXT", "'the cache is shared'")):
        words = shlex.split(command)
        assert words[:2] == ["git", "hn"]
        done = hn(inited, *words[2:], "--json")
        assert done.code == 0, (command, done.err)
    shown = hn(inited, "memory", "show", old, "--json").json()
    assert len(shown["projection"]["challengers"]) == 1


def _cite_of(err: str) -> str:
    """The refusal's "record your own in its place" command, up to its ``--content TEXT``."""
    way = err.split("to record your own in its place, ", 1)[1]
    return way.split(": ", 1)[1].split(" --content TEXT", 1)[0] + " --content TEXT"


def test_the_cite_way_out_runs_as_given_for_every_kind(inited):
    """A review (F93, finding 5): the refused supersede's "cite it" command failed for an
    attempt ("kind attempt needs --outcome"), and for a verification signed, at HEAD, a test no
    one ran there (no ``git:`` evidence). For every kind the command now runs as given with its
    placeholders filled: an attempt's names ``--outcome OUTCOME`` and the outcomes; a
    verification's is the reader's own result, at the commit tested, cited as ``git:`` evidence
    beside the memory it replaces."""
    import shlex

    head = git(inited, "rev-parse", "HEAD")
    extra = {"attempt": ("--outcome", "failed"), "verification": ("--evidence", f"git:{head}")}
    kinds = ("observation", "decision", "assumption", "attempt", "verification", "handoff")
    made = {kind: record(inited, *extra.get(kind, ()), kind=kind, content=f"alice's {kind}")["memoryId"]
            for kind in kinds}
    switch(inited, second_identity(inited))
    for kind, old in made.items():
        r = hn(inited, "memory", "supersede", old, "--content", "bob's")
        assert r.code == 1, r.err
        cite = _cite_of(r.err)
        assert cite.startswith(f"git hn memory record --kind {kind} ") and f"--evidence memory:{old[7:19]}" in cite
        if kind == "attempt":
            assert "(OUTCOME: succeeded, failed, partial or abandoned)" in r.err, r.err
        if kind == "verification":
            assert "test a commit and cite it: " in r.err and "--at COMMIT" in cite, r.err
            assert "(COMMIT: the full ID of the commit you tested, as git rev-parse HEAD prints it)" in r.err
        filled = cite.replace("TEXT", "'bob cites it'").replace("OUTCOME", "partial").replace("COMMIT", head)
        words = shlex.split(filled)
        done = hn(inited, *words[2:], "--json")
        assert done.code == 0, (kind, filled, done.err)
        data = _data(inited, done.json()["memoryId"])
        assert data["kind"] == kind and f"memory:{old}" in data["evidence"], data
        if kind == "verification":
            assert data["evidence"] == [f"git:{head}", f"memory:{old}"] and data["anchor"]["commit"] == head, data


def test_the_ways_out_of_a_refusal_name_the_latest_successor_of_a_superseded_memory(inited):
    """A review (F93, finding 6): the refusals offered to challenge or cite a memory its author
    had superseded, and its author a supersede refused as "already superseded", as recall's hint
    did before 64156f3. They now name the latest of its line, and each way out runs as given;
    when that one is retracted, nothing is offered to dispute or correct, over MCP too."""
    import shlex

    from git_hn.core.hints import both
    from git_hn.service import lifecycle
    from git_hn.store.repo import open_repo

    alice = actor(inited)
    old = record(inited, content="v1")["memoryId"]
    mid = hn(inited, "memory", "supersede", old, "--json", "--content", "v2").json()["memoryId"]
    latest = hn(inited, "memory", "supersede", mid, "--json", "--content", "v3").json()["memoryId"]
    r = hn(inited, "memory", "challenge", old, "--reason", "wrong")
    assert r.code == 1 and f"you superseded it already (latest: {latest})" in r.err, r.err
    assert f"supersede {old[7:19]}" not in r.err and f"supersede {latest[7:19]} --content TEXT" in r.err, r.err
    supersede = r.err.split("supersede the latest (", 1)[1].split(")", 1)[0]
    done = hn(inited, *shlex.split(supersede.replace("TEXT", "v4"))[2:], "--json")
    assert done.code == 0, done.err
    latest = done.json()["memoryId"]
    switch(inited, second_identity(inited))
    for operation in ("supersede", "retract"):
        r = hn(inited, "memory", operation, old, *(("--content", "bob's") if operation == "supersede" else
                                                   ("--reason", "wrong")))
        assert r.code == 1 and f"its author superseded it (latest: {latest})" in r.err, r.err
        assert f"memory challenge {latest[7:19]} --reason REASON" in r.err and old[7:19] not in r.err.split("; ", 1)[1]
    challenge = r.err.split("challenge the latest: ", 1)[1].rstrip("\n")
    r = hn(inited, "memory", "supersede", old, "--content", "bob's")
    cite = _cite_of(r.err)
    assert f"--evidence memory:{latest[7:19]}" in cite, cite
    for command in (challenge.replace("REASON", "incorrect"), cite.replace("TEXT", "'bob cites the latest'")):
        done = hn(inited, *shlex.split(command)[2:], "--json")
        assert done.code == 0, (command, done.err)
    assert len(hn(inited, "memory", "show", latest, "--json").json()["projection"]["challengers"]) == 1
    # the latest retracted: nothing of the line to dispute, in either wording
    switch(inited, alice)
    assert hn(inited, "memory", "retract", latest, "--reason", "obsolete").code == 0
    r = hn(inited, "memory", "challenge", old, "--reason", "wrong")
    assert r.err == (f"git-hn: an author cannot challenge their own memory {old}; you superseded it already, and "
                     f"retracted the latest of its line, {latest}: nothing of it is active to correct (git hn memory "
                     "record records anew)\n"), r.err
    end = lifecycle._latest(open_repo(str(inited)), old)
    assert end == (latest, True, "decision")
    assert both(lifecycle._not_yours, "supersede", old, "decision", end)[1] == (
        f"only the target author may supersede memory {old}; its author superseded it (latest: {latest}), and "
        "retracted that one: nothing of it is active to dispute or replace (memory_record records your own)")
