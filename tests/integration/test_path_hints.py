"""Hints after a read by ``--path`` that matched nothing (a trial of odd paths, S93): recall, log
and export say the same thing, from one function (``advice.path_hint``): the path is a
directory, or a file named from the current directory, or a file renamed since memories were
anchored to its earlier name. Real repositories, real Git processes.
"""

from __future__ import annotations

import json

from helpers import git, git_processes, hn

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _record(repo, *paths, content="about it", extra=()):
    args = ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
            "--content", content, *extra]
    for p in paths:
        args += ["--path", p]
    r = hn(repo, *args)
    assert r.code == 0, r.err
    return r.out.split()[1].split(":")[1][:12]


def _renamed(inited, old="old.txt", new="new.txt"):
    (inited / old).write_text("one\n")
    git(inited, "add", old)
    git(inited, "commit", "-q", "-m", "add")
    mid = _record(inited, old)
    git(inited, "mv", old, new)
    git(inited, "commit", "-q", "-m", "rename")
    return mid


def test_a_renamed_file_names_the_memories_on_its_earlier_name(inited):
    """After ``git mv old.txt new.txt`` and a commit, ``--path new.txt`` matched nothing with no
    word (the brief called the memory stale without saying why): recall, log and export now name
    the earlier name, the command that shows its memories and the one that moves them, and
    following that one makes ``--path new.txt`` find the memory."""
    mid = _renamed(inited)
    move = f"git hn memory supersede {mid} --at HEAD --same-content --path new.txt anchors it to the file where it is now"
    for command in ("recall", "log", "export"):
        args = ["memory", command, "--path", "new.txt"] + (["--include-untrusted"] if command == "recall" else [])
        r = hn(inited, *args)
        assert r.code == 0, r.err
        see = " --include-untrusted" if command == "recall" else ""  # (no policy: recall hides it otherwise)
        assert (f"git-hn: hint: nothing is anchored to new.txt, but 1 memory is anchored to old.txt, its earlier "
                f"name (Git sees the file renamed since): git hn memory {command} --path old.txt{see} shows it, and "
                f"{move}\n") in r.err, (command, r.err)
        assert "no memory matches these filters" not in r.err
    assert hn(inited, "memory", "export", "--path", "new.txt").out == ""  # (stdout: the export alone)
    r = hn(inited, "memory", "supersede", mid, "--at", "HEAD", "--same-content", "--path", "new.txt")
    assert r.code == 0, r.err
    assert len(hn(inited, "memory", "log", "--path", "new.txt").out.splitlines()) == 1


def test_the_rename_hint_costs_one_git_log_and_nothing_when_something_matched(inited, tmp_path, monkeypatch):
    """One ``git log --follow`` and, when memories are anchored to an earlier name, one ``git
    rev-list`` (whether their anchors are from before the rename), however many memories there
    are (never one process per memory), and none when the query matched, or when the path is no
    file there."""
    (inited / "old.txt").write_text("one\n")
    git(inited, "add", "old.txt")
    git(inited, "commit", "-q", "-m", "add")
    for n in range(5):
        _record(inited, "old.txt", content=f"about it {n}")
    git(inited, "mv", "old.txt", "new.txt")
    git(inited, "commit", "-q", "-m", "rename")

    def processes(*args):
        trace = tmp_path / f"trace-{len(list(tmp_path.iterdir()))}"
        trace.mkdir()
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        r = hn(inited, "memory", "log", *args)
        monkeypatch.delenv("GIT_TRACE2_EVENT")
        return r, git_processes(trace)

    r, runs = processes("--path", "new.txt")
    assert "5 memories are anchored to old.txt" in r.err, r.err
    assert [a[0] for a in runs if "--follow" in a] == ["log"], runs
    assert len([a for a in runs if a[0] == "rev-list" and "--parents" in a]) == 1, runs
    r, plain = processes("--path", "README.md")  # (a file never renamed, nothing anchored: no rev-list)
    assert r.err.startswith("git-hn: hint: no memory matches these filters\n"), r.err
    assert len(plain) + 1 == len(runs), (plain, runs)
    for args in (["--path", "old.txt"], ["--path", "gone.txt"]):
        _r, runs = processes(*args)
        assert not [a for a in runs if "--follow" in a], (args, runs)


def test_the_rename_hint_names_every_memory_with_other_paths_by_its_id(inited):
    """A memory about two files gets a supersede that keeps the other one."""
    (inited / "old.txt").write_text("one\n")
    git(inited, "add", "old.txt")
    git(inited, "commit", "-q", "-m", "add")
    mid = _record(inited, "old.txt", "README.md")
    git(inited, "mv", "old.txt", "new.txt")
    git(inited, "commit", "-q", "-m", "rename")
    r = hn(inited, "memory", "log", "--path", "new.txt")
    assert f"git hn memory supersede {mid} --at HEAD --same-content --path README.md --path new.txt" in r.err, r.err


