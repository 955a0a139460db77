"""Git-native integration (CONTRACT §10.7): memory follows ``git push`` and ``git fetch``.

Real clones, a real bare remote, real hooks run by Git itself; the only git-hn commands typed
are ``init``, ``record``, ``replication select`` and ``hooks install``.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from git_hn.hookscripts import TEMPLATES
from helpers import git, git_processes, hn, make_repo, read_terminal, wait_publication

ROOT = Path(__file__).resolve().parents[2]


def _push(repo, *args, check=True):
    """``git push``, then the background publication its pre-push hook started (if any)."""
    proc = subprocess.run(["git", "push", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture
def clones(tmp_path):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(remote), str(b))
    for repo, name in ((a, "A"), (b, "B")):
        assert hn(repo, "init", "--name", name).code == 0
        r = hn(repo, "hooks", "install")
        assert r.code == 0, r.err
        assert r.out.splitlines() == ["pre-push: installed", "reference-transaction: installed",
                                        "post-rewrite: installed"]
    return remote, a, b


def test_memory_follows_push_and_fetch(clones):
    remote, a, b = clones
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "descendants", "--content", "moves with git push").json()
    assert hn(b, "replication", "select", "origin", "--memory", rec["stream"]).code == 0
    (a / "f.txt").write_text("work\n")
    git(a, "add", "f.txt")
    git(a, "commit", "-q", "-m", "work")
    _push(a)  # plain git push
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    assert not any(r.startswith("refs/hn/remotes/") for r in
                   git(remote, "for-each-ref", "--format=%(refname)").split())
    assert hn(b, "memory", "index", "rebuild").code == 0
    index = b / ".git" / "hn" / "memory" / "index-v0.json"
    assert index.exists()
    fetch = subprocess.run(["git", "fetch"], cwd=b, capture_output=True, text=True)
    assert fetch.returncode == 0, fetch.stderr
    accepted = f"refs/hn/remotes/origin/memory/{rec['actor']}/{rec['stream'][7:]}"
    assert git(b, "rev-parse", accepted) == git(a, "rev-parse", ref)
    assert not index.exists()  # the fetch hook refreshes by deletion: git fetch never rebuilds
    out = hn(b, "memory", "recall", "--include-untrusted", "--json").json()
    assert [m["id"] for m in out["memories"]] == [rec["memoryId"]]


def test_uninstall_says_what_it_removed_and_a_second_says_nothing_was(tmp_path):
    """A newcomer trial: ``hooks uninstall`` printed "not installed" for every hook whether it
    had just removed them or there was nothing to remove, so the first run read as a failure."""
    a = make_repo(tmp_path / "a")
    assert hn(a, "hooks", "install").code == 0
    r = hn(a, "hooks", "uninstall")
    assert (r.code, r.out.splitlines(), r.err) == (
        0, ["pre-push: removed", "reference-transaction: removed", "post-rewrite: removed"], ""), r
    r = hn(a, "hooks", "uninstall")
    assert r.out.splitlines() == ["pre-push: not installed", "reference-transaction: not installed",
                                  "post-rewrite: not installed"], r


def test_install_in_a_bare_repository_without_a_remote_warns_it_looks_like_the_server(tmp_path):
    """A newcomer trial: ``hooks install`` inside the team's bare server repository installed
    hooks there, silently (and hinted about a selection no server needs). It still installs,
    with one warning; a bare clone (it has its origin) gets no such warning."""
    server = tmp_path / "team.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    r = hn(server, "hooks", "install")
    assert r.code == 0 and r.out.splitlines()[0] == "pre-push: installed", r
    assert r.err == ("git-hn: warning: this is a bare repository with no remote: a server's repository? these hooks "
                     "run for the pushes it receives, not for yours; run git hn hooks install in your clone "
                     "instead, and git hn hooks uninstall here\n"), r.err
    clone = tmp_path / "mirror.git"
    git(tmp_path, "clone", "-q", "--bare", str(server), str(clone))
    r = hn(clone, "hooks", "install")
    assert r.code == 0 and "warning" not in r.err, r.err


def test_existing_pre_push_hook_is_chained_and_restored(tmp_path):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    hook = a / ".git" / "hooks" / "pre-push"
    original = b"#!/bin/sh\necho user-hook-ran \"$1\" >&2\ncat > /dev/null\nexit ${REFUSE:-0}\n"
    hook.write_bytes(original)
    os.chmod(hook, 0o750)
    assert hn(a, "init").code == 0
    r = hn(a, "hooks", "install")
    assert r.out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)"
    assert (a / ".git" / "hooks" / "hn-chained" / "pre-push").read_bytes() == original
    assert hn(a, "hooks", "install").code == 0  # idempotent over its own wrappers
    assert (a / ".git" / "hooks" / "hn-chained" / "pre-push").read_bytes() == original
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=a, capture_output=True, text=True,
                          env={**os.environ, "REFUSE": "1"})
    assert proc.returncode != 0 and "user-hook-ran origin" in proc.stderr
    assert git(remote, "for-each-ref") == ""  # the refusal blocked the push
    proc = _push(a, "origin", "main")
    assert "user-hook-ran origin" in proc.stderr
    r = hn(a, "hooks", "uninstall")
    assert r.out.splitlines() == ["pre-push: removed, and the hook it chained put back",
                                  "reference-transaction: removed", "post-rewrite: removed"]
    assert hook.read_bytes() == original and stat.S_IMODE(os.stat(hook).st_mode) == 0o750
    assert sorted(p.name for p in hook.parent.iterdir() if not p.name.endswith(".sample")) == ["pre-push"]


def test_an_unreadable_hook_record_says_how_to_recover_and_the_way_works(tmp_path):
    """An audit: garbage in ``.git/hn/hooks.json`` gave ``hook record …/hooks.json is invalid``
    alone for ``hooks status`` and ``uninstall``. The error says what to do, and doing it (remove
    the record, install again) ends with the user's own chained hook back in place."""
    import shlex

    a = make_repo(tmp_path / "a")
    hook = a / ".git" / "hooks" / "pre-push"
    original = b"#!/bin/sh\necho mine\n"
    hook.write_bytes(original)
    os.chmod(hook, 0o755)
    assert hn(a, "hooks", "install").code == 0
    record = a / ".git" / "hn" / "hooks.json"
    record.write_bytes(b"{garbage")
    before = sorted(p.name for p in hook.parent.iterdir())
    expected = (f"git-hn: hook record {record} is invalid; it only lists the hooks git-hn installed in "
                f"{hook.parent}: remove it (rm {shlex.quote(str(record))}), then git hn hooks install takes "
                "git-hn's hooks there on again (your own chained hooks stay)\n")
    for which in ("status", "uninstall", "install"):
        r = hn(a, "hooks", which)
        assert (r.code, r.out, r.err) == (1, "", expected), which
    assert sorted(p.name for p in hook.parent.iterdir()) == before and record.read_bytes() == b"{garbage"
    record.unlink()
    assert hn(a, "hooks", "install").code == 0
    assert hn(a, "hooks", "uninstall").code == 0
    assert hook.read_bytes() == original


def test_uninstall_refuses_a_changed_wrapper(clones):
    _remote, a, _b = clones
    wrapper = a / ".git" / "hooks" / "pre-push"
    wrapper.write_text(wrapper.read_text() + "# edited by the user\n")
    r = hn(a, "hooks", "uninstall")
    assert r.err == (f"git-hn: hook {wrapper} changed since install (git-hn's wrapper, edited); refusing to "
                     "uninstall over the edit: take it out, or delete the file if nothing in it is wanted, then "
                     "uninstall again; nothing was changed\n")
    assert wrapper.exists() and (a / ".git" / "hooks" / "reference-transaction").exists()


def test_status_says_an_edited_wrapper_is_edited_and_the_way_out_works(clones):
    """A newcomer's edited wrapper was "not installed", and the hint after it said this
    repository's record "was lost"; uninstall refused with no way on. Status names the edit,
    says nothing about a lost record, and deleting the file (as uninstall says) lets it go on."""
    _remote, a, _b = clones
    wrapper = a / ".git" / "hooks" / "pre-push"
    wrapper.write_text(wrapper.read_text() + "# edited by the user\n")
    r = hn(a, "hooks", "status")
    assert r.out.splitlines()[0] == (
        "pre-push: edited since install (git-hn's wrapper, changed by hand): Git runs it as it is; git hn hooks "
        "install and uninstall refuse over the edit until it is taken out (or the file deleted)"), r.out
    assert r.out.splitlines()[1] == "reference-transaction: installed" and "was lost" not in r.err, r
    wrapper.unlink()
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0 and not (a / ".git" / "hooks" / "reference-transaction").exists(), r


def test_status_of_an_edited_wrapper_git_no_longer_runs_says_it_is_not_run(tmp_path):
    """A trial: with core.hooksPath changed since install, an edited wrapper's line said "Git
    runs it as it is" while the other two said "not run"."""
    a = make_repo(tmp_path / "a")
    (a / ".git" / "info" / "exclude").write_text(".hk\n")
    git(a, "config", "core.hooksPath", ".hk")
    assert hn(a, "hooks", "install").code == 0
    with open(a / ".hk" / "post-rewrite", "a") as fh:
        fh.write("# edited\n")
    git(a, "config", "--unset", "core.hooksPath")
    r = hn(a, "hooks", "status")
    assert r.out.splitlines()[2] == (
        "post-rewrite: edited since install in .hk (git-hn's wrapper, changed by hand), not run (core.hooksPath "
        "changed since): take the edit out (or delete the file), then git hn hooks uninstall, then install "
        "again"), r.out


def test_hooks_that_run_another_git_hn_are_named_and_install_switches_them(tmp_path, monkeypatch):
    """An upgrade trial: hooks installed while another git-hn came first on PATH record it and
    keep running it (every push and fetch then runs old code, and the state flips between the
    two builds), while status said "installed"; install now says it switched them."""
    import shutil

    here = shutil.which("git-hn")
    old = tmp_path / "old" / "bin"
    old.mkdir(parents=True)
    shutil.copy2(here, old / "git-hn")  # another installation's executable
    a = make_repo(tmp_path / "a")
    with monkeypatch.context() as m:
        m.setenv("PATH", f"{old}{os.pathsep}{os.environ['PATH']}")
        assert hn(a, "hooks", "install").out.splitlines()[0] == "pre-push: installed"
    here = os.path.abspath(here)
    runs = f", runs {old / 'git-hn'}, not this git-hn ({here}); git hn hooks install makes it run this one"
    r = hn(a, "hooks", "status")
    assert r.out.splitlines() == [f"{n}: installed{runs}" for n in ("pre-push", "reference-transaction",
                                                                      "post-rewrite")], r.out
    r = hn(a, "hooks", "install")
    switched = f", switched from {old / 'git-hn'} to this git-hn ({here})"
    assert r.out.splitlines() == [f"{n}: installed{switched}" for n in ("pre-push", "reference-transaction",
                                                                          "post-rewrite")], r.out
    assert f"recorded={here}" in (a / ".git" / "hooks" / "pre-push").read_text()
    r = hn(a, "hooks", "status")
    assert r.out.splitlines() == ["pre-push: installed", "reference-transaction: installed",
                                  "post-rewrite: installed"], r.out


