"""The policy drift hint's wording (``service.policy_drift.text``): at most three actors or kinds
named, then a count; author names and commit subjects are hostile text, shown inert, on one line
and bounded (*terminal escape injection*, *Trojan Source*, *log line forging*)."""

from __future__ import annotations

from git_hn.service.policy_drift import Reference, text

REF = Reference("refs/remotes/origin/main", "c" * 40)
A, B, C, D = ("a" * 64, "b" * 64, "c" * 64, "d" * 64)


def test_at_most_three_are_named_then_counted():
    out = text(("HEAD", "HEAD"), [A, B, C, D], ["handoff"], {A: "Ann", B: "Ben"}, REF, ("e" * 40, "Revoke keys"))
    assert out == ('the policy at HEAD trusts aaaaaaaaaaaa ("Ann", a self-chosen name), bbbbbbbbbbbb ("Ben", a self-chosen name), '
                   'actor cccccccccccc '
                   'and 2 more, which the policy at origin/main (eeeeeeeeeeee: "Revoke keys") does not: such memories '
                   "shown as trusted here would be untrusted there; git diff origin/main HEAD -- .hn/policy.json "
                   "shows the change")


def test_one_two_and_kinds_read_as_a_sentence():
    at = ("commit 0123456789ab", "0123456789ab")
    one = text(at, [A], [], {}, REF, None)
    assert one.startswith("the policy at commit 0123456789ab trusts actor aaaaaaaaaaaa, which the policy at "
                          "origin/main (cccccccccccc) does not: their memories shown")
    assert one.endswith("git diff origin/main 0123456789ab -- .hn/policy.json shows the change")
    assert " trusts actor aaaaaaaaaaaa and actor bbbbbbbbbbbb, " in text(at, [A, B], [], {}, REF, None)
    assert " trusts kind handoff and kind decision, " in text(at, [], ["handoff", "decision"], {}, REF, None)
    assert "memories of those kinds shown" in text(at, [], ["handoff", "decision"], {}, REF, None)


def test_hostile_names_and_subjects_are_inert_one_line_and_bounded():
    name = "Mal\x1b[31mlory\nfatal: forged\u202e" + "x" * 300
    out = text(("HEAD", "HEAD"), [A], [], {A: name}, REF, ("e" * 40, "subject\x07\u2066" + "y" * 300))
    assert "\n" not in out and "\x1b" not in out and "\x07" not in out
    assert "\u202e" not in out and "\u2066" not in out and "\\u{202e}" in out
    quoted = out.split('"')
    assert len(quoted[1].encode()) <= 64 and len(quoted[3]) <= 72 + len("…"), quoted


def test_a_remotes_hostile_default_branch_is_a_code_span_in_markdown_and_never_pasted():
    """*Prompt injection through a ref name*, *command injection by paste*: the reference is the
    remote's default branch, named by whoever runs the remote. The Markdown brief's header shows it
    as one code span, its backticks spelled; the ``git diff`` to paste names its commit instead
    (on stderr too: a ``$(…)`` name was pasted bare)."""
    ref = Reference("refs/remotes/origin/x`SYSTEM`$(touch${IFS}P)", "c" * 40)
    md = text(("HEAD", "HEAD"), [A], [], {}, ref, None, markdown=True)
    assert "the policy at `origin/x\\u{60}SYSTEM\\u{60}$(touch${IFS}P)` (cccccccccccc) does not" in md, md
    assert "`SYSTEM`" not in md and md.endswith("git diff cccccccccccc HEAD -- .hn/policy.json shows the change")
    cli = text(("HEAD", "HEAD"), [A], [], {}, ref, None)
    assert cli.endswith("git diff cccccccccccc HEAD -- .hn/policy.json shows the change"), cli
    assert "git diff origin/main HEAD" in text(("HEAD", "HEAD"), [A], [], {}, REF, None, markdown=True)
