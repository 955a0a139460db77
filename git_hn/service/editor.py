"""Editing text in the user's editor (``supersede --edit``, issue 14).

Owns: choosing the editor, the private temporary file and running the editor. The editor is the
one Git itself would open for a commit message: ``git var GIT_EDITOR`` applies Git's precedence
(``GIT_EDITOR``, ``core.editor``, ``VISUAL``, ``EDITOR``, then Git's default), so git-hn never
disagrees with ``git commit``. Like Git, the editor value is a shell command run as
``sh -c '<editor> "$@"' <editor> <file>``, so editors with arguments work. Trusts: the editor the
user configured; nothing it writes is trusted beyond being the new content, which is validated
like any content (size, UTF-8, secret lint) before anything is signed.
"""

from __future__ import annotations

import os
import subprocess
import tempfile

from ..core.gostr import bounded, one_line, spell_backslash
from ..core.limits import LIMITS
from ..errors import HnError, InputError
from ..store.repo import Repo
from .requests import decode_content


# Below the content, as ``git commit --cleanup=scissors`` does: everything from this line on is
# removed. Only that: a line starting with "#" above it (a Markdown heading) is content and is
# signed as written, so nothing the user wrote is dropped silently (a newcomer trial saw the old
# content alone, with no word on what would be signed).
SCISSORS = "# ------------------------ >8 ------------------------"
BOM = "\ufeff".encode("utf-8")  # (``written_text`` drops it)
INSTRUCTIONS = (f"{SCISSORS}\n"
                "# Do not modify or remove the line above.\n"
                "# Everything below it is ignored; everything above it is the new content, signed\n"
                "# as written (lines starting with # included). An unchanged or empty text aborts.\n")


def written_text(text: str) -> str:
    """What the editor left, as it is signed: without a leading byte order mark, and with Windows
    line ends (CRLF) as LF, as Git's message cleanup leaves no CR (a Windows editor's text was
    signed with them, and every view showed a ``\\u{feff}`` and a U+FFFD at each line end for
    good). Only here, where the editor's buffer is cleaned up already (the scissors, the final
    line breaks): ``--content-file`` is the file's exact bytes, a byte order mark included
    (CONTRACT §10.2), and ``--content`` and ``--input`` are signed as given."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n") if "\r" in text else text


def cut_at_scissors(data: bytes) -> bytes:
    """``data`` without the last scissors line and everything after it (``data`` itself when it
    has none). The last one: content that itself holds such a line keeps it. Cut as bytes, before
    anything is decoded: what is below the line is discarded unread, as ``git commit`` discards
    it (a byte there that is not UTF-8 refused the edit). A byte order mark before a scissors
    line that is the first line is no text above it."""
    scissors = SCISSORS.encode("ascii")
    lines = data.split(b"\n")
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i].rstrip(b"\r")
        if line == scissors or (i == 0 and line == BOM + scissors):
            return b"\n".join(lines[:i])
    return data


def editor_command(repo: Repo) -> str:
    proc = repo.git.run(["var", "GIT_EDITOR"])
    editor = proc.stdout.decode("utf-8", "surrogateescape").strip()
    if proc.returncode != 0 or not editor:
        raise InputError("no editor: set GIT_EDITOR, core.editor, VISUAL or EDITOR")
    return editor


class EditFile:
    """The file the user writes new content in, as Git's ``COMMIT_EDITMSG``: once the user changed
    it, it is kept until the append succeeds, and a failure that ends the command (secret-shaped
    text, invalid UTF-8, any validation error, a lost race) names it in its one error line, so
    the text is never lost. Used as a context manager around everything from the edit to the
    append; on success the file is removed."""

    def __init__(self, repo: Repo):
        self.repo = repo
        self.path: str | None = None  # the kept file, once the user changed it

    def __enter__(self) -> EditFile:
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        if self.path is not None:
            if kind is None:
                self.discard()
            elif isinstance(exc, HnError):
                from ..core.secretlint import first_in_text

                where = ("a file whose path holds secret-shaped text (in TMPDIR)" if first_in_text(self.path, None)
                         else one_line(self.path))
                exc.message += f"; your text is kept in {where} (reuse it with --content-file)"
                exc.args = (exc.message,)
        return False

    def discard(self) -> None:
        if self.path is not None:
            _remove(self.path)
            self.path = None

    def edit(self, text: str) -> str:
        """``text`` as the user leaves it in their editor, trailing line breaks removed (editors
        add one). Whitespace-only text aborts: nothing is signed. Text the user did not change
        is not kept."""
        editor = editor_command(self.repo)
        fd, path = tempfile.mkstemp(prefix="git-hn-edit-", suffix=".txt")  # mode 0600
        written = text.encode("utf-8", "surrogatepass")
        if not text.endswith("\n"):
            written += b"\n"
        written += b"\n" + INSTRUCTIONS.encode("ascii")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(written)
            try:
                code = subprocess.run(["sh", "-c", f'{editor} "$@"', editor, path], cwd=self.repo.git.cwd).returncode
            except OSError as exc:
                raise InputError(f"the editor {_quoted(editor)} could not run: {exc.strerror}") from None
            with open(path, "rb") as fh:
                # (room for the instructions too: a content at the limit is not cut short)
                data = fh.read(LIMITS.max_content + 2 + len(INSTRUCTIONS) + 4096)
        except BaseException:
            _remove(path)
            raise
        if data != written:  # the user's own text from here on: kept until it is signed
            self.path = path
        else:
            _remove(path)
        if code != 0:
            status = f"exit status {code}" if code > 0 else f"signal {-code}"
            raise InputError(f"the editor {_quoted(editor)} failed ({status}); nothing appended")
        # (which byte, at which offset of the kept file, f145: the kept bytes start the file)
        edited = written_text(decode_content(cut_at_scissors(data))).rstrip("\r\n")
        if self.path is not None and edited.strip():
            # the kept file holds what would be signed, so that --content-file reuses exactly that
            with open(self.path, "wb") as fh:
                fh.write(edited.encode("utf-8") + b"\n")
        if not edited.strip():
            self.discard()  # nothing worth keeping
            raise InputError("edited content is empty; nothing appended")
        return edited


def _quoted(editor: str) -> str:
    """The editor's command as an error line quotes it: one line, in double quotes, bounded; not
    quoted when it holds secret-shaped text (a review: ``env GITHUB_TOKEN=ghp_… vi``)."""
    from ..core.secretlint import first_in_text

    if first_in_text(editor, None):
        return "(its command holds secret-shaped text, not shown)"
    return '"' + spell_backslash(bounded(editor, 120)) + '"'


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
