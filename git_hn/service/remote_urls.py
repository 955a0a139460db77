"""Which configured remote a URL names (git-hn; docs/decisions.md): a push to a URL that is a
remote's gets that remote's pre-push checks (``hook_runs``), and a review found the rule bypassed
by another spelling of the same repository's URL (``/tmp/x/origin`` for ``/tmp/x/origin.git``,
``…/r`` for ``…/r.git``, a trailing ``/``, ``host:path`` for ``ssh://host/path``). So URLs are
compared by the repository they name (``repository_key``): a local path as Git resolves it, a
network URL with its spelling normalised. Trusts: this clone's configuration, and the local
file system for a local path (as Git reads it when it pushes there); the URL is never echoed.
"""

from __future__ import annotations

import os

from ..core.lines import lines_of
from ..store.repo import Repo

# what Git tries after a local path, in its order (``enter_repo`` in Git's path.c)
_GIT_SUFFIXES = ("/.git", "", ".git/.git", ".git")
_DEFAULT_PORTS = {"ssh": "22", "git": "9418", "http": "80", "https": "443"}


def remote_of_url(repo: Repo, url: str) -> str:
    """The configured remote whose URL (or push URL) names the repository ``url`` names; ""
    if none (the first such in the configuration's order)."""
    proc = repo.git.run(["config", "-z", "--get-regexp", r"^remote\..*\.(push)?url$"])
    if proc.returncode != 0 or not url:
        return ""
    key = repository_key(url)
    for entry in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        name, _nl, value = entry.partition("\n")
        if name.startswith("remote.") and name.count(".") >= 2 and value and \
                (value == url or repository_key(value) == key):
            return name[len("remote."):name.rindex(".")]
    return ""


def repository_key(url: str) -> str:
    """What ``url`` names, for comparison only: a local path (or ``file://`` URL) is the real path
    of the repository Git would open there (``path/.git``, ``path``, ``path.git/.git``,
    ``path.git``, the first that is one; the path itself when none is); a network URL is its host
    (lower case), its port when not the scheme's default, and its path without a leading ``/``
    or ``~/``, a trailing ``/`` or ``.git``: scp-like ``host:path`` and ``ssh://host/path`` are one,
    and so are the http(s), ssh and git URLs of one host and path (a forge's), whoever logs in."""
    from ..store.transport import is_local

    if is_local(url):
        return "local " + _local_repository(url[len("file://"):] if url[:7].lower() == "file://" else url)
    scheme, sep, rest = url.partition("://")
    if sep:
        scheme = scheme.lower()
        scheme = "ssh" if scheme in ("git+ssh", "ssh+git") else scheme
        host, slash, path = rest.partition("/")
        path = slash + path
        host = host.rpartition("@")[2]  # (whoever logs in, and a password, are no part of it)
        name, colon, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
        host, port = (name, port) if colon and port.isdigit() else (host, "")
        port = "" if port == _DEFAULT_PORTS.get(scheme) else port
    else:  # scp-like [user@]host:path (a colon before any slash: Git's rule)
        host, _colon, path = url.partition(":")
        host, port = host.rpartition("@")[2].strip("[]"), ""
    path = path.lstrip("/")
    path = path[2:] if path.startswith("~/") else path
    path = path.rstrip("/")
    path = path[:-4].rstrip("/") if path.endswith(".git") else path
    return f"url {host.strip('[]').lower()}{':' + port if port else ''}/{path}"


def _local_repository(path: str) -> str:
    """The real path of the repository Git opens for the local path ``path`` (its own
    resolution: the first of ``_GIT_SUFFIXES`` that is a Git directory, or a ``.git`` file's
    directory), else of ``path`` itself."""
    path = path.rstrip("/") or "/"
    for suffix in _GIT_SUFFIXES:
        candidate = path + suffix
        if os.path.isfile(candidate):  # a ``gitdir: <dir>`` file (a submodule's, a worktree's)
            target = _gitfile(candidate)
            if target:
                return os.path.realpath(target)
        elif os.path.isdir(candidate) and os.path.isfile(os.path.join(candidate, "HEAD")) and \
                os.path.isdir(os.path.join(candidate, "objects")):
            return os.path.realpath(candidate)
    return os.path.realpath(path)


def _gitfile(path: str) -> str:
    """The directory a ``.git`` file names (relative to the file's own directory), "" if it
    names none."""
    try:
        with open(path, "rb") as fh:
            first = fh.read(4096).decode("utf-8", "surrogateescape")
    except OSError:
        return ""
    lines = lines_of(first)
    if not lines or not lines[0].startswith("gitdir: "):
        return ""
    return os.path.join(os.path.dirname(path), lines[0][len("gitdir: "):])