def test_status_says_the_last_background_publication_failed(clones):
    """A trial: while every background publication was refused, status said only "installed"."""
    remote, a, _b = clones
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nwhile read o n r; do case $r in refs/hn/*) exit 1;; esac; done\n")
    hook.chmod(0o755)
    assert hn(a, "hooks", "status").err == ""
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "refused").code == 0
    git(a, "commit", "-q", "--allow-empty", "-m", "moves")
    subprocess.run(["git", "push", "-q", "origin", "main"], cwd=a, capture_output=True, timeout=120)
    wait_publication(a)
    r = hn(a, "hooks", "status")
    assert r.err == ("git-hn: hint: the last background publication to origin failed: git hn sync origin publishes "
                     "again and says why\n"), r.err


def test_install_refuses_an_existing_chained_name(tmp_path):
    a = make_repo(tmp_path / "a")
    hooks = a / ".git" / "hooks"
    (hooks / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "hn-chained").mkdir()
    (hooks / "hn-chained" / "pre-push").write_text("#!/bin/sh\nexit 1\n")
    r = hn(a, "hooks", "install")
    assert r.err == (f"git-hn: hook {hooks / 'hn-chained' / 'pre-push'} already exists and differs from "
                     f"{hooks / 'pre-push'}; refusing to install: keep the one that is wanted as "
                     f"{hooks / 'pre-push'}, remove the other, then install again\n")
    assert (hooks / "pre-push").read_text() == "#!/bin/sh\nexit 0\n"
    # the same hook in both places (a hook manager wrote its stub again): chained again
    (hooks / "hn-chained" / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    assert hn(a, "hooks", "install").code == 0
    assert (hooks / "hn-chained" / "pre-push").read_text() == "#!/bin/sh\nexit 0\n"


def test_shared_hooks_path(tmp_path):
    shared = tmp_path / "shared-hooks"
    shared.mkdir()
    a = make_repo(tmp_path / "a")
    git(a, "config", "core.hooksPath", str(shared))
    assert hn(a, "hooks", "install").code == 0
    assert (shared / "pre-push").exists() and (shared / "reference-transaction").exists()
    assert not (a / ".git" / "hooks" / "pre-push").exists()
    assert hn(a, "hooks", "status").out.splitlines() == ["pre-push: installed",
                                                         "reference-transaction: installed",
                                                         "post-rewrite: installed"]


def test_global_install(tmp_path):
    a = make_repo(tmp_path / "a")
    # (an audit: each line names the way out: the command that sets the path, or the per-repository one)
    assert hn(a, "hooks", "install", "--global").err == (
        "git-hn: hooks install --global requires git config --global core.hooksPath: set it (git config --global "
        "core.hooksPath ~/.config/git/hooks; Git then runs the hooks there, not each repository's own), then run "
        "git hn hooks install --global again; or run git hn hooks install in each repository\n")
    assert hn(a, "hooks", "status", "--global").err == (
        "git-hn: no global core.hooksPath is set, so no hook of git-hn's is installed globally (hooks status "
        "--global reads that directory); git hn hooks status without --global works on this repository's hooks\n")
    shared = tmp_path / "global-hooks"
    git(a, "config", "--global", "core.hooksPath", str(shared))
    assert hn(tmp_path, "hooks", "install", "--global").code == 0  # works outside a repository
    assert (shared / "hn-hooks.json").exists()
    # a repository's own install then says they are there already, for every repository
    assert hn(a, "hooks", "install").err == (
        f"git-hn: git-hn's hooks are installed already in your global or system core.hooksPath ({shared}), for "
        "every repository (git hn hooks status --global shows them)\n")
    assert hn(tmp_path, "hooks", "uninstall", "--global").code == 0
    assert sorted(os.listdir(shared)) == []


def test_a_repository_install_under_a_global_hooks_path_is_refused(tmp_path):
    """A global ``core.hooksPath`` is every repository's hooks directory: a plain ``hooks install``
    there would run git-hn's wrappers everywhere while only this repository knew of them (another
    repository's install then found them as someone else's hooks). Refused, changing nothing,
    with the two ways out; ``status`` points at ``--global``; both ways out work."""
    a = make_repo(tmp_path / "a")
    shared = tmp_path / "global-hooks"
    shared.mkdir()
    (shared / "pre-push").write_text("#!/bin/sh\necho GLOBAL >&2\n")
    (shared / "pre-push").chmod(0o755)
    git(a, "config", "--global", "core.hooksPath", str(shared))
    r = hn(a, "hooks", "install")
    assert r.code == 1 and r.err == (
        f"git-hn: core.hooksPath is set in your global or system Git config ({shared}), so hooks installed here "
        "would run in every repository: git hn hooks install --global installs them there on purpose; for this "
        "repository only, git config core.hooksPath \"$(git rev-parse --path-format=absolute "
        "--git-common-dir)/hooks\" first\n"), r.err
    assert sorted(os.listdir(shared)) == ["pre-push"] and not (a / ".git" / "hn" / "hooks.json").exists()
    r = hn(a, "hooks", "status")
    assert r.code == 0 and "git hn hooks status --global shows what is installed there" in r.err
    subprocess.run(["sh", "-c", 'git config core.hooksPath "$(git rev-parse --path-format=absolute '
                    '--git-common-dir)/hooks"'], cwd=a, check=True)
    assert hn(a, "hooks", "install").code == 0
    assert (a / ".git" / "hooks" / "pre-push").exists() and sorted(os.listdir(shared)) == ["pre-push"]
    assert hn(a, "hooks", "status").err == ""


def test_pre_push_withholds_an_invalid_stream_and_reports(clones):
    remote, a, _b = clones
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "exact", "--content", "fine").json()
    bad = f"refs/hn/memory/{'c' * 64}/{'d' * 64}"
    git(a, "update-ref", bad, git(a, "rev-parse", "HEAD"))  # not a memory commit
    proc = _push(a, "origin", "main")  # warn (the default): the push still succeeds
    assert "git-hn: memory source" in proc.stderr
    good = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    assert git(remote, "rev-parse", good) == git(a, "rev-parse", good)
    assert git(remote, "rev-parse", "--verify", "-q", bad, check=False) == ""
    git(a, "config", "hn.prePush", "block")
    git(a, "commit", "-q", "--allow-empty", "-m", "more")
    proc = _push(a, "origin", "main", check=False)
    assert proc.returncode != 0 and "git-hn: memory source" in proc.stderr
    assert git(remote, "rev-parse", "main") != git(a, "rev-parse", "main")



def _stub_git_hn(repo, tmp_path, body: str):
    """Point ``repo``'s reference-transaction wrapper at a stub git-hn (a shell script of
    ``body``) instead of the real one; the wrapper's path."""
    stub = tmp_path / "git-hn-stub"
    stub.write_text(f"#!/bin/sh\n{body}\n")
    os.chmod(stub, 0o755)
    wrapper = repo / ".git" / "hooks" / "reference-transaction"
    recorded = next(line.split("=", 1)[1] for line in wrapper.read_text().splitlines()
                    if line.strip().startswith("recorded="))
    wrapper.write_text(wrapper.read_text().replace(f"recorded={recorded}", f"recorded={stub}"))
    return wrapper

def test_the_fetch_hook_starts_git_hn_only_with_a_saved_selection(clones, tmp_path):
    """A repository that selects nothing has nothing to import: its fetches and pushes (which
    move remote-tracking refs) start no git-hn from the reference-transaction wrapper; once a
    selection is saved they do. The wrapper's git-hn is swapped for a stub that logs its runs."""
    remote, a, b = clones
    log = tmp_path / "runs"
    _stub_git_hn(b, tmp_path, f'cat > /dev/null\necho "$*" >> {log}')

    def moved_fetch():
        git(a, "commit", "-q", "--allow-empty", "-m", "moves origin/main")
        _push(a, "origin", "main")
        proc = subprocess.run(["git", "fetch"], cwd=b, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert git(b, "rev-parse", "origin/main") == git(a, "rev-parse", "main")

    moved_fetch()
    assert not log.exists()  # no selection: no git-hn
    git(b, "commit", "-q", "--allow-empty", "-m", "b's work")
    _push(b, "origin", "HEAD:refs/heads/b-work")  # moves refs/remotes/origin/b-work
    assert not log.exists()
    assert hn(b, "replication", "select", "origin", "--memory", "sha256:" + "9" * 64).code == 0
    moved_fetch()
    assert log.read_text() == "hooks run reference-transaction committed\n"



def test_the_fetch_hook_hands_git_hn_exactly_gits_lines_however_many(clones, tmp_path):
    """Without a chained hook the wrapper reads the first two lines itself (a one- or two-line
    transaction, as `git pack-refs` makes one per ref it packs, starts no process) and the rest
    with `cat`: git-hn gets exactly the lines Git gave, for one line, two, or many; a transaction
    that moves no remote-tracking ref starts nothing. `git pack-refs` starts nothing either: not
    for each loose ref it deletes, nor (before Git 2.4x) for its packed-refs transaction, whose
    lines read as creations of refs that packed-refs already holds; a fetch that creates a
    remote-tracking ref still does."""
    _remote, a, b = clones
    log = tmp_path / "runs"
    wrapper = _stub_git_hn(b, tmp_path, f'{{ echo "run $*"; cat; echo end; }} >> {log}')
    assert hn(b, "replication", "select", "origin", "--memory", "sha256:" + "9" * 64).code == 0
    zero, one = "0" * 40, "1" * 40

    def run(lines: list[str]) -> str:
        if log.exists():
            log.unlink()
        proc = subprocess.run([str(wrapper), "committed"], cwd=b, input="".join(lines), text=True,
                              capture_output=True)
        assert proc.returncode == 0, proc.stderr
        return log.read_text() if log.exists() else ""

    for n in (1, 2, 3, 7):
        lines = [f"{zero} {i + 1:040x} refs/remotes/origin/b{i}\n" for i in range(n)]
        assert run(lines) == "run hooks run reference-transaction committed\n" + "".join(lines) + "end\n"
    # a deletion brings nothing; with a line that moves a remote-tracking ref, all lines go on
    deleted = f"{one} {zero} refs/remotes/origin/gone\n"
    moved = f"{zero} {one} refs/remotes/origin/new\n"
    assert run([deleted]) == ""
    assert run([f"{zero} {one} refs/heads/topic\n"]) == ""
    assert run([deleted, moved]) == "run hooks run reference-transaction committed\n" + deleted + moved + "end\n"
    # `git pack-refs`: one deletion per packed loose ref, and (before Git 2.4x) the packed-refs
    # transaction, "creating" the refs at the values packed-refs now holds
    for i in range(3):
        git(b, "update-ref", f"refs/remotes/origin/p{i}", "HEAD")
    if log.exists():
        log.unlink()
    trace = tmp_path / "trace"
    proc = subprocess.run(["git", "pack-refs", "--all"], cwd=b, capture_output=True, text=True,
                          env={**os.environ, "GIT_TRACE": str(trace)})
    assert proc.returncode == 0, proc.stderr
    assert all(f"refs/remotes/origin/p{i}" in (b / ".git" / "packed-refs").read_text() for i in range(3))
    assert "reference-transaction" in trace.read_text()  # the wrapper ran, and started nothing
    assert not log.exists()
    # the same lines when packed-refs does not hold those values: a fetch's creations, imported
    held = [f"{zero} {git(b, 'rev-parse', f'refs/remotes/origin/p{i}')} refs/remotes/origin/p{i}\n"
            for i in range(3)]
    assert run(held) == ""
    fresh = [f"{zero} {one} refs/remotes/origin/p0\n"]
    assert run(fresh) == "run hooks run reference-transaction committed\n" + fresh[0] + "end\n"
    assert run(held[:2] + fresh) != ""
    # a real fetch that creates a remote-tracking branch
    git(a, "commit", "-q", "--allow-empty", "-m", "new branch")
    _push(a, "origin", "HEAD:refs/heads/brand-new")
    if log.exists():
        log.unlink()
    proc = subprocess.run(["git", "fetch"], cwd=b, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"{zero} {git(a, 'rev-parse', 'HEAD')} refs/remotes/origin/brand-new" in log.read_text()


def test_the_background_publisher_waits_for_the_push_before_loading_git_hn(clones):
    """The publisher a pre-push starts waits for the user's ``git push`` to end before it
    imports the rest of git-hn, so its start-up does not compete with that push for CPU."""
    import json
    import sys
    import time

    from git_hn.cli.main import PUBLISHER_WAIT
    from git_hn.service.replication.background import WAIT

    assert PUBLISHER_WAIT == WAIT
    _remote, a, _b = clones
    push = subprocess.Popen(["sleep", "60"])  # stands in for the user's git push
    probe = ("import json, sys\n"
             "from git_hn.store import process\n"
             "real = process.wait_for_exit\n"
             "def waiting(pid, timeout):\n"
             "    sys.stderr.write('LOADED ' + json.dumps(sorted(sys.modules)) + '\\n')\n"
             "    sys.stderr.flush()\n"
             "    return real(pid, timeout)\n"
             "process.wait_for_exit = waiting\n"
             "sys.argv = ['git-hn', 'hooks', 'run', 'publish', 'origin', sys.argv[1]]\n"
             "from git_hn.cli.main import run\n"
             "run()\n")
    try:
        proc = subprocess.Popen([sys.executable, "-c", probe, str(push.pid)], cwd=a, stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        proc.stdin.close()
        time.sleep(1.0)
        assert proc.poll() is None  # still waiting for the push
    finally:
        push.kill()
        push.wait()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, err
    first = json.loads(err.decode().split("LOADED ", 1)[1].split("\n", 1)[0])
    assert "git_hn.store.process" in first
    assert not {"git_hn.service.hooks", "git_hn.service.replication", "subprocess"} & set(first)


def test_the_publisher_runs_as_the_git_hn_the_hook_runs_as(tmp_path, monkeypatch):
    """The background publisher is started as the executable the wrapper ran (its absolute path,
    without searching PATH); run any other way (a relative name, ``python -m git_hn``), the
    hook starts the git-hn on PATH, as the wrappers find it."""
    import sys

    from git_hn.service.replication import background

    def executable(directory):
        path = tmp_path / directory / "git-hn"
        path.parent.mkdir()
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        return str(path)

    ran, on_path = executable("ran"), executable("on-path")
    monkeypatch.setenv("PATH", str(tmp_path / "on-path"))
    monkeypatch.setattr(sys, "argv", [ran, "hooks", "run", "pre-push", "origin"])
    assert background._executable() == ran
    for argv0 in ("git-hn", str(tmp_path / "git_hn" / "__main__.py")):
        monkeypatch.setattr(sys, "argv", [argv0, "hooks", "run", "pre-push", "origin"])
        assert background._executable() == on_path


def test_pre_push_asks_its_git_questions_before_loading_git_hn(clones):
    """The pre-push hook starts the memory ref listing, the remote names and ``hn.prePush`` (with
    every remote's ``hnPublish``, fetch refspecs and ``mirror``) before it imports the rest of git-hn (at 10,000 streams the listing is ~15 ms of Git)."""
    import json
    import sys

    _remote, a, _b = clones
    probe = ("import json, sys\n"
             "from git_hn.store import process\n"
             "real = process.popen\n"
             "def logged(args, **kw):\n"
             "    sys.stderr.write('SPAWN ' + json.dumps([args[1:], 'git_hn.service.hooks' in sys.modules]) + '\\n')\n"
             "    return real(args, **kw)\n"
             "process.popen = logged\n"
             "sys.argv = ['git-hn', 'hooks', 'run', 'pre-push', 'origin', sys.argv[1]]\n"
             "from git_hn.cli.main import run\n"
             "run()\n")
    head = git(a, "rev-parse", "HEAD")
    proc = subprocess.run([sys.executable, "-c", probe, "unused-url"], cwd=a, capture_output=True,
                          input=f"refs/heads/main {head} refs/heads/main {head}\n".encode(), timeout=120,
                          env={k: v for k, v in os.environ.items() if k != "HN_HOOK_ACTIVE"})
    assert proc.returncode == 0, proc.stderr
    spawns = [json.loads(line[6:]) for line in proc.stderr.decode().splitlines() if line.startswith("SPAWN ")]
    early = [args for args, loaded in spawns if not loaded]
    for question in (["for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory", "refs/hn/remotes"],
                     ["remote"], ["config", "--get-regexp",
                                  r"^(hn\.prepush|remote\..*\.(hnpublish|fetch|push|mirror|url|pushurl)"
                                  r"|url\..*\.(insteadof|pushinsteadof))$"]):
        assert any(args[-len(question):] == question for args in early), (question, spawns)
        assert sum(args[-len(question):] == question for args, _l in spawns) == 1  # asked once


def test_fetch_hook_asks_for_the_advertisement_before_loading_json_or_the_sync(clones):
    """For a selection that needs the advertisement (``--all``), the fetch hook asks the remote
    before anything loads ``json``, the grammar or the sync (``core.remotes``): those imports
    then overlap with the remote's round trip. It asks once, after the remote's URL."""
    import ast
    import sys

    _remote, _a, b = clones
    assert hn(b, "replication", "select", "origin", "--all").code == 0
    watched = ("json", "git_hn.core.grammar", "git_hn.core.selection", "git_hn.service.hooks")
    probe = ("import sys\n"
             "from git_hn.store import process\n"
             "real = process.popen\n"
             f"WATCHED = {watched!r}\n"
             "def logged(args, **kw):\n"
             "    loaded = [m for m in WATCHED if m in sys.modules]\n"
             "    sys.stderr.write('SPAWN ' + repr([list(args[1:]), loaded]) + '\\n')\n"
             "    return real(args, **kw)\n"
             "process.popen = logged\n"
             "sys.argv = ['git-hn', 'hooks', 'run', 'reference-transaction', 'committed']\n"
             "from git_hn.cli.main import run\n"
             "run()\n")
    head = git(b, "rev-parse", "HEAD")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=b, capture_output=True, timeout=120,
                          input=f"{head} {head} refs/remotes/origin/main\n".encode(),
                          env={**os.environ, "HN_HOOK_ACTIVE": "1"})
    assert proc.returncode == 0, proc.stderr
    spawns = [ast.literal_eval(line[6:]) for line in proc.stderr.decode().splitlines() if line.startswith("SPAWN ")]
    asked = [i for i, (args, _loaded) in enumerate(spawns) if "ls-remote" in args]
    url = [i for i, (args, _loaded) in enumerate(spawns) if args[-4:] == ["remote", "get-url", "--end-of-options", "origin"]]
    assert len(asked) == 1 and len(url) == 1 and url[0] < asked[0], spawns
    assert spawns[asked[0]][1] == [], spawns  # nothing watched was loaded yet


def test_fetch_hook_never_fails_the_fetch(clones, tmp_path):
    remote, a, b = clones
    assert hn(b, "replication", "select", "origin", "--memory", "sha256:" + "9" * 64).code == 0
    git(a, "commit", "-q", "--allow-empty", "-m", "new")
    _push(a, "origin", "main")
    proc = subprocess.run(["git", "fetch"], cwd=b, capture_output=True, text=True)
    assert proc.returncode == 0
    assert ("git-hn: memory import from origin failed: selected memory 999999999999 is not advertised by remote "
            "origin; run git hn sync origin") in proc.stderr
    # a fetch that updates nothing runs no transaction and prints nothing from git-hn
    proc = subprocess.run(["git", "fetch"], cwd=b, capture_output=True, text=True)
    assert proc.returncode == 0 and "git-hn" not in proc.stderr


def test_a_failed_fetch_import_names_its_cause_in_its_one_line(clones):
    """A team trial: "memory import from origin failed; run git hn sync origin" on every fetch,
    and never why. The line names the first failing stream's cause, shortened (a teammate's
    memory whose anchor commit is not on the remote), and the fetch still succeeds."""
    remote, a, b = clones
    assert hn(b, "replication", "select", "origin", "--all").code == 0
    git(a, "commit", "-q", "--allow-empty", "-m", "never pushed")
    anchor = git(a, "rev-parse", "HEAD")
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
             "--content", "on a commit only A has")
    assert rec.code == 0, rec.err
    rec = rec.json()
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    git(a, "push", "-q", "--no-verify", "origin", f"{ref}:{ref}")  # the memory, without its commit
    git(a, "push", "-q", "--no-verify", "origin", "HEAD~1:refs/heads/other")
    proc = subprocess.run(["git", "fetch"], cwd=b, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # the way out is putting the commit back: this fetch brought origin's branches, and none had
    # it, so "run git hn sync origin" (which fetches them again) would fail the same way (a team trial)
    line = (f'git-hn: memory import from origin failed: stream {rec["stream"][7:19]} of "A" stops at memory '
            f'{rec["memoryId"][7:19]}, whose anchor commit {anchor[:12]} is not on origin; no branch of origin '
            f'this fetch brought has commit {anchor[:12]}: a clone that still has it (its author\'s, most likely) '
            f'can put it back: git push origin {anchor}:refs/heads/hn-anchor/{anchor[:12]}; or one git hn '
            'replication select origin --memory STREAM... leaves the stream out (it replaces the saved selection: '
            'give a --memory for every stream to keep, each by its full ID, which git hn sync origin --json lists)')
    assert [x for x in proc.stderr.splitlines() if x.startswith("git-hn:")] == [line], proc.stderr
    assert "run git hn sync" not in proc.stderr


def test_a_fetch_moving_several_branches_reports_a_failed_import_once(clones):
    """Git runs the reference-transaction hook once per ref a fetch moves, all after the pack
    arrived: the import that failed for the first would fail the same way for the others, so it
    is tried and reported once per fetch (and again by the next fetch)."""
    remote, a, b = clones
    assert hn(b, "replication", "select", "origin", "--memory", "sha256:" + "9" * 64).code == 0
    for round in range(2):
        git(a, "commit", "-q", "--allow-empty", "-m", f"new {round}")
        for branch in ("main", "one", "two"):
            _push(a, "origin", f"HEAD:refs/heads/{branch}")
        proc = subprocess.run(["git", "fetch"], cwd=b, capture_output=True, text=True)
        assert proc.returncode == 0
        assert proc.stderr.count("git-hn: memory import from origin failed") == 1, proc.stderr


def test_a_chained_reference_transaction_hook_gets_gits_lines_and_can_refuse(tmp_path):
    """The wrapper keeps the transaction's lines in a variable (no temporary file) and hands
    the chained hook the same arguments, ``$0`` and bytes as Git does, for each state; a
    refusal at ``prepared`` still aborts the transaction."""
    a = make_repo(tmp_path / "a")
    log = tmp_path / "seen"
    hook = a / ".git" / "hooks" / "reference-transaction"
    hook.write_text('#!/bin/sh\n{ printf "%s %s\\n" "${0##*/}" "$1"; cat; } >> "$SEEN"\n'
                    '[ "$1" = prepared ] && [ -n "$REFUSE" ] && exit 1\nexit 0\n')
    os.chmod(hook, 0o755)
    assert hn(a, "init").code == 0
    assert hn(a, "hooks", "install").out.splitlines()[1] == \
        "reference-transaction: installed (chains hn-chained/reference-transaction)"
    env = {**os.environ, "SEEN": str(log)}
    head = git(a, "rev-parse", "HEAD")
    zero = "0" * len(head)
    updates = f"create refs/heads/x {head}\ncreate refs/tags/y {head}\n"
    subprocess.run(["git", "update-ref", "--stdin"], cwd=a, input=updates, text=True, env=env, check=True)
    lines = f"{zero} {head} refs/heads/x\n{zero} {head} refs/tags/y\n"
    assert log.read_text() == f"reference-transaction prepared\n{lines}reference-transaction committed\n{lines}"
    log.unlink()
    proc = subprocess.run(["git", "update-ref", "refs/heads/z", head], cwd=a, capture_output=True, text=True,
                          env={**env, "REFUSE": "1"})
    assert proc.returncode != 0 and git(a, "for-each-ref", "refs/heads/z") == ""
    assert log.read_text() == (f"reference-transaction prepared\n{zero} {head} refs/heads/z\n"
                               f"reference-transaction aborted\n{zero} {head} refs/heads/z\n")


