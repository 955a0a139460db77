"""What to advise when ``HEAD`` is unborn: the words after CONTRACT §10.0's ``revision HEAD is
not a commit`` (git-hn's), and the brief's "No memory yet" page (issue 13).

Owns: telling three repositories apart from the refs they hold. A new one (no branch anywhere)
gets "make a first commit". A clone whose ``HEAD`` names a branch that does not exist while
others do (a bare remote made before ``init.defaultBranch`` was set says ``master``, and only
``main`` was pushed: ``git clone`` warns and leaves ``HEAD`` unborn) gets "check one out", named:
the remote's default, then ``main``, ``master``, a local branch, a remote-tracking one. A bare
repository, where no commit can be made, gets "run this in a clone, or --at REV", and, when the
branch named is its only one (or ``main`` or ``master``), the server's own fix: ``git symbolic-ref
HEAD refs/heads/<it>``, which makes clones check it out. Pure: takes what Git said
(``store.repo.Repo.unborn_advice`` asks) and returns words.

Trusts nothing about the names: a remote chooses its branches' names, and one that is a shell
expansion (``$(…)``, backquotes: ref names may hold them) must not reach a command the user is
told to paste, nor a direction control the line it is shown in. Only names of ``SAFE``
characters are named; otherwise the advice says where to look (``git branch -a``).
"""

from __future__ import annotations

NEW = ("HEAD has no commit yet", "make a first commit (git commit)")

# characters a branch name may have to be named in a command to paste (no shell meaning in any
# common shell); a name starting with "-" would be an option
SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-+@")
_NAME_LIMIT = 60


def _safe(name: str) -> bool:
    return 0 < len(name) <= _NAME_LIMIT and not name.startswith("-") and all(c in SAFE for c in name)


def advice(head_ref: str, refs: list[tuple[str, str]], remotes: frozenset[str], bare: bool) -> tuple[str, str]:
    """(what is so, what to do) for an unborn ``HEAD``: ``head_ref`` is the ref ``HEAD`` names
    ("" if none), ``refs`` the ``(refname, symref target)`` pairs under ``refs/heads`` and
    ``refs/remotes``, ``remotes`` the configured remotes' names, ``bare`` whether the
    repository has no working tree."""
    local: list[str] = []
    tracking: dict[str, list[str]] = {}  # branch name -> the remotes that have it
    defaults: list[tuple[bool, str]] = []  # (not origin, name) of each remote's HEAD
    for ref, target in refs:
        if ref.startswith("refs/heads/"):
            local.append(ref[len("refs/heads/"):])
            continue
        remote = _remote_of(ref, remotes)
        if remote is None:
            continue  # (a remote no longer configured: its refs are stale)
        name = ref[len("refs/remotes/") + len(remote) + 1:]
        if name == "HEAD":
            prefix = f"refs/remotes/{remote}/"
            if target.startswith(prefix):
                defaults.append((remote != "origin", target[len(prefix):]))
        else:
            tracking.setdefault(name, []).append(remote)
    branch = head_ref[len("refs/heads/"):] if head_ref.startswith("refs/heads/") else ""
    # (the name a clone's HEAD got is the remote's choice too: shown only when plain, else not at
    # all, so no direction control or lookalike reaches the line)
    where = f"HEAD's branch {branch}" if _safe(branch) else "HEAD's branch" if branch else "HEAD"
    if not local and not tracking:
        if bare:
            return ("this bare repository has no commit yet",
                    "run this in a clone of it, once a first commit is pushed here")
        return NEW
    order = [n for _o, n in sorted(defaults)] + ["main", "master"] + sorted(local) + sorted(tracking)
    name = next((n for n in order if (n in local or n in tracking) and _safe(n)), None)
    if bare:
        example = f" (e.g. --at {name})" if name else ""
        # (a server whose HEAD names a missing branch gives every clone an unborn HEAD: pointing it
        # at the one branch there, or at main or master, is the fix; among other names, no guess)
        fix = (f"; to make clones check out {name}, point HEAD at it (git symbolic-ref HEAD refs/heads/{name})"
               if name in local and (len(local) == 1 or name in ("main", "master")) else "")
        return (f"{where} has no commit in this bare repository",
                f"run this in a clone, or name a commit with --at REV{example}{fix}")
    if name is None:
        return f"{where} has no commit yet, but other branches have", "check one out (git branch -a lists them)"
    if name in local:
        return f"{where} has no commit yet, but branch {name} has", f"check it out (git checkout {name})"
    remotes_of = tracking[name]
    if len(remotes_of) == 1:  # (git checkout NAME makes a local branch tracking the one remote's)
        return f"{where} has no commit yet, but {remotes_of[0]}/{name} has", f"check it out (git checkout {name})"
    remote = "origin" if "origin" in remotes_of else min(remotes_of)
    if not _safe(remote):
        return f"{where} has no commit yet, but other branches have", "check one out (git branch -a lists them)"
    return (f"{where} has no commit yet, but {remote}/{name} has",
            f"check it out (git checkout --track {remote}/{name})")


def _remote_of(ref: str, remotes: frozenset[str]) -> str | None:
    """The configured remote whose tracking ref ``ref`` is (the longest name that fits: a remote's
    name may hold "/")."""
    rest = ref[len("refs/remotes/"):] if ref.startswith("refs/remotes/") else ""
    fits = [r for r in remotes if rest.startswith(r + "/") and len(rest) > len(r) + 1]
    return max(fits, key=len) if fits else None
