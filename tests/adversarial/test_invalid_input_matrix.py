"""Invalid record requests fail with the contract's error and leave every ref unchanged
(CONTRACT §10.4, §10.5, §11(e))."""

from __future__ import annotations

import json
import os

import pytest

from git_hn.core.gostr import quoted
from helpers import git, hn, refs_snapshot


def _base(head):
    return {"version": 0, "kind": "decision", "content": "valid content",
            "anchor": {"commit": head}, "applicability": {"mode": "descendants"},
            "topics": [], "evidence": []}


def _cases(head):
    base = _base(head)
    dump = lambda d: json.dumps(d).encode()  # noqa: E731
    return [
        ("unknown field", dump({**base, "extra": 1}),
         'record input: invalid JSON: json: unknown field "extra"'),
        ("unknown nested field", dump({**base, "anchor": {"commit": head, "Commit": head}}),
         'record input: invalid JSON: json: unknown field "Commit"; did you mean commit?'),
        ("case-variant key", dump({**{k: v for k, v in base.items() if k != "kind"}, "Kind": "decision"}),
         'record input: invalid JSON: json: unknown field "Kind"; did you mean kind?'),
        ("duplicate key", dump(base)[:-1] + b', "kind": "observation"}',
         'record input: duplicate JSON field "kind"'),
        ("duplicate key via escape", dump(base)[:-1] + b', "\\u006bind": "observation"}',
         'record input: duplicate JSON field "kind"'),
        ("invalid UTF-8", dump(base).replace(b"valid content", b"valid \xff content"),
         "record input: JSON is not valid UTF-8"),
        ("byte order mark", b"\xef\xbb\xbf" + dump(base), "record input: invalid JSON: a byte order mark "
         "(U+FEFF) starts the document; save it without one"),
        ("encoded surrogate", dump(base).replace(b"valid content", b"\xed\xa0\x80"),
         "record input: JSON is not valid UTF-8"),
        ("content over the limit", dump({**base, "content": "é" * 32768 + "x"}),
         "memory record content is invalid; content is non-blank UTF-8 text of at most 65536 bytes (65537 bytes "
         "given)"),
        ("topic over 128 bytes", dump({**base, "topics": ["b", "a" * 129]}),
         "memory record topics are invalid; at most 32 topics, each at most 128 bytes"),
        ("../x path", dump({**base, "anchor": {"commit": head, "paths": [{"path": "../x", "blob": "absent"}]}}),
         'memory anchor path is invalid; anchor.paths[].path "../x" has a ../ segment; anchor.paths[].path is '
         "relative to the top of the repository: no ./ or ../ "
         "segment, no leading or trailing /, no backslash or control character, at most 4096 bytes"),
        ("bad evidence prefix", dump({**base, "evidence": ["proposal:sha256:" + "a" * 64]}),
         "memory record evidence is invalid; evidence is git:<full commit ID>, memory:sha256:<64 hex digits> or event:sha256:<64 hex digits>"),
        ("memory evidence without sha256", dump({**base, "evidence": ["memory:" + "a" * 64]}),
         "memory record evidence is invalid; evidence is git:<full commit ID>, memory:sha256:<64 hex digits> or event:sha256:<64 hex digits>"),
        ("wrong version", dump({**base, "version": 1}), "record input field version must be integer 0"),
        ("float version", dump(base).replace(b'"version": 0', b'"version": 0.0'),
         "record input field version must be integer 0; a number with a fraction or exponent was given: write 0"),
        ("missing topics", dump({k: v for k, v in base.items() if k != "topics"}),
         "record input fields topics and evidence are required arrays"),
        ("NaN", dump(base).replace(b'"version": 0', b'"version": NaN'),
         "record input: invalid JSON: NaN is not allowed"),
        ("huge integer", dump(base).replace(b'"version": 0', b'"version": 99999999999999999999'),
         "record input: invalid JSON: number 99999999999999999999 is out of range"),
        ("two values", dump(base) + b" {}", "record input: JSON must contain exactly one value"),
        ("deep nesting", dump({**base, "topics": []}).replace(b'"topics": []', b'"topics": ' + b"[" * 70 + b"]" * 70),
         "record input: invalid JSON: nesting exceeds 64 levels"),
        ("oversize document", b" " * 1048577, "record input: JSON exceeds 1048576 bytes"),
        ("actor not a fingerprint", dump({**base, "actor": "ABC"}),
         "record input field actor must be a full actor fingerprint"),
        ("stream not an ID", dump({**base, "stream": "default"}),
         "record input field stream must be a full stream ID (sha256: and 64 lowercase "
         "hex digits, as a record's output prints it) or label:NAME, NAME being 1 to 64 of a-z, 0-9, ., _ and - "
         "(starting with a letter or digit)"),
        ("attempt without outcome", dump({**base, "kind": "attempt"}),
         "memory attempt record has invalid fields; kind attempt needs attemptOutcome (succeeded, failed, partial, "
         "abandoned)"),
        ("unknown kind", dump({**base, "kind": "rumour"}),
         "memory record kind is unsupported; valid: observation, decision, assumption, attempt, verification, handoff"),
        ("subject mode mismatch", dump({**base, "applicability": {"mode": "subject", "subject": "issue:sha256:" + "a" * 64}}),
         "memory applicability subject must match anchor; mode subject needs applicability.subject equal to "
         "anchor.subject (a typed subject)"),
        ("anchor commit a revision name", dump({**base, "anchor": {"commit": "HEAD"}}),
         "memory anchor commit is invalid; anchor.commit is a full commit ID (40 hex digits; 64 in a SHA-256 "
         "repository)"),
        ("handoff without its lists", dump({**base, "kind": "handoff", "handoff": {"nextActions": ["b"]}}),
         "memory handoff record has invalid fields; kind handoff needs handoff with the arrays completed, "
         "assumptions, blockers, nextActions (each entry non-blank)"),
    ]