def test_hook_scripts_in_the_source_tree_match_what_is_installed():
    from git_hn.service import hooks as service

    for name, text in TEMPLATES.items():
        assert (ROOT / "hooks" / name).read_text() == text
        assert os.access(ROOT / "hooks" / name, os.X_OK)
        # what install recognises a wrapper by (every version wrote these two lines): changed, a
        # wrapper would be taken for the user's hook and chained into itself
        assert text.encode().startswith(service._wrapper_head(name))


def test_pre_push_lints_and_withholds_secret_shaped_streams(clones):
    remote, a, _b = clones
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    r = hn(a, "memory", "record", "--json", "--allow-secret-shaped", "--kind", "observation",
           "--at", "HEAD", "--applies", "exact", "--content", f"the token is {token}")
    assert r.code == 0, r.err
    rec = r.json()
    proc = _push(a, "origin", "main")
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    assert (f"git-hn: secret-shaped text in memory {rec['memoryId']} record.content (github-token); "
            f"stream {ref} not published") in proc.stderr
    assert token not in proc.stderr
    assert git(remote, "rev-parse", "--verify", "-q", ref, check=False) == ""


def test_pre_push_names_every_offending_memory_publishes_clean_streams_and_can_block(clones):
    import hashlib

    remote, a, _b = clones
    tokens = ["ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "AKIA" + "IOSFODNN7EXAMPLE"]
    bad = []
    for token in tokens:
        r = hn(a, "memory", "record", "--json", "--allow-secret-shaped", "--kind", "observation",
               "--at", "HEAD", "--applies", "exact", "--content", f"credential {token}")
        assert r.code == 0, r.err
        bad.append(r.json())
    other = "sha256:" + hashlib.sha256(b"a second stream").hexdigest()
    r = hn(a, "memory", "record", "--json", "--stream", other, "--kind", "observation", "--at",
           "HEAD", "--applies", "exact", "--content", "nothing secret here")
    assert r.code == 0, r.err
    clean = r.json()
    bad_ref = f"refs/hn/memory/{clean['actor']}/{bad[0]['stream'][7:]}"
    clean_ref = f"refs/hn/memory/{clean['actor']}/{other[7:]}"
    proc = _push(a, "origin", "main")  # warn (the default): the push goes on
    lines = [l for l in proc.stderr.splitlines() if l.startswith("git-hn:")]
    assert lines == [f"git-hn: secret-shaped text in memory {m['memoryId']} record.content "
                     f"({d}); stream {bad_ref} not published"
                     for m, d in zip(bad, ("github-token", "aws-access-key"))], proc.stderr
    assert all(t not in proc.stderr for t in tokens)
    assert git(remote, "rev-parse", clean_ref) == git(a, "rev-parse", clean_ref)
    assert git(remote, "rev-parse", "--verify", "-q", bad_ref, check=False) == ""
    # block: the same problem now refuses the user's push
    git(a, "config", "hn.prePush", "block")
    (a / "g.txt").write_text("more\n")
    git(a, "add", "g.txt")
    git(a, "commit", "-q", "-m", "more")
    before = git(remote, "rev-parse", "main")
    proc = _push(a, "origin", "main", check=False)
    assert proc.returncode != 0
    assert f"git-hn: secret-shaped text in memory {bad[1]['memoryId']}" in proc.stderr
    last = [l for l in proc.stderr.splitlines() if l.startswith("git-hn:")][-1]
    assert last.endswith(f"stream {bad_ref} not published; to push the code without publishing memory: git "
                         "config hn.prePush warn (publish in the background), or git push --no-verify "
                         "(this push only)")  # a block says how to go on
    assert git(remote, "rev-parse", "main") == before


def _publication_lock(repo, remote="origin"):
    import hashlib

    digest = hashlib.sha256(remote.encode()).hexdigest()[:24]
    return repo / ".git" / "hn" / "locks" / f"publication-{digest}.lock"


def test_the_push_does_not_wait_for_the_publication_which_sends_only_checked_tips(clones):
    """hn.prePush warn (the default): the hook checks, then publishes in the background. Held
    here behind its lock, the publication cannot have finished when the user's push returns;
    released, it sends exactly the tip the hook checked (a newer one waits for the next push).
    That the stream grew meanwhile does not hold the checked tip back (an agent trial: a record
    while the push ran made the publisher skip the stream whole, silently)."""
    import fcntl

    remote, a, _b = clones
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "exact", "--content", "checked by the hook").json()
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    lock = _publication_lock(a)
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        git(a, "commit", "-q", "--allow-empty", "-m", "pushed while the publication waits")
        proc = subprocess.run(["git", "push", "origin", "main"], cwd=a, capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert git(remote, "rev-parse", "main") == git(a, "rev-parse", "main")  # the push is done
        assert git(remote, "rev-parse", "--verify", "-q", ref, check=False) == ""  # memory is not
        checked = git(a, "rev-parse", ref)
        assert hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
                  "exact", "--stream", rec["stream"], "--content", "newer").code == 0
        newer = git(a, "rev-parse", ref)
        assert newer != checked
    finally:
        os.close(fd)  # the publication may go on
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not git(remote, "rev-parse", "--verify", "-q", ref, check=False):
        wait_publication(a)  # (the publisher the push started ends on its own)
        time.sleep(0.05)
    assert git(remote, "rev-parse", ref) == checked  # the checked tip, not the newer one
    git(a, "commit", "-q", "--allow-empty", "-m", "next push")
    _push(a, "origin", "main")
    assert git(remote, "rev-parse", ref) == newer


def test_a_failed_background_publication_is_said_by_the_next_push_and_retried(clones):
    remote, a, _b = clones
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "exact", "--content", "refused once").json()
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    guard = remote / "hooks" / "pre-receive"  # the server refuses memory refs, for now
    guard.write_text("#!/bin/sh\nwhile read old new ref; do\n  case $ref in refs/hn/*) exit 1;; esac\n"
                     "done\nexit 0\n")
    guard.chmod(0o755)
    git(a, "commit", "-q", "--allow-empty", "-m", "one")
    proc = _push(a, "origin", "main")
    assert "git-hn" not in proc.stderr  # the push itself was fine; the publication failed after
    assert git(remote, "rev-parse", "--verify", "-q", ref, check=False) == ""
    guard.unlink()
    git(a, "commit", "-q", "--allow-empty", "-m", "two")
    proc = _push(a, "origin", "main")
    assert proc.stderr.count("git-hn: the last background publication to origin failed (publishing again now): "
                             "replication memory publication failed for remote origin") == 1, proc.stderr
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    git(a, "commit", "-q", "--allow-empty", "-m", "three")
    assert "git-hn" not in _push(a, "origin", "main").stderr  # said once


def test_block_publishes_before_the_push_goes_on(clones):
    remote, a, _b = clones
    git(a, "config", "hn.prePush", "block")
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "exact", "--content", "published first").json()
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    git(a, "commit", "-q", "--allow-empty", "-m", "one")
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=a, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert not list((a / ".git" / "hn" / "replication").glob("*.running"))
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)


def _traced_push(repo, trace: Path) -> list[list[str]]:
    """``git push`` with its background publication, traced: the argv of every Git process
    they ran (the hook's and the publisher's included)."""
    trace.mkdir()
    env = dict(os.environ, GIT_TRACE2_EVENT=str(trace))
    proc = subprocess.run(["git", "push", "-q"], cwd=repo, capture_output=True, text=True, env=env)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    return git_processes(trace)


