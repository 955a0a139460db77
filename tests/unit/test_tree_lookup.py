"""A path's entry is looked up in a raw tree without building every entry (``chain.find_entry``,
S102 #2: 0.3-0.4 s per lookup in a 100,000-file directory), and the answer is the one a full
``parse_tree`` gives: the first entry of that name, or None, or ``ValueError`` when the tree is
malformed anywhere (an invalid anchor, before and after)."""

from __future__ import annotations

import random
import subprocess

import pytest

from git_hn.core.chain import find_entry, parse_tree


def _reference(raw: bytes, name: bytes, oid_bytes: int):
    return next((e for e in parse_tree(raw, oid_bytes) if e[1] == name), None)


def _outcome(fn, *args):
    try:
        return fn(*args)
    except ValueError:
        return ValueError


def _tree(rng: random.Random, oid_bytes: int) -> bytes:
    alphabet = [b" ", b"\x00", b"a", b"b", b"1", b"0", b"\xff", b"/"]
    out = b""
    for _ in range(rng.randrange(0, 6)):
        mode = rng.choice([b"100644", b"40000", b"", b"1\x002"])
        name = b"".join(rng.choice(alphabet[2:] + [b" "]) for _ in range(rng.randrange(0, 4)))
        oid = bytes(rng.choice(b" \x00ab\xff") for _ in range(oid_bytes))
        out += mode + b" " + name + b"\x00" + oid
    if rng.random() < 0.3:  # damage: cut, or stray bytes
        out = out[:rng.randrange(0, len(out) + 1)] if rng.random() < 0.5 else \
            out + b"".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 4)))
    return out


@pytest.mark.parametrize("oid_bytes", [20, 32])
def test_the_entry_found_is_the_one_a_full_parse_gives(oid_bytes):
    rng = random.Random(oid_bytes)
    names = [b"", b"a", b"b", b"ab", b"a b", b"1", b"a\x00", b" ", b"\xff"]
    for _ in range(3000):
        raw = _tree(rng, oid_bytes)
        for name in names:
            assert _outcome(find_entry, raw, name, oid_bytes) == _outcome(_reference, raw, name, oid_bytes), (raw, name)


def test_a_real_tree_of_many_files(tmp_path):
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "d").mkdir()
    for i in range(300):
        (repo / "d" / f"{i:04d}.txt").write_text(str(i))
    (repo / "d" / "sub").mkdir()
    (repo / "d" / "sub" / "x").write_text("x")
    subprocess.run(["git", "add", "d"], cwd=repo, check=True)
    tree = subprocess.run(["git", "write-tree", "--prefix=d/"], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()
    raw = subprocess.run(["git", "cat-file", "tree", tree], cwd=repo, check=True, capture_output=True).stdout
    for name in (b"0000.txt", b"0299.txt", b"0150.txt", b"sub", b"0300.txt", b"d", b""):
        assert find_entry(raw, name, 20) == _reference(raw, name, 20)
    assert find_entry(raw, b"sub", 20)[0] == b"40000"
    with pytest.raises(ValueError):
        find_entry(raw[:-1], b"0000.txt", 20)
