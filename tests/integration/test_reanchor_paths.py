"""Re-anchoring memories whose anchored paths are awkward at the new commit (a trial with odd
paths): a path with spaces that the new commit lacks stopped every re-anchoring ("internal error:
ValueError", or "git cat-file answered unexpectedly"), by hand and in the ``post-rewrite`` hook.
Real repositories, real ``git commit --amend`` with the hooks installed."""

from __future__ import annotations

import subprocess

import pytest

from helpers import git, hn

SPACED = ["a b.txt", "a b c.txt", " both ends "]


def _record(repo, *paths, content="about it", at="HEAD") -> str:
    words = [w for p in paths for w in ("--path", p)]
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", at, "--applies", "descendants",
           *words, "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def _memories(repo) -> dict[str, dict]:
    """content -> anchor of each memory here."""
    doc = hn(repo, "memory", "recall", "--json", "--include-untrusted").json()
    return {m["data"]["content"]: m["anchor"] for m in doc["memories"]}


def _amend(repo) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", "commit", "-q", "--amend", "-m", "amended"], cwd=repo, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


def _with(repo, name: str) -> str:
    (repo / name).write_text("spaced\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "add")
    return git(repo, "rev-parse", "HEAD")


@pytest.mark.parametrize("name", SPACED)
def test_reanchor_moves_a_memory_on_a_spaced_path_the_new_commit_lacks(inited, name):
    old = _with(inited, name)
    _record(inited, name, content="spaced")
    _record(inited, content="plain")
    git(inited, "mv", "--", name, "moved.txt")
    git(inited, "commit", "-q", "--amend", "-m", "moved")  # (no hooks: the memories stay on OLD)
    new = git(inited, "rev-parse", "HEAD")
    r = hn(inited, "memory", "reanchor", old, "HEAD")
    assert r.code == 0, r.err
    assert "internal error" not in r.err and "answered unexpectedly" not in r.err, r.err
    got = _memories(inited)
    assert got["spaced"] == {"commit": new, "paths": [{"path": name, "blob": "absent"}]}
    assert got["plain"]["commit"] == new


@pytest.mark.parametrize("name", SPACED)
def test_the_post_rewrite_hook_moves_a_memory_on_a_spaced_path_the_amend_removed(inited, name):
    assert hn(inited, "hooks", "install").code == 0
    _with(inited, name)
    _record(inited, name, content="spaced")
    _record(inited, "never here.txt", content="never there")  # (absent from the start: a space too)
    git(inited, "mv", "--", name, "moved.txt")
    proc = _amend(inited)
    new = git(inited, "rev-parse", "HEAD")
    assert "internal error" not in proc.stderr and "not re-anchored" not in proc.stderr, proc.stderr
    assert "git-hn: re-anchored 2 unpublished memories" in proc.stderr, proc.stderr
    got = _memories(inited)
    assert got["spaced"] == {"commit": new, "paths": [{"path": name, "blob": "absent"}]}
    assert got["never there"] == {"commit": new, "paths": [{"path": "never here.txt", "blob": "absent"}]}


def _node(repo, kind: str) -> None:
    """Replace the file ``node`` with a directory, a submodule whose commit is here (the batch
    answers "commit"), one whose commit is not (the batch answers "missing", as for an absent
    path), or a symlink, and amend."""
    git(repo, "rm", "-q", "node")
    if kind == "directory":
        (repo / "node").mkdir()
        (repo / "node" / "x").write_text("x\n")
        git(repo, "add", "-A")
    elif kind == "symlink":
        (repo / "node").symlink_to("c.txt")
        git(repo, "add", "-A")
    else:
        oid = git(repo, "rev-parse", "HEAD~1") if kind == "submodule here" else "1" * 40
        git(repo, "update-index", "--add", "--cacheinfo", f"160000,{oid},node")


def _node_repo(repo) -> str:
    (repo / "node").write_text("n\n")
    (repo / "c.txt").write_text("c\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "node")
    return git(repo, "rev-parse", "HEAD")


@pytest.mark.parametrize("kind, what", [("directory", "a directory"), ("submodule here", "a submodule"),
                                        ("submodule elsewhere", "a submodule")])
def test_the_hook_leaves_a_memory_whose_path_became_no_file_on_its_commit_and_says_how_to_move_it(inited, kind, what):
    """A trial: the path that became a directory (or a submodule) was signed ``absent`` at the new
    commit, so the anchor was invalid (§5.5 step 2) and the memory left recall and the brief
    unsaid. It keeps its commit now, named with what moves it; the others move."""
    assert hn(inited, "hooks", "install").code == 0
    old = _node_repo(inited)
    stays = _record(inited, "node", content="about node")
    _record(inited, "c.txt", content="about c")
    _node(inited, kind)
    proc = _amend(inited)
    new = git(inited, "rev-parse", "HEAD")
    assert "internal error" not in proc.stderr, proc.stderr
    said = [x for x in proc.stderr.splitlines() if x.startswith("git-hn: left unpublished memory")]
    assert said == [f"git-hn: left unpublished memory {stays[7:19]} of yours on {old[:12]}, where it was signed: "
                    f"its anchored path node is {what} at {new[:12]}, and an anchored path must be a file, so it "
                    f"cannot be signed there (its stream is published once {old[:12]} is pushed); to move it, git "
                    f"hn memory reanchor {old} {new} --files-only carries it to {new[:12]} with that path left out "
                    f"of its anchor; or git hn memory show {stays[7:19]} shows its content, git hn memory reanchor "
                    f"{old} --drop discards it, and git hn memory record --at {new[:12]} with a --path naming a file "
                    "records it anew"], proc.stderr
    assert "git-hn: re-anchored 1 unpublished memory" in proc.stderr, proc.stderr
    shown = hn(inited, "memory", "show", stays, "--json").json()  # (the same ID: nothing before it moved)
    assert shown["projection"]["anchor"]["commit"] == old
    assert shown["projection"]["applicability"] != "anchor-invalid"
    assert _memories(inited)["about c"]["commit"] == new
    # what the line says moves it, as it says it
    dropped = hn(inited, "memory", "reanchor", old, "--drop")
    assert dropped.code == 0, dropped.err
    assert "about node" not in _memories(inited)


def test_reanchor_by_hand_refuses_a_memory_whose_path_is_a_directory_at_new_and_changes_nothing(inited):
    from helpers import refs_snapshot

    old = _node_repo(inited)
    stays = _record(inited, "node", content="about node")
    _node(inited, "directory")
    git(inited, "commit", "-q", "--amend", "-m", "a directory now")  # (no hooks)
    new = git(inited, "rev-parse", "HEAD")
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "reanchor", old, "HEAD")
    assert r.code == 1 and r.out == "", r
    assert r.err == (f"git-hn: left unpublished memory {stays[7:19]} of yours on {old[:12]}, where it was signed: its "
                     f"anchored path node is a directory at {new[:12]}, and an anchored path must be a file, so it "
                     f"cannot be signed there (its stream is published once {old[:12]} is pushed); to move it, git "
                     f"hn memory reanchor {old} {new} --files-only carries it to {new[:12]} with that path left out "
                     f"of its anchor; or git hn memory show {stays[7:19]} shows its content, git hn memory reanchor "
                     f"{old} --drop discards it, and git hn memory record --at {new[:12]} with a --path naming a file "
                     "records it anew; nothing was signed again\n")
    assert refs_snapshot(inited) == before
    # with a memory that can move, it moves and the other is named (--json too)
    _record(inited, "c.txt", content="about c", at=old)
    doc = hn(inited, "memory", "reanchor", old, "HEAD", "--json").json()
    [stream] = doc["streams"]
    assert stream["reanchored"] == 1
    assert stream["unanchored"] == [{"memoryId": stays, "commit": old, "path": "node"}]


def test_a_path_that_became_a_symlink_is_re_anchored_to_the_links_blob(inited):
    """A guard (it passed before): ``record`` takes a symlink (its entry is a blob, §5.5), and so
    does re-anchoring."""
    assert hn(inited, "hooks", "install").code == 0
    _node_repo(inited)
    _record(inited, "node", content="about node")
    _node(inited, "symlink")
    proc = _amend(inited)
    assert "left unpublished" not in proc.stderr, proc.stderr
    new = git(inited, "rev-parse", "HEAD")
    assert _memories(inited)["about node"] == {"commit": new, "paths": [{"path": "node",
                                                                         "blob": git(inited, "rev-parse", "HEAD:node")}]}


def test_the_hook_warns_of_a_renamed_file_and_its_supersede_anchors_the_memory_there(inited):
    """A trial: after ``git mv c.txt d.txt`` and an amend, the hook recorded ``c.txt`` as absent
    and said only "re-anchored"; the memory was never stale again. It warns now as ``reanchor``
    does (one text), with the rename Git sees and the command that follows it; a path that was
    absent already is not named again."""
    assert hn(inited, "hooks", "install").code == 0
    (inited / "c.txt").write_text("a file long enough for Git to see it renamed\n")
    (inited / "e.txt").write_text("e\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-qm", "c")
    _record(inited, "c.txt", "e.txt", "never.txt", content="about c")
    git(inited, "mv", "c.txt", "d d.txt")
    proc = _amend(inited)
    new = git(inited, "rev-parse", "HEAD")
    [moved] = [m for m in hn(inited, "memory", "recall", "--json", "--include-untrusted").json()["memories"]]
    warned = [x for x in proc.stderr.splitlines() if x.startswith("git-hn: warning:")]
    assert warned == [f"git-hn: warning: memory {moved['id']} names --path c.txt, which is not in commit {new}; it is "
                      f"recorded as absent; Git sees the file renamed to 'd d.txt': git hn memory supersede "
                      f"{moved['id'][7:19]} --same-content --path 'd d.txt' --path e.txt --path never.txt anchors the "
                      "memory there"], proc.stderr
    r = hn(inited, "memory", "supersede", moved["id"][7:19], "--same-content", "--path", "d d.txt", "--path", "e.txt",
           "--path", "never.txt")
    assert r.code == 0, r.err
    [now] = hn(inited, "memory", "recall", "--json", "--include-untrusted").json()["memories"]
    assert now["anchor"]["paths"][0] == {"path": "d d.txt", "blob": git(inited, "rev-parse", "HEAD:d d.txt")}


def test_the_hook_says_what_moves_a_memory_on_a_deleted_file(inited):
    """No rename: the same line with a placeholder (reanchor's warning is this text:
    test_reanchor_warns_of_an_anchored_path_the_new_commit_lacks)."""
    assert hn(inited, "hooks", "install").code == 0
    (inited / "c.txt").write_text("c\n")
    (inited / "keep.txt").write_text("k\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-qm", "c")
    _record(inited, "c.txt", content="about c")
    git(inited, "rm", "-q", "c.txt")
    proc = _amend(inited)
    new = git(inited, "rev-parse", "HEAD")
    [moved] = hn(inited, "memory", "recall", "--json", "--include-untrusted").json()["memories"]
    line = (f"git-hn: warning: memory {moved['id']} names --path c.txt, which is not in commit {new}; it is recorded "
            f"as absent; if the file moved, git hn memory supersede {moved['id'][7:19]} --same-content with a --path "
            "for each file it is about anchors the memory there")
    assert [x for x in proc.stderr.splitlines() if x.startswith("git-hn: warning:")] == [line], proc.stderr


SHAPED = "AKIAIOSFODNN7EXAMPLE.txt"  # (an AWS access key's shape: record takes it only with --allow-secret-shaped)


def _shaped_and_renamed(repo) -> tuple[str, str]:
    """A memory on a secret-shaped path and notes.txt, recorded with --allow-secret-shaped; the
    commit and the memory's ID. notes.txt is then renamed (``git mv``, not amended yet)."""
    (repo / SHAPED).write_text("a\n")
    (repo / "notes.txt").write_text("some notes long enough for Git to see them renamed\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "c1")
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--path", SHAPED, "--path", "notes.txt", "--content", "about both", "--allow-secret-shaped")
    assert r.code == 0, r.err
    git(repo, "mv", "notes.txt", "notes-renamed.txt")
    return git(repo, "rev-parse", "HEAD"), r.json()["memoryId"]


def test_the_hook_never_repeats_a_secret_shaped_path_in_the_supersede_it_suggests(inited):
    """A review: a memory of two paths, one secret-shaped (recorded with --allow-secret-shaped),
    the other renamed: the hook's supersede named every path of the memory, the secret-shaped
    one too, although the warnings leave such paths out. The command is left out now, and the
    line says a path was withheld; the renamed file is still named."""
    assert hn(inited, "hooks", "install").code == 0
    _shaped_and_renamed(inited)
    proc = _amend(inited)
    assert "AKIA" not in proc.stderr, proc.stderr
    [moved] = hn(inited, "memory", "recall", "--json", "--include-untrusted").json()["memories"]
    new = git(inited, "rev-parse", "HEAD")
    warned = [x for x in proc.stderr.splitlines() if x.startswith("git-hn: warning:")]
    assert warned == [f"git-hn: warning: memory {moved['id']} names --path notes.txt, which is not in commit {new}; "
                      "it is recorded as absent; Git sees the file renamed to notes-renamed.txt: git hn memory "
                      f"supersede {moved['id'][7:19]} --same-content with --path notes-renamed.txt and a --path for "
                      "each other file it is about anchors the memory there (a path of the memory is not repeated "
                      "here: it looks like a credential)"], proc.stderr


def test_reanchor_never_repeats_a_secret_shaped_path_in_the_supersede_it_suggests(inited):
    """The same text by hand (``reanchor OLD NEW``, the amend made with the hooks off)."""
    old, _mid = _shaped_and_renamed(inited)
    git(inited, "commit", "-q", "--amend", "-m", "c1b")
    r = hn(inited, "memory", "reanchor", old, "HEAD")
    assert r.code == 0, r.err
    assert "AKIA" not in r.err + r.out, r
    assert "(a path of the memory is not repeated here: it looks like a credential)" in r.err, r.err


def test_a_deleted_path_only_the_named_detectors_find_secret_shaped_is_not_repeated(inited):
    """The warnings checked a path with the detector library alone, which misses the shapes only
    the lint's named detectors find (a GCP API key here): the hook repeated such a path, and
    ``record`` its own absent-path warning; both use the whole lint now."""
    assert hn(inited, "hooks", "install").code == 0
    name = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q.txt"
    (inited / name).write_text("g\n")
    (inited / "stays.txt").write_text("s\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-qm", "g")
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--path",
           name, "--path", "never.txt", "--path", "AIzaSyZ9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J.txt", "--content", "g",
           "--allow-secret-shaped")
    assert r.code == 0 and "AIza" not in r.err and "never.txt" in r.err, r.err
    git(inited, "rm", "-q", name)
    proc = _amend(inited)
    assert "AIza" not in proc.stderr and "git-hn: re-anchored 1" in proc.stderr, proc.stderr


def test_the_hooks_absent_path_warnings_stop_at_five_and_count_the_others(inited):
    """A review: 30 deleted anchored files gave 30 warnings of about 330 characters each, while the
    hook's other lines stop at five IDs and say "and 25 more". Five are warned of one by one now,
    and one line counts the others with their memories."""
    assert hn(inited, "hooks", "install").code == 0
    names = [f"f{i}.txt" for i in range(1, 9)]
    for name in names + ["keep.txt"]:
        (inited / name).write_text(f"{name}\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-qm", "files")
    ids = [_record(inited, name, content=f"about {name}") for name in names]
    git(inited, "rm", "-q", *names)
    proc = _amend(inited)
    warned = [x for x in proc.stderr.splitlines() if x.startswith("git-hn: warning:")]
    assert len(warned) == 6, proc.stderr
    assert all(", which is not in commit " in x for x in warned[:5]), warned
    last = [m["id"][7:19] for m in hn(inited, "memory", "recall", "--json", "--include-untrusted").json()["memories"]]
    assert len(last) == len(ids)
    assert warned[5].startswith("git-hn: warning: 3 more anchored paths of the memories moved name nothing at their "
                                "new commit and are recorded as absent (memories "), warned[5]
    assert warned[5].endswith("): git hn memory show ID names a memory's paths, and git hn memory supersede ID "
                              "--same-content with a --path for each file it is about anchors it where the files "
                              "are now"), warned[5]
    listed = warned[5].split("(memories ")[1].split(")")[0].split(", ")
    assert len(listed) == 3 and set(listed) <= set(last), (listed, last)


def test_a_rebase_reads_absent_anchored_paths_without_a_process_a_commit(inited, tmp_path):
    """A review: one ``git ls-tree`` ran for each rewritten commit with an anchored path the batch
    look-up did not find (absent there, also a path absent before the rewrite): a rebase of 30
    commits ran 30. What the batch does not settle is read from the trees through the object
    reader this process keeps, so no ``ls-tree`` runs, however many commits; the answers are
    the same (an absent path stays absent, a file is re-anchored to its blob)."""
    from helpers import git_processes

    assert hn(inited, "hooks", "install").code == 0
    count = 6
    for i in range(count):
        (inited / f"f{i}.txt").write_text(f"{i}\n")
        git(inited, "add", "-A")
        git(inited, "commit", "-qm", f"c{i}")
        _record(inited, f"f{i}.txt", f"gone {i}.txt", f"d{i}/never.txt", content=f"about {i}")
    trace = tmp_path / "trace"
    trace.mkdir()
    proc = subprocess.run(["git", "rebase", "-q", "--force-rebase", f"HEAD~{count}"], cwd=inited,
                          capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "GIT_TRACE2_EVENT": str(trace),
                               "GIT_COMMITTER_DATE": "2030-01-01T00:00:00Z"})  # (new commits, whatever the second)
    assert proc.returncode == 0, proc.stderr
    assert f"git-hn: re-anchored {count} unpublished memories" in proc.stderr, proc.stderr
    listed = [a for a in git_processes(trace) if "ls-tree" in a]
    assert listed == [], listed
    head = git(inited, "rev-parse", "HEAD")
    got = _memories(inited)
    for i in range(count):
        commit = git(inited, "rev-parse", f"HEAD~{count - 1 - i}")
        assert got[f"about {i}"]["commit"] == commit
        assert sorted(got[f"about {i}"]["paths"], key=lambda p: p["path"]) == [
            {"path": f"d{i}/never.txt", "blob": "absent"},
            {"path": f"f{i}.txt", "blob": git(inited, "rev-parse", f"{head}:f{i}.txt")},
            {"path": f"gone {i}.txt", "blob": "absent"}]