def test_a_push_after_the_bookkeeping_is_lost_asks_the_remote_instead_of_pushing_again(clones, tmp_path):
    """What each remote was given lives in the verified state, which a rebuild (a new git-hn, a
    damaged file) starts empty, and in the publication journal, which an earlier git-hn did not
    write. With neither, and many streams, the next push asks the remote once what it
    holds, remembers what it already has and pushes none of it, where it used to lint and push
    every stream again (``git push`` matches each explicit refspec against every ref the remote
    advertises: minutes of Git's CPU at 10,000 streams)."""
    import random
    import sys

    from git_hn.service.replication import publish
    from git_hn.store.repo import open_repo

    sys.path.insert(0, str(ROOT / "bench"))
    import memgen

    remote, a, _b = clones
    count = publish.ASK_FROM + 6
    writer = memgen.Actor(bytes(range(1, 33)), "Many Streams")
    memgen.write_streams(str(a), dict(os.environ, HN_HOOK_ACTIVE="1"), [writer], count,
                         git(a, "rev-parse", "HEAD"), random.Random(3), streams_per_actor=count)
    mine = git(a, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory/" + writer.actor)
    assert len(mine.splitlines()) == count
    git(a, "commit", "-q", "--allow-empty", "-m", "one")
    first = _traced_push(a, tmp_path / "first")  # nothing remembered, nothing on the remote yet
    assert sum(argv[:1] == ["ls-remote"] for argv in first) == 2  # the hook's and the publisher's
    assert any(argv[:1] == ["push"] and any("refs/hn/memory/" in x for x in argv) for argv in first)
    assert git(remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory/" + writer.actor) == mine
    given = {ref: oid for ref, oid in (line.split() for line in mine.splitlines())}
    assert {r: o for r, o in publish.published_heads(open_repo(str(a)), "origin").items() if r in given} == given

    for name in ("state-v0.sqlite", "state-v0.seal"):  # as a new git-hn's rebuild starts
        (a / ".git" / "hn" / "memory" / name).unlink()
    git(a, "commit", "-q", "--allow-empty", "-m", "one and a half")
    journal = a / ".git" / "hn" / "replication" / "given-v0"
    # the publication journal outlives the state: it answers, and the remote is not even asked
    kept = _traced_push(a, tmp_path / "kept")
    assert not [argv for argv in kept if argv[:1] == ["ls-remote"]]
    assert not [argv for argv in kept if argv[:1] == ["push"] and any("refs/hn/memory/" in x for x in argv)]
    journal.unlink()  # as an earlier git-hn left a clone: the state was all there was
    git(a, "commit", "-q", "--allow-empty", "-m", "two")
    second = _traced_push(a, tmp_path / "second")
    assert sum(argv[:1] == ["ls-remote"] for argv in second) == 1
    assert not [argv for argv in second if argv[:1] == ["push"] and any("refs/hn/memory/" in x for x in argv)]
    # the answer is kept (in the journal: there is no state yet, nothing had to be verified),
    # so the pushes after it ask nothing, before and after a command rebuilds the state
    assert {r: o for r, o in publish.published_heads(open_repo(str(a)), "origin").items() if r in given} == given
    assert hn(a, "memory", "recall", "--json").code == 0
    for n in ("three", "four"):
        git(a, "commit", "-q", "--allow-empty", "-m", n)
        later = _traced_push(a, tmp_path / n)
        assert not [argv for argv in later if argv[:1] == ["ls-remote"]]
        assert not [argv for argv in later if argv[:1] == ["push"] and any("refs/hn/memory/" in x for x in argv)]


def test_the_remote_is_not_asked_for_a_few_streams_or_when_it_cannot_be(clones):
    """``remote_bases`` asks only when many streams are missing from the bookkeeping, and a
    push URL it may not use leaves the bookkeeping as it was."""
    from git_hn.service.replication import publish
    from git_hn.store.repo import open_repo

    _remote, a, _b = clones
    heads = {f"refs/hn/memory/{'a' * 64}/{i:064x}": "1" * 40 for i in range(publish.ASK_FROM)}
    given = {"refs/hn/memory/x": "2" * 40}
    few = dict(list(heads.items())[:publish.ASK_FROM - 1])
    assert publish.remote_bases(open_repo(str(a)), "origin", few, given) is given
    git(a, "config", "remote.origin.pushurl", "ext::sh -c false")
    assert publish.remote_bases(open_repo(str(a)), "origin", heads, given) is given


@pytest.mark.parametrize("table", ["given_lines", "published"])
def test_a_push_over_damaged_publication_bookkeeping_still_publishes(clones, table):
    """Disk damage the state's seal cannot see (the seal covers size and times, not every
    byte): the pre-push hook's bookkeeping reads fail with SQLite's error, and the hook takes
    the slow path (the whole listing; the remote's own tips) instead of failing the push."""
    import sqlite3

    from git_hn.store import statedb
    from git_hn.store.repo import open_repo

    remote, a, _b = clones
    first = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
               "descendants", "--content", "published once").json()
    _push(a, "origin", "main")
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "then a second").code == 0
    db = a / ".git" / "hn" / "memory" / "state-v0.sqlite"
    conn = sqlite3.connect(db)
    conn.execute(f"DROP TABLE {table}")
    conn.commit()
    conn.close()
    repo = open_repo(str(a))
    statedb.write_seal(repo)  # as if the damage had kept the file's size and times
    repo.close()
    git(a, "commit", "-q", "--allow-empty", "-m", "more work")
    proc = _push(a, "origin", "main")
    assert "Traceback" not in proc.stderr and "sqlite" not in proc.stderr.lower(), proc.stderr
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)


def test_install_hints_that_a_fetch_imports_nothing_until_a_selection_is_saved(tmp_path):
    """The fetch hook imports only for a remote with a saved selection (§10.7): installing where
    there is none says so, and what to run; with one saved (or ``--global``), no hint."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    r = hn(repo, "hooks", "install")
    assert r.code == 0
    assert r.out.splitlines()[0] == "pre-push: installed"
    assert r.err == ("git-hn: hint: no replication selection is saved here, so a fetch imports no memory; "
                     "choose what to import with git hn replication select --all (or --memory sha256:<stream>)\n")
    assert hn(repo, "replication", "select", "--all").code == 0
    assert hn(repo, "hooks", "uninstall").code == 0
    r = hn(repo, "hooks", "install")
    assert (r.code, r.err) == (0, "")


def test_an_install_that_fails_part_way_changes_nothing(tmp_path):
    """A wrapper that cannot be written after others were (here: a directory where its temporary
    goes) used to leave live wrappers no record tracked (``status``: not installed; a later
    install chained them as the user's own hooks). Everything done is taken back, and the error
    says what failed in one line."""
    repo = make_repo(tmp_path / "r")
    hooks = repo / ".git" / "hooks"
    (hooks / "pre-push").write_text("#!/bin/sh\necho team\n")
    (hooks / "pre-push").chmod(0o755)
    before = {p.name: p.read_bytes() for p in hooks.iterdir() if p.is_file()}
    (hooks / "post-rewrite.hn-tmp").mkdir()
    r = hn(repo, "hooks", "install")
    assert r.code == 1 and r.out == ""
    assert r.err.startswith(f"git-hn: hooks could not be installed in {hooks}: ") and \
        r.err.endswith("; nothing was changed\n") and r.err.count("\n") == 1, r.err
    (hooks / "post-rewrite.hn-tmp").rmdir()
    assert {p.name: p.read_bytes() for p in hooks.iterdir() if p.is_file()} == before
    assert not (hooks / "hn-chained").exists()
    assert hn(repo, "hooks", "status").out.splitlines() == [
        "pre-push: not installed", "reference-transaction: not installed", "post-rewrite: not installed"]
    (hooks / "reference-transaction").mkdir()  # a directory where a hook goes: named, nothing changed
    r = hn(repo, "hooks", "install")
    assert (r.code, r.err) == (1, f"git-hn: hook {hooks / 'reference-transaction'} is a directory, not a "
                                  "hook; nothing was changed\n")
    assert {p.name: p.read_bytes() for p in hooks.iterdir() if p.is_file()} == before
    (hooks / "reference-transaction").rmdir()
    r = hn(repo, "hooks", "install")  # and the next install chains the team's hook, not a wrapper
    assert r.code == 0 and r.out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)"
    assert (hooks / "hn-chained" / "pre-push").read_text() == "#!/bin/sh\necho team\n"


def test_hooks_installed_before_a_global_hooks_path_are_still_found(tmp_path):
    """A global ``core.hooksPath`` set after a repository install: Git no longer runs the wrappers in
    ``.git/hooks``; ``status`` says so and ``uninstall`` still takes them out from where they are
    (it refused, naming a file in the new directory that never existed)."""
    a = make_repo(tmp_path / "a")
    assert hn(a, "hooks", "install").code == 0
    elsewhere = tmp_path / "later-hooks"
    elsewhere.mkdir()
    git(a, "config", "--global", "core.hooksPath", str(elsewhere))
    r = hn(a, "hooks", "status")
    assert r.out.splitlines()[0] == ("pre-push: installed in .git/hooks, not run (core.hooksPath changed since): "
                                     "git hn hooks uninstall, then install again"), r.out
    assert r.err == (f"git-hn: hint: these are in {a / '.git' / 'hooks'}, where git-hn installed them, but Git "
                     f"now runs hooks from {elsewhere} (core.hooksPath changed since): they do not run; git hn "
                     "hooks uninstall, then install again\n"), r.err
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert not (a / ".git" / "hooks" / "pre-push").exists() and os.listdir(elsewhere) == []


def test_each_status_line_says_hooks_git_no_longer_runs_are_not_run(tmp_path):
    """A team trial: after ``git config --unset core.hooksPath`` status said "pre-push: installed"
    of wrappers Git no longer runs; only a hint after the lines said they do not run. Each line
    says it now, with where they are and the way back."""
    a = make_repo(tmp_path / "a")
    (a / ".git" / "info" / "exclude").write_text(".hk\n")
    git(a, "config", "core.hooksPath", ".hk")
    (a / ".hk").mkdir()
    hook = a / ".hk" / "pre-push"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    assert hn(a, "hooks", "install").code == 0
    git(a, "config", "--unset", "core.hooksPath")
    r = hn(a, "hooks", "status")
    assert r.code == 0
    assert r.out.splitlines() == [
        "pre-push: installed in .hk (chains hn-chained/pre-push), not run (core.hooksPath changed since): git hn "
        "hooks uninstall, then install again",
        "reference-transaction: installed in .hk, not run (core.hooksPath changed since): git hn hooks uninstall, "
        "then install again",
        "post-rewrite: installed in .hk, not run (core.hooksPath changed since): git hn hooks uninstall, then "
        "install again"], r.out
    assert "they do not run" in r.err
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0 and (a / ".hk" / "pre-push").read_text() == "#!/bin/sh\nexit 0\n", r.err


def test_a_relative_hooks_path_says_linked_worktrees_run_none_and_how_to_share_them(tmp_path):
    """A trial: with an untracked relative ``core.hooksPath`` a linked worktree ran no hook (an
    amend re-anchored nothing), status there said only "not installed", and install's refusal
    pointed at uninstalling from the other worktree, which moved the problem. Install says it,
    status and the refusal in the worktree give the absolute path, and following it works."""
    a = make_repo(tmp_path / "a")
    (a / ".git" / "info" / "exclude").write_text(".hk\n")
    git(a, "config", "core.hooksPath", ".hk")
    r = hn(a, "hooks", "install")
    way = f"core.hooksPath .hk is relative, so each worktree runs hooks from its own .hk: to run these in " \
          f"every worktree, make it absolute: git config core.hooksPath {a / '.hk'}"
    assert r.code == 0 and f"hint: other worktrees (git worktree add) run none of these: {way}" in r.err, r.err
    wt = tmp_path / "wt"
    git(a, "worktree", "add", "-q", "-b", "topic", str(wt))
    r = hn(wt, "hooks", "status")
    assert r.out.splitlines()[0] == "pre-push: not installed"
    assert f"hint: Git runs no hook of git-hn's in this worktree: {way}" in r.err, r.err
    r = hn(wt, "hooks", "install")
    assert r.code == 1 and r.err == (f"git-hn: git-hn's hooks of this repository are installed in {a / '.hk'}, "
                                     f"another worktree's: {way}; nothing was changed\n"), r.err
    assert not (wt / ".hk").exists()
    git(a, "config", "core.hooksPath", str(a / ".hk"))
    r = hn(wt, "hooks", "status")
    assert r.out.splitlines() == ["pre-push: installed", "reference-transaction: installed",
                                  "post-rewrite: installed"] and r.err == "", r


def test_relative_hooks_path_hints_are_said_only_where_true(tmp_path):
    """A review of the hints above: installed from a linked worktree, it is the others that run
    none; a relative setting changed in the worktree that installed names its own directory under
    the older setting (not "another worktree's"); ``../shared`` may be every sibling's, so no hint."""
    a = make_repo(tmp_path / "a")
    (a / ".git" / "info" / "exclude").write_text(".hk*\n")
    git(a, "config", "core.hooksPath", ".hk")
    wt = tmp_path / "wt"
    git(a, "worktree", "add", "-q", "-b", "topic", str(wt))
    r = hn(wt, "hooks", "install")
    assert r.code == 0 and "hint: other worktrees (git worktree add) run none of these: core.hooksPath .hk is " \
        f"relative, so each worktree runs hooks from its own .hk: to run these in every worktree, make it absolute: " \
        f"git config core.hooksPath {wt / '.hk'}" in r.err, r.err
    assert hn(wt, "hooks", "uninstall").code == 0 and hn(a, "hooks", "install").code == 0
    git(a, "config", "core.hooksPath", ".hk2")
    r = hn(a, "hooks", "status")
    assert "Git runs no hook of git-hn's in this worktree" not in r.err and \
        f"names git-hn's hooks in {a / '.hk'}" in r.err, r.err
    r = hn(a, "hooks", "install")
    assert r.code == 1 and "another worktree's:" not in r.err and "with core.hooksPath as it was" in r.err, r.err
    b = make_repo(tmp_path / "b")
    git(b, "config", "core.hooksPath", "../shared")
    (tmp_path / "shared").mkdir()
    r = hn(b, "hooks", "install")
    assert r.code == 0 and "worktrees" not in r.err, r.err


def test_a_copied_repository_uninstalls_its_own_hooks_never_the_originals(tmp_path):
    """``cp -a`` copies the hook record with the original's directory in it: the copy's uninstall
    takes out the copy's wrappers and leaves the original's alone (a recorded directory is
    followed only inside this repository's own Git directory)."""
    import shutil

    a = make_repo(tmp_path / "a")
    assert hn(a, "hooks", "install").code == 0
    copy = tmp_path / "copy"
    shutil.copytree(a, copy, symlinks=True)
    r = hn(copy, "hooks", "status")
    assert r.err == "" and r.out.splitlines()[0] == "pre-push: installed", (r.out, r.err)
    assert hn(copy, "hooks", "uninstall").code == 0
    assert not (copy / ".git" / "hooks" / "pre-push").exists()
    assert (a / ".git" / "hooks" / "pre-push").exists()
    assert hn(a, "hooks", "status").out.splitlines()[0] == "pre-push: installed"


def test_uninstall_after_the_hooks_directory_was_removed_clears_the_record(tmp_path):
    """Installed into a local ``core.hooksPath`` that was then unset and deleted: nothing is left to
    take out, so ``uninstall`` drops the record (it refused, naming a file that never existed)."""
    import shutil

    a = make_repo(tmp_path / "a")
    elsewhere = tmp_path / "b-hooks"
    git(a, "config", "core.hooksPath", str(elsewhere))
    assert hn(a, "hooks", "install").code == 0
    git(a, "config", "--unset", "core.hooksPath")
    shutil.rmtree(elsewhere)
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert not (a / ".git" / "hn" / "hooks.json").exists()
    assert hn(a, "hooks", "install").code == 0 and (a / ".git" / "hooks" / "pre-push").exists()


def test_an_install_never_moves_into_a_global_hooks_path_set_since(tmp_path):
    """Installed into ``.git/hooks``, then a global ``core.hooksPath`` (written with ``~``): a second
    install is not a refresh there (the record names ``.git/hooks``), so it is refused like a
    first one, and the shared directory stays empty."""
    a = make_repo(tmp_path / "a")
    assert hn(a, "hooks", "install").code == 0
    home = Path(os.environ["HOME"])
    shared = home / "shared-hooks"
    shared.mkdir()
    git(a, "config", "--global", "core.hooksPath", "~/shared-hooks")
    r = hn(a, "hooks", "install")
    assert r.code == 1 and f"core.hooksPath is set in your global or system Git config ({shared})" in r.err, r.err
    assert os.listdir(shared) == []


def test_a_hooks_path_unset_since_install_still_uninstalls_and_puts_the_users_hook_back(tmp_path):
    """Installed into a local ``core.hooksPath`` with a hook of the user's (chained), then the
    setting is unset (a hook manager removed): ``status`` names where they are and that they no
    longer run; ``uninstall`` takes the wrappers out there and puts the user's hook back."""
    a = make_repo(tmp_path / "a")
    mine = tmp_path / "myhooks"
    mine.mkdir()
    (mine / "pre-push").write_text("#!/bin/sh\necho USER\n")
    (mine / "pre-push").chmod(0o755)
    git(a, "config", "core.hooksPath", str(mine))
    assert hn(a, "hooks", "install").code == 0
    git(a, "config", "--unset", "core.hooksPath")
    r = hn(a, "hooks", "status")
    assert r.out.splitlines()[0] == (f"pre-push: installed in {mine} (chains hn-chained/pre-push), not run "
                                     "(core.hooksPath changed since): git hn hooks uninstall, then install again"), r.out
    assert f"these are in {mine}, where git-hn installed them" in r.err, r.err
    assert hn(a, "hooks", "uninstall").code == 0
    assert sorted(os.listdir(mine)) == ["pre-push"]
    assert (mine / "pre-push").read_text() == "#!/bin/sh\necho USER\n"
    assert not (a / ".git" / "hn" / "hooks.json").exists()


def test_a_moved_repository_uninstalls_from_its_own_git_directory(tmp_path):
    """``mv`` the repository, then set a ``core.hooksPath``: the record names the old path of the
    repository's own ``.git/hooks``; ``uninstall`` finds the wrappers where the repository is now."""
    old = make_repo(tmp_path / "old")
    assert hn(old, "hooks", "install").code == 0
    moved = tmp_path / "moved"
    os.rename(old, moved)
    elsewhere = tmp_path / "team-hooks"
    elsewhere.mkdir()
    git(moved, "config", "core.hooksPath", str(elsewhere))
    assert hn(moved, "hooks", "uninstall").code == 0
    assert not (moved / ".git" / "hooks" / "pre-push").exists() and os.listdir(elsewhere) == []


def test_a_relative_global_hooks_path_is_each_repositorys_own(tmp_path):
    """``git config --global core.hooksPath .githooks`` (a common setup) names a directory in each
    repository: a repository install there is not refused as shared, works from a subdirectory,
    and ``--global`` says it cannot be installed once for all."""
    a = make_repo(tmp_path / "a")
    (a / "sub").mkdir()
    git(a, "config", "--global", "core.hooksPath", ".githooks")
    assert hn(a, "hooks", "install", "--global").err == (
        "git-hn: the global core.hooksPath is relative (.githooks): Git resolves it in each repository, so "
        "each has its own; run git hn hooks install in each repository\n")
    (a / ".gitignore").write_text(".githooks/\n")
    r = hn(a / "sub", "hooks", "install")
    assert r.code == 0, r.err
    assert (a / ".githooks" / "pre-push").exists() and not (a / "sub" / ".githooks").exists()
    assert hn(a, "hooks", "status").err == ""


def _husky(repo: Path) -> Path:
    """A relative ``core.hooksPath`` as husky sets it, with a hook of the user's in it."""
    d = repo / ".husky" / "_"
    d.mkdir(parents=True)
    (d / ".gitignore").write_text("*\n")
    (d / "pre-push").write_text("#!/bin/sh\necho USER\n")
    (d / "pre-push").chmod(0o755)
    git(repo, "config", "core.hooksPath", ".husky/_")
    return d


def test_a_copy_of_an_older_record_acts_only_on_its_own_hooks(tmp_path):
    """A record written before records named their repository (no ``gitdir``), copied with ``cp -a``
    under husky's relative hooks path: the copy's uninstall takes out the copy's wrappers and
    puts the copy's own hook back; the original stays installed."""
    import json
    import shutil

    a = make_repo(tmp_path / "a")
    hooks_a = _husky(a)
    assert hn(a, "hooks", "install").code == 0
    record = a / ".git" / "hn" / "hooks.json"
    doc = json.loads(record.read_text())
    doc.pop("gitdir")
    record.write_text(json.dumps(doc))
    c = tmp_path / "c"
    shutil.copytree(a, c, symlinks=True)
    r = hn(c, "hooks", "status")
    assert "changed since" not in r.err and r.out.splitlines()[0].startswith("pre-push: installed"), (r.out, r.err)
    assert hn(c, "hooks", "uninstall").code == 0
    assert (c / ".husky" / "_" / "pre-push").read_text() == "#!/bin/sh\necho USER\n"
    assert not (c / ".husky" / "_" / "hn-chained").exists()
    assert (hooks_a / "hn-chained" / "pre-push").exists()
    assert hn(a, "hooks", "status").out.splitlines()[0].startswith("pre-push: installed")


def test_a_linked_worktree_with_a_relative_hooks_path_never_acts_on_the_main_ones(tmp_path):
    """A relative ``core.hooksPath`` names a directory in each worktree: from a linked worktree,
    status does not claim the setting changed, and uninstall refuses (naming where they are)
    rather than take out the main worktree's hooks; from the main worktree it works."""
    a = make_repo(tmp_path / "a")
    hooks_a = _husky(a)
    assert hn(a, "hooks", "install").code == 0
    wt = tmp_path / "wt"
    git(a, "worktree", "add", "-q", str(wt))
    r = hn(wt, "hooks", "status")
    assert "changed since" not in r.err and "Git runs no hook of git-hn's in this worktree" in r.err \
        and f"make it absolute: git config core.hooksPath {hooks_a}" in r.err, r.err
    r = hn(wt, "hooks", "uninstall")
    assert r.code == 1 and f"git-hn's hooks were installed in {hooks_a}" in r.err, r.err
    assert (hooks_a / "hn-chained" / "pre-push").exists()
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks_a / "pre-push").read_text() == "#!/bin/sh\necho USER\n"


