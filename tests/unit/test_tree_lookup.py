"""A path's entry is looked up in a raw tree without building every entry (``chain.find_entry``,
S102 #2: 0.3-0.4 s per lookup in a 100,000-file directory), and the answer is the one a full
``parse_tree`` gives: the first entry of that name, or None, or ``ValueError`` when the tree is
malformed anywhere (an invalid anchor, before and after)."""

from __future__ import annotations

import os
import random
import subprocess
import sys

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


@pytest.mark.parametrize("walked", [True, False], ids=["walked", "expressions"])
@pytest.mark.parametrize("oid_bytes", [20, 32])
def test_the_entry_found_is_the_one_a_full_parse_gives(oid_bytes, walked, monkeypatch):
    """Both ways of looking: a small tree is walked entry by entry, a larger one matched by two
    expressions (here every tree is taken for one or the other)."""
    from git_hn.core import chain

    monkeypatch.setattr(chain, "_SMALL_TREE", 1 << 30 if walked else -1)
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


def test_a_small_tree_is_looked_up_without_loading_re():
    """A root tree of a few entries (every command's policy lookup) is walked: ``re`` and the
    ``enum`` under it (~13 M instructions) stay unloaded."""
    code = ("import sys\n"
            "from git_hn.core.chain import find_entry\n"
            "raw = b''.join(b'100644 %s\\x00' % n + bytes(20) for n in (b'.hn', b'README', b'src'))\n"
            "assert find_entry(raw, b'src', 20)[1] == b'src' and find_entry(raw, b'x', 20) is None\n"
            "print('re' in sys.modules)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # (-S: the development install's import hook loads ``re`` itself)
    out = subprocess.run([sys.executable, "-S", "-c", code], check=True, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=root)).stdout
    assert out.strip() == "False"
