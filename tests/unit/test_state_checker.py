"""The state's checker covers both Ed25519 libraries' binaries (``statedb._libraries``): a state
verified while libsodium accepted first is verified again when either library changes."""

from __future__ import annotations

import os
from types import SimpleNamespace

from git_hn.store import statedb


def _finder(root):
    def find_spec(package):
        path = os.path.join(root, package)
        return SimpleNamespace(submodule_search_locations=[path]) if os.path.isdir(path) else None
    return find_spec


def test_the_checker_names_each_library_binary_and_changes_with_it(tmp_path):
    bindings = tmp_path / "cryptography" / "hazmat" / "bindings"
    bindings.mkdir(parents=True)
    (bindings / "_rust.abi3.so").write_bytes(b"openssl")
    (bindings / "other.py").write_bytes(b"")
    find = _finder(str(tmp_path))
    without_nacl = statedb._libraries(find)
    assert "_rust.abi3.so:7:" in without_nacl and "nacl:absent;" in without_nacl
    assert "other.py" not in without_nacl
    (tmp_path / "nacl").mkdir()
    sodium = tmp_path / "nacl" / "_sodium.abi3.so"
    sodium.write_bytes(b"libsodium")
    with_nacl = statedb._libraries(find)
    assert "_sodium.abi3.so:9:" in with_nacl and with_nacl != without_nacl
    sodium.write_bytes(b"libsodium, rebuilt")
    assert statedb._libraries(find) != with_nacl


def test_the_installed_libraries_are_both_named():
    from _frozen_importlib_external import PathFinder

    lib = statedb._libraries(PathFinder.find_spec)
    assert "_rust" in lib and "_sodium" in lib, lib


def test_the_content_digest_follows_bytes_not_times(tmp_path):
    """``content`` keeps a state across a reinstall of the same files (new times, same bytes),
    never across a changed byte, a renamed, missing or replaced file."""
    code = tmp_path / "chain.py"
    code.write_bytes(b"rules")
    lib = tmp_path / "_sodium.abi3.so"
    lib.write_bytes(b"libsodium")
    files = [("core/chain.py", str(code)), ("_sodium.abi3.so", str(lib))]
    before = statedb.content_of(files)
    os.utime(code, (1, 1))
    os.utime(lib, (2, 2))
    assert statedb.content_of(files) == before  # installed anew
    lib.write_bytes(b"libsodium!")
    assert statedb.content_of(files) != before
    lib.write_bytes(b"libsodium")
    assert statedb.content_of(files) == before
    assert statedb.content_of([("core/chain2.py", str(code)), files[1]]) != before
    assert statedb.content_of(files[:1]) != before
    lib.unlink()
    assert statedb.content_of(files) != before
    lib.mkdir()
    assert statedb.content_of(files) != before
    # the bytes of one file never pass for another's: each is digested on its own
    assert statedb.content_of([("a", str(code)), ("b", None)]) != statedb.content_of([("a", None), ("b", str(code))])


def test_a_state_failure_keeps_git_hns_whole_message():
    """An audit's case: the index warning cut the state's error at 120 characters, in the middle
    of an actor ID, and the divergent refs and the reason were lost. git-hn's own errors keep
    their whole message; another exception is still cut to its first line's 120 characters."""
    from git_hn.errors import ValidationError
    from git_hn.store import statedb

    message = (f"memory stream sha256:{'a' * 64} of actor {'b' * 64} has divergent chains: "
               f"refs/hn/remotes/evil/memory/{'b' * 64}/{'a' * 64} and refs/hn/remotes/origin/memory/"
               f"{'b' * 64}/{'a' * 64} differ at sequence 3")
    assert statedb.failure(ValidationError(message)).cause == message
    assert statedb.failure(RuntimeError("x" * 300 + "\nmore")).cause == "x" * 120