def test_uninstall_after_a_wrapper_was_deleted_by_hand_takes_out_the_rest(tmp_path):
    a = make_repo(tmp_path / "a")
    assert hn(a, "hooks", "install").code == 0
    (a / ".git" / "hooks" / "reference-transaction").unlink()
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert not (a / ".git" / "hooks" / "pre-push").exists() and not (a / ".git" / "hn" / "hooks.json").exists()


def test_a_gone_hooks_directory_never_touches_the_users_hook_where_git_runs_hooks_now(tmp_path):
    """Installed into husky's directory (chaining its stub), which was then removed with the
    setting, while ``.git/hooks`` holds a hook of the user's: uninstall drops the record and
    leaves that hook as it is (it refused, naming it as changed)."""
    import shutil

    a = make_repo(tmp_path / "a")
    own = a / ".git" / "hooks" / "pre-push"
    own.write_text("#!/bin/sh\necho OWN\n")
    own.chmod(0o755)
    _husky(a)
    assert hn(a, "hooks", "install").code == 0
    shutil.rmtree(a / ".husky")
    git(a, "config", "--unset", "core.hooksPath")
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert own.read_text() == "#!/bin/sh\necho OWN\n" and not (a / ".git" / "hn" / "hooks.json").exists()


def _with_user_hook(tmp_path, name="a") -> Path:
    repo = make_repo(tmp_path / name)
    own = repo / ".git" / "hooks" / "pre-push"
    own.write_text("#!/bin/sh\necho OWN\n")
    own.chmod(0o755)
    assert hn(repo, "hooks", "install").code == 0
    return repo


def test_a_copys_chained_hook_is_never_left_without_a_record(tmp_path):
    """In a ``cp -a`` copy whose wrapper was deleted by hand while the user's hook is chained, the
    uninstall refuses as it does in the original (it dropped the record and left the user's hook
    in hn-chained/); with core.hooksPath set in the copy, the copy's own .git/hooks is the one
    followed and uninstalled, never the original's."""
    import shutil

    a = _with_user_hook(tmp_path)
    c = tmp_path / "c"
    shutil.copytree(a, c, symlinks=True)
    (c / ".git" / "hooks" / "pre-push").unlink()
    r = hn(c, "hooks", "uninstall")
    assert r.code == 1 and (c / ".git" / "hn" / "hooks.json").exists(), r.err
    assert (c / ".git" / "hooks" / "hn-chained" / "pre-push").read_text() == "#!/bin/sh\necho OWN\n"
    d = tmp_path / "d"
    shutil.copytree(a, d, symlinks=True)
    elsewhere = tmp_path / "z-hooks"
    elsewhere.mkdir()
    git(d, "config", "core.hooksPath", str(elsewhere))
    r = hn(d, "hooks", "status")
    assert f"these are in {d / '.git' / 'hooks'}" in r.err and str(a) not in r.err, r.err
    assert hn(d, "hooks", "uninstall").code == 0
    assert (d / ".git" / "hooks" / "pre-push").read_text() == "#!/bin/sh\necho OWN\n"
    assert (a / ".git" / "hooks" / "hn-chained" / "pre-push").exists()  # (the original's, untouched)


def test_an_install_never_moves_the_record_away_from_installed_wrappers(tmp_path):
    """core.hooksPath changed since the install (or another worktree's relative one): a second
    install would move the record and strand the wrappers and the hook they chain, so it refuses,
    naming where they are; after uninstalling there, it installs."""
    a = _with_user_hook(tmp_path)
    elsewhere = tmp_path / "y-hooks"
    elsewhere.mkdir()
    git(a, "config", "core.hooksPath", str(elsewhere))
    r = hn(a, "hooks", "install")
    assert r.code == 1 and f"git-hn's hooks of this repository are installed in {a / '.git' / 'hooks'}" in r.err, r.err
    assert os.listdir(elsewhere) == []
    assert hn(a, "hooks", "uninstall").code == 0
    assert (a / ".git" / "hooks" / "pre-push").read_text() == "#!/bin/sh\necho OWN\n"
    assert hn(a, "hooks", "install").code == 0 and (elsewhere / "pre-push").exists()


def _user_hook(path: Path, text="#!/bin/sh\necho OWN\n") -> None:
    path.write_text(text)
    path.chmod(0o755)


def _commit_finishes(repo) -> None:
    """A commit runs ``reference-transaction``: a wrapper chained into itself never returns."""
    proc = subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "x"], cwd=repo, capture_output=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_a_hooks_directory_two_repositories_name_never_gets_a_wrapper_chained_into_itself(tmp_path):
    """Two repositories whose local ``core.hooksPath`` names one directory (a reviewer's case): the
    second install chained the first's wrappers as "the user's hooks", and every commit then ran
    the wrapper inside itself without end. It is refused now, changing nothing, and status says
    git-hn's wrappers run there already."""
    shared = tmp_path / "shared"
    shared.mkdir()
    a, b = make_repo(tmp_path / "a"), make_repo(tmp_path / "b")
    for repo in (a, b):
        git(repo, "config", "core.hooksPath", str(shared))
    assert hn(a, "hooks", "install").code == 0
    before = {p.name: p.read_bytes() for p in shared.iterdir()}
    r = hn(b, "hooks", "status")
    assert r.out.splitlines()[0] == "pre-push: not installed"
    assert f"{shared} holds git-hn wrappers that this repository's record does not name" in r.err, r.err
    r = hn(b, "hooks", "install")
    assert r.code == 1 and f"{shared / 'pre-push'} is already a git-hn wrapper that this repository's hook " \
        "record does not name" in r.err and r.err.endswith("nothing was changed\n"), r.err
    assert {p.name: p.read_bytes() for p in shared.iterdir()} == before
    assert not (b / ".git" / "hn" / "hooks.json").exists()
    _commit_finishes(b)
    _commit_finishes(a)


def test_a_lost_record_in_the_git_directory_takes_on_the_wrappers_and_the_users_hook(tmp_path):
    """``.git/hn/hooks.json`` lost (the wrappers and the chained hook stay): install again takes
    the wrappers on, never chaining one into itself, and uninstall puts the user's hook back."""
    a = make_repo(tmp_path / "a")
    hooks = a / ".git" / "hooks"
    _user_hook(hooks / "pre-push")
    _user_hook(hooks / "reference-transaction", "#!/bin/sh\nexit 0\n")
    assert hn(a, "hooks", "install").code == 0
    (a / ".git" / "hn" / "hooks.json").unlink()
    r = hn(a, "hooks", "install")
    assert r.code == 0, r.err
    assert r.out.splitlines()[:2] == ["pre-push: installed (chains hn-chained/pre-push)",
                                      "reference-transaction: installed (chains hn-chained/reference-transaction)"]
    assert (hooks / "hn-chained" / "pre-push").read_text() == "#!/bin/sh\necho OWN\n"
    _commit_finishes(a)
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks / "pre-push").read_text() == "#!/bin/sh\necho OWN\n"
    assert stat.S_IMODE((hooks / "pre-push").stat().st_mode) == 0o755
    assert (hooks / "reference-transaction").read_text() == "#!/bin/sh\nexit 0\n"
    assert not (hooks / "hn-chained").exists() and not (hooks / "post-rewrite").exists()


def test_a_chained_hook_removed_by_hand_never_blocks_uninstall(tmp_path):
    """The user's chained hook deleted by hand (or the whole hooks directory), then install
    again: the record kept naming the chained hook, and uninstall refused for good ("changed
    since install", of a file that no longer existed). Now the wrapper is taken out and nothing
    is put back."""
    import shutil

    a = make_repo(tmp_path / "a")
    hooks = a / ".git" / "hooks"
    _user_hook(hooks / "pre-push")
    assert hn(a, "hooks", "install").code == 0
    (hooks / "hn-chained" / "pre-push").unlink()
    assert hn(a, "hooks", "install").code == 0
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert not (hooks / "pre-push").exists() and not (a / ".git" / "hn" / "hooks.json").exists()
    _user_hook(hooks / "pre-push")
    assert hn(a, "hooks", "install").code == 0
    shutil.rmtree(hooks)
    r = hn(a, "hooks", "install")
    assert r.code == 0 and r.out.splitlines()[0] == "pre-push: installed", (r.out, r.err)
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert os.listdir(hooks) == []


def test_a_wrapper_replaced_while_a_hook_is_chained_says_what_to_do(tmp_path):
    a = make_repo(tmp_path / "a")
    hooks = a / ".git" / "hooks"
    _user_hook(hooks / "pre-push", "#!/bin/sh\necho OLD\n")
    assert hn(a, "hooks", "install").code == 0
    _user_hook(hooks / "pre-push", "#!/bin/sh\necho NEW\n")
    r = hn(a, "hooks", "uninstall")
    assert r.err == (f"git-hn: hook {hooks / 'pre-push'} changed since install; refusing to uninstall "
                     f"({hooks / 'hn-chained' / 'pre-push'} holds the hook that was there before: keep the one "
                     f"that is wanted as {hooks / 'pre-push'}, remove the other, then uninstall again)\n")
    (hooks / "hn-chained" / "pre-push").unlink()  # NEW is the one wanted
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert [n for n in os.listdir(hooks) if not n.endswith(".sample")] == ["pre-push"]
    assert (hooks / "pre-push").read_text() == "#!/bin/sh\necho NEW\n"


def test_a_moved_repository_whose_hooks_path_is_gone_keeps_its_record(tmp_path):
    """An absolute ``core.hooksPath`` inside the working tree, then ``mv``: it names a directory
    that no longer exists. Uninstall dropped the record and stranded the wrappers (and a second
    install then chained them into themselves); it refuses now, and status says why."""
    m1 = make_repo(tmp_path / "m1")
    (m1 / ".githooks").mkdir()
    (m1 / ".gitignore").write_text(".githooks/\n")
    git(m1, "config", "core.hooksPath", str(m1 / ".githooks"))
    assert hn(m1, "hooks", "install").code == 0
    m2 = tmp_path / "m2"
    os.rename(m1, m2)
    r = hn(m2, "hooks", "status")
    assert f"core.hooksPath names {m1 / '.githooks'}, which does not exist" in r.err, r.err
    r = hn(m2, "hooks", "uninstall")
    assert (r.code, r.err) == (1, f"git-hn: core.hooksPath names {m1 / '.githooks'}, which does not exist: this "
                               "repository was moved since git-hn installed its hooks there; set core.hooksPath to "
                               "where they are now, then uninstall again; nothing was changed\n")
    assert (m2 / ".git" / "hn" / "hooks.json").exists() and (m2 / ".githooks" / "pre-push").exists()
    git(m2, "config", "core.hooksPath", str(m2 / ".githooks"))
    assert hn(m2, "hooks", "uninstall").code == 0
    assert os.listdir(m2 / ".githooks") == []