def test_the_rename_hint_leaves_out_memories_on_a_later_file_of_the_old_name(inited):
    """A review: after ``git mv a.txt b.txt``, a new, unrelated ``a.txt`` got a memory, and
    ``--path b.txt`` offered to supersede it onto ``b.txt`` (following it signs a wrong anchor for
    good). Only memories anchored before the rename count: alone, that one gives no hint; beside
    one from before the rename, the hint names that one only."""
    (inited / "a.txt").write_text("".join(f"{n}\n" for n in range(1, 51)))
    git(inited, "add", "a.txt")
    git(inited, "commit", "-q", "-m", "add")
    before = git(inited, "rev-parse", "HEAD").strip()
    git(inited, "mv", "a.txt", "b.txt")
    git(inited, "commit", "-q", "-m", "rename a->b")
    (inited / "a.txt").write_text("".join(f"{n}\n" for n in range(200, 261)))
    git(inited, "add", "a.txt")
    git(inited, "commit", "-q", "-m", "a new, unrelated a.txt")
    later = _record(inited, "a.txt", content="about the new a.txt only")
    for command in ("recall", "log", "export"):
        r = hn(inited, "memory", command, "--path", "b.txt")
        assert r.code == 0 and "earlier name" not in r.err and later not in r.err, (command, r.err)
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", before, "--applies", "descendants",
           "--content", "about the old a.txt", "--path", "a.txt")
    assert r.code == 0, r.err
    mid = r.out.split()[1].split(":")[1][:12]
    r = hn(inited, "memory", "log", "--path", "b.txt")
    assert "but 1 memory is anchored to a.txt" in r.err and mid in r.err and later not in r.err, r.err


def test_the_rename_hint_leaves_out_memories_on_an_earlier_file_of_the_old_name(inited):
    """A review (S101 #4, its exact sequence): a memory on a.txt, a.txt deleted, a new, unrelated
    a.txt added later and renamed to b.txt: ``--path b.txt`` offered to supersede the memory on
    the first file onto b.txt. Only memories anchored since the commit that gave the file the old
    name count (at it, or after); one on the new a.txt before the rename still does. A file the
    root commit added has that commit as its start (``README.md`` here)."""
    def commit(message):
        git(inited, "add", "-A")
        git(inited, "commit", "-q", "-m", message)

    assert hn(inited, "policy", "init").code == 0
    commit("policy")
    (inited / "a.txt").write_text("".join(f"{n}\n" for n in range(1, 51)))
    commit("file X")
    old = _record(inited, "a.txt", content="about X, the old a.txt (deleted later)")
    git(inited, "rm", "-q", "a.txt")
    commit("rm X")
    (inited / "a.txt").write_text("".join(f"{n}\n" for n in range(500, 561)))
    commit("file Y")
    git(inited, "mv", "a.txt", "b.txt")
    commit("rename a->b")
    for command in ("recall", "log", "export"):
        r = hn(inited, "memory", command, "--path", "b.txt")
        assert r.code == 0 and "earlier name" not in r.err and old not in r.err, (command, r.err)
    git(inited, "checkout", "-q", "HEAD~1")  # (Y still named a.txt: a memory on it counts)
    mine = _record(inited, "a.txt", content="about Y")
    git(inited, "checkout", "-q", "-")
    r = hn(inited, "memory", "log", "--path", "b.txt")
    assert "but 1 memory is anchored to a.txt" in r.err and mine in r.err and old not in r.err, r.err
    git(inited, "checkout", "-q", git(inited, "rev-list", "--max-parents=0", "HEAD").strip())
    readme = _record(inited, "README.md", content="about the README of the root commit")
    git(inited, "checkout", "-q", "-")
    git(inited, "mv", "README.md", "README.txt")
    commit("rename README")
    r = hn(inited, "memory", "log", "--path", "README.txt")
    assert "but 1 memory is anchored to README.md" in r.err and readme in r.err, r.err


def _bob(inited, tmp_path):
    """Bob's identity, made in another repository, active in ``inited``."""
    from helpers import make_repo

    other = make_repo(tmp_path / "bob")
    assert hn(other, "init", "--name", "Bob").code == 0
    key = tmp_path / "bob.identity"
    assert hn(other, "identity", "export", "--output", str(key)).code == 0
    assert hn(inited, "identity", "import", str(key), "--activate").code == 0


