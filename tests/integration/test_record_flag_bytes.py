"""Record flags holding bytes that are not UTF-8 (a bad-input audit): every field is refused with
the contract's words first and what to give, never ``internal error``, and nothing is signed.
Real ``git hn`` subprocesses (the bytes reach Python as lone surrogates, as they do for a user)
on a real repository.
"""

from __future__ import annotations

from helpers import hn_proc, record_id, refs_snapshot

BAD = b"a\xffb"
RECORD = ("memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact", "--content", "ok")
TOPIC_ERROR = ("git-hn: memory record topics are invalid; each --topic value is UTF-8 text (a lone surrogate or "
               "a byte that is not UTF-8 is not)\n")
OUTCOME_ERROR = "git-hn: memory attempt outcome is unsupported; valid: succeeded, failed, partial, abandoned\n"


def test_a_topic_that_is_not_utf8_is_refused_as_a_topic_not_an_internal_error(inited):
    target = record_id(inited)
    before = refs_snapshot(inited)
    for argv in (RECORD + ("--topic", BAD),
                 ("memory", "handoff", "--at", "HEAD", "--applies", "exact", "--content", "x", "--topic", BAD),
                 ("memory", "supersede", target, "--kind", "decision", "--at", "HEAD", "--applies", "exact",
                  "--content", "x", "--topic", "ok", "--topic", BAD)):
        r = hn_proc(inited, *argv)
        assert (r.code, r.out, r.err) == (1, "", TOPIC_ERROR), argv
    assert refs_snapshot(inited) == before


def test_an_outcome_that_is_not_a_token_gets_the_valid_outcomes(inited):
    before = refs_snapshot(inited)
    for outcome in (BAD, b"Not A Token"):
        r = hn_proc(inited, *RECORD[:3], "attempt", *RECORD[4:], "--outcome", outcome)
        assert (r.code, r.out, r.err) == (1, "", OUTCOME_ERROR), outcome
    assert refs_snapshot(inited) == before


def test_every_other_record_field_of_bad_bytes_is_refused_by_name(inited):
    before = refs_snapshot(inited)
    for flag, start in ((b"--subject", "memory anchor subject is invalid; "),
                        (b"--evidence", "memory record evidence is invalid; "),
                        (b"--path", "memory anchor path is invalid; "),
                        (b"--stream", "memory stream is invalid; "),
                        (b"--actor", "--actor must be a full actor fingerprint")):
        r = hn_proc(inited, *RECORD, flag, BAD)
        assert r.code == 1 and r.err.startswith("git-hn: " + start) and r.err.count("\n") == 1, (flag, r.err)
    r = hn_proc(inited, "memory", "handoff", "--at", "HEAD", "--applies", "exact", "--content", "x",
                "--completed", BAD)
    assert r.err == "git-hn: memory handoff record has invalid fields; each --completed value is valid UTF-8 text\n"
    r = hn_proc(inited, *RECORD[:-1], BAD)
    assert r.err.startswith("git-hn: memory record content is invalid; ")
    assert refs_snapshot(inited) == before