def test_a_copy_sharing_the_originals_hooks_path_never_uninstalls_them(tmp_path):
    import shutil

    shared = tmp_path / "team-hooks"
    shared.mkdir()
    a = make_repo(tmp_path / "a")
    git(a, "config", "core.hooksPath", str(shared))
    assert hn(a, "hooks", "install").code == 0
    c = tmp_path / "c"
    shutil.copytree(a, c, symlinks=True)
    r = hn(c, "hooks", "status")
    assert f"installed by the repository whose Git directory is {a / '.git'}" in r.err, r.err
    r = hn(c, "hooks", "uninstall")
    assert r.code == 1 and f"installed by the repository whose Git directory is {a / '.git'}" in r.err, r.err
    assert (shared / "pre-push").exists()
    assert hn(a, "hooks", "uninstall").code == 0 and os.listdir(shared) == []


def test_a_repository_uninstall_under_a_global_install_says_where_they_are(tmp_path):
    shared = tmp_path / "global-hooks"
    a = make_repo(tmp_path / "a")
    git(a, "config", "--global", "core.hooksPath", str(shared))
    assert hn(tmp_path, "hooks", "install", "--global").code == 0
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0 and r.err == (f"git-hn: hint: git-hn's hooks for every repository are still in your global "
                                     f"core.hooksPath ({shared}): git hn hooks uninstall --global takes them out\n")
    assert (shared / "pre-push").exists()


def test_a_worktrees_own_hooks_path_is_never_taken_for_a_change_since_install(tmp_path):
    """``extensions.worktreeConfig`` with ``git config --worktree core.hooksPath`` in a linked
    worktree: installed there, the main worktree's status claimed the setting changed since and
    advised the uninstall that would take them out of the linked worktree."""
    a = make_repo(tmp_path / "a")
    wt = tmp_path / "wt"
    git(a, "worktree", "add", "-q", str(wt))
    git(a, "config", "extensions.worktreeConfig", "true")
    own = tmp_path / "wt-hooks"
    own.mkdir()
    git(wt, "config", "--worktree", "core.hooksPath", str(own))
    assert hn(wt, "hooks", "install").code == 0
    r = hn(a, "hooks", "status")
    assert "changed since" not in r.err and f"names git-hn's hooks in {own}" in r.err, r.err
    assert r.out.splitlines()[0] == "pre-push: not installed"
    assert hn(a, "hooks", "uninstall").code == 1 and (own / "pre-push").exists()
    assert hn(wt, "hooks", "uninstall").code == 0 and os.listdir(own) == []


def test_an_install_refused_after_the_hooks_path_was_unset_names_the_uninstall_that_works(tmp_path):
    a = make_repo(tmp_path / "a")
    mine = tmp_path / "myhooks"
    git(a, "config", "core.hooksPath", str(mine))
    assert hn(a, "hooks", "install").code == 0
    git(a, "config", "--unset", "core.hooksPath")
    r = hn(a, "hooks", "install")
    assert r.err == (f"git-hn: git-hn's hooks of this repository are installed in {mine} (with core.hooksPath as "
                     "it was): git hn hooks uninstall takes them out from there, then install again\n")
    assert hn(a, "hooks", "uninstall").code == 0 and hn(a, "hooks", "install").code == 0
    assert (a / ".git" / "hooks" / "pre-push").exists() and os.listdir(mine) == []


def test_a_link_to_a_git_hn_wrapper_is_chained_and_never_loops(tmp_path):
    """``.git/hooks/<hook>`` a symbolic link to a wrapper (another repository's shared directory):
    chained, the wrapper it leads to ran again with this wrapper's ``$0``, found the same chained
    hook, and every commit and push ran without end. A link is the user's (chained, and put back
    as it was); a chained hook that leads back to the wrapper running it runs once."""
    shared = tmp_path / "S"
    a, b = make_repo(tmp_path / "a"), make_repo(tmp_path / "b")
    git(a, "config", "core.hooksPath", str(shared))
    assert hn(a, "hooks", "install").code == 0
    before = {p.name: p.read_bytes() for p in shared.iterdir()}
    for name in ("pre-push", "reference-transaction"):
        (b / ".git" / "hooks" / name).symlink_to(shared / name)
    r = hn(b, "hooks", "install")
    assert r.code == 0 and r.out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)", r
    _commit_finishes(b)
    remote = tmp_path / "r.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(b, "remote", "add", "o", str(remote))
    proc = subprocess.run(["git", "push", "-q", "o", "HEAD:refs/heads/x"], cwd=b, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert {p.name: p.read_bytes() for p in shared.iterdir()} == before
    assert hn(b, "hooks", "uninstall").code == 0
    assert os.readlink(b / ".git" / "hooks" / "pre-push") == str(shared / "pre-push")
    assert os.readlink(b / ".git" / "hooks" / "reference-transaction") == str(shared / "reference-transaction")


def test_a_lost_record_under_pre_commits_migration_mode_takes_on_the_legacy_wrapper(tmp_path):
    """pre-commit moved the wrapper to ``pre-push.legacy`` and runs it from its own hook; with the
    record lost, install chained pre-commit's hook, which runs the wrapper, which runs it again."""
    a = make_repo(tmp_path / "a")
    hooks = a / ".git" / "hooks"
    assert hn(a, "hooks", "install").code == 0
    os.rename(hooks / "pre-push", hooks / "pre-push.legacy")
    stub = '#!/bin/sh\n# pre-commit stand-in\nexec "$0.legacy" "$@"\n'
    _user_hook(hooks / "pre-push", stub)
    (a / ".git" / "hn" / "hooks.json").unlink()
    r = hn(a, "hooks", "install")
    assert r.code == 0 and r.out.splitlines()[0] == "pre-push: installed (pre-commit runs it as pre-push.legacy)", r
    assert (hooks / "pre-push").read_text() == stub and not (hooks / "hn-chained").exists()
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks / "pre-push").read_text() == stub and not (hooks / "pre-push.legacy").exists()


def test_a_wrapper_chained_into_itself_is_healed(tmp_path):
    """A repository an earlier version left looping (its record lost, then install chained its
    own wrappers): install removes the chained wrapper, and commits finish again."""
    import json

    a = make_repo(tmp_path / "a")
    hooks = a / ".git" / "hooks"
    assert hn(a, "hooks", "install").code == 0
    (hooks / "hn-chained").mkdir()
    (hooks / "hn-chained" / "reference-transaction").write_bytes((hooks / "reference-transaction").read_bytes())
    (hooks / "hn-chained" / "reference-transaction").chmod(0o755)
    record = a / ".git" / "hn" / "hooks.json"
    doc = json.loads(record.read_text())
    for h in doc["hooks"]:
        if h["name"] == "reference-transaction":
            h["chained"], h["chainedMode"] = h["wrapper"], 0o755
    record.write_text(json.dumps(doc))
    r = hn(a, "hooks", "install")
    assert r.code == 0 and r.out.splitlines()[1] == "reference-transaction: installed", r
    assert not (hooks / "hn-chained").exists()
    _commit_finishes(a)
    assert hn(a, "hooks", "uninstall").code == 0
    assert not (hooks / "reference-transaction").exists()


def test_a_record_is_another_repositorys_only_while_that_repository_still_names_the_directory(tmp_path):
    """A repository moved away and a new one made at its old path (no record), or a copy whose
    original has uninstalled since: the record is this repository's own again."""
    import shutil

    shared = tmp_path / "sh"
    m1 = make_repo(tmp_path / "m1")
    git(m1, "config", "core.hooksPath", str(shared))
    assert hn(m1, "hooks", "install").code == 0
    moved = tmp_path / "m1-moved"
    os.rename(m1, moved)
    make_repo(tmp_path / "m1")
    r = hn(moved, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert os.listdir(shared) == []
    a = make_repo(tmp_path / "a")
    git(a, "config", "core.hooksPath", str(shared))
    assert hn(a, "hooks", "install").code == 0
    c = tmp_path / "c"
    shutil.copytree(a, c, symlinks=True)
    assert hn(a, "hooks", "uninstall").code == 0
    r = hn(c, "hooks", "status")
    assert r.out.splitlines()[0] == "pre-push: not installed" and r.err == "", (r.out, r.err)
    assert hn(c, "hooks", "uninstall").code == 0 and not (c / ".git" / "hn" / "hooks.json").exists()


def test_a_lost_record_outside_the_git_directory_says_how_to_take_the_wrappers_out(tmp_path):
    a = make_repo(tmp_path / "a")
    d = _husky(a)
    assert hn(a, "hooks", "install").code == 0
    (a / ".git" / "hn" / "hooks.json").unlink()
    r = hn(a, "hooks", "install")
    assert r.code == 1 and "the record was lost (then take git-hn's wrappers out by hand: delete each, and move " \
        "hn-chained/<hook>, if there, back in its place); nothing was changed" in r.err, r.err
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0 and f"{d} still holds git-hn wrappers that this repository's record does not name" in r.err
    g = tmp_path / "G"
    git(a, "config", "--global", "core.hooksPath", str(g))
    assert hn(tmp_path, "hooks", "install", "--global").code == 0
    (g / "hn-hooks.json").unlink()
    r = hn(tmp_path, "hooks", "status", "--global")
    assert f"{g} holds git-hn wrappers that the record {g / 'hn-hooks.json'} does not name" in r.err, r.err
    r = hn(tmp_path, "hooks", "install", "--global")
    assert r.code == 1 and f"that the record {g / 'hn-hooks.json'} does not name" in r.err, r.err


def test_worktree_configuration_in_a_repository_of_one_worktree_still_follows_the_record(tmp_path):
    """``git sparse-checkout`` turns ``extensions.worktreeConfig`` on by itself: with one worktree
    there is no other whose hooks path the record could name."""
    a = make_repo(tmp_path / "a")
    git(a, "config", "extensions.worktreeConfig", "true")
    mine = tmp_path / "x9"
    git(a, "config", "core.hooksPath", str(mine))
    assert hn(a, "hooks", "install").code == 0
    git(a, "config", "--unset", "core.hooksPath")
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert os.listdir(mine) == []


def test_a_legacy_chained_link_refreshed_into_the_new_layout_still_uninstalls(tmp_path):
    """A relative link chained by the layout before ``hn-chained/`` (``pre-push.hn-chained``):
    a refresh moves it one folder down, rewriting its text; the record now says what to put back."""
    import json

    a = make_repo(tmp_path / "a")
    (a / "scripts").mkdir()
    _user_hook(a / "scripts" / "pre-push")
    hooks = a / ".git" / "hooks"
    (hooks / "pre-push").symlink_to("../../scripts/pre-push")
    assert hn(a, "hooks", "install").code == 0
    (hooks / "hn-chained" / "pre-push").unlink()
    (hooks / "hn-chained").rmdir()
    (hooks / "pre-push.hn-chained").symlink_to("../../scripts/pre-push")
    record = a / ".git" / "hn" / "hooks.json"
    doc = json.loads(record.read_text())
    for h in doc["hooks"]:
        if h["name"] == "pre-push":  # (as that layout recorded it: the link moved, its text kept)
            h.pop("chainedLink", None)
            h["chained"] = "link:../../scripts/pre-push"
    record.write_text(json.dumps(doc))
    assert hn(a, "hooks", "install").code == 0
    assert os.readlink(hooks / "hn-chained" / "pre-push") == "../../../scripts/pre-push"
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert os.readlink(hooks / "pre-push") == "../../scripts/pre-push"


MARKER_COMMENT = "#!/bin/sh\n# git-hn's wrappers carry \"(installed by `git hn hooks install`\": we grep for it\nexit 0\n"


def test_a_users_hook_that_mentions_the_wrappers_marker_is_chained_and_put_back(tmp_path):
    """Only a file that starts as a wrapper does is one: a team hook quoting the marker text
    was taken on as a wrapper (overwritten, then deleted by uninstall)."""
    a = make_repo(tmp_path / "a")
    hooks = a / ".git" / "hooks"
    _user_hook(hooks / "pre-push", MARKER_COMMENT)
    r = hn(a, "hooks", "install")
    assert r.out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)", r
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks / "pre-push").read_text() == MARKER_COMMENT


def test_an_edited_chained_hook_or_wrapper_is_never_removed_or_overwritten(tmp_path):
    a = make_repo(tmp_path / "a")
    hooks = a / ".git" / "hooks"
    _user_hook(hooks / "pre-push")
    assert hn(a, "hooks", "install").code == 0
    with open(hooks / "hn-chained" / "pre-push", "a") as fh:
        fh.write("# (installed by `git hn hooks install`\n")
    r = hn(a, "hooks", "uninstall")
    assert r.code == 1 and r.err == (
        f"git-hn: hook {hooks / 'hn-chained' / 'pre-push'} changed since install (the hook git-hn's pre-push "
        f"wrapper runs, edited since); refusing to put it back: to keep the edit, replace {hooks / 'pre-push'} "
        "with it by hand, then uninstall again; nothing was changed\n"), r.err
    assert (hooks / "hn-chained" / "pre-push").exists()
    edited = (hooks / "hn-chained" / "pre-push").read_bytes()
    os.replace(hooks / "hn-chained" / "pre-push", hooks / "pre-push")  # (what the line says)
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks / "pre-push").read_bytes() == edited and not (hooks / "reference-transaction").exists()
    b = make_repo(tmp_path / "b")
    assert hn(b, "hooks", "install").code == 0
    with open(b / ".git" / "hooks" / "pre-push", "a") as fh:
        fh.write("echo MY-EDIT\n")
    edited = (b / ".git" / "hooks" / "pre-push").read_bytes()
    r = hn(b, "hooks", "install")
    assert r.code == 1 and "changed since install (git-hn's wrapper, edited)" in r.err, r.err
    assert (b / ".git" / "hooks" / "pre-push").read_bytes() == edited