def test_a_cited_memory_whose_path_became_a_directory_has_a_way_out_named_by_each_refusal(tmp_path):
    """A review: a memory left on its commit because its path became a directory, cited by a
    later memory (``--evidence memory:ID``), could be neither dropped nor moved: ``--drop``
    refused and named ``reanchor OLD NEW``, which refused and named ``--drop``; the whole stream
    waited. The hook's line and both refusals name ``reanchor OLD NEW --files-only`` now (the
    hook's does not offer ``--drop``, which would be refused), and it moves the memory with that
    path left out of its anchor, the citing memory following it; the push publishes the stream."""
    from helpers import shared_remote, wait_publication

    remote, (repo,) = shared_remote(tmp_path, "Alice")
    assert hn(repo, "hooks", "install").code == 0
    (repo / "d").write_text("3\n")
    (repo / "k.txt").write_text("k\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "c1")
    old = git(repo, "rev-parse", "HEAD")
    cited = _record(repo, "d", "k.txt", content="about d")
    r = hn(repo, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
           "--path", "k.txt", "--evidence", f"memory:{cited}", "--content", "cites it")
    assert r.code == 0, r.err
    git(repo, "rm", "-q", "d")
    (repo / "d").mkdir()
    (repo / "d" / "f").write_text("in\n")
    git(repo, "add", "-A")
    proc = _amend(repo)
    new = git(repo, "rev-parse", "HEAD")
    carry = (f"git hn memory reanchor {old} {new} --files-only carries it to {new[:12]} with that path left out of "
             "its anchor")
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("git-hn: left unpublished memory")]
    assert line.endswith(f"to move it, {carry} (a later memory of yours cites it, so --drop is refused: that memory "
                         f"would name one that no longer exists), or git push REMOTE {old}:refs/heads/hn-anchor/"
                         f"{old[:12]} keeps {old[:12]} on the remote, which publishes it as it is"), line
    assert " --drop discards" not in line
    dropped = hn(repo, "memory", "reanchor", old, "--drop")
    assert dropped.code == 1 and dropped.err.endswith(
        f"(git hn memory reanchor {old[:12]} NEW moves them instead, with --files-only when an anchored path is a "
        "directory or a submodule at NEW)\n"), dropped.err
    moved = hn(repo, "memory", "reanchor", old, "HEAD")
    assert moved.code == 1 and carry in moved.err and moved.err.endswith("; nothing was signed again\n"), moved.err
    assert hn(repo, "memory", "reanchor", old, "--drop", "--files-only").code == 1
    # the way out the refusals name works: the memory moves, without d, and the citing one follows
    done = hn(repo, "memory", "reanchor", old, "HEAD", "--files-only")
    assert done.code == 0, done.err
    got = {m["data"]["content"]: m for m in hn(repo, "memory", "recall", "--json", "--include-untrusted").json()["memories"]}
    assert got["about d"]["anchor"] == {"commit": new, "paths": [{"path": "k.txt",
                                                                  "blob": git(repo, "rev-parse", "HEAD:k.txt")}]}
    assert done.out.splitlines()[1] == (f"Memory {got['about d']['id'][7:19]} is anchored at {new[:12]} without --path "
                                        "d (a directory there): --files-only left it out, as an anchored path must be "
                                        "a file")
    citing = hn(repo, "memory", "show", got["cites it"]["id"], "--json").json()
    assert [e["requested"] for e in citing["projection"]["evidenceDetails"]] == [got["about d"]["id"]], citing
    assert hn(repo, "memory", "index", "verify").code == 0
    pushed = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    assert pushed.returncode == 0 and "waits for commit" not in pushed.stderr, pushed.stderr
    assert git(remote, "for-each-ref", "--format=%(objectname)", "refs/hn/memory/") == \
        git(repo, "for-each-ref", "--format=%(objectname)", "refs/hn/memory/")


