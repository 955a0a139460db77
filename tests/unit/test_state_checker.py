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
