"""``chain.fsck_commit_error`` accepts the usual commit header with one regular expression and
judges anything else rule by rule (``_header_error``): both must give the same answer for every
header, well-formed or not (random mutations of valid and invalid headers, fixed seed)."""

from __future__ import annotations

import random

from git_hn.core import chain

TREE = b"4b825dc642cb6eb9a060e54bf8d69288fbee4904"
TREE256 = b"6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
IDENT = b"A U Thor <a@example.com> 1700000000 +0000"
BASES = [
    b"tree " + TREE + b"\nauthor " + IDENT + b"\ncommitter " + IDENT + b"\n\nmsg\n",
    b"tree " + TREE + b"\nparent " + b"1" * 40 + b"\nparent " + b"2" * 40 + b"\nauthor " + IDENT
    + b"\ncommitter " + IDENT + b"\n\nmsg\n",
    b"tree " + TREE256 + b"\nparent " + b"3" * 64 + b"\nauthor " + IDENT + b"\ncommitter " + IDENT + b"\n",
    b"tree " + TREE + b"\nauthor git-hn <git-hn@localhost> 0 -1200\ncommitter  <> 9 +9999\nencoding x\n\n",
    b"tree " + TREE + b"\nauthor x <y> 999999999999999999 +0000\ncommitter x <y> 9223372036854775807 +0000\n\n",
    b"tree " + TREE + b"\nauthor x <y> 9223372036854775808 +0000\ncommitter x <y> 1 +0000\n\n",
]
ALPHABET = b" <>\n\x000123456789+-abcdefxyz@.:"


def reference(raw: bytes) -> str:
    """The rule-by-rule answer alone (no regular expression)."""
    return chain._framing_error(raw) or chain._header_error(raw)


def mutate(rng: random.Random, raw: bytes) -> bytes:
    data = bytearray(raw)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data) + 1)
        op = rng.random()
        if op < 0.4 and at < len(data):
            data[at] = rng.choice(ALPHABET)
        elif op < 0.7:
            data[at:at] = bytes([rng.choice(ALPHABET)]) * rng.randint(1, 3)
        elif at < len(data):
            del data[at:at + rng.randint(1, 4)]
    return bytes(data)


def test_the_fast_path_agrees_with_the_rules_on_random_headers():
    rng = random.Random(20261202)
    accepted = 0
    for i in range(40_000):
        raw = BASES[i % len(BASES)] if i < len(BASES) else mutate(rng, BASES[i % len(BASES)])
        want = reference(raw)
        assert chain.fsck_commit_error(raw) == want, raw
        accepted += want == ""
    assert 1_000 < accepted < 39_000  # both answers were exercised many times


def test_the_fast_path_answers_the_usual_header():
    assert chain._well_formed_header().match(BASES[0]) is not None
    assert chain._well_formed_header().match(BASES[5]) is None  # 19 digits: the rules decide
    assert chain.fsck_commit_error(BASES[5]) == "badDateOverflow"


def test_a_few_headers_are_judged_without_compiling_the_expression():
    """Compiling the expression costs about what the rules spend on a hundred headers; a
    command that reads one commit (a record) never compiles it, a bulk read does."""
    import subprocess
    import sys

    code = ("import sys\nfrom git_hn.core import chain\n"
            "raw = sys.stdin.buffer.read()\n"
            "first = [chain.fsck_commit_error(raw) for _ in range(chain._WELL_FORMED_AFTER)]\n"
            "before = chain._WELL_FORMED is None\n"
            "more = [chain.fsck_commit_error(raw) for _ in range(3)]\n"
            "print(set(first + more) == {''}, before, chain._WELL_FORMED is not None)\n")
    out = subprocess.run([sys.executable, "-c", code], input=BASES[0], capture_output=True, check=True)
    assert out.stdout.split() == [b"True", b"True", b"True"]


def test_once_compiled_the_expression_judges_every_header_from_the_first():
    """A sync about to check many commits compiles the expression while its fetch runs
    (``chain.compile_header_check``, f138): its first headers are then matched by it too, not
    judged rule by rule, with the same answers."""
    import subprocess
    import sys

    code = ("import sys\nfrom git_hn.core import chain\n"
            "raw = sys.stdin.buffer.read()\n"
            "chain.compile_header_check()\n"
            "ruled = []\n"
            "rules = chain._header_error\n"
            "chain._header_error = lambda h: ruled.append(h) or rules(h)\n"
            "first = [chain.fsck_commit_error(raw) for _ in range(5)]\n"
            "bad = chain.fsck_commit_error(raw.replace(b'1700000000', b'01700000000'))\n"
            "print(first == [''] * 5, len(ruled), bad)\n")
    out = subprocess.run([sys.executable, "-c", code], input=BASES[0], capture_output=True, check=True)
    assert out.stdout.split() == [b"True", b"1", b"zeroPaddedDate"]