def test_files_only_moves_a_memory_whose_one_path_became_a_submodule_with_no_path_left(inited):
    """``--files-only`` by hand, the memory's only path a submodule at NEW: it moves with no path
    (a memory about the commit), and ``--json`` lists it under ``narrowed``."""
    old = _node_repo(inited)
    stays = _record(inited, "node", content="about node")
    _node(inited, "submodule elsewhere")
    git(inited, "commit", "-q", "-m", "a submodule now", "--amend")  # (no hooks)
    new = git(inited, "rev-parse", "HEAD")
    doc = hn(inited, "memory", "reanchor", old, "HEAD", "--files-only", "--json").json()
    [stream] = doc["streams"]
    [(was, now)] = [(x["from"], x["to"]) for x in stream["renamed"]]
    assert was == stays and stream["narrowed"] == [{"memoryId": now, "paths": ["node"]}]
    assert "unanchored" not in stream
    assert _memories(inited)["about node"] == {"commit": new}  # (recall leaves out an empty list)


def test_a_secret_shaped_path_that_became_a_directory_is_not_repeated(inited):
    """The left-behind line (a path that became a directory) printed the path with no check at
    all (a review's note): a secret-shaped one, recorded with --allow-secret-shaped, is named as
    withheld now, as the other re-anchoring lines withhold it."""
    name = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"  # (a GCP API key's shape: a named detector's)
    (inited / name).write_text("g\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-qm", "g")
    old = git(inited, "rev-parse", "HEAD")
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--path",
           name, "--content", "g", "--allow-secret-shaped")
    assert r.code == 0, r.err
    git(inited, "rm", "-q", name)
    (inited / name).mkdir()
    (inited / name / "inner.txt").write_text("i\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-q", "--amend", "-m", "a directory now")  # (no hooks)
    r = hn(inited, "memory", "reanchor", old, "HEAD")
    assert r.code == 1 and "AIza" not in r.err + r.out, r
    assert "its anchored path (not repeated here: it looks like a credential) is a directory at" in r.err, r.err
