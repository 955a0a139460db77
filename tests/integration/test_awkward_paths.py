"""Paths that are hard to see or cannot be anchored (a trial with awkward text): a ``--path``
typed in a directory whose path from the top is not UTF-8 or holds a control character is
refused before signing (it was signed as absent); the warnings of a signed record name their
path shell-quoted, with invisible characters spelled (a leading space was invisible, and a
U+202E reversed the rest of the line on a terminal: *Trojan Source*)."""

from __future__ import annotations

import os

import pytest

from helpers import git, hn, unhinted

RECORD = ("memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "x")


def _count(repo) -> int:
    return len(hn(repo, "memory", "recall", "--json", "--include-untrusted").json()["memories"])


@pytest.mark.parametrize("name, why", [(os.fsdecode(b"caf\xe9"), "is not UTF-8"),
                                       ("t\tab", "holds a control character"),
                                       ("new\nline", "holds a control character")])
def test_a_path_typed_where_nothing_can_be_anchored_is_refused_before_signing(inited, name, why):
    sub = inited / name
    sub.mkdir()
    (sub / "f.txt").write_text("here\n")
    r = hn(sub, *RECORD, "--path", "f.txt")
    assert r.code == 1, r
    assert r.err.startswith("git-hn: --path f.txt names nothing at commit ") and why in r.err, r.err
    assert r.err.endswith("to record it as absent, run from the top of the repository (nothing was recorded)\n")
    assert len(r.err.splitlines()) == 1 and "\t" not in r.err, r.err
    assert _count(inited) == 0


def test_the_path_warnings_quote_the_path_and_spell_invisible_characters(inited):
    head = git(inited, "rev-parse", "HEAD")
    r = hn(inited, *RECORD, "--path", " lead.txt")
    assert r.code == 0, r.err
    assert unhinted(r.err) == f"git-hn: warning: --path ' lead.txt' names nothing at commit {head}; it is recorded as absent\n"
    r = hn(inited, *RECORD, "--path", "a\u202etxt.exe")
    assert r.code == 0, r.err
    assert "\u202e" not in r.err and "--path 'a\\u{202e}txt.exe' names nothing" in r.err, r.err
    (inited / "mo\u202eved.txt").write_text("one\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-qm", "add")
    (inited / "mo\u202eved.txt").write_text("two\n")
    r = hn(inited, *RECORD, "--path", "mo\u202eved.txt")
    assert r.code == 0, r.err
    assert "\u202e" not in r.err and "--path 'mo\\u{202e}ved.txt' has changes not committed yet" in r.err, r.err


def test_the_markdown_briefs_code_spans_render_every_path_exactly(inited):
    """A trial: the path `` both ends `` was written `` ` both ends ` ``, which CommonMark renders
    as ``both ends`` (one space stripped from each side of a span that begins and ends with one),
    another file. Rendered by a real CommonMark renderer, every path, stale ones too, is itself."""
    import html
    import re

    from markdown_it import MarkdownIt

    names = [" both ends ", " lead.txt", "trail.txt ", "`tick", "  two  ", "tock`", " `both` "]
    assert hn(inited, "policy", "init").code == 0
    for name in names:
        (inited / name).write_text("one\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-q", "-m", "awkward")
    r = hn(inited, *RECORD, *(w for name in names for w in ("--path", name)))
    assert r.code == 0, r.err
    for name in names:
        (inited / name).write_text("two\n")
    git(inited, "commit", "-q", "-am", "changed")
    md = hn(inited, "memory", "brief", "--markdown")
    assert md.code == 0, md.err
    out = MarkdownIt("commonmark").render(md.out)
    line = lambda key: next(x for x in out.splitlines() if x.startswith(key))  # noqa: E731
    spans = lambda text: [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", text)]  # noqa: E731
    assert spans(line("paths: ")) == sorted(names, key=lambda n: n.encode())
    assert spans(line("stale: ")) == sorted(names, key=lambda n: n.encode())


RULE = ("is relative to the top of the repository: no ./ or ../ segment, no leading or trailing /, no backslash or "
        "control character, at most 4096 bytes")


def _refused(repo, *args, cwd=None, input: bytes = b"") -> str:
    """The one error line of a refused record, checking that nothing was signed."""
    from helpers import refs_snapshot

    before = refs_snapshot(repo)
    r = hn(cwd or repo, *args, input=input)
    assert r.code == 1 and r.out == "" and len(r.err.splitlines()) == 1, r
    assert refs_snapshot(repo) == before
    return r.err


def test_a_path_refusal_names_the_first_invalid_path_and_why(inited):
    """A trial: three --path values, two invalid, got one generic line naming none of them."""
    err = _refused(inited, *RECORD, "--path", "README.md", "--path", "x\ty", "--path", "a\\b")
    assert err == f"git-hn: memory anchor path is invalid; --path 'x\\x09y' holds a control character; --path {RULE}\n"


def test_a_path_refusal_says_which_path_to_use_for_an_absolute_or_a_relative_one(inited):
    """A trial: $PWD/f.txt and ../f.txt from sub/ got the generic line with no suggestion, where a
    cwd-relative path names the path to use."""
    sub = inited / "sub"
    sub.mkdir()
    (sub / "inner.txt").write_text("i\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-qm", "sub")
    cases = [(inited, str(inited / "README.md"), "is absolute", "README.md"),
             (sub, "../README.md", "has a ../ segment", "README.md"),
             (sub, "./inner.txt", "has a ./ segment", "sub/inner.txt"),
             (inited, "sub\\inner.txt", "holds a backslash (Git separates directories with /)", "sub/inner.txt"),
             (inited, "sub//inner.txt", "has an empty segment (//)", "sub/inner.txt")]
    from git_hn.core.hints import shell_path

    for cwd, path, why, use in cases:
        err = _refused(inited, *RECORD, "--path", path, cwd=cwd)
        assert err == (f"git-hn: memory anchor path is invalid; --path {shell_path(path)} {why}: use --path {use}; "
                       f"--path {RULE}\n"), err
    # outside the repository, or leaving it: named, nothing to suggest
    err = _refused(inited, *RECORD, "--path", "/etc/passwd")
    assert err == f"git-hn: memory anchor path is invalid; --path /etc/passwd is absolute; --path {RULE}\n"
    err = _refused(inited, *RECORD, "--path", "../../x", cwd=sub)
    assert err == f"git-hn: memory anchor path is invalid; --path ../../x has a ../ segment; --path {RULE}\n"


def test_a_path_bound_refusal_says_the_bound_and_what_was_given(inited):
    """A trial: 129 paths, or 20 paths of 4,000 bytes, "exceed their bound" with no number."""
    many = [w for i in range(129) for w in ("--path", f"p{i}")]
    assert _refused(inited, *RECORD, *many) == ("git-hn: memory anchor paths exceed their bound; at most 128 --path "
                                                "values (129 given)\n")
    long = [w for i in range(20) for w in ("--path", "a" * 4000 + str(i))]
    assert _refused(inited, *RECORD, *long) == ("git-hn: memory anchor paths exceed their bound; at most 65536 "
                                                "bytes of paths in all (80030 given)\n")
    head = git(inited, "rev-parse", "HEAD")

    def doc(paths):
        import json

        return json.dumps({"version": 0, "kind": "decision", "content": "x", "topics": [], "evidence": [],
                           "applicability": {"mode": "descendants"},
                           "anchor": {"commit": head, "paths": [{"path": p, "blob": "absent"} for p in paths]}}).encode()

    args = ("memory", "record", "--json", "--input", "-")
    assert _refused(inited, *args, input=doc([f"p{i:03}" for i in range(130)])) == (
        "git-hn: memory anchor paths exceed their bound; at most 128 anchor.paths entries (130 given)\n")
    assert _refused(inited, *args, input=doc(["ok.txt", "x\ty"])) == (
        'git-hn: memory anchor path is invalid; anchor.paths[].path "x\\x09y" holds a control character; '
        f"anchor.paths[].path {RULE}\n")


def test_a_path_refusal_never_repeats_a_secret_shaped_path(inited):
    """A refused record must not echo what the secret lint refuses (as the other path refusals)."""
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    err = _refused(inited, *RECORD, "--path", f"./{token}")
    assert token not in err and err == ("git-hn: memory anchor path is invalid; --path (not repeated: it looks like a "
                                        f"credential) has a ./ segment; --path {RULE}\n"), err


def _in_sub(inited):
    (inited / "sub").mkdir()
    (inited / "sub" / "inner.txt").write_text("i\n")
    git(inited, "add", ".")
    git(inited, "commit", "-q", "-m", "sub")
    return inited / "sub", git(inited, "rev-parse", "HEAD")


def _document(commit: str, path: str, blob: str = "absent") -> bytes:
    import json

    return json.dumps({"version": 0, "kind": "decision", "content": "x", "topics": [], "evidence": [],
                       "anchor": {"commit": commit, "paths": [{"path": path, "blob": blob}]},
                       "applicability": {"mode": "descendants"}}).encode()


def test_an_input_request_giving_absent_for_a_file_here_is_refused_before_signing(inited):
    """A trial (S93): from ``repo/sub``, ``record --input`` with ``{"path": "inner.txt", "blob":
    "absent"}`` was signed, where the same flags (no ``--blob``) are refused; ``--blob absent``
    was signed too. Both are refused now, naming the path from the top; the same request from
    the top of the repository is signed as given (docs/decisions.md)."""
    from helpers import refs_snapshot

    sub, head = _in_sub(inited)
    before = refs_snapshot(inited)
    r = hn(sub, "memory", "record", "--json", "--input", "-", input=_document(head, "inner.txt"))
    assert (r.code, r.out, r.err) == (1, "", (
        f"git-hn: record input field anchor.paths inner.txt is given as absent, and names nothing at commit "
        f'{head[:12]}, but names a file from the current directory; paths are relative to the top of the '
        f'repository: use "sub/inner.txt" with its blob at that commit, or run from the top of the repository '
        "to record it as absent (nothing was recorded)\n"))
    r = hn(sub, *RECORD, "--path", "inner.txt", "--blob", "absent")
    assert (r.code, r.err) == (1, (
        f"git-hn: --path inner.txt is given as absent, and names nothing at commit {head[:12]}, but names a file "
        "from the current directory; paths are relative to the top of the repository: use --path sub/inner.txt "
        "with no --blob (git-hn looks it up), or run from the top of the repository to record it as absent "
        "(nothing was recorded)\n"))
    assert refs_snapshot(inited) == before
    blob = git(inited, "rev-parse", "HEAD:sub/inner.txt")
    for cwd, doc in ((inited, _document(head, "inner.txt")), (sub, _document(head, "sub/inner.txt", blob)),
                     (sub, _document(head, "gone.txt"))):  # (absent from both: signed, as before)
        r = hn(cwd, "memory", "record", "--json", "--input", "-", input=doc)
        assert r.code == 0, r.err
    assert hn(inited, *RECORD, "--path", "inner.txt", "--blob", "absent").code == 0
