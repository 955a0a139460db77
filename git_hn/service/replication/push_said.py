"""What a failed publication push said (CONTRACT §0.5, §9.13), in one bounded line of git-hn's: the
server's refusal of a ref, a local pre-push hook's refusal of the push, or why Git could not
reach the remote; or that it went to a bundle file, which no push can reach (``unpushable``).

Owns telling those apart (``not_pushed``) and the text quoted from a failed ``git push
--porcelain``. Only a hook's refusal is quoted, and only when the push has its form: any other
failure git-hn has no words for is not blamed on a hook (a review: ssh dropping pushes had
Git's own "and the repository exists." quoted as a hook's). Trusts none of that text: a
server's and a hook's words are hostile (control characters become spaces, the line is cut at
``REASON_MAX``), and any URL in them may carry credentials, so the remote's URLs, the Git
directory and every URL's user information are redacted before the cut (a review: a hook that
printed its ``$2`` put ``http://u:pw@host/…`` in git-hn's error). Git's own lines are never
quoted: they name the URL.
"""

from __future__ import annotations

import os
from shlex import quote

from ...core.gostr import one_line
from ...core.lines import lines_of
from ...store.repo import Repo
from .outcomes import redact

REASON_MAX = 200  # characters of server or hook text in one error line


# what the server's Git itself says of a ref its ``update`` hook refused: the status again, with
# the ref's name cut at ``REASON_MAX`` (a newcomer trial's sync line said it twice); the hook's
# own words, printed before it, are quoted instead
_RESTATED = ("error: hook declined to update ",)


def refusal(status: str, stderr: str) -> str:
    """The server's reason for refusing a ref, in one bounded line: the porcelain status
    (``[remote rejected] (pre-receive hook declined)``) and the first message the server's hook
    printed (``remote: …``; not the server Git's own restatement of the status, ``_RESTATED``). Server text is hostile: control characters become spaces (no
    terminal escapes), a URL's user information is redacted, and it is cut at ``REASON_MAX``.
    Only ``remote:`` lines are read from stderr, never git's own lines, which name the URL (and
    any credentials in it)."""
    said = ""
    for line in lines_of(stderr):
        if line.startswith("remote: ") and line[8:].strip() and not line[8:].startswith(_RESTATED):
            said = redact(line[8:].strip())
            break
    text = one_line(status.strip())
    if said:
        text = f"{text}; the server said: {one_line(said)}" if text else f"the server said: {one_line(said)}"
    return text if len(text) <= REASON_MAX else text[:REASON_MAX] + "..."


def not_pushed(repo: Repo, remote: str, returncode: int, stdout: bytes, stderr: bytes, dest: str = "") -> str:
    """Why a ``git push --porcelain`` to ``remote`` failed with no ref refused: a local pre-push
    hook's refusal (``hook_refused``; its last line quoted), else the cause in ``store.
    transport``'s fixed words (with the way out when it is a prompt no Git process of git-hn's can
    show), else the command that shows Git's own message, which git-hn never repeats (it names
    the URL). ``--no-verify``: the dry run shows the transport's failure, not a hook's again; never
    for a push of a hook's refusal's form (a hook's refusal the dry run would skip: it would pass).
    ``dest``: the push URL the push went to, when one alone (``push_targets``); a push to a bundle
    file has a hook's refusal's form, and is said to be one (``unpushable``) before any hook is blamed."""
    from ...store.transport import NO_GIT_REPOSITORY, known_reason, without_terminal

    if _hook_form(returncode, stdout, stderr) is not None:
        said = unpushable(repo, remote, dest)
        if said:
            return said
    if hook_refused(returncode, stdout, stderr):
        return hook_said(repo, remote, stderr)
    reason = known_reason(stderr)
    if not reason and _hook_form(returncode, stdout, stderr):
        # (a hook's refusal that quotes a Git transport line: ``--no-verify`` would skip the hook,
        # and the dry run succeed, a review; git-hn's own hook stays out of it as in its push)
        return (f"HN_HOOK_ACTIVE=1 git {_mirror_off(repo, remote)}push --dry-run {quote(remote)} "
                "'refs/hn/memory/*:refs/hn/memory/*' shows Git's own message, or a pre-push hook's")
    if not reason:
        return (f"git {_mirror_off(repo, remote)}push --dry-run --no-verify {quote(remote)} "
                "'refs/hn/memory/*:refs/hn/memory/*' shows Git's own message")
    if reason == NO_GIT_REPOSITORY:  # (or one this user may not read: f160, f165)
        from .advertise import unreadable_said
        from .given_record import push_urls

        urls = [dest] if dest else push_urls(repo, remote)
        reason = unreadable_said(repo, reason, urls[0]) if len(urls) == 1 else reason
    way_out = without_terminal(reason, remote, git=repo.git, push=True)
    return f"{reason}; {way_out}" if way_out else reason


