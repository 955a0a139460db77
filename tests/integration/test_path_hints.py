"""Hints after a read by ``--path`` that matched nothing (a trial of odd paths, S93): recall, log
and export say the same thing, from one function (``advice.path_hint``): the path is a
directory, or a file named from the current directory. Real repositories, real Git processes.
"""

from __future__ import annotations

import json

from helpers import git, hn


def _record(repo, *paths, content="about it", extra=()):
    args = ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
            "--content", content, *extra]
    for p in paths:
        args += ["--path", p]
    r = hn(repo, *args)
    assert r.code == 0, r.err
    return r.out.split()[1].split(":")[1][:12]


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
