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

from ..core.gostr import one_line
from ..core.limits import LIMITS
from ..errors import InputError, ValidationError
from ..store.repo import Repo


def editor_command(repo: Repo) -> str:
    proc = repo.git.run(["var", "GIT_EDITOR"])
    editor = proc.stdout.decode("utf-8", "surrogateescape").strip()
    if proc.returncode != 0 or not editor:
        raise InputError("no editor: set GIT_EDITOR, core.editor, VISUAL or EDITOR")
    return editor


def edit_text(repo: Repo, text: str) -> str:
    """``text`` as the user leaves it in their editor, trailing line breaks removed (editors add
    one). Whitespace-only text aborts: nothing is signed."""
    editor = editor_command(repo)
    fd, path = tempfile.mkstemp(prefix="git-hn-edit-", suffix=".txt")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8", "surrogatepass"))
            if not text.endswith("\n"):
                fh.write(b"\n")
        try:
            code = subprocess.run(["sh", "-c", f'{editor} "$@"', editor, path], cwd=repo.git.cwd).returncode
        except OSError as exc:
            raise InputError(f"editor {one_line(editor)} could not run: {exc.strerror}") from None
        if code != 0:
            raise InputError(f"editor {one_line(editor)} failed; nothing appended")
        with open(path, "rb") as fh:
            data = fh.read(LIMITS.max_content + 2)
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    try:
        edited = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError("memory record content is invalid") from None
    edited = edited.rstrip("\r\n")
    if not edited.strip():
        raise InputError("edited content is empty; nothing appended")
    return edited