def test_invalid_input_matrix(inited, tmp_path):
    head = git(inited, "rev-parse", "HEAD")
    before = refs_snapshot(inited)
    keys_before = sorted(os.listdir(inited / ".git" / "hn" / "identities"))
    for name, data, message in _cases(head):
        f = tmp_path / "req.json"
        f.write_bytes(data)
        r = hn(inited, "memory", "record", "--input", str(f), "--json")
        assert (r.code, r.err) == (1, f"git-hn: {message}\n"), name
        assert r.out == "", name
        # the same bytes on stdin
        r = hn(inited, "memory", "record", "--input", "-", "--json", input=data)
        assert r.err == f"git-hn: {message}\n", name
    assert refs_snapshot(inited) == before
    assert sorted(os.listdir(inited / ".git" / "hn" / "identities")) == keys_before


def test_non_regular_input_file(inited, tmp_path):
    before = refs_snapshot(inited)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, why in ((tmp_path, "is a directory"),
                      (fifo, "is not a regular file (a pipe, socket or device)"),
                      (tmp_path / "missing.json", "does not exist")):
        r = hn(inited, "memory", "record", "--input", str(path), "--json")
        assert r.err == f'git-hn: explicit input must be a regular file; --input "{quoted(str(path))}" {why}\n'
    target = tmp_path / "real.json"
    target.write_text(json.dumps(_base(git(inited, "rev-parse", "HEAD"))))
    link = tmp_path / "link.json"
    os.symlink(target, link)
    assert hn(inited, "memory", "record", "--input", str(link), "--json").code == 0  # symlinks followed
    assert refs_snapshot(inited) != before


def test_unsorted_duplicate_topics_are_normalized_not_refused(inited, tmp_path):
    req = {**_base(git(inited, "rev-parse", "HEAD")), "topics": ["Zeta ", "alpha", "ALPHA", "zeta"]}
    f = tmp_path / "req.json"
    f.write_text(json.dumps(req))
    r = hn(inited, "memory", "record", "--input", str(f), "--json")
    mid = r.json()["memoryId"]
    shown = hn(inited, "memory", "show", mid, "--json").json()
    assert shown["projection"]["data"]["topics"] == ["alpha", "zeta"]


