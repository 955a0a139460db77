"""A ``--path`` that names nothing at the anchor commit but looks like what the user sees there
(a trial of unusual repositories) is refused before signing, naming the fix: a file inside a
submodule, a name in another case under ``core.ignoreCase``, a name in another Unicode
normalization. A genuinely absent path is still signed as ``absent`` with a warning. Real
repositories (a real submodule) and a real ``git hn mcp`` server; nothing is mocked.
"""

from __future__ import annotations

import subprocess

from helpers import git, hn, make_repo, refs_snapshot
from test_agent_mcp import run, text

NFD, NFC = "cafe\u0301.txt", "caf\u00e9.txt"


def _record(repo, path):
    return hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "x", "--path", path)


def _super(tmp_path):
    lib = make_repo(tmp_path / "lib", files={"src/lib.c": "l\n"})
    repo = make_repo(tmp_path / "super", files={"main.c": "s\n", "App.py": "a\n", NFD: "n\n",
                                                          "Src/App.py": "a\n", "README": "r\n", "readme": "r\n"})
    subprocess.run(["git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "libs/lib"],
                   cwd=repo, check=True, capture_output=True)
    git(repo, "commit", "-q", "-m", "sub")
    assert hn(repo, "init", "--name", "S").code == 0
    return repo, git(repo, "rev-parse", "HEAD")[:12]


def test_lookalike_paths_are_refused_before_signing(tmp_path):
    repo, head = _super(tmp_path)
    before = refs_snapshot(repo)
    r = _record(repo, "libs/lib/src/lib.c")
    assert (r.code, r.err) == (1, f"git-hn: --path libs/lib/src/lib.c names nothing at commit {head}: libs/lib is a "
                                  "submodule at that commit: record from inside the submodule, or --at a commit "
                                  "where libs/lib is part of this repository (nothing was recorded)\n")
    git(repo, "config", "core.precomposeUnicode", "true")
    r = _record(repo, NFC)
    assert (r.code, r.err) == (1, f"git-hn: --path {NFC} names nothing at commit {head}: the tree has {NFD} in "
                                  "another Unicode normalization (the tree's name is decomposed (e + U+0301), this "
                                  "one composed (U+00E9)), which core.precomposeUnicode takes for the same file: use "
                                  f"--path '{NFD}' (nothing was recorded)\n")
    git(repo, "config", "core.ignoreCase", "true")
    r = _record(repo, "app.py")
    assert (r.code, r.err) == (1, f"git-hn: --path app.py names nothing at commit {head}: the tree has App.py "
                                  "(another case), which core.ignoreCase takes for the same file: use --path App.py "
                                  "(nothing was recorded)\n")
    r = _record(repo, "src/new.py")  # (a case-insensitive file system writes it as Src/new.py)
    assert (r.code, r.err) == (1, f"git-hn: --path src/new.py names nothing at commit {head}: the tree spells its "
                                  "directory Src (another case), which core.ignoreCase takes for the same directory: "
                                  "use --path Src/new.py (nothing was recorded)\n")
    r = _record(repo, "ReadMe")  # (two names of the tree fold to it)
    assert (r.code, r.err) == (1, f"git-hn: --path ReadMe names nothing at commit {head}: the tree has README and "
                                  "readme (other cases), which core.ignoreCase takes for the same file: use --path "
                                  "README or --path readme (nothing was recorded)\n")
    assert refs_snapshot(repo) == before
    # the spelling the error gives is signed
    assert _record(repo, NFD).code == 0 and _record(repo, "App.py").code == 0


def test_a_genuinely_absent_path_is_still_signed_with_a_warning(tmp_path):
    repo, head = _super(tmp_path)
    r = _record(repo, "new/file.py")  # (a file not written yet is legitimate)
    assert r.code == 0 and "--path new/file.py names nothing at commit" in r.err
    r = _record(repo, "app.py")  # (core.ignoreCase false: Git keeps app.py and App.py apart)
    assert r.code == 0 and "--path app.py names nothing at commit" in r.err
    # (core.precomposeUnicode unset: Linux and Git keep an NFC and an NFD name as two files, a review)
    r = _record(repo, NFC)
    assert r.code == 0 and f"--path {NFC} names nothing at commit" in r.err, r.err


def test_mcp_refuses_a_path_inside_a_submodule(tmp_path):
    repo, head = _super(tmp_path)
    before = refs_snapshot(repo)

    async def body(client):
        return await client.call_tool("memory_record", {"kind": "decision", "content": "x",
                                                        "anchor": {"paths": [{"path": "libs/lib/src/lib.c"}]}})

    answer = run(repo, body, "--allow-write")
    assert answer.is_error is True
    assert text(answer) == (f'git-hn: anchor.paths libs/lib/src/lib.c names nothing at commit {head}: libs/lib is '
                            "a submodule at that commit: record from inside the submodule, or anchor.commit a commit "
                            "where libs/lib is part of this repository (nothing was recorded)")
    assert refs_snapshot(repo) == before


def test_a_path_in_a_submodule_since_vendored_names_the_commit_to_record_at(tmp_path):
    """A review: ``--at`` a commit where libs/lib was a submodule, vendored into this repository
    since, was told to record from inside it (``cd libs/lib``), which leads to this same
    repository now: the advice names the other way, a commit where it is part of this one."""
    repo, _head = _super(tmp_path)
    git(repo, "rm", "-q", "libs/lib")
    subprocess.run(["rm", "-rf", str(repo / ".git" / "modules" / "libs")], check=True)
    (repo / "libs" / "lib" / "src").mkdir(parents=True)
    (repo / "libs" / "lib" / "src" / "lib.c").write_text("c\n")
    git(repo, "add", "libs")
    git(repo, "commit", "-q", "-m", "vendor")
    old = git(repo, "rev-parse", "HEAD~1")[:12]
    r = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD~1", "--applies", "descendants",
           "--content", "x", "--path", "libs/lib/src/lib.c")
    assert (r.code, r.err) == (1, f"git-hn: --path libs/lib/src/lib.c names nothing at commit {old}: libs/lib is a "
                                  "submodule at that commit: record from inside the submodule, or --at a commit "
                                  "where libs/lib is part of this repository (nothing was recorded)\n")
    assert _record(repo, "libs/lib/src/lib.c").code == 0
