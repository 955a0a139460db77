"""Why a recall cursor no longer matches (CONTRACT §7.10 keeps the rule; git-hn says which part
changed), on real repositories.

An agent trial: paging failed with ``recall cursor does not match the normalized query, sources,
policy, or bounds; … start again without the cursor`` whenever anyone recorded, even a memory on
another branch, and nothing told the agent whether its own arguments or the memory had changed.
The cursor carries only the query digest, so git-hn remembers, per clone, what the digests of the
cursors it gave were made of (``store.cursorlog``) and compares.
"""

from __future__ import annotations

import os
import stat

from helpers import git, hn, record_id

PREFIX = "git-hn: recall cursor does not match the normalized query, sources, policy, or bounds; "
PAGE_LESS = "a larger --max-records or --max-bytes (maxRecords, maxBytes) pages less often"
MOVED = (PREFIX + "new or changed memories since the cursor was made (memory refs moved here: a record, an "
         "import or a sync, by anyone working in this clone), and a cursor holds only while they stay: start "
         f"again without the cursor; {PAGE_LESS}\n")
UNKNOWN = (PREFIX + "a cursor continues only the recall that returned it, in this clone: the same arguments and "
           "commit, while no memory is recorded, imported or synced here and the policy stays; start again "
           f"without the cursor; {PAGE_LESS}\n")
LOG = os.path.join(".git", "hn", "memory", "recall-cursors-v0.jsonl")


def _page(repo, *args):
    r = hn(repo, "memory", "recall", "--json", "--include-untrusted", "--max-records", "1", *args)
    assert r.code == 0, r.err
    return r.json()


def _three(repo):
    return [record_id(repo, content=f"decision {i}") for i in range(3)]


def test_a_memory_recorded_on_another_branch_is_named_as_the_cause(inited):
    """The trial's case: another agent records (on another branch) between two pages."""
    _three(inited)
    cursor = _page(inited)["nextCursor"]
    assert _page(inited, "--cursor", cursor)["returned"] == 1  # (still valid)
    git(inited, "checkout", "-q", "-b", "feature")
    git(inited, "commit", "-q", "--allow-empty", "-m", "feature work")
    record_id(inited, content="a memory on the feature branch")
    git(inited, "checkout", "-q", "main")
    r = hn(inited, "memory", "recall", "--json", "--include-untrusted", "--max-records", "1", "--cursor", cursor)
    assert (r.code, r.out, r.err) == (1, "", MOVED)
    assert _page(inited)["returned"] == 1  # starting again works
    mode = os.stat(inited / LOG).st_mode
    assert stat.S_ISREG(mode) and stat.S_IMODE(mode) == 0o600


def test_other_arguments_are_named_with_what_continues(inited):
    _three(inited)
    cursor = _page(inited, "--max-content-bytes", "5000")["nextCursor"]
    r = hn(inited, "memory", "recall", "--json", "--include-untrusted", "--max-records", "1", "--cursor", cursor)
    assert r.code == 1 and r.err == (
        PREFIX + "the cursor was made by a recall with other arguments: maxContentBytes (--max-content-bytes) was "
        "5000, is 65536; give it those arguments, or start again without the cursor\n")
    assert _page(inited, "--max-content-bytes", "5000", "--cursor", cursor)["returned"] == 1
    # --max-bytes is a page size, no argument of the query: a cursor goes on under any bound or none
    assert _page(inited, "--max-content-bytes", "5000", "--max-bytes", "5000", "--cursor", cursor)["returned"] == 1


def test_a_cursor_this_clone_has_no_record_of_gets_the_whole_rule(inited, tmp_path):
    """A cursor made in another clone (or before the log was written) cannot be explained: the
    error then says the whole rule and what to do."""
    _three(inited)
    cursor = _page(inited)["nextCursor"]
    os.remove(inited / LOG)
    record_id(inited, content="one more")
    r = hn(inited, "memory", "recall", "--json", "--include-untrusted", "--max-records", "1", "--cursor", cursor)
    assert (r.code, r.err) == (1, UNKNOWN)
    help_text = " ".join(hn(inited, "memory", "recall", "-h").out.split())
    assert ("the nextCursor of the previous page; it holds while the arguments (--max-bytes aside) are the same "
            "and no memory is "
            "recorded, imported or synced here (any new memory ends it: start again without it; a larger "
            "--max-records or --max-bytes pages less)") in help_text


def test_the_cursor_log_stays_bounded(inited):
    from git_hn.store import cursorlog
    from git_hn.store.repo import open_repo

    _three(inited)
    _page(inited)
    repo = open_repo(str(inited))
    try:
        request = {"version": 0, "query": "q" * 2000}
        for i in range(400):
            cursorlog.note(repo, "sha256:" + f"{i:064x}", request, "sha256:" + "a" * 64, "sha256:" + "b" * 64)
        assert os.path.getsize(inited / LOG) <= cursorlog.MAX_BYTES
        assert cursorlog.find(repo, "sha256:" + f"{399:064x}")["request"] == request
        assert cursorlog.find(repo, "sha256:" + f"{0:064x}") is None
    finally:
        repo.close()


def test_a_symlink_planted_at_the_cursor_log_is_never_followed(inited, tmp_path):
    """*Symlink redirection*: a link at the log's path must not make recall append elsewhere."""
    _three(inited)
    _page(inited)
    os.remove(inited / LOG)
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    os.symlink(target, inited / LOG)
    assert _page(inited)["returned"] == 1
    assert target.read_bytes() == b""


def test_recall_answers_when_the_state_directory_is_read_only(inited):
    """The log is best effort: a directory that cannot take it leaves recall's answer as it was."""
    from test_read_only_private import read_only

    _three(inited)
    _page(inited)
    os.remove(inited / LOG)
    with read_only(inited / ".git" / "hn"):
        r = hn(inited, "memory", "recall", "--json", "--include-untrusted", "--max-records", "1")
        assert (r.code, r.err) == (0, "") and r.json()["returned"] == 1
        assert not (inited / LOG).exists()