def test_the_rename_hint_offers_another_authors_memory_a_citation_not_a_supersede(inited, tmp_path):
    """A review: with Bob active, the hint told him to supersede Alice's memory, which is refused
    (only the target author may supersede it); it now gives the record of his own citing it,
    which signs, and ``--path new.txt`` then finds his. Without a policy, recall's default hides
    Alice's memory: the command the hint gives has ``--include-untrusted``, and shows it."""
    mid = _renamed(inited)
    _bob(inited, tmp_path)
    r = hn(inited, "memory", "recall", "--path", "new.txt")
    assert r.code == 0, r.err
    assert "supersede " + mid not in r.err, r.err
    cite = (f"git hn memory record --kind decision --at HEAD --applies descendants --evidence memory:{mid} "
            "--path new.txt --content TEXT")
    assert (f"git hn memory recall --path old.txt --include-untrusted shows it; only its author may supersede it, "
            f"so {cite} records your own on the file where it is now, citing it\n") in r.err, r.err
    shown = hn(inited, "memory", "recall", "--path", "old.txt", "--include-untrusted")
    assert shown.code == 0 and "Matched: 1;" in shown.out, (shown.out, shown.err)
    r = hn(inited, *cite.split(" ")[2:-1], "Bob's note on it")  # (the command as given, TEXT filled)
    assert r.code == 0, r.err
    assert len(hn(inited, "memory", "log", "--path", "new.txt").out.splitlines()) == 1


def test_the_rename_hint_gives_a_supersede_for_ones_own_and_a_citation_for_anothers(inited, tmp_path):
    """Memories of two authors on the earlier name: the reader's own get the supersede, the
    other author's the record that cites it, each named by ID."""
    (inited / "old.txt").write_text("one\n")
    git(inited, "add", "old.txt")
    git(inited, "commit", "-q", "-m", "add")
    alices = _record(inited, "old.txt", content="Alice's")
    _bob(inited, tmp_path)
    bobs = _record(inited, "old.txt", content="Bob's")
    git(inited, "mv", "old.txt", "new.txt")
    git(inited, "commit", "-q", "-m", "rename")
    r = hn(inited, "memory", "log", "--path", "new.txt")
    assert (f"git hn memory log --path old.txt shows them; yours ({bobs}): git hn memory supersede ID --at HEAD "
            "--same-content with --path new.txt and a --path for each other file it is about anchors it to the file "
            f"where it is now; another author's ({alices}), which only its author may supersede: git hn memory "
            "record --kind KIND --at HEAD --applies descendants --evidence memory:ID --path new.txt --content TEXT "
            "records your own on the file where it is now, citing it\n") in r.err, r.err


def test_the_rename_hint_asks_for_include_untrusted_only_when_recall_would_hide(inited):
    """With a policy that trusts the author, ``recall --path old.txt`` shows the memory: the hint
    gives it without ``--include-untrusted``. (A guard: the hint never gave that flag before, so
    it cannot fail without the fix.)"""
    mid = _renamed(inited)
    assert hn(inited, "policy", "init").code == 0
    git(inited, "add", ".hn/policy.json")
    git(inited, "commit", "-q", "-m", "policy")
    r = hn(inited, "memory", "recall", "--path", "new.txt")
    assert (f"git hn memory recall --path old.txt shows it, and git hn memory supersede {mid} --at HEAD "
            "--same-content --path new.txt anchors it") in r.err, r.err
    shown = hn(inited, "memory", "recall", "--path", "old.txt")
    assert "Matched: 1;" in shown.out, (shown.out, shown.err)


def test_the_rename_hint_never_repeats_a_secret_shaped_name(inited):
    """A file once named like a credential (recorded with --allow-secret-shaped): no hint names
    that path. (A guard: without the rename hint nothing named it either, so it cannot fail
    without the fix.)"""
    (inited / f"{TOKEN}.txt").write_text("one\n")
    git(inited, "add", ".")
    git(inited, "commit", "-q", "-m", "add")
    _record(inited, f"{TOKEN}.txt", extra=["--allow-secret-shaped"])
    git(inited, "mv", f"{TOKEN}.txt", "new.txt")
    git(inited, "commit", "-q", "-m", "rename")
    for command in ("recall", "log", "export"):
        r = hn(inited, "memory", command, "--path", "new.txt")
        assert r.code == 0 and TOKEN not in r.err and "earlier name" not in r.err, r.err