def test_a_chained_link_that_comes_to_lead_to_a_wrapper_never_loops(tmp_path):
    """B's pre-push links A's team hook; B installs (chaining the link), then A installs (A's
    pre-push becomes a wrapper): B's chained hook leads to a wrapper, which ran B's chained hook
    again without end; a link to itself did the same. Both run once now, and uninstall puts the
    links back."""
    remote = tmp_path / "r.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a, b = make_repo(tmp_path / "A"), make_repo(tmp_path / "B")
    _user_hook(a / ".git" / "hooks" / "pre-push", "#!/bin/sh\necho TEAM\n")
    (b / ".git" / "hooks" / "pre-push").symlink_to("../../../A/.git/hooks/pre-push")
    (b / ".git" / "hooks" / "post-rewrite").symlink_to("post-rewrite")  # (a link to itself)
    assert hn(b, "hooks", "install").code == 0
    assert hn(a, "hooks", "install").code == 0
    git(b, "remote", "add", "o", str(remote))
    proc = subprocess.run(["git", "push", "-q", "o", "HEAD:refs/heads/b"], cwd=b, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run(["git", "commit", "-q", "--amend", "-m", "amended"], cwd=b, capture_output=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    r = hn(b, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert os.readlink(b / ".git" / "hooks" / "pre-push") == "../../../A/.git/hooks/pre-push"
    assert os.readlink(b / ".git" / "hooks" / "post-rewrite") == "post-rewrite"


def test_a_refused_uninstall_changes_nothing(tmp_path):
    a = make_repo(tmp_path / "a")
    hooks_a, hooks_b = a / "hooksA", a / "hooksB"
    (a / ".git" / "info").mkdir(exist_ok=True)
    (a / ".git" / "info" / "exclude").write_text("hooksA/\nhooksB/\n")
    hooks_a.mkdir()
    _user_hook(hooks_a / "pre-push", "#!/bin/sh\necho TEAM\n")
    git(a, "config", "core.hooksPath", "hooksA")
    assert hn(a, "hooks", "install").code == 0
    record = (a / ".git" / "hn" / "hooks.json").read_bytes()
    git(a, "config", "core.hooksPath", "hooksB")
    (hooks_b / "hn-chained").mkdir(parents=True)
    (hooks_b / "hn-chained" / "pre-push").symlink_to("../../hooksA/pre-push")
    assert hn(a, "hooks", "uninstall").code == 1
    assert (a / ".git" / "hn" / "hooks.json").read_bytes() == record
    assert os.path.islink(hooks_b / "hn-chained" / "pre-push")
    git(a, "config", "core.hooksPath", "hooksA")
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks_a / "pre-push").read_text() == "#!/bin/sh\necho TEAM\n" and not (hooks_a / "hn-chained").exists()


def test_a_wrapper_pre_commit_no_longer_runs_is_installed_again(tmp_path):
    """pre-commit moved the wrapper to ``pre-push.legacy`` and was later removed: nothing is at
    ``pre-push``, so Git runs no pre-push hook; status said "installed" and install changed
    nothing."""
    a = make_repo(tmp_path / "a")
    hooks = a / ".git" / "hooks"
    assert hn(a, "hooks", "install").code == 0
    os.rename(hooks / "pre-push", hooks / "pre-push.legacy")
    assert hn(a, "hooks", "status").out.splitlines()[0] == "pre-push: not installed"
    r = hn(a, "hooks", "install")
    assert r.code == 0 and r.out.splitlines()[0] == "pre-push: installed", r
    assert (hooks / "pre-push").exists() and not (hooks / "pre-push.legacy").exists()


def test_a_fifo_named_like_a_hook_blocks_no_hooks_command(tmp_path):
    from helpers import hn_proc

    a = make_repo(tmp_path / "a")
    os.mkfifo(a / ".git" / "hooks" / "pre-push")
    for which in ("status", "install", "status", "uninstall"):
        r = hn_proc(a, "hooks", which, timeout=60)
        assert r.code in (0, 1), (which, r.err)
    assert stat.S_ISFIFO(os.lstat(a / ".git" / "hooks" / "pre-push").st_mode)


def test_a_copy_never_uninstalls_when_the_originals_record_cannot_be_read(tmp_path):
    import shutil

    shared = tmp_path / "sh"
    a = make_repo(tmp_path / "a")
    git(a, "config", "core.hooksPath", str(shared))
    assert hn(a, "hooks", "install").code == 0
    c = tmp_path / "c"
    shutil.copytree(a, c, symlinks=True)
    (a / ".git" / "hn" / "hooks.json").write_text("{")  # (damaged: not known to name another directory)
    r = hn(c, "hooks", "uninstall")
    assert r.code == 1 and f"installed by the repository whose Git directory is {a / '.git'}" in r.err, r.err
    assert (shared / "pre-push").exists()


def test_status_under_a_global_install_points_to_it(tmp_path):
    g = tmp_path / "G"
    a = make_repo(tmp_path / "a")
    git(a, "config", "--global", "core.hooksPath", str(g))
    assert hn(tmp_path, "hooks", "install", "--global").code == 0
    r = hn(a, "hooks", "status")
    # (the lines themselves say so since upgrade trial S100 #4: the hint to run status --global went)
    assert r.err == "" and r.out.startswith(f"pre-push: installed globally in {g} (core.hooksPath)\n"), r


def test_a_chained_hook_whose_wrapper_and_record_were_lost_is_put_back_by_uninstall(tmp_path):
    a = make_repo(tmp_path / "a")
    hooks = a / ".git" / "hooks"
    _user_hook(hooks / "pre-push")
    assert hn(a, "hooks", "install").code == 0
    (a / ".git" / "hn" / "hooks.json").unlink()
    (hooks / "pre-push").unlink()
    r = hn(a, "hooks", "install")
    assert r.code == 0 and r.out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)", r
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks / "pre-push").read_text() == "#!/bin/sh\necho OWN\n" and not (hooks / "hn-chained").exists()


def test_a_sync_that_publishes_forgets_an_earlier_background_failure(clones):
    """A newcomer's case: after ``sync`` mended what a push's background publication failed on,
    the next push still said that publication failed."""
    remote, a, _b = clones
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "exact", "--content", "refused once").json()
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    guard = remote / "hooks" / "pre-receive"
    guard.write_text("#!/bin/sh\nwhile read old new ref; do\n  case $ref in refs/hn/*) exit 1;; esac\n"
                     "done\nexit 0\n")
    guard.chmod(0o755)
    git(a, "commit", "-q", "--allow-empty", "-m", "one")
    _push(a, "origin", "main")
    guard.unlink()
    r = hn(a, "sync")
    assert r.code == 0, r.err
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    git(a, "commit", "-q", "--allow-empty", "-m", "two")
    assert "last background publication" not in _push(a, "origin", "main").stderr


def test_a_lost_record_in_the_git_directory_says_install_takes_them_on(tmp_path):
    """A newcomer who deleted ``.git/hn/hooks.json`` was told to delete the wrappers by hand; in
    this repository's own Git directory, install takes them on again (then uninstall works)."""
    a = make_repo(tmp_path / "a")
    assert hn(a, "hooks", "install").code == 0
    (a / ".git" / "hn" / "hooks.json").unlink()
    for which in ("status", "uninstall"):
        r = hn(a, "hooks", which)
        assert "git hn hooks install takes them on again" in r.err and "by hand" not in r.err, (which, r.err)
    assert hn(a, "hooks", "install").code == 0 and hn(a, "hooks", "uninstall").code == 0
    assert not (a / ".git" / "hooks" / "pre-push").exists()


def test_installs_and_uninstalls_at_once_take_turns_and_keep_the_users_hook(repo):
    """A race auditor's case: ``hooks install`` and ``uninstall`` at once each planned from what
    they read: the user's pre-push was lost (git-hn's own wrapper chained in its place), and
    others failed with ``internal error: TypeError``. They take turns now."""
    import subprocess
    import sys

    hook = repo / ".git" / "hooks" / "pre-push"
    hook.write_text("#!/bin/sh\necho mine\n")
    hook.chmod(0o755)
    for _round in range(12):
        procs = [subprocess.Popen([sys.executable, "-m", "git_hn", "hooks", which], cwd=repo,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for which in ("install", "uninstall", "uninstall", "install")]
        errors = [line for p in procs for line in p.communicate(timeout=120)[1].decode().splitlines()
                  if not line.startswith("git-hn: hint: ")]
        assert errors == [] and all(p.returncode == 0 for p in procs), errors
    assert hn(repo, "hooks", "uninstall").code == 0
    assert hook.read_text() == "#!/bin/sh\necho mine\n"


def test_a_block_mode_push_publishes_under_the_publication_lock(clones):
    """A reviewer's case: with hn.prePush block the hook pushed memory without the publication
    lock that every other publication and every re-anchoring take, so a re-anchoring running at
    the same time signed again a memory the hook had just published. It waits for the lock."""
    import time

    from git_hn.service.replication import serial
    from git_hn.store.repo import open_repo

    remote, a, _b = clones
    git(a, "config", "hn.prePush", "block")
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
             "--content", "published by the hook").json()
    git(a, "commit", "-q", "--allow-empty", "-m", "more")
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    repo = open_repo(str(a))
    with serial.publishing(repo, "origin", 0):  # (a publication, or a re-anchoring, is running)
        proc = subprocess.Popen(["git", "push", "-q", "origin", "main"], cwd=a, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(2)
        assert proc.poll() is None  # the hook waits
        assert git(remote, "rev-parse", "--verify", "-q", ref, check=False) == ""
    repo.close()
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "git-hn: waiting for another memory publication to origin to end" in err
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)


def test_a_block_mode_push_never_publishes_a_tip_a_re_anchoring_replaced_while_it_waited(clones):
    """A reviewer's case: the hook read the stream tips and ran the gate before it took the
    publication lock; a re-anchoring holding that lock replaced the memory, and the hook then
    pushed the old one: the remote held a memory the clone had signed again (equivocation)."""
    import time

    from git_hn.service.replication import serial
    from git_hn.store import identity
    from git_hn.store import reanchor as store
    from git_hn.store.repo import open_repo

    remote, a, _b = clones
    git(a, "config", "hn.prePush", "block")
    git(a, "commit", "-q", "--allow-empty", "-m", "c2")
    c2 = git(a, "rev-parse", "HEAD")
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
             "--content", "made at c2").json()
    assert subprocess.run(["git", "push", "-q", "--no-verify", "origin", "main"], cwd=a).returncode == 0
    git(a, "commit", "-q", "--allow-empty", "-m", "c3")
    c3 = git(a, "rev-parse", "HEAD")
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    repo = open_repo(str(a))
    with serial.publishing(repo, "origin", 0):  # (a re-anchoring holds it, as service.reanchor does)
        proc = subprocess.Popen(["git", "push", "-q", "origin", "main"], cwd=a, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(2)
        assert proc.poll() is None
        done = store.reanchor(repo, identity.load_active(repo), {c2: c3})
        assert done and done[0].renamed[0][0] == rec["memoryId"]
    repo.close()
    proc.communicate(timeout=120)
    wait_publication(a)
    assert git(remote, "rev-parse", "--verify", "-q", ref, check=False) in ("", git(a, "rev-parse", ref))
    r = hn(a, "sync")
    assert r.code == 0, r.out + r.err
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)


def test_install_goes_on_unlocked_where_the_file_system_has_no_locks(repo, monkeypatch):
    """A review's case: on a file system without ``flock`` (NFS without lockd) the install's new
    lock failed it with "cannot write the output: No locks available"; it goes on unlocked, as
    before the lock. (The kernel's answer is imitated here: no test file system lacks locks.)"""
    import errno
    import fcntl

    from git_hn.service import hooks
    from git_hn.store.repo import open_repo

    def no_locks(_fd, _operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.chdir(repo)  # (Git finds the hooks directory from here, as the command does)
    opened = open_repo(str(repo))
    monkeypatch.setattr(fcntl, "flock", no_locks)
    try:
        lines = hooks.install(hooks.locate(opened, False), opened)
    finally:
        opened.close()
    assert lines == ["pre-push: installed", "reference-transaction: installed", "post-rewrite: installed"]
    assert (repo / ".git" / "hooks" / "pre-push").read_text().startswith("#!/bin/sh\n# git-hn pre-push wrapper")


@pytest.mark.parametrize("meanwhile", ["record", "delete"])
def test_a_block_mode_push_still_publishes_a_stream_that_only_grew_while_it_waited(clones, meanwhile):
    """A review's case: the check for a stream replaced while the hook waited for the lock also
    dropped a stream that had only grown (a record meanwhile), silently. What was read is still
    a tip the stream continues: it is published. A stream deleted meanwhile is said so, and
    nothing of it goes."""
    import time

    from git_hn.service.replication import serial
    from git_hn.store.repo import open_repo

    remote, a, _b = clones
    git(a, "config", "hn.prePush", "block")
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
             "--content", "first").json()
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    first = git(a, "rev-parse", ref)
    git(a, "commit", "-q", "--allow-empty", "-m", "more")
    repo = open_repo(str(a))
    with serial.publishing(repo, "origin", 0):
        proc = subprocess.Popen(["git", "push", "-q", "origin", "main"], cwd=a, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(2)
        assert proc.poll() is None
        if meanwhile == "record":
            assert hn(a, "memory", "record", "--kind", "observation", "--at", "HEAD~1", "--applies", "exact",
                      "--content", "second, while the push waited").code == 0
        else:
            git(a, "update-ref", "-d", ref)
    repo.close()
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "rewritten while this push waited" not in err
    if meanwhile == "record":
        assert git(remote, "rev-parse", ref) == first
    else:
        assert f"git-hn: {ref} was deleted while this push waited: nothing of it is published" in err
        assert git(remote, "rev-parse", "--verify", "-q", ref, check=False) == ""


def test_a_push_says_when_a_stream_waits_for_a_branch_not_pushed_yet(clones):
    """An agent trial: a memory recorded on a worktree's unpushed branch held every later memory
    of the stream (a handoff on main among them) off the remote, and ``git push`` of main said
    nothing (the gate runs in the background). The push says which memory waits for which
    commit; pushing that branch lets them go."""
    def _record(repo, content):
        r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
               "descendants", "--content", content)
        assert r.code == 0, r.err
        return r.json()

    from helpers import commit_on

    remote, a, _b = clones
    side = commit_on(a, "side", "side.txt")
    held = _record(a, "on the side branch")
    git(a, "checkout", "-q", "main")
    _record(a, "handoff-like, on main")
    commit_on(a, None, "m.txt")
    pushed = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=a, capture_output=True, text=True)
    assert pushed.returncode == 0
    ref = f"refs/hn/memory/{held['actor']}/{held['stream'][7:]}"
    assert (f"git-hn: publication of stream {ref[-64:][:12]}: 2 memories wait until commit {side[:12]} is on origin (branch side: "
            "git push origin side;") in pushed.stderr, pushed.stderr  # (f176: the branch named, as record's hint does)
    # after "git-hn: " lowercase, as the record's hint says it (f171: the hook's began "Publication");
    # sync's own stdout line keeps its capital (test_reanchor)
    assert not [x for x in pushed.stderr.splitlines() if x.startswith("git-hn: ") and x[8:9].isupper()], pushed.stderr
    wait_publication(a)
    pushed = subprocess.run(["git", "push", "-q", "origin", "side"], cwd=a, capture_output=True, text=True)
    assert pushed.returncode == 0 and "wait" not in pushed.stderr, pushed.stderr