def unpushable(repo: Repo, remote: str, dest: str = "") -> str:
    """Why a push to ``remote`` cannot work whatever is pushed, in one line with the way out, or
    "": every URL it pushes to (``git remote get-url --push --all``), or the one push URL
    ``dest`` the push went to, is a bundle file (``store.transport.is_bundle_file``), which Git
    fetches from and never pushes to. Git says only "failed to push some refs", which a pre-push
    hook's refusal says too: a trial's sync against a cloned bundle blamed a hook that did not
    exist, on every run."""
    from .given_record import push_urls
    from ...store.transport import is_bundle_file

    urls = push_urls(repo, remote)
    mine = [dest] if dest else urls
    base = _git_cwd(repo) if any(u and not os.path.isabs(u) for u in mine) else repo.git_dir
    if not mine or not all(is_bundle_file(u, base) for u in mine):
        return ""
    off = (f"git config {quote(f'remote.{remote}.hnPublish')} false makes git hn sync {quote(remote)} "
           "only import from it")
    if not dest:
        return f"{remote} is a bundle file, which cannot take a push; {off}"
    if len(urls) == 1:
        return f"that push URL is a bundle file, which cannot take a push; {off}"
    return (f"that push URL is a bundle file, which cannot take a push; take it off {remote}'s push URLs "
            f"(git remote set-url --delete --push {quote(remote)} PATH)")


def bundle_only(repo: Repo, remote: str, fetch_url: str) -> str:
    """For ``git hn sync``, before its publication: ``unpushable``'s line when ``remote``'s fetch
    URL is a bundle file and so is every URL it pushes to, else "". No Git process unless the
    fetch URL is a bundle file (a stat and one line read for a local path, nothing otherwise)."""
    from ...store.transport import is_bundle_file, is_local

    if not is_local(fetch_url) or "://" in fetch_url:
        return ""
    base = repo.git_dir if os.path.isabs(fetch_url) else _git_cwd(repo)
    return unpushable(repo, remote) if is_bundle_file(fetch_url, base) else ""


def _git_cwd(repo: Repo) -> str:
    """The directory Git runs in, where a relative local path in a remote's URL counts from: the
    top of the working tree, or the Git directory of a bare repository."""
    proc = repo.git.run(["rev-parse", "--show-toplevel"])
    top = proc.stdout.decode("utf-8", "surrogateescape").strip() if proc.returncode == 0 else ""
    return top or repo.git_dir


def _mirror_off(repo: Repo, remote: str) -> str:
    """``-c remote.<remote>.mirror=false `` when ``remote``'s pushes mirror (a ``git clone
    --mirror``), else "": the dry run names a refspec, which Git refuses for such a remote, as
    git-hn's own push runs with that setting (``store.transport.unmirrored``)."""
    proc = repo.git.run(["config", "--type=bool", "--get", "--end-of-options", f"remote.{remote}.mirror"])
    return f"-c {quote(f'remote.{remote}.mirror=false')} " if proc.stdout.strip() == b"true" else ""


# Git's lines for a transport that failed; a ``fatal:`` line of Git's own is one of ``_GITS_FATAL``
# (a hook may print ``fatal: lint: …`` too: a review found such a refusal taken for Git's)
_GIT_GAVE_UP = ("error: rpc failed", "send-pack:")
_GITS_FATAL = ("fatal: could not read from remote repository", "fatal: the remote end hung up",
               "fatal: early eof", "fatal: unable to access", "fatal: protocol error", "fatal: unable to connect",
               "fatal: unable to look up", "fatal: authentication failed", "fatal: could not read username",
               "fatal: could not read password", "fatal: remote error", "fatal: repository ", "fatal: unable to write",
               "fatal: sha1 file", "fatal: pack-objects died", "fatal: unexpected", "fatal: expected",
               "fatal: invalid packet", "fatal: bad packet", "fatal: unable to fork", "fatal: unable to find remote helper",
               "fatal: unable to create thread", "fatal: the receiving end does not support",
               "fatal: transport ", "fatal: protocol ", "fatal: ssh variant", "fatal: strange hostname",
               "fatal: unable to run", "fatal: cannot run", "fatal: git upload-pack", "fatal: git receive-pack",
               "fatal: unknown value for", "fatal: bad config", "fatal: unable to auto-detect")


