"""What a failed publication push said (CONTRACT §0.5, §9.13), in one bounded line of git-hn's: the
server's refusal of a ref, or a local pre-push hook's refusal of the push.

Owns the text quoted from a failed ``git push --porcelain``. Trusts none of it: a server's and a
hook's words are hostile (control characters become spaces, the line is cut at ``REASON_MAX``),
and any URL in them may carry credentials, so the remote's URLs, the Git directory and every
URL's user information are redacted before the cut (a review: a hook that printed its ``$2``
put ``http://u:pw@host/…`` in git-hn's error). Git's own lines are never quoted: they name the
URL.
"""

from __future__ import annotations

from ...core.gostr import one_line
from ...core.lines import lines_of
from ...store.repo import Repo
from .outcomes import redact

REASON_MAX = 200  # characters of server or hook text in one error line


def refusal(status: str, stderr: str) -> str:
    """The server's reason for refusing a ref, in one bounded line: the porcelain status
    (``[remote rejected] (pre-receive hook declined)``) and the first message the server's hook
    printed (``remote: …``). Server text is hostile: control characters become spaces (no
    terminal escapes), a URL's user information is redacted, and it is cut at ``REASON_MAX``.
    Only ``remote:`` lines are read from stderr, never git's own lines, which name the URL (and
    any credentials in it)."""
    said = ""
    for line in lines_of(stderr):
        if line.startswith("remote: ") and line[8:].strip():
            said = redact(line[8:].strip())
            break
    text = one_line(status.strip())
    if said:
        text = f"{text}; the server said: {one_line(said)}" if text else f"the server said: {one_line(said)}"
    return text if len(text) <= REASON_MAX else text[:REASON_MAX] + "..."


# Git's own lines of a failed push, which name the URL (and any credentials in it)
_GITS_OWN = ("error: failed to push some refs", "to ", "hint: ", "remote: ", "fatal: ")


def hook_said(repo: Repo, remote: str, stderr: bytes) -> str:
    """For a push that failed with no ref refused and no cause git-hn has words for: the last
    line of its stderr that is not Git's own, and what may have refused it (a trial: a team's
    husky pre-push hook refused refs/hn/, and the message was only "publication failed", with
    the hook's own words swallowed); "" when there is none. The line is redacted (``secrets``)
    before it is cut: a cut URL would keep its password and lose what marks it as one."""
    said = ""
    for line in lines_of(stderr.decode("utf-8", "replace")):
        if line.strip() and not line.lower().startswith(_GITS_OWN):
            said = line.strip()
    if not said:
        return ""
    said = redact(said, *secrets(repo, remote))
    said = one_line(said) if len(said) <= REASON_MAX else one_line(said[:REASON_MAX]) + "..."
    return (f"its git push said last: {said}; a pre-push hook (core.hooksPath) may have refused it: let the hook "
            "pass git-hn's own pushes, which carry HN_HOOK_ACTIVE=1 and push only refs/hn/ refs")


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
