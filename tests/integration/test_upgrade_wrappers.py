"""After an upgrade: hook runs started by an earlier git-hn's wrapper say so, and ``hooks status``
in a clone that runs the global hooks describes those (upgrade trial S100 #3, #4). Real
repositories, real ``git push``, ``git fetch`` and ``git commit --amend``."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess

from helpers import git, hn, make_repo, wait_publication

MARK_LINE = re.compile(r"^    HN_WRAPPER=[0-9a-f]{16}; export HN_WRAPPER .*\n", re.MULTILINE)


def _make_earlier(hook_dir, record, names=("pre-push", "reference-transaction", "post-rewrite")):
    """Each wrapper as the git-hn before these wrappers exported ``HN_WRAPPER`` wrote it (that
    line taken out: the rest of the text is the same), and its record's hash with it, as that
    install recorded it."""
    doc = json.loads(record.read_text())
    for name in names:
        wrapper = hook_dir / name
        older, n = MARK_LINE.subn("", wrapper.read_text())
        assert n <= 1  # (1 from this git-hn on: a test of the notice, below, fails without it)
        wrapper.write_text(older)
        next(h for h in doc["hooks"] if h["name"] == name)["wrapper"] = hashlib.sha256(older.encode()).hexdigest()
    record.write_text(json.dumps(doc, indent=2) + "\n")


def _run(repo, *args):
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def _said(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "an earlier git-hn's wrapper" in line]


def _team(tmp_path):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(remote), str(b))
    for repo, name in ((a, "A"), (b, "B")):
        assert hn(repo, "init", "--name", name).code == 0
        assert hn(repo, "hooks", "install").code == 0
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "descendants", "--content", "moves with git push").json()
    assert hn(b, "replication", "select", "origin", "--memory", rec["stream"]).code == 0
    return a, b


def _commit(repo, text):
    (repo / "f.txt").write_text(text)
    git(repo, "add", "f.txt")
    git(repo, "commit", "-q", "-m", text)


def test_a_hook_run_by_an_earlier_wrapper_says_so_once(tmp_path):
    """Upgrade trial S100 #3: after an upgrade only ``hooks status`` said the wrappers were an
    earlier git-hn's; push, fetch and amend said nothing, and fixes to the wrappers never arrived.
    Each hook run an earlier wrapper starts says it in one line, with the way out; a current
    wrapper's run says nothing (its ``HN_WRAPPER`` matches: no file is read)."""
    a, b = _team(tmp_path)
    _commit(a, "one\n")
    assert _said(_run(a, "push", "origin", "main")) == []  # current wrappers: nothing
    assert _said(_run(b, "fetch", "origin")) == []
    for repo in (a, b):
        _make_earlier(repo / ".git" / "hooks", repo / ".git" / "hn" / "hooks.json")
    # (a new memory, so that b's fetch brings one and starts git-hn: the fetch before imported the
    # first and left the quiet record, and a fetch that brings nothing starts no git-hn at all)
    hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "second")
    _commit(a, "two\n")
    said = _said(_run(a, "push", "origin", "main"))
    assert said == [f"git-hn: warning: this repository's pre-push hook ({a / '.git' / 'hooks' / 'pre-push'}) is an "
                    "earlier git-hn's wrapper (fixes since do not reach it): git hn hooks install updates it"], said
    said = _said(_run(b, "fetch", "origin"))  # the fetch trigger
    assert len(said) == 1 and "reference-transaction hook" in said[0], said
    hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "later")
    said = _said(_run(a, "commit", "-q", "--amend", "-m", "two again"))
    assert len(said) == 1 and "post-rewrite hook" in said[0], said
    assert hn(a, "hooks", "install").code == 0
    _commit(a, "three\n")

    assert _said(_run(a, "push", "-f", "origin", "main")) == []


def test_status_in_a_clone_running_the_global_hooks_describes_them(tmp_path):
    """Upgrade trial S100 #4: in a clone whose hooks are the global core.hooksPath's (``hooks
    install --global``), ``hooks status`` said "not installed" for all three, though they ran
    there, and what mattered (an earlier git-hn's wrapper) only ``status --global`` said. It
    says they are installed globally, with those facts; a push they run says it as well."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    assert hn(a, "init", "--name", "A").code == 0
    shared = tmp_path / "global-hooks"
    git(a, "config", "--global", "core.hooksPath", str(shared))
    try:
        assert hn(tmp_path, "hooks", "install", "--global").code == 0
        r = hn(a, "hooks", "status")
        assert (r.code, r.err) == (0, "") and r.out.splitlines() == [
            f"{name}: installed globally in {shared} (core.hooksPath)"
            for name in ("pre-push", "reference-transaction", "post-rewrite")], (r.out, r.err)
        _make_earlier(shared, shared / "hn-hooks.json", ("pre-push",))
        r = hn(a, "hooks", "status")
        assert r.out.splitlines()[0] == (f"pre-push: installed globally in {shared} (core.hooksPath), an earlier "
                                         "git-hn's wrapper (fixes since do not reach it): git hn hooks install "
                                         "--global updates it"), r.out
        hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "x")
        said = _said(_run(a, "push", "origin", "main"))
        assert said == [f"git-hn: warning: the global pre-push hook ({shared / 'pre-push'}) is an earlier git-hn's "
                        "wrapper (fixes since do not reach it): git hn hooks install --global updates it"], said
    finally:
        hn(tmp_path, "hooks", "uninstall", "--global")
        git(a, "config", "--global", "--unset", "core.hooksPath")
