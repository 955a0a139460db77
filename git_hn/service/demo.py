"""``git hn demo``: a walkthrough in a throwaway repository that prints what it did.

Creates a temporary repository (with GitPython, off the hot path), then runs real ``git-hn``
commands in it as subprocesses, printing each command and its output. Nothing outside the
temporary directory is read or written; the directory is removed at the end.

The trust policy is set up (``policy init``, then committed) before anything is recorded, so
the memories are ``qualified`` and the show at the end says so: a newcomer trial saw only
``Trust: policy-missing`` and the same long trust hint after each of four records. Then the
reading side (``READS``): a recall by query and the first lines of the brief, as an agent starts a
session (a trial: the demo wrote memory and never showed anyone reading it).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from ..core.gostr import short_id

_ENV = {
    "GIT_AUTHOR_NAME": "Demo", "GIT_AUTHOR_EMAIL": "demo@example.invalid",
    "GIT_COMMITTER_NAME": "Demo", "GIT_COMMITTER_EMAIL": "demo@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


# a Git step (not git hn): the policy is read from the commit asked about, never the working tree
COMMIT_POLICY = ["git", "add", ".hn/policy.json", "&&", "git", "commit", "-m", "Trust policy"]


# the reading side, after the writes: (arguments, lines shown (None: all), why, as a shell comment)
READS = ((["memory", "recall", "--query", "caching"], None, "before trying it again"),
         (["memory", "brief"], 13, "what a new session reads first"))


def _run(step: list[str], work: str, env: dict) -> subprocess.CompletedProcess:
    if step is COMMIT_POLICY:
        add = subprocess.run(step[:3], cwd=work, env=env, capture_output=True, text=True)
        if add.returncode != 0:
            return add
        return subprocess.run([*step[4:6], "-q", *step[6:]], cwd=work, env=env, capture_output=True, text=True)
    return subprocess.run([sys.executable, "-m", "git_hn", *step], cwd=work, env=env,
                          capture_output=True, text=True)


def _steps(head: str) -> list[list[str]]:
    return [
        ["init", "--name", "Demo Agent"],
        ["policy", "init"],
        COMMIT_POLICY,
        ["identity", "show"],  # (after the commit: its trust line says the policy at HEAD trusts it)
        ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
         "--topic", "architecture", "--evidence", f"git:{head}", "--path", "README.md",
         "--content", "Keep memory streams separate from collaboration actor chains."],
        ["memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
         "--topic", "tests", "--content", "The parser rejects duplicate JSON keys at any depth."],
        ["memory", "record", "--kind", "attempt", "--at", "HEAD", "--applies", "descendants",
         "--outcome", "failed", "--content", "Tried caching parsed envelopes across runs; "
                                               "invalidation was unsafe."],
        ["memory", "handoff", "--at", "HEAD", "--applies", "descendants",
         "--content", "Session handoff: codec and store are done.",
         # (no --blocker: there is none, and "--blocker none" signed a blocker named "none",
         # which the brief then counted and listed: a newcomer trial)
         "--completed", "canonical codec", "--assumption", "Git 2.30 or newer",
         "--next-action", "write the recall command"],
    ]


def run_demo(emit) -> None:
    import git  # GitPython: a convenience for creating the throwaway repository

    tmp = tempfile.mkdtemp(prefix="git-hn-demo-")
    env = {**os.environ, **_ENV, "HOME": tmp, "GIT_CONFIG_GLOBAL": os.path.join(tmp, ".gitconfig")}
    try:
        work = os.path.join(tmp, "project")
        old_env = {k: os.environ.get(k) for k in _ENV}
        os.environ.update(_ENV)
        try:
            repo = git.Repo.init(work)
            with open(os.path.join(work, "README.md"), "w", encoding="utf-8") as fh:
                fh.write("# demo project\n")
            repo.index.add(["README.md"])
            head = repo.index.commit("initial commit").hexsha
        finally:
            for k, v in old_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        emit([f"git-hn demo: a throwaway repository at {work}", f"$ git commit  # {head}"])
        last_id = ""
        for step in _steps(head):
            shown = " ".join(a if a == "&&" else shlex.quote(a) for a in step)
            emit(["", "$ " + (shown if step is COMMIT_POLICY else "git hn " + shown)])
            proc = _run(step, work, env)
            out = (proc.stdout + proc.stderr).rstrip("\n")
            emit(out.splitlines())
            if proc.returncode != 0:
                raise SystemExit(1)
            for line in proc.stdout.splitlines():
                if line.startswith("Memory: "):
                    last_id = line[len("Memory: "):]
        if last_id:
            emit(["", f"$ git hn memory show {short_id(last_id)}"])
            proc = subprocess.run([sys.executable, "-m", "git_hn", "memory", "show", short_id(last_id)],
                                  cwd=work, env=env, capture_output=True, text=True)
            emit((proc.stdout + proc.stderr).rstrip("\n").splitlines())
        for step, shown, why in READS:
            emit(["", f"$ git hn {' '.join(step)}{f' | head -n {shown}' if shown else ''}  # {why}"])
            proc = _run(step, work, env)
            emit((proc.stdout.splitlines()[:shown] if shown else proc.stdout.rstrip("\n").splitlines()) +
                 proc.stderr.rstrip("\n").splitlines())
        refs = subprocess.run(["git", "for-each-ref", "--format=%(refname)", "refs/hn"], cwd=work,
                              env=env, capture_output=True, text=True).stdout.split()
        emit(["", "Memory refs written (signed, append-only, one commit per memory):", *refs,
              "", "The throwaway repository is removed now.",
              "Next, in your own repository: git hn init; git hn hooks install; "
              "git hn replication select --all, then git hn sync (to import teammates' memory); "
              "git hn policy init, "
              "then commit .hn/policy.json (whose memory to trust, as above); "
              "git hn setup claude (or codex, cursor, agents-md)."])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
