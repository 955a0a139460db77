"""``git hn hooks install|uninstall|status [--global]`` and the internal ``git hn hooks run``:
parse, call ``service.hooks`` or ``service.hook_uninstall`` (``service.hook_hints`` after status and
uninstall), ``service.hook_runs``, ``service.post_rewrite`` or ``service.fetch_hook``, print.

Kept out of ``commands`` so that a hook's run (every hooked fetch and push that starts git-hn)
imports only this and what the hook needs.
"""

from __future__ import annotations

from ..errors import UsageError
from . import render


def hooks_command(which: str, global_: bool) -> int:
    from ..service import hooks
    from ..store.repo import open_repo

    repo = None if global_ else open_repo()
    loc = hooks.locate(repo, global_, which)
    if which == "install":
        render.lines(hooks.install(loc, repo))
        if repo is not None and repo.looks_like_server():  # (a newcomer trial: installed in the team's server)
            render.warnings(["this is a bare repository with no remote: a server's repository? these hooks run "
                             "for the pushes it receives, not for yours; run git hn hooks install in your clone "
                             "instead, and git hn hooks uninstall here"])
            repo.close()
            return 0
        from ..service.hook_hints import install_hint

        for text in (hooks.selection_hint(repo), install_hint(loc, repo)):
            if text:
                render.hint(text)
    else:
        from ..service.hook_hints import after_hint, failed_publications, global_status

        globally = global_status(loc, repo) if which == "status" else None  # (the global hooks run here)
        if which == "uninstall":
            from ..service.hook_uninstall import uninstall

            render.lines(uninstall(loc))
        else:
            render.lines(globally or hooks.status_lines(loc))
        for text in ("" if globally else after_hint(loc, repo, which),
                     failed_publications(repo) if which == "status" else ""):
            if text:
                render.hint(text)
    if repo is not None:
        repo.close()
    return 0


HOOKS_RUN_USAGE = "usage: git hn hooks run pre-push|post-rewrite|reference-transaction [ARGS]..."


def hooks_run_usage(args: list[str]) -> int:
    """The usage error of ``git hn hooks run`` with anything that names no hook (it said
    install's usage, without ``run``). Its -h is typer's (``app.hooks_run``), as every command's."""
    raise _no_hook(args)


def _no_hook(args: list[str]) -> UsageError:
    """(what the installed wrappers run: a person who typed it learns that, and the reason)"""
    from ..core.gostr import quoted

    why = f'unknown hook "{quoted(args[0])}"' if args else "missing the hook's name"
    return UsageError(f"{HOOKS_RUN_USAGE}; {why} (git hn hooks run is what the installed hooks run; "
                      "git hn hooks install|uninstall|status manage them)")


def hooks_run_command(args: list[str], data: bytes, mark: str | None = None) -> int:
    """Internal: what the installed wrappers run (``git hn hooks run <hook> ...``), with the
    hook's standard input; ``mark``: the ``HN_WRAPPER`` the wrapper exported (``main`` takes it
    out of the environment before git-hn starts any process; None: take it here). On a terminal
    (Git gives its hooks its own stderr), the hook's lines are wrapped to its width as record's
    hints are (``render.fitting``, f179); elsewhere each stays one line. An error's one line is
    ``main``'s, as every command's, after the hook's lines."""
    import sys

    was = render.fitting()
    try:
        return _run_hook(args, data, mark)
    finally:
        if was is not None:
            sys.stderr = was