@pytest.mark.parametrize("args,message", [
    (["--path", "../x"], "memory anchor path is invalid; --path ../x has a ../ segment; --path is relative to the "
                         "top of the repository: no "
                         "./ or ../ segment, no leading or trailing /, no backslash or control character, at most "
                         "4096 bytes"),
    (["--path", "./README.md"], "memory anchor path is invalid; --path ./README.md has a ./ segment: use --path "
                                "README.md; --path is relative to the top of the repository: "
                                "no ./ or ../ segment, no leading or trailing /, no backslash or control "
                                "character, at most 4096 bytes"),
    (["--evidence", "sha1:" + "a" * 40], "memory record evidence is invalid; --evidence is git:<full commit ID>, "
                                         "memory:sha256:<64 hex digits> or event:sha256:<64 hex digits>"),
    (["--topic", "a" * 129], "memory record topics are invalid; at most 32 --topic values, each at most 128 bytes"),
    (["--topic", "é" * 64 + "x"], "memory record topics are invalid; at most 32 --topic values, each at most 128 bytes"),
    (["--applies", "sometimes"], "memory applicability mode is unsupported; valid: exact, descendants, subject"),
    (["--stream", "sha256:ABC"], "memory stream is invalid; a stream is chosen by a full stream ID (sha256: and 64 "
                                 "lowercase hex digits, as a record's output prints it) or label:NAME, NAME being 1 "
                                 "to 64 of a-z, 0-9, ., _ and - (starting with a letter or digit)"),
    (["--subject", "issue:123"], "memory anchor subject is invalid; a subject is TYPE:sha256:<64 hex digits>, "
                                 "TYPE being issue, proposal, event, policy, pipeline or run"),
    (["--outcome", "Failed"], "memory decision record has invalid fields; --outcome is only for kind attempt"),
])
def test_invalid_flags_change_nothing(inited, args, message):
    before = refs_snapshot(inited)
    base = ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "x"]
    if "--applies" in args:
        base = base[:6] + base[8:]
    r = hn(inited, *base, *args)
    assert (r.code, r.err) == (1, f"git-hn: {message}\n")
    assert refs_snapshot(inited) == before


def test_limits_at_the_edge_through_flags(inited):
    ok = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
            "--topic", "é" * 64, "--content", "é" * 32768)
    assert ok.code == 0, ok.err
    over = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "é" * 32768 + "a")
    assert over.err == ("git-hn: memory record content is invalid; the content is non-blank UTF-8 text of at most "
                        "65536 bytes (65537 bytes given)\n")


def test_an_unknown_key_that_looks_like_a_credential_is_not_echoed(inited, tmp_path):
    """§0.5: no secret in an error. A token pasted as a key is named by its length only."""
    import json as _json

    from helpers import git, hn

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    request = {"version": 0, "kind": "decision", "content": "x",
               "anchor": {"commit": git(inited, "rev-parse", "HEAD")},
               "applicability": {"mode": "descendants"}, "topics": [], "evidence": [], token: 1}
    path = tmp_path / "req.json"
    path.write_text(_json.dumps(request))
    r = hn(inited, "memory", "record", "--input", str(path), "--json")
    assert r.code == 1 and token not in r.err and token[4:] not in r.err
    assert r.err == ('git-hn: record input: invalid JSON: json: unknown field "<secret-shaped key of 40 '
                     'characters>"\n')


def test_recall_and_mcp_name_a_credential_shaped_key_by_its_length_only(inited):
    """A review: recall --input and every MCP tool still echoed a token pasted as a key in full
    (``unknown field "ghp_…"``); the record path's rule now applies to every request."""
    import json as _json

    from git_hn.service import mcp_server
    from helpers import hn

    token = "ghp_iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g"
    shown = 'invalid JSON: json: unknown field "<secret-shaped key of 40 characters>"'
    r = hn(inited, "memory", "recall", "--input", "-", "--json", input=_json.dumps({"version": 0, token: 1}).encode())
    assert r.code == 1 and token[4:] not in r.err
    assert r.err == f"git-hn: recall input: {shown}\n"
    for tool in ("memory_recall", "memory_brief", "memory_show"):
        is_error, body = mcp_server.call(str(inited), tool, {token: 1}, allow_write=False)
        assert is_error and token[4:] not in body, (tool, body)
        assert 'unknown argument "<secret-shaped key of 40 characters>"' in body, (tool, body)
    # an ordinary unknown key is still named, with its suggestion
    r = hn(inited, "memory", "recall", "--input", "-", "--json", input=_json.dumps({"version": 0, "maxRecord": 1}).encode())
    assert r.code == 1 and 'unknown field "maxRecord"; did you mean maxRecords?' in r.err, r.err
