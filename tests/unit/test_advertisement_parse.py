"""The advertisement's fast reading (one width for every line, checked all at once) answers
exactly what the line-by-line reading answers, and gives way to it for anything else: other
refs, two owners of a stream, a malformed line (uppercase hex, a wrong length, a stray
character in the fixed part, a missing newline), SHA-256 object IDs."""

from __future__ import annotations

import random

import pytest

from git_hn.service.replication import advertise


def _hex(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _advertisement(rng, n, count, owners=None):
    lines = []
    for _ in range(count):
        stream = _hex(rng, 64)
        for actor in owners or [_hex(rng, 64)]:
            lines.append(f"{_hex(rng, n)}\trefs/hn/memory/{actor}/{stream}\n")
    return lines


def _same(data: bytes, n: int):
    fast = advertise.parse(data, n)
    slow = advertise.parse_lines(data, n)
    if slow is None:
        assert fast is None
        return None
    assert fast is not None
    memory, others = fast
    assert dict(memory.items()) == slow[0] and others == slow[1]
    assert sorted(memory) == sorted(slow[0]) and len(memory) == len(slow[0])
    for stream in slow[0]:
        assert memory.get(stream) == slow[0][stream] and stream in memory
    assert memory.get("sha256:" + "0" * 64) is None and memory.get("nonsense") is None
    refs = advertise.AdvertisedRefs(memory)
    for stream, owned in slow[0].items():
        for actor, oid in owned:
            ref = f"refs/hn/memory/{actor}/{stream[7:]}"
            assert refs.get(ref) == oid and ref in refs and refs[ref] == oid
    assert refs.get("refs/hn/memory/" + "0" * 64 + "/" + "1" * 64) is None
    for stream, owned in list(slow[0].items())[:3]:  # a malformed name for an advertised stream
        actor, h = owned[0][0], stream[7:]
        for bad in (f"refs/hn/memory/{actor}/{h}/x", f"refs/hn/memory/{actor.upper()}/{h}",
                    f"refs/hn/memory/{actor}/{h.upper()}", f"refs/hn/memory/{actor}", f"refs/hn/memory/{h}",
                    f"refs/hn/memoryx/{actor}/{h}", f"refs/hn/memory//{actor}/{h}", f"refs/hn/memory/{actor}//{h}"):
            if bad != f"refs/hn/memory/{actor}/{h}":
                assert refs.get(bad) is None and bad not in refs
    assert len(refs) == sum(len(o) for o in slow[0].values())
    return fast


@pytest.mark.parametrize("n", [40, 64])
def test_well_formed_advertisements_read_fast_and_equal(n):
    rng = random.Random(n)
    for count in (1, 2, 17, 300):
        data = "".join(_advertisement(rng, n, count)).encode()
        got = _same(data, n)
        assert isinstance(got[0], advertise._Lines)


@pytest.mark.parametrize("n", [40, 64])
def test_anything_else_takes_the_careful_path_with_the_same_answer(n):
    rng = random.Random(7 + n)
    base = _advertisement(rng, n, 20)
    variants = {
        "two owners": base + _advertisement(rng, n, 1, owners=[_hex(rng, 64), _hex(rng, 64)]),
        "actor ref": base + [f"{_hex(rng, n)}\trefs/hn/actors/{_hex(rng, 64)}\n"],
        "proposal ref": base + [f"{_hex(rng, n)}\trefs/hn/proposals/{_hex(rng, 64)}\n"],
        "branch": base + [f"{_hex(rng, n)}\trefs/heads/main\n"],
        "uppercase": base[:-1] + [base[-1].upper()],
        "short oid": base + [f"{_hex(rng, n - 1)}\trefs/hn/memory/{_hex(rng, 64)}/{_hex(rng, 64)}\n"],
        "fixed part": base[:-1] + [base[-1].replace("refs/hn/memory", "refs/hn/memorx")],
        "hex letter in fixed part": base[:-1] + [base[-1].replace("refs/", "rafs/")],
        "slash": base[:-1] + [base[-1][:n + 16 + 64] + "x" + base[-1][n + 16 + 65:]],
        "no final newline": base[:-1] + [base[-1][:-1]],
        "space": base[:-1] + [base[-1].replace("\t", " ")],
        "empty": [],
    }
    # a uniform run of memory refs, then other refs (a name that only looks like one is another ref)
    mixed = {"actor ref", "proposal ref", "branch", "fixed part", "hex letter in fixed part"}
    for name, lines in variants.items():
        data = "".join(lines).encode()
        got = _same(data, n)
        if got is not None:
            assert isinstance(got[0], advertise._Lines) == (name in mixed), name


@pytest.mark.parametrize("n", [40, 64])
def test_the_memory_run_among_other_refs_reads_fast_and_equal(n):
    """The advertisement is every ref in name order: branches and tags before the memory refs,
    actor and proposal refs around them; a memory ref outside the run sends everything to the
    careful path, with the same answer."""
    rng = random.Random(5 * n)
    memory = sorted(_advertisement(rng, n, 40), key=lambda line: line.split("\t")[1])
    before = [f"{_hex(rng, n)}\trefs/heads/main\n", f"{_hex(rng, n)}\trefs/hn/actors/{_hex(rng, 64)}\n"]
    after = [f"{_hex(rng, n)}\trefs/hn/proposals/{_hex(rng, 64)}\n", f"{_hex(rng, n)}\trefs/tags/v1\n"]
    got = _same("".join(before + memory + after).encode(), n)
    assert isinstance(got[0], advertise._Lines) and len(got[1]) == 2
    interleaved = memory[:10] + before[:1] + memory[10:]
    got = _same("".join(interleaved).encode(), n)
    assert not isinstance(got[0], advertise._Lines) and len(got[0]) == 40
    assert advertise.parse(b"", n) == ({}, set())


@pytest.mark.parametrize("n", [40, 64])
def test_uniform_lines_takes_only_lines_of_the_one_expected_shape(n):
    rng = random.Random(3 * n)
    fixed = b" refs/hn/remotes/origin-2.x/memory/"
    good = [f"{_hex(rng, n)}{fixed.decode()}{_hex(rng, 64)}/{_hex(rng, 64)}\n" for _ in range(50)]
    assert advertise.uniform_lines("".join(good).encode(), n, fixed) == "".join(good)
    bad = {
        "other remote": good[-1].replace("origin-2.x", "origin-2.y"),
        "uppercase": good[-1].upper(),
        "no newline": good[-1][:-1],
        "tab": good[-1].replace(" ", "\t", 1),
        "letter in the fixed part": good[-1].replace("refs/", "rafs/"),
        "no slash": good[-1][:n + len(fixed) + 64] + "0" + good[-1][n + len(fixed) + 65:],
    }
    for name, line in bad.items():
        assert advertise.uniform_lines("".join(good[:-1] + [line]).encode(), n, fixed) is None, name
    assert advertise.uniform_lines(b"", n, fixed) is None


def test_mirrors_is_true_only_for_exactly_the_accepted_refs_at_their_tips():
    rng = random.Random(11)
    lines = sorted(_advertisement(rng, 40, 30), key=lambda line: line.split("\t")[1])
    adv = advertise.parse("".join(lines).encode(), 40)[0]
    fixed = " refs/hn/remotes/origin/memory/"

    def listing(ls):
        return "".join(line.replace("\trefs/hn/memory/", fixed) for line in ls)

    assert adv.mirrors(listing(lines), fixed)
    moved = lines[:5] + [_hex(rng, 40) + lines[5][40:]] + lines[6:]
    assert not adv.mirrors(listing(moved), fixed)
    assert not adv.mirrors(listing(lines[:-1]), fixed)
    assert not adv.mirrors(listing(lines), " refs/hn/remotes/other/memory/")
    assert not adv.mirrors(None, fixed)
    heads = advertise._Heads(listing(lines), 40, 40 + len(fixed))
    for line in lines:
        oid, ref = line.rstrip("\n").split("\t")
        key = ref[len("refs/hn/memory/"):]
        assert heads.get(key) == oid and heads[key] == oid and key in heads
    assert len(heads) == 30 and heads.get("nope", "") == ""


def test_only_a_saved_selection_of_exact_streams_is_fetched_by_name():
    from git_hn.core import selection
    from git_hn.service.replication.advertise import exact_owners

    stream, actor = "sha256:" + "1" * 64, "a" * 64
    accepted = {f"{actor}/{'1' * 64}": "f" * 40}
    exact = selection.Selection("origin", memories=(stream,))
    assert exact.streams_only and exact_owners(exact, accepted, {}) == {stream: actor}
    assert exact_owners(exact, {}, {stream: actor}) == {stream: actor}  # learnt by select
    assert exact_owners(exact, {}, {}) is None  # owner unknown
    assert exact_owners(exact, accepted, {stream: "b" * 64}) is None  # the two disagree
    for other in (exact._replace(actors=(actor,)), exact._replace(proposals=("sha256:" + "2" * 64,)),
                  selection.Selection("origin", all=True), selection.compatibility_all("origin")):
        assert not other.streams_only and exact_owners(other, accepted, {stream: actor}) is None