def _gits_fatal(line: str) -> bool:
    """Whether ``line`` (lower case, stripped) is one of Git's own ``fatal:`` lines of a push
    that failed (``_GITS_FATAL``, or ``fatal: '<path>' does not appear to be a git repository``)."""
    return line.startswith(_GITS_FATAL) or (line.startswith("fatal: '") and
                                            line.endswith("does not appear to be a git repository"))


def _hook_form(returncode: int, stdout: bytes, stderr: bytes) -> list[str] | None:
    """The lines of stderr (lower case, stripped) when a failed push has the form of a local
    pre-push hook's refusal but for the lines in it (``hook_refused``), else None."""
    if returncode != 1 or any("\t" in line for line in lines_of(stdout.decode("utf-8", "replace"))):
        return None
    lines = [line.strip().lower() for line in lines_of(stderr.decode("utf-8", "replace")) if line.strip()]
    return lines if lines and lines[-1].startswith("error: failed to push some refs") else None


def hook_refused(returncode: int, stdout: bytes, stderr: bytes) -> bool:
    """Whether a failed push has the form Git (2.39) gives a local pre-push hook's refusal: exit
    status 1, no ref's status on stdout (the hook runs before anything is sent, and Git then
    reports no ref), and stderr ending with Git's ``error: failed to push some refs to …``, with
    no line of a transport that failed (``fatal: Could not read from remote repository.``, which
    exits 128; ``send-pack: unexpected disconnect …``; ``error: RPC failed …``): a ``fatal:`` line
    that is none of Git's own (``_gits_fatal``) is the hook's."""
    lines = _hook_form(returncode, stdout, stderr)
    return lines is not None and not any(line.startswith(_GIT_GAVE_UP) or _gits_fatal(line) for line in lines)


# Git's own lines of a failed push, which name the URL (and any credentials in it); and its
# ``fatal:`` lines (``_gits_fatal``)
_GITS_OWN = ("error: failed to push some refs", "to ", "hint: ", "remote: ")


# the shells' words for a terminal that is not there (ENXIO: Linux's, the BSDs')
_NO_TTY = ("no such device or address", "device not configured")


def hook_said(repo: Repo, remote: str, stderr: bytes) -> str:
    """For a push a local pre-push hook refused (``hook_refused``): the last line of its stderr
    that is not Git's own, and what refused it (a trial: a team's husky pre-push hook refused
    refs/hn/, and the message was only "publication failed", with the hook's own words
    swallowed). The line is redacted (``secrets``) before it is cut: a cut URL would keep its
    password and lose what marks it as one. A hook that failed to open ``/dev/tty`` refused
    nothing: it could not ask (a push without a terminal, ``publish._push``), and is said so
    (a review: its shell's error, the wrapper's ``eval`` line, was quoted as its policy)."""
    said = ""
    for line in lines_of(stderr.decode("utf-8", "replace")):
        if line.strip() and not line.lower().startswith(_GITS_OWN) and not _gits_fatal(line.strip().lower()):
            said = line.strip()
        if "/dev/tty" in line and any(w in line.lower() for w in _NO_TTY):  # (not a refusal: a question)
            return (f"a pre-push hook could not ask its question on the terminal (/dev/tty): git-hn's push has "
                    f"none here; run git hn sync {quote(remote)} at a terminal, or let the hook skip its "
                    "question when HN_HOOK_ACTIVE=1 is set")
    if said:
        said = redact(said, *secrets(repo, remote))
        said = one_line(said) if len(said) <= REASON_MAX else one_line(said[:REASON_MAX]) + "..."
    return ((f"its git push said last: {said}; " if said else "its git push stopped before it sent anything; ")
            + "a pre-push hook (core.hooksPath) may have refused it: let the hook pass git-hn's own pushes, which "
            "carry HN_HOOK_ACTIVE=1 and push only refs/hn/ refs")


def secrets(repo: Repo, remote: str) -> list[str]:
    """What a quoted line must not show: ``remote``'s fetch and push URLs as Git uses them
    (``insteadOf`` applied: a hook's ``$2``), longest first (a URL inside another is not left
    half replaced), and the Git directory. Two Git processes, on a failed push only."""
    urls = []
    for push in ([], ["--push"]):
        proc = repo.git.run(["remote", "get-url", *push, "--all", "--end-of-options", remote])
        if proc.returncode == 0:
            urls += lines_of(proc.stdout.decode("utf-8", "surrogateescape"))
    urls = [u for u in urls if len(u.strip(". /")) > 2]  # (never ".": every dot would go)
    return sorted({*urls, repo.git_dir}, key=len, reverse=True)
