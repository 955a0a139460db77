"""Which configured remote a URL names (git-hn; docs/decisions.md): a push to a URL that is a
remote's gets that remote's pre-push checks (``hook_runs``), and a review found the rule bypassed
by another spelling of the same repository's URL (``/tmp/x/origin`` for ``/tmp/x/origin.git``,
``…/r`` for ``…/r.git``, a trailing ``/``, ``host:~/path`` for ``ssh://host/~/path``, a URL
``url.<base>.insteadOf`` rewrites). So URLs are compared by the repository they name
(``repository_key``, ``same_repository``): a local path as Git resolves it, a network URL with its
spelling normalised, each as Git rewrites it. Trusts: this clone's configuration, and the local
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
    if none (the first such in the configuration's order). ``url`` is the one Git pushes to (the
    pre-push hook's ``$2``: ``url.<base>.insteadOf`` and ``pushInsteadOf`` applied), and each
    remote's URLs are compared as Git resolves them too (``resolved``): a review pushed to
    ``srv:origin.git`` with ``url."/x/".insteadOf srv:``, and origin's checks were skipped. One
    ``git config`` for the remotes' URLs and the rewrites alike."""
    proc = repo.git.run(["config", "-z", "--get-regexp", r"^(remote\..*\.(push)?url|url\..*\.(push)?insteadof)$"])
    if proc.returncode != 0 or not url:
        return ""
    entries = [e.partition("\n") for e in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if e]
    rewrites: dict[str, list[tuple[str, str]]] = {"insteadof": [], "pushinsteadof": []}
    for name, _nl, value in entries:  # (url.<base>.insteadof: the base may hold dots)
        kind = name.rpartition(".")[2]
        if name.startswith("url.") and kind in rewrites and value:
            rewrites[kind].append((value, name[len("url."):-len(kind) - 1]))
    key = repository_key(url)
    for name, _nl, value in entries:
        if name.startswith("remote.") and name.count(".") >= 2 and value and any(
                u == url or same_repository(repository_key(u), key)
                for u in resolved(value, name.endswith(".url"), rewrites)):
            return name[len("remote."):name.rindex(".")]
    return ""


def resolved(value: str, fetch_url: bool, rewrites: dict) -> set[str]:
    """The URLs Git may push to for a remote's configured ``value`` (a ``url``, ``fetch_url``,
    or a ``pushurl``): as written, with ``insteadOf`` applied, and for a ``url`` with
    ``pushInsteadOf`` applied (Git's ``alias_url``: the longest matching prefix). More than Git
    uses (a ``url`` whose remote has a ``pushurl`` is not pushed to): an over-equated URL only
    gets a remote's checks."""
    out = {value, _alias(value, rewrites["insteadof"])}
    if fetch_url:
        out.add(_alias(value, rewrites["pushinsteadof"]))
    return out


def _alias(url: str, rules: list[tuple[str, str]]) -> str:
    """``url`` rewritten by the longest of ``rules`` ((prefix, base)) that prefixes it."""
    best = max((r for r in rules if url.startswith(r[0])), key=lambda r: len(r[0]), default=None)
    return best[1] + url[len(best[0]):] if best else url


def same_repository(a: str, b: str) -> bool:
    """Whether two ``repository_key``s name one repository: equal, or one network path whose
    kind one of them leaves open (``*``: an http(s) or git:// path, which a forge's ssh serves
    from the home or the root alike)."""
    if a == b:
        return True
    if not (a.startswith("url ") and b.startswith("url ")):
        return False
    (host_a, kind_a, path_a), (host_b, kind_b, path_b) = a.split(" ", 3)[1:], b.split(" ", 3)[1:]
    return host_a == host_b and path_a == path_b and "*" in (kind_a, kind_b)


def repository_key(url: str) -> str:
    """What ``url`` names, for comparison only (``same_repository``): a local path (or
    ``file://`` URL) is the real path of the repository Git would open there (``path/.git``,
    ``path``, ``path.git/.git``, ``path.git``, the first that is one; the path itself when none
    is); a network URL is its host (lower case), its port when not the scheme's default, the
    kind of its path and the path without a trailing ``/`` or ``.git``. For ssh (scp-like
    ``host:path`` or ``ssh://``) the kind is ``~`` for a path the server takes from the login's
    home (``host:r``, ``host:~/r``, ``ssh://host/~/r``) and ``/`` for an absolute one
    (``host:/srv/r``, ``ssh://host/srv/r``): other repositories (a review); for other schemes it
    is ``*``. Who logs in is no part of it: ``alice@host:r`` and ``bob@host:r`` are taken for one
    repository (over-equated, which only applies a remote's checks), and so is a path's case
    (a forge's) not: ``GitHub.com/O/R`` is taken for another than ``/o/r`` (docs/decisions.md)."""
    from ..store.transport import is_local

    if is_local(url):
        path = url[len("file://"):] if url[:7].lower() == "file://" else url
        # (``~/r``, ``~alice/r``: a home directory's, which Git's receive-pack expands; taken from the
        # hook's directory, a push to origin ``~/team.git``'s absolute path skipped its checks: f168)
        return "local " + _local_repository(os.path.expanduser(path) if path.startswith("~") else path)
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
        ssh = scheme == "ssh"
        if ssh and path.startswith("/~"):  # (Git sends ssh://host/~x as ~x)
            path = path[1:]
    else:  # scp-like [user@]host:path (a colon before any slash: Git's rule)
        login, bracket, after = url.partition("[")
        if bracket and ":" not in login and "]:" in after:  # ([user@][::1]:path: an address in brackets)
            host, _end, path = after.partition("]:")
        else:
            host, _colon, path = url.partition(":")
        host, port, ssh = host.rpartition("@")[2].strip("[]"), "", True
    if not ssh:
        kind = "*"
        path = path.lstrip("/")
        path = path[2:] if path.startswith("~/") else path
    elif path.startswith("/") or (path.startswith("~") and not path.startswith("~/")):
        kind = "/"  # (an absolute path, or another login's home: ~bob/r)
        path = path.lstrip("/")
    else:
        kind = "~"
        path = path[2:] if path.startswith("~/") else path
    path = path.rstrip("/")
    path = path[:-4].rstrip("/") if path.endswith(".git") else path
    host = host.strip("[]").lower()
    return f"url {host}{':' + port if port else ''} {kind} {path}"


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
