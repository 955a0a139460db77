"""Test environment: hermetic Git (temporary HOME, no system or global config) and fixtures.

Every test gets a fresh HOME with a minimal global config, so the machine's own Git settings
(signing, hooks, identity) can never change what a test sees. ``git hn`` resolves to this
checkout's ``git-hn`` because the interpreter's bin directory is put first on PATH.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from helpers import hn, make_repo
from servers import (bare_remote, endless_pack_server, git_daemon,  # noqa: F401 - fixtures
                     git_spawn, http_backend)

BIN = str(Path(sys.executable).parent)

try:  # a fixed hypothesis profile for CI: deterministic and bounded
    from hypothesis import HealthCheck, settings

    settings.register_profile("ci", max_examples=200, derandomize=True, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
except ImportError:  # pragma: no cover
    pass


def _hermetic(monkeypatch, home: Path) -> Path:
    cfg = home / ".gitconfig"
    cfg.write_text("[user]\n\tname = Test User\n\temail = test@example.invalid\n"
                   "[init]\n\tdefaultBranch = main\n[protocol \"file\"]\n\tallow = always\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(cfg))
    monkeypatch.setenv("PATH", BIN + os.pathsep + os.environ.get("PATH", ""))
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                "GIT_ALTERNATE_OBJECT_DIRECTORIES", "HN_HOOK_ACTIVE", "GIT_HN_DEBUG", "GIT_HN_STREAM",
                "XDG_CONFIG_HOME",
                # (a terminal's size: pytest-xdist's workers are given COLUMNS=80 and LINES=24, and
                # a developer's shell may export them; a test of a width sets its own)
                "COLUMNS", "LINES",
                # (git-hn's ssh advice and askpass rule read these: a developer's agent or desktop)
                "SSH_AUTH_SOCK", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(var, raising=False)
    return home


def pytest_xdist_auto_num_workers(config):
    """No workers for the benchmarks (``-m bench``): each times git-hn against plain Git in the
    same run, and a second worker's benchmark beside it would be timed too. None: xdist's own
    count (a core each, ``--maxprocesses`` at most) for everything else."""
    expr = config.getoption("markexpr", "") or ""
    return 0 if "bench" in expr and "not bench" not in expr else None


@pytest.fixture(scope="session", autouse=True)
def hermetic_session(tmp_path_factory):
    """The same hermetic Git for fixtures wider than one test (module- and session-scoped ones
    run before the per-test ``hermetic_git``): without it they would see the machine's HOME,
    which on a fresh machine has no Git identity."""
    patch = pytest.MonkeyPatch()
    try:
        yield _hermetic(patch, tmp_path_factory.mktemp("session-home"))
    finally:
        patch.undo()


@pytest.fixture(autouse=True)
def hermetic_git(tmp_path_factory, monkeypatch):
    yield _hermetic(monkeypatch, tmp_path_factory.mktemp("home"))


@pytest.fixture
def repo(tmp_path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture
def inited(repo) -> Path:
    r = hn(repo, "init", "--name", "Alice Agent")
    assert r.code == 0, r.err
    return repo
