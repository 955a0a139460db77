"""The two hook wrappers ``git hn hooks install`` writes (CONTRACT §10.7), as shell text.

They are plain POSIX sh so that the common case costs no Python start-up: a
``reference-transaction`` that touches no ``refs/remotes/*`` ref (every commit, checkout or
branch update) exits after one ``grep``. Each wrapper reads stdin once into a private temporary
file and gives the chained user hook the same arguments and bytes. ``@GIT_HN@`` is replaced by the
shell-quoted path of the installed ``git-hn`` executable. The top-level ``hooks/`` directory of the
source tree holds these same scripts (a test keeps them identical).
"""

from __future__ import annotations

import os
import shutil


def git_hn_path() -> str:
    """The git-hn executable the wrappers (and the background publisher) run: the one on PATH."""
    found = shutil.which("git-hn")
    return os.path.abspath(found) if found else "git-hn"


PRE_PUSH = """#!/bin/sh
# git-hn pre-push wrapper (installed by `git hn hooks install`; see git-hn-hooks(1)).
# Runs the chained hook, if any, with the same arguments and stdin, honours its status,
# then lets git-hn validate, lint and publish local memory streams to the pushed remote.
hook_dir=$(dirname -- "$0")
chained="$hook_dir/pre-push.hn-chained"
input=$(mktemp "${TMPDIR:-/tmp}/git-hn-pre-push.XXXXXX") || exit 1
trap 'rm -f -- "$input"' EXIT
cat > "$input"
if [ -x "$chained" ]; then
    "$chained" "$@" < "$input" || exit $?
fi
[ -n "$HN_HOOK_ACTIVE" ] && exit 0
@GIT_HN@ hooks run pre-push "$@" < "$input"
"""

REFERENCE_TRANSACTION = """#!/bin/sh
# git-hn reference-transaction wrapper (installed by `git hn hooks install`; see git-hn-hooks(1)).
# Git has no post-fetch hook: a committed transaction that updates refs/remotes/<remote>/*
# makes git-hn import the remote's selected memory streams. It never fails the transaction.
hook_dir=$(dirname -- "$0")
chained="$hook_dir/reference-transaction.hn-chained"
if [ ! -x "$chained" ] && { [ "$1" != committed ] || [ -n "$HN_HOOK_ACTIVE" ]; }; then
    cat > /dev/null
    exit 0
fi
input=$(mktemp "${TMPDIR:-/tmp}/git-hn-ref-tx.XXXXXX") || { cat > /dev/null; exit 0; }
trap 'rm -f -- "$input"' EXIT
cat > "$input"
status=0
if [ -x "$chained" ]; then
    "$chained" "$@" < "$input"
    status=$?
fi
if [ "$1" = prepared ]; then
    exit $status
fi
if [ "$1" = committed ] && [ -z "$HN_HOOK_ACTIVE" ] && grep -q ' refs/remotes/' "$input"; then
    HN_HOOK_ACTIVE=1 @GIT_HN@ hooks run reference-transaction committed < "$input" || :
fi
exit 0
"""

TEMPLATES = {"pre-push": PRE_PUSH, "reference-transaction": REFERENCE_TRANSACTION}
