"""``show`` lookup rules (CONTRACT §7.13): full IDs, prefixes of at least 8 lowercase hex."""

import pytest

from git_hn.core.chain import VerifiedMemory
from git_hn.errors import InputError
from git_hn.service.show import find
from git_hn.store.streams import Collection


def _collection(*ids):
    mems = tuple(VerifiedMemory("sha256:" + i, "c" * 40, None, b"", "") for i in ids)
    return Collection((), mems, {})


A = "abcdef01" + "1" * 56
B = "abcdef01" + "2" * 56
C = "12345678" + "3" * 56


def test_prefix_full_and_prefixed_forms():
    col = _collection(A, C)
    for q in (A[:8], A, "sha256:" + A, "sha256:" + A[:10]):
        assert find(col, q).memory_id == "sha256:" + A


def test_ambiguous_prefix():
    col = _collection(A, B)
    with pytest.raises(InputError) as err:
        find(col, "abcdef01")
    assert err.value.message == "memory lookup abcdef01 is ambiguous; use the full memory ID"
    assert find(col, "abcdef011").memory_id == "sha256:" + A


@pytest.mark.parametrize("q,why", [("abcdef0", "this one has 7 digits"), ("ABCDEF01", ""),
                                   ("abcdef0g", '"g" is not a lowercase hex digit'), ("", "it is empty"),
                                   ("sha256:", "nothing follows sha256:"),
                                   ("x" * 9, '"x" is not a lowercase hex digit'),
                                   ("\x1bEVIL", "U+001B is not a lowercase hex digit")])
def test_not_found(q, why):
    with pytest.raises(InputError) as err:
        find(_collection(A), q)
    if q == "ABCDEF01":  # (§7.13's not-found first, then the lowercase rule with the form to give: f32)
        assert err.value.message == ("memory ABCDEF01 was not found in verified local or accepted streams; "
                                     "memory IDs are lowercase hex: give abcdef01")
    else:
        assert err.value.message.endswith("was not found in verified local or accepted streams; a memory is named "
                                          "by its ID (sha256: and 64 lowercase hex digits) or by at least 8 of "
                                          f"its first ones ({why})")
    assert "\x1b" not in err.value.message