def _run_hook(args: list[str], data: bytes, mark: str | None) -> int:
    import os

    if mark is None:
        mark = os.environ.pop("HN_WRAPPER", "")

    # (the hooks' names from the wrappers' texts, not ``service.hooks``: what installs them, ~2 ms
    # of imports, was loaded by every hook run for two constants)
    from ..hookpaths import PUBLISHER
    from ..hookscripts import TEMPLATES
    from ..store.process_tree import is_pid
    from ..store.repo import open_repo

    if not args or args[0] not in (*TEMPLATES, PUBLISHER):
        raise _no_hook(args)
    if args[0] == PUBLISHER and len(args) == 3 and not is_pid(args[2]):
        # (the push's process ID, as ``background`` gives it: "²" or 20 digits was an internal error)
        raise UsageError(f"{HOOKS_RUN_USAGE}; the publisher's last argument is the push's process ID (git hn hooks "
                         "run is what the installed hooks run)")
    pushing = os.environ.get("HN_PUSH_PID", "")
    if args[0] == "pre-push" and pushing and not is_pid(pushing):
        # (the git push the publisher waits for: the wrapper sets it from $PPID; a review found 10
        # digits taken here, then refused by the publisher, and the memory silently not published)
        from ..core.gostr import quoted

        raise UsageError(f"{HOOKS_RUN_USAGE}; HN_PUSH_PID \"{quoted(pushing, 40)}\" is no process ID: the installed "
                         "pre-push hook sets it to its git push's; unset it to run the hook by hand (nothing was "
                         "published)")
    repo = open_repo()
    if args[0] == PUBLISHER and len(args) in (2, 3):
        from ..service import hook_runs

        return hook_runs.run_background_publication(repo, args[1], data, args[2] if len(args) == 3 else "")
    if args[0] in TEMPLATES and _earlier(args[0], mark):
        from ..service.hook_hints import earlier_wrapper

        said = earlier_wrapper(repo, args[0])  # (a wrapper of this git-hn's text reads no file)
        if said:
            render.warnings([said])
    if render.stderr_on_terminal():
        from . import notice

        notice.install()  # Git waits on these hooks, and so does whoever is at its terminal
    if args[0] == "pre-push":
        from ..service import hook_runs

        repo.check_wait = _check_wait()
        return hook_runs.run_pre_push(repo, args[1] if len(args) > 1 else "", data,
                                      args[2] if len(args) > 2 else "")
    if args[0] == "post-rewrite":
        from ..service.post_rewrite import run_post_rewrite

        return run_post_rewrite(repo, data, args[1] if len(args) > 1 else "")
    from ..service import fetch_hook  # (the fetch hook loads neither the push's code nor the rewrite's)

    return fetch_hook.run_reference_transaction(repo, args[1] if len(args) > 1 else "", data,
                                               args[2] if len(args) > 2 else "", _signal_at())


def _earlier(name: str, mark: str) -> bool:
    """Whether the wrapper that ran this hook is not of this git-hn's text (a digest compared)."""
    from ..hookpaths import wrapper_mark
    from ..hookscripts import TEMPLATES

    return mark != wrapper_mark(TEMPLATES[name])


def _signal_at() -> str | None:
    """git-hn's own test hook, as ``git hn sync`` reads it (``commands.interrupt_after``): only
    when ``HN_INTERNAL_TESTING=1``, ``HN_TEST_REPLICATION_SIGNAL_AT`` names a seam at which the
    fetch hook's import sends itself SIGINT and goes on, as if Ctrl-C were pressed there."""
    import os

    if os.environ.get("HN_INTERNAL_TESTING") == "1" and os.environ.get("HN_TEST_REPLICATION_SIGNAL_AT"):
        return "signal:" + os.environ["HN_TEST_REPLICATION_SIGNAL_AT"]
    return None


def _check_wait() -> float | None:
    """git-hn's own test hook: only when ``HN_INTERNAL_TESTING=1``, ``HN_TEST_CHECK_WAIT`` is the
    seconds the pre-push hook's checks wait for a busy verified state (``stateview.checking``;
    None: its own bound), so that a test holding the lock is not waited for 5 s by each push."""
    import os

    if os.environ.get("HN_INTERNAL_TESTING") == "1":
        try:
            return float(os.environ.get("HN_TEST_CHECK_WAIT", ""))
        except ValueError:
            pass
    return None