def test_a_push_to_a_branch_a_single_branch_clone_does_not_track_says_how_to_track_it(tmp_path):
    """A review's case: in a single-branch clone (``--depth 1``: an agent's or CI's) a push of a
    new branch leaves no ``refs/remotes/origin/<branch>``, which is all the gate counts as the
    remote's; the push was taken as carrying the memory's commit, said nothing, and the memory
    waited for good (``git fetch origin`` does not fetch that branch there)."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    seed = make_repo(tmp_path / "seed")
    git(seed, "push", "-q", str(remote), "main")
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "main", remote.as_uri(), str(b))
    assert hn(b, "init", "--name", "B").code == 0
    assert hn(b, "hooks", "install").code == 0
    from helpers import commit_on

    fix = commit_on(b, "fix", "fix.txt")
    r = hn(b, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "on the fix branch")
    assert r.code == 0, r.err
    ref = f"refs/hn/memory/{r.json()['actor']}/{r.json()['stream'][7:]}"
    pushed = subprocess.run(["git", "push", "-q", "-u", "origin", "fix"], cwd=b, capture_output=True, text=True)
    assert pushed.returncode == 0
    assert (f"git-hn: publication of stream {ref[-64:][:12]}: 1 memory waits until commit {fix[:12]} is on a branch of origin this clone "
            "tracks: this push sends it to refs/heads/fix, which remote.origin.fetch does not map (a single-branch "
            "clone?); git remote set-branches --add origin fix and git fetch origin track it, then git hn sync "
            "origin") in pushed.stderr, pushed.stderr
    wait_publication(b)
    git(b, "remote", "set-branches", "--add", "origin", "fix")  # what it says
    git(b, "fetch", "-q", "origin")
    r = hn(b, "sync", "origin")
    assert r.code == 0 and "wait" not in r.out, r.out
    assert git(remote, "rev-parse", ref) == git(b, "rev-parse", ref)
    commit_on(b, None, "more.txt")  # (tracked for good now: the next push says nothing)
    r = hn(b, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "after tracking")
    assert r.code == 0, r.err
    pushed = subprocess.run(["git", "push", "-q", "origin", "fix"], cwd=b, capture_output=True, text=True)
    assert pushed.returncode == 0 and "wait" not in pushed.stderr, pushed.stderr


def test_a_push_to_a_mirror_remote_that_carries_the_memory_ref_warns_of_nothing(clones):
    """A review's case: a push to a ``--mirror=push`` remote (no fetch refspec) sends the memory
    ref itself, yet the hook said the memory waited for a branch this clone tracks there."""
    from helpers import commit_on

    remote, a, _b = clones
    mirror = remote.parent / "mirror.git"
    git(remote.parent, "init", "-q", "--bare", str(mirror))
    git(a, "remote", "add", "--mirror=push", "m", str(mirror))
    commit_on(a, None, "mirrored.txt")
    r = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "carried by the mirror")
    assert r.code == 0, r.err
    ref = f"refs/hn/memory/{r.json()['actor']}/{r.json()['stream'][7:]}"
    pushed = subprocess.run(["git", "push", "-q", "m"], cwd=a, capture_output=True, text=True)
    assert pushed.returncode == 0
    assert "waits" not in pushed.stderr, pushed.stderr
    assert git(mirror, "rev-parse", ref) == git(a, "rev-parse", ref)
    wait_publication(a)


def test_hooks_run_says_its_own_usage(tmp_path):
    """A team trial: ``git hn hooks run -h`` (the command a team's own hook calls) printed the
    usage of install, without ``run``. Neither reads the standard input (a terminal's would wait)."""
    repo = make_repo(tmp_path / "r")
    r = hn(repo, "hooks", "run", "-h")  # (laid out as every command's, and listed in hooks -h)
    assert r.code == 0 and r.out.startswith("usage: git hn hooks run [OPTIONS] HOOK [ARGS]...\n"), r.out
    assert "pre-push, post-rewrite or reference-transaction" in r.out
    assert "\n  run " in hn(repo, "hooks", "-h").out
    for args, why in (([], "missing the hook's name"), (["pre-commit"], 'unknown hook "pre-commit"')):
        r = hn(repo, "hooks", "run", *args)
        assert (r.code, r.out, r.err) == (1, "", "git-hn: usage: git hn hooks run pre-push|post-rewrite|"
                                                 f"reference-transaction [ARGS]...; {why} (git hn hooks run is what "
                                                 "the installed hooks run; git hn hooks install|uninstall|status "
                                                 "manage them)\n")


def test_help_of_a_hook_run_prints_it_and_never_reads_stdin(tmp_path):
    """A review (S73): ``git hn help hooks run pre-push`` and ``git hn hooks run pre-push -h`` ran
    the hook, which read the standard input first (at a terminal they waited; with </dev/null they
    printed nothing). They print ``hooks run``'s help; here the input is a pipe nobody closes, so
    a read would hang. Git never calls a hook with -h alone (pre-push gets a remote and a URL)."""
    import sys

    repo = make_repo(tmp_path / "r")
    help_text = hn(repo, "hooks", "run", "-h").out
    for words in (["help", "hooks", "run", "pre-push"], ["help", "hooks", "run", "post-rewrite", "amend"],
                  ["hooks", "run", "pre-push", "-h"], ["hooks", "run", "reference-transaction", "--help"]):
        reader, writer = os.pipe()
        try:
            proc = subprocess.run([sys.executable, "-c", "import sys; from git_hn.cli.main import main; "
                                   "sys.exit(main(sys.argv[1:]))", *words], cwd=repo, stdin=reader,
                                  capture_output=True, text=True, timeout=20)
        finally:
            os.close(reader)
            os.close(writer)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, help_text, ""), words


@pytest.mark.parametrize("hook", ["pre-push", "post-rewrite"])
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"])
def test_a_hook_killed_by_a_signal_leaves_no_temporary_file(clones, tmp_path, hook, sig):
    """A session's hang reproductions left ``/tmp/git-hn-pre-push.*`` behind (the push's ref
    lines): the wrapper's ``trap … EXIT`` did not run when a signal ended the shell, nor can it on
    SIGKILL (a trial: 7 of 8 killed pushes), so the wrapper holds its input in a variable, never in
    a file. Git (or the terminal) signals the hook's whole process group; here the wrapper is
    killed while it reads its input (its ``cat`` blocked on the pipe)."""
    import signal
    import time
    _, a, _ = clones
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp))
    proc = subprocess.Popen([str(a / ".git" / "hooks" / hook), "origin", "x"], cwd=a, env=env,
                            stdin=subprocess.PIPE, start_new_session=True)
    proc.stdin.write(b"refs/heads/main 1 refs/heads/main 2\n")
    proc.stdin.flush()

    def reading() -> bool:  # a ``cat`` of the hook's session waits for more input
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rpartition(")")[2].split()
                with open(f"/proc/{pid}/comm") as f:
                    comm = f.read().strip()
                with open(f"/proc/{pid}/wchan") as f:
                    wchan = f.read()
            except OSError:
                continue
            if int(fields[3]) == proc.pid and comm == "cat" and wchan.endswith("pipe_read"):
                return True
        return False

    deadline = time.monotonic() + 10
    while not reading():
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.02)
    os.killpg(proc.pid, getattr(signal, sig))
    assert proc.wait(timeout=10) != 0
    proc.stdin.close()
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize("term", ["xterm-256color", "dumb"])
def test_post_rewrite_on_a_terminal_never_writes_on_the_rebase_progress_line(tmp_path, term):
    """A team trial: ``git rebase`` ends its "Rebasing (1/1)" progress with a carriage return,
    and the post-rewrite hook's line landed on it. On a terminal the hook clears the line first
    (as Git's own next line does); a pipe gets the line alone."""
    import fcntl
    import pty
    import struct
    import termios

    a = make_repo(tmp_path / "a")
    assert hn(a, "init", "--name", "A").code == 0
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "topic")
    git(a, "commit", "-q", "--allow-empty", "-m", "topic work")
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "moves with the rebase").code == 0
    git(a, "checkout", "-q", "main")
    git(a, "commit", "-q", "--allow-empty", "-m", "main moved on")
    git(a, "checkout", "-q", "topic")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    proc = subprocess.Popen(["git", "rebase", "main"], cwd=a, stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=slave, env={**os.environ, "TERM": term})
    os.close(slave)
    written = read_terminal(master, proc).decode("utf-8", "replace")
    assert proc.wait(60) == 0, written
    clear = "\r\x1b[K" if term != "dumb" else "\r" + " " * 80 + "\r"
    assert "Rebasing (1/1)\r" in written and clear + "git-hn: re-anchored 1 unpublished memory" in written, \
        repr(written)
    # not on a terminal: nothing but the line
    git(a, "checkout", "-q", "main")
    git(a, "commit", "-q", "--allow-empty", "-m", "main moved again")
    git(a, "checkout", "-q", "topic")
    piped = subprocess.run(["git", "rebase", "main"], cwd=a, capture_output=True, text=True)
    assert piped.returncode == 0 and "Rebasing (1/1)\ngit-hn: re-anchored 1 unpublished memory" in piped.stderr, \
        repr(piped.stderr)  # (Git ends its progress with a newline there)


def _state_lock_held(repo, how: str = "LOCK_EX"):
    """Another process holding the memory state's lock exclusively (as ``git hn memory index
    rebuild`` does, or one stopped with Ctrl-Z), or shared (``how`` ``LOCK_SH``: as every read
    does): the ``Popen``, holding it until its stdin closes."""
    import sys

    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys\n"
                               "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
                               f"fcntl.flock(fd, fcntl.{how})\nprint('held', flush=True)\nsys.stdin.read()\n",
                               str(repo / ".git" / "hn" / "locks" / "state.lock")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    return holder


def test_a_fetch_never_waits_for_the_memory_state_another_git_hn_holds(clones):
    """A trial: with an ``index rebuild`` stopped by Ctrl-Z holding the state's lock, ``git fetch``
    hung without a word (the hook's import waited up to 120 s for the state). The import is
    skipped at once, in one line, and the fetch ends; ``git hn sync`` imports it later."""
    remote, a, b = clones
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "descendants", "--content", "fetched while the state is busy").json()
    assert hn(b, "replication", "select", "origin", "--memory", rec["stream"]).code == 0
    assert hn(b, "memory", "recall", "--json").code == 0  # b's state exists
    git(a, "commit", "-q", "--allow-empty", "-m", "new")
    _push(a)
    holder = _state_lock_held(b)
    try:
        fetch = subprocess.run(["git", "fetch"], cwd=b, capture_output=True, text=True, timeout=20)
    finally:
        holder.stdin.close()
        holder.wait()
    assert fetch.returncode == 0, fetch.stderr
    assert [x for x in fetch.stderr.splitlines() if x.startswith("git-hn:")] == [
        "git-hn: memory import from origin skipped: another git-hn is updating the memory state; "
        "git hn sync origin imports it"], fetch.stderr
    accepted = f"refs/hn/remotes/origin/memory/{rec['actor']}/{rec['stream'][7:]}"
    assert git(b, "rev-parse", "--verify", "-q", accepted, check=False) == ""
    r = hn(b, "sync")
    assert r.code == 0, r.err
    assert git(b, "rev-parse", accepted) == git(a, "rev-parse", f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}")


def test_a_fetch_never_waits_for_the_state_a_read_holds_and_the_state_then_catches_up(clones):
    """A review: with a read holding the state's lock shared (recall, brief, an MCP server's
    query), ``git fetch`` waited 10 s without a word: the hook's import passed its first state
    access (shared too), then its promotion waited for the lock to stage the state's part. The
    hook's import never waits there either: the refs are promoted without the state's part, and
    the next read brings the state to them (never an answer from the state as it was)."""
    import time

    remote, a, b = clones
    rec = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "descendants", "--content", "fetched while a read holds the state").json()
    assert hn(b, "replication", "select", "origin", "--memory", rec["stream"]).code == 0
    assert hn(b, "memory", "recall", "--include-untrusted", "--json").json()["memories"] == []  # b's state is current
    git(a, "commit", "-q", "--allow-empty", "-m", "new")
    _push(a)
    holder = _state_lock_held(b, "LOCK_SH")
    try:
        started = time.monotonic()
        fetch = subprocess.run(["git", "fetch"], cwd=b, capture_output=True, text=True, timeout=20)
        took = time.monotonic() - started
    finally:
        holder.stdin.close()
        holder.wait()
    assert fetch.returncode == 0, fetch.stderr
    assert took < 8, f"git fetch took {took:.1f} s"
    assert [x for x in fetch.stderr.splitlines() if x.startswith("git-hn:")] == [], fetch.stderr
    accepted = f"refs/hn/remotes/origin/memory/{rec['actor']}/{rec['stream'][7:]}"
    assert git(b, "rev-parse", accepted) == git(a, "rev-parse", f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}")
    r = hn(b, "memory", "recall", "--include-untrusted", "--json")
    assert [m["id"] for m in r.json()["memories"]] == [rec["memoryId"]]
    assert hn(b, "memory", "index", "verify").code == 0


def test_a_read_that_waited_for_the_state_names_the_lock_another_git_hn_holds(clones):
    """A trial: "memory state is busy; retry" after two minutes, and retrying changed nothing (the
    holder was an ``index rebuild`` stopped with Ctrl-Z). The line names the lock and who holds it."""
    from git_hn.errors import ConflictError
    from git_hn.store import statedb
    from git_hn.store.repo import open_repo

    remote, a, b = clones
    assert hn(b, "memory", "recall", "--json").code == 0
    repo = open_repo(str(b))
    holder = _state_lock_held(b)
    try:
        with pytest.raises(ConflictError) as stopped:
            with statedb.locked(repo, exclusive=False, wait=0.2):
                pass
    finally:
        holder.stdin.close()
        holder.wait()
        repo.close()
    lock = b / ".git" / "hn" / "locks" / "state.lock"
    assert stopped.value.message == (f"memory state is busy: another git-hn process holds {lock} (git hn memory "
                                     "index rebuild, say, or one stopped with Ctrl-Z); retry once it ends")


def test_a_wrapper_an_earlier_git_hn_wrote_is_named_and_install_updates_it(tmp_path):
    """An upgrade trial: ``install.sh`` run again into the same directory leaves every clone's
    wrappers as the earlier git-hn wrote them (they name the same executable), so fixes made to
    the wrappers since never reach them, while status said ``installed`` and install printed the
    same words after rewriting them. Status names such a wrapper, and install says it updated it.
    (The earlier text is simulated: this wrapper with a line of its own changed, its record's
    hash with it, as an earlier install would have recorded it.)"""
    import hashlib
    import json

    a = make_repo(tmp_path / "a")
    assert hn(a, "hooks", "install").code == 0
    wrapper = a / ".git" / "hooks" / "reference-transaction"
    text = wrapper.read_text()
    older = text + "# (an earlier git-hn's wrapper)\n"
    wrapper.write_text(older)
    record = a / ".git" / "hn" / "hooks.json"
    doc = json.loads(record.read_text())
    entry = next(h for h in doc["hooks"] if h["name"] == "reference-transaction")
    entry["wrapper"] = hashlib.sha256(older.encode()).hexdigest()
    record.write_text(json.dumps(doc, indent=2) + "\n")
    r = hn(a, "hooks", "status")
    assert r.out.splitlines() == [
        "pre-push: installed",
        "reference-transaction: installed, an earlier git-hn's wrapper (fixes since do not reach it): git hn hooks "
        "install updates it",
        "post-rewrite: installed"], r.out
    r = hn(a, "hooks", "install")
    assert r.out.splitlines() == ["pre-push: installed",
                                  "reference-transaction: installed, its wrapper updated from an earlier git-hn's",
                                  "post-rewrite: installed"], r.out
    assert wrapper.read_text() == text
    assert hn(a, "hooks", "status").out.splitlines() == ["pre-push: installed", "reference-transaction: installed",
                                                         "post-rewrite: installed"]