def test_log_and_export_give_recalls_directory_and_current_directory_hints(inited):
    """``log --path`` said only "no memory matches these filters", and ``export --path`` nothing at
    all, where recall named the file in the directory, or the path from the top."""
    (inited / "sub").mkdir()
    (inited / "sub" / "inner.txt").write_text("i\n")
    git(inited, "add", ".")
    git(inited, "commit", "-q", "-m", "sub")
    _record(inited, "sub/inner.txt")
    head = git(inited, "rev-parse", "HEAD")[:12]
    tree = (f"git-hn: hint: nothing is anchored to sub: it is a directory at commit {head}, and --path takes a "
            "file, compared literally; recall a file in it, such as --path sub/inner.txt\n")
    here = ("git-hn: hint: nothing is anchored to inner.txt; paths are relative to the top of the repository, so "
            "from here that is --path sub/inner.txt\n")
    for cwd, path, hint in ((inited, "sub", tree), (inited / "sub", "inner.txt", here)):
        r = hn(cwd, "memory", "recall", "--include-untrusted", "--path", path)
        assert r.err == hint, r.err
        r = hn(cwd, "memory", "log", "--path", path)
        assert (r.code, r.out) == (0, "") and r.err.startswith(hint), r.err
        assert "no memory matches" not in r.err
        r = hn(cwd, "memory", "log", "--json", "--path", path)
        assert json.loads(r.out)["memories"] == [] and r.err.startswith(hint), r.err
        r = hn(cwd, "memory", "export", "--path", path)
        assert (r.code, r.out, r.err) == (0, "", hint)
        r = hn(cwd, "memory", "export", "--format", "markdown", "--path", path)
        assert r.out.startswith("# Memory export\n\n0 memories.") and r.err == hint, r.err
    r = hn(inited, "memory", "export", "--path", "sub/inner.txt")  # (found: no hint)
    assert r.out and r.err == "", r.err


def test_the_rename_hint_follows_no_history_when_no_memory_is_anchored_to_a_path(inited, tmp_path, monkeypatch):
    """With no memory (of the request's lifecycles) anchored to any path, none can be on an
    earlier name: no ``git log --follow`` (0.1 s in a 100,000-file directory, S102 #2). A
    retracted one on the old name counts only for a read of every lifecycle."""
    (inited / "old.txt").write_text("one\n")
    git(inited, "add", "old.txt")
    git(inited, "commit", "-q", "-m", "add")
    mid = _record(inited, "old.txt")
    _record(inited, content="on no path")
    assert hn(inited, "memory", "retract", mid, "--reason", "wrong").code == 0
    git(inited, "mv", "old.txt", "new.txt")
    git(inited, "commit", "-q", "-m", "rename")

    def processes(*args):
        trace = tmp_path / f"trace-{len(list(tmp_path.iterdir()))}"
        trace.mkdir()
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        r = hn(inited, "memory", "recall", "--include-untrusted", *args)
        monkeypatch.delenv("GIT_TRACE2_EVENT")
        return r, git_processes(trace)

    r, runs = processes("--path", "new.txt")
    assert r.code == 0 and "earlier name" not in r.err, r.err
    assert not [a for a in runs if "--follow" in a], runs
    r, runs = processes("--path", "new.txt", "--lifecycle", "all")
    assert "1 memory is anchored to old.txt, its earlier name" in r.err, r.err
    assert [a[0] for a in runs if "--follow" in a] == ["log"], runs


def test_a_read_by_path_that_matched_nothing_reads_the_directory_once(inited, tmp_path, monkeypatch):
    """The directory hint and the rename hint look the path up through one resolver: a
    100,000-file directory is 3.8 MB, read once (each read was 0.05-0.1 s, S102 #2). Counted by
    Git's own trace of pack reads, with nothing anchored to a path (no ``git log --follow``)."""
    (inited / "d").mkdir()
    (inited / "d" / "f.txt").write_text("one\n")
    git(inited, "add", "d")
    git(inited, "commit", "-q", "-m", "add")
    _record(inited, content="on no path")
    git(inited, "repack", "-adq")
    tree = git(inited, "rev-parse", "HEAD:d").strip()
    index = next((inited / ".git" / "objects" / "pack").glob("*.idx"))
    offset = next(line.split()[0] for line in git(inited, "show-index", input=index.read_bytes()).splitlines()
                  if line.split()[1] == tree)
    trace = tmp_path / "pack-access"
    monkeypatch.setenv("GIT_TRACE_PACK_ACCESS", str(trace))
    r = hn(inited, "memory", "recall", "--path", "d/f.txt", "--include-untrusted")
    monkeypatch.delenv("GIT_TRACE_PACK_ACCESS")
    assert r.code == 0 and "Matched: 0" in r.out, (r.out, r.err)
    assert [line.split()[-1] for line in trace.read_text().splitlines()].count(offset) == 1
