"""Identity export files (issue 13): one person keeps one actor across clones and machines.

Owns: writing an identity to a file the user names and reading such a file back. The file holds
exactly a keyring record (CONTRACT §2.2: ``version``, ``actor``, ``name``, ``publicKey``,
``privateKey``, ``lifecycle``, MarshalIndent), so an import applies every check the keyring
applies (§2.3), the key pair's included. Trusts: nothing in a file until those checks pass.

Attacks defended against:

- *key disclosure*: the export is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` and mode 0600,
  so it never reuses an existing file (whose mode or other hard links could expose it), never
  follows a symlink planted at the path, and is never written to standard output (terminal
  scrollback, CI logs); an import refuses a file that group or others can access, since someone
  else could have read it, or replaced the key in it.
- *key substitution*: an imported key pair must derive its own public key and actor
  (``identity.check_key_pair``), and never replaces a different record already in the keyring.

No message carries key material: errors name the path and the check, never file content.
"""

from __future__ import annotations

import os
import stat

from ..core import canonical
from ..errors import InputError, LocalStateError
from .identity import Identity, parse_record

MAX_BYTES = 65_536


def _shown(path: str) -> str:
    from ..core.gostr import shown_path

    return shown_path(path)


def _refuse_stdio(path: str, verb: str) -> None:
    if path in ("", "-"):
        raise InputError(f"identity {verb} never uses standard {'output' if verb == 'export' else 'input'}: "
                         "a private key belongs in a file only you can read; name one")


def write_export(ident: Identity, path: str) -> str:
    """Write ``ident`` to the new file ``path`` (0600); returns its absolute path."""
    _refuse_stdio(path, "export")
    target = os.path.abspath(path)
    data = canonical.indented(ident.record_json())
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        raise InputError(f"identity export file {_shown(target)} already exists; an export never "
                         "overwrites a file, so name a new one") from None
    except OSError as exc:
        raise LocalStateError(f"identity export file {_shown(target)} cannot be created: "
                              f"{exc.strerror}") from None
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError as exc:
        os.close(fd)
        fd = -1
        try:
            os.unlink(target)
        except OSError:
            pass
        raise LocalStateError(f"identity export file {_shown(target)} cannot be written: "
                              f"{exc.strerror}") from None
    finally:
        if fd >= 0:
            os.close(fd)
    return target


def read_export(path: str) -> Identity:
    """The identity in the export file ``path``, after the file and record checks."""
    _refuse_stdio(path, "import")
    target = os.path.abspath(path)
    shown = _shown(target)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        raise InputError(f"identity file {shown} does not exist") from None
    except OSError as exc:
        raise LocalStateError(f"identity file {shown} cannot be read: {exc.strerror}") from None
    _check(st, shown)
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise LocalStateError(f"identity file {shown} cannot be read: {exc.strerror}") from None
    try:
        st2 = os.fstat(fd)
        if (st2.st_ino, st2.st_dev) != (st.st_ino, st.st_dev):
            raise LocalStateError(f"identity file {shown} changed while reading")
        _check(st2, shown)
        chunks, total = [], 0
        while total <= MAX_BYTES:
            chunk = os.read(fd, MAX_BYTES + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise LocalStateError(f"identity file {shown} cannot be read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:
        raise LocalStateError(f"identity file {shown} is too large")
    try:
        return parse_record(data)
    except LocalStateError as exc:
        if not data.lstrip(b" \t\r\n").startswith(b"{"):
            # (an audit: a file of the raw private key alone got "read identity record: unexpected
            # trailing JSON"; what the file holds is not repeated, it may be that key)
            raise InputError(f"identity file {shown} is not an identity export: git hn identity import reads "
                             "the JSON file that git hn identity export --output FILE writes in a clone holding "
                             "the identity (a key alone cannot be imported)") from None
        raise InputError(f"identity file {shown} is not a valid identity: {exc.message}") from None


def _check(st: os.stat_result, shown: str) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise InputError(f"identity file {shown} is a symbolic link; name the file itself")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"identity file {shown} is not a regular file")
    if stat.S_IMODE(st.st_mode) & 0o077 or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        raise InputError(f"identity file {shown} has unsafe permissions: it must be yours and "
                         "readable by you alone (mode 0600)")
    if st.st_size > MAX_BYTES:
        raise LocalStateError(f"identity file {shown} is too large")
