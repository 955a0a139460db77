"""Content a Windows editor wrote (a trial with awkward text): from ``supersede --edit``, a
leading byte order mark and CRLF line ends are signed as nothing and LF (every view showed
``\\u{feff}`` and a U+FFFD at each line end, for good); ``--content-file`` is the file's exact
bytes (CONTRACT §10.2: a byte order mark is content) and ``--content`` the text as given."""

from __future__ import annotations

from helpers import hn

WINDOWS = b"\xef\xbb\xbfline one\r\nline two\r\n"
RECORD = ("memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants")


def _contents(repo) -> list[str]:
    return sorted(m["data"]["content"] for m in hn(repo, "memory", "recall", "--json", "--include-untrusted")
                  .json()["memories"])


def test_a_file_and_literal_text_are_signed_exactly(inited, tmp_path):
    (tmp_path / "note.txt").write_bytes(WINDOWS)
    assert hn(inited, *RECORD, "--content-file", str(tmp_path / "note.txt")).code == 0
    assert hn(inited, *RECORD, "--content", "\ufeffgiven\r\nliterally").code == 0
    assert _contents(inited) == ["\ufeffgiven\r\nliterally", "\ufeffline one\r\nline two\r\n"]


def test_an_edit_in_a_windows_editor_is_signed_with_lf(inited, tmp_path, monkeypatch):
    assert hn(inited, *RECORD, "--content", "old").code == 0
    old = hn(inited, "memory", "recall", "--json", "--include-untrusted").json()["memories"][0]["id"]
    script = tmp_path / "editor.sh"
    script.write_text("#!/bin/sh\nprintf '\\357\\273\\277new one\\r\\nnew two\\r\\n' > \"$1\"\n")
    script.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("GIT_EDITOR", str(script))
    r = hn(inited, "memory", "supersede", old, "--edit")
    assert r.code == 0, r.err
    assert "new one\nnew two" in _contents(inited)
