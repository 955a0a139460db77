"""The two hook wrappers ``git hn hooks install`` writes (CONTRACT §10.7), as shell text.

They are plain POSIX sh so that the common case costs no Python start-up: a
``reference-transaction`` that touches no ``refs/remotes/*`` ref (every commit, checkout or
branch update) starts one ``cat`` at most (none for its ``prepared`` and ``aborted`` calls when no
hook is chained), and one that does (a fetch, a push) starts git-hn only when the repository has
a saved replication selection (one ``git rev-parse`` tells where): a repository that selects
nothing imports nothing, and its pushes and fetches start no Python. The ``pre-push`` and
``post-rewrite`` wrappers read stdin once into a private temporary file, the
``reference-transaction`` wrapper into a variable (its lines are text), and each gives the
chained user hook the same arguments and bytes.

*The prelude.* Every wrapper starts with the same shell text (``hookprelude``'s): it runs the hook
that was there before install (chained in ``hn-chained/<name>``) as Git would have, marks which
wrapper ran git-hn (``@WRAPPER@``), and finds git-hn (``@GIT_HN@``), letting Git go on when there
is none.

*A fetch that brings no memory starts no Python.* A committed transaction that moves the
remote-tracking refs of one remote finds that remote's selection file (its name is the remote's
in unpadded URL-safe base64, computed with ``base64`` and ``tr``); when that remote has none, it
has nothing to import and git-hn is not started (the usual second remote of a fork, while the
first has a selection). Nor is it for the remote-tracking update of a ``git push`` whose
pre-push hook git-hn ran: that hook left a note (``hn/replication/pushing/<that name>``: the
push's process ID and the object IDs it pushes), and a transaction whose parent is that process
and whose remote-tracking refs all move to those objects is the push's own (it brings nothing to
import; the push publishes), so not even the quiet check's round trip to the remote is paid.
A push that left no note (``git push --no-verify``, a push with nothing to push) is known by its
command line (``/proc/<parent>/cmdline``, one ``tr``: ``git [options] push``, ``git_push``; where
there is no ``/proc``, ``ps -ww -o args= -p <parent>``) and starts nothing either; where neither
can say, git-hn runs as for a fetch.
When git-hn's last import from that remote found every selected stream up to date (or promoted every stream it fetched whole, at the tips the advertisement named), it left a *quiet record* for it (``hn/replication/quiet/<that name>``: the remote,
its selection file, its URL, the object ID of ``store.replication.quiet_input``'s bytes and the import's
advertisement bound, ``hn.syncStallTimeout`` in whole seconds; one per remote, so fetching two
remotes in turn keeps both quiet). The wrapper then asks Git what git-hn would ask (the URL, the
advertisement, the accepted-ref listing) and hashes the answers with the selection file in one
``git hash-object``; when the ID is the recorded one, nothing the import reads has changed and it
would import nothing again, so git-hn is not started. The advertisement is bounded by the
record's seconds, as git-hn bounds its own (it was 300 s: a remote that stalled only that listing
held ``git fetch`` 300 s, and then the import asked again for its 60); when they run out, git-hn
runs with ``unanswered`` and fails at once with the import's line (``fetch_hook._unanswered``),
unless the setting was raised since. Anything else (several
remotes in one transaction, no ``base64``, a changed or unreachable remote, a moved or deleted
accepted ref, a changed selection or URL, an interrupted import's anchor, a record of another
shape) runs git-hn as before, which decides and records anew. The wrapper only ever contacts the
URL git-hn approved when it wrote the record.

*Once per fetch.* Git 2.39 gives each ref a fetch updates a transaction of its own, so the hook
runs once per new or moved branch, and each run paid the quiet check's round trip (an audit: 100
new branches over a 300 ms link, 0.72 s without the hook and 66.8 s with it). A match leaves a
stamp beside the record (``hn/replication/quiet/<that name>.seen``: ``hn-seen/0``, the Git
process's ID and start time from ``/proc`` (``-`` without it), the record's ID), and the
later transactions of the same Git process whose record is still that one start nothing; git-hn's
import (or its check of a force-push, below) leaves the same stamp with ``imported``
(``fetch_hook._note_imported``), so git-hn runs at most once per fetch. The stamp is read and
written with shell builtins: the usual one-branch fetch costs no process more.

*A teammate's force-push.* The quiet record hashes memory refs only, so a fetch that brings a
force-pushed branch matched it, and git-hn's check of what left the remote-tracking refs
(``replication.tracked``) never ran from the fetch hook. When the remote was found quiet (by this
transaction or an earlier one of the fetch), a tracking ref that existed before moved, and this
clone ever published memory (``store.given``'s journal, ``given-v0``, exists), one local
``git rev-list -n 1`` of the old values without the new ones asks whether a commit left them; if
one did, git-hn runs with ``quiet``: it imports nothing (the remote is not asked again) and only
checks what left (``atrisk`` asks the remote for its branches only when an anchor of this
clone's publications left). An importer-only clone pays nothing. git-hn runs at most twice for
a fetch (an audit: 40 force-pushed branches started git-hn 40 times, each with its own round
trip; 2.96 s against 0.02 s without the hooks): its import leaves the ``imported`` stamp, after
which a later ref's force-push still starts one check of what left (a review: a fetch that
brought memory and force-pushed main said nothing of the anchor main took off); that check leaves
``checked``. After ``imported`` or ``checked``, a later ref's force-push starts git-hn's check
only when an anchor of this clone's publications to the remote is among the commits it left: the
hook's check and import write those anchors beside the stamp (``hn/replication/published/<that name>``:
``hn-published/0``, then one commit ID a line; ``tracked.note_published``), and the wrapper pipes
the walk of what left (``git rev-list``) into ``grep -qxF -f`` that list, which stops at the first
one (a review: the first check's ``checked`` stamp kept a later ref's force-push, which took this
clone's anchor off, unsaid at fetch time). The list leaves out the anchors this fetch's reminders already named
(kept in the stamp after its first line, the only one the wrapper reads), so each is said once
per fetch. 40 force-pushed branches of which none held an anchor
of ours still start git-hn at most once. Without a list that can be read, as before it existed:
one check after an import, nothing after ``checked`` (what a still later ref took off stays in
``tracked``'s record, and the next push or sync says it).

*A prune starts nothing.* A transaction whose remote-tracking refs are only deleted brings no
memory: ``git fetch --prune`` deletes each stale remote-tracking branch in a transaction of its
own, and each would otherwise pay the quiet check's round trip to the remote (50 pruned branches:
2.2 s with the hooks against 57 ms without) or start git-hn.

*An own stream moved back.* Memory refs keep no reflog. A transaction git-hn did not make
(``HN_HOOK_ACTIVE`` unset) that deletes a ``refs/hn/memory/<actor>/<stream>`` ref of an identity
of this clone (``hn/identities/<actor>.json``), moves it to a commit that does not contain its
old value (a forced fetch into ``refs/hn/memory/*``), or sets it without naming the old value
(``git update-ref REF NEW``: Git gives zeros), starts git-hn with ``own``, whose state knows the
old tip: it says what that took and how to put it back (``store.rewound``). A ref ``git
pack-refs`` deletes still holds its value (one ``git rev-parse``), and its packed-refs
transaction's lines are found in packed-refs (one ``grep``); a forward move costs one ``git
merge-base``.

The top-level ``hooks/`` directory of the source tree holds these same scripts (a test keeps them
identical).
"""
from __future__ import annotations

from .hookprelude import PRELUDE

PRE_PUSH = """#!/bin/sh
# git-hn pre-push wrapper (installed by `git hn hooks install`; see git-hn-hooks(1)).
# Runs the chained hook, if any, with the same arguments and stdin, honours its status,
# then lets git-hn validate, lint and publish local memory streams to the pushed remote.
""" + PRELUDE.replace("@NAME@", "pre-push").replace("@WHAT@", "memory was not published") + """\
# the input is held here, never in a temporary file, which a kill (SIGKILL) left in $TMPDIR
input=$(cat) || exit 1
hook_input() { [ -z "$input" ] || printf '%s\\n' "$input" 2>/dev/null; }  # (Git's lines, as given)
# git-hn's own publication push, started by this hook after the chained hook approved the user's
# push to the same remote, does not run the chained hook (the team's tests) a second time
if [ -x "$chained" ] && { [ -z "${HN_HOOK_ACTIVE-}" ] || [ -z "${HN_PRE_PUSH_CHECKED-}" ]; }; then
    hook_input | run_chained "$@" || exit $?
fi
[ -n "${HN_HOOK_ACTIVE-}" ] && exit 0
HN_PRE_PUSH_CHECKED=1
export HN_PRE_PUSH_CHECKED
find_git_hn || exit 0
hook_input | HN_PUSH_PID=$PPID "$hn" hooks run pre-push "$@"
"""

REFERENCE_TRANSACTION = """#!/bin/sh
# git-hn reference-transaction wrapper (installed by `git hn hooks install`; see git-hn-hooks(1)).
# Git has no post-fetch hook: a committed transaction that updates refs/remotes/<remote>/*
# makes git-hn import the remote's selected memory streams; one that moves an own memory ref
# back makes it say what that took. It never fails the transaction.
""" + PRELUDE.replace("@NAME@", "reference-transaction").replace("@WHAT@", "memory was not imported") + """\
if [ ! -x "$chained" ] && { [ "${1-}" != committed ] || [ -n "${HN_HOOK_ACTIVE-}" ]; }; then
    exit 0  # (unread input is fine: Git ignores a hook that does not read all of it)
fi
# the updates, one "<old> <new> <ref>" line each, in a variable (no temporary file): each reader
# below gets the same lines on a pipe, as from Git. Without a chained hook the first two lines
# are read by the shell itself: a transaction of one or two lines (`git pack-refs` and `git gc`
# delete each loose ref they pack in a transaction of its own) starts no process (`cat`)
if [ -x "$chained" ]; then
    input=$(cat)
elif IFS= read -r first; then
    if IFS= read -r second; then
        rest=$(cat)
        input="$first
$second${rest:+"
$rest"}"
    else
        input=$first${second:+"
$second"}
    fi
else
    input=$first
fi
case $input in  # no remote-tracking nor own memory ref: nothing for git-hn (the rest need not be parsed)
    *" refs/remotes/"*|*" refs/hn/memory/"*) ;;
    *) [ -x "$chained" ] || exit 0 ;;
esac
status=0
if [ -x "$chained" ]; then
    if [ -n "$input" ]; then printf '%s\\n' "$input"; fi | run_chained "$@"
    status=$?
fi
if [ "${1-}" = prepared ]; then
    exit $status
fi
moves_remote_ref() {  # a remote-tracking ref gets a value: a deletion (a prune) brings nothing
    while IFS=' ' read -r _old new ref; do
        case $ref in
            refs/remotes/*) ;;
            *) continue ;;
        esac
        case $new in
            *[!0]*) return 0 ;;
        esac
    done <<EOF
$input
EOF
    return 1
}
has_selection() {  # a saved replication selection: without one there is nothing to import
    common=$(git rev-parse --git-common-dir 2>/dev/null) || return 0  # (git-hn decides)
    for f in "$common"/hn/replication/selections/*; do
        [ -e "$f" ] && return 0
    done
    return 1
}
packed_refs_only() {  # the transaction `git pack-refs` (and `git gc`) makes for packed-refs:
    # before Git 2.4x it runs this hook, its lines reading as creations (<zero> <oid> <ref>) of
    # refs that packed-refs already holds at those values; a fetch writes the refs it creates as
    # loose files, so a fetch's lines are never all found there
    [ -n "$common" ] && [ -f "$common/packed-refs" ] || return 1
    while IFS=' ' read -r old _new ref; do
        case $ref in
            refs/remotes/*) ;;
            *) continue ;;
        esac
        case $old in
            *[!0]*) return 1 ;;  # a ref that existed moved: a fetch (no process started to know)
        esac
    done <<EOF
$input
EOF
    printf '%s\\n' "$input" | HN_PACKED="$common/packed-refs" awk '
        BEGIN { f = ENVIRON["HN_PACKED"]; while ((getline line < f) > 0) held[line] = 1 }
        index($3, "refs/remotes/") == 1 { n++; if (!(($2 " " $3) in held)) missing = 1 }
        END { exit (n > 0 && !missing) ? 0 : 1 }' 2>/dev/null
}
moved_remote() {  # the one remote whose remote-tracking refs the transaction moved
    remote=
    while IFS=' ' read -r _old _new ref; do
        case $ref in
            refs/remotes/*/*) moved=${ref#refs/remotes/}; moved=${moved%%/*} ;;
            *) continue ;;
        esac
        [ -n "$moved" ] && { [ -z "$remote" ] || [ "$remote" = "$moved" ]; } || { remote=; return 1; }
        remote=$moved
    done <<EOF
$input
EOF
    [ -n "$remote" ]
}
selection_of() {  # its selection file: the name in unpadded URL-safe base64 (core.remotes)
    command -v base64 >/dev/null 2>&1 || return 1
    stem=$(printf '%s' "$remote" | base64 | tr '+/' '-_' | tr -d '=\\n') || return 1
    case $stem in ""|*[!A-Za-z0-9_-]*) return 1 ;; esac
    selection="$common/hn/replication/selections/$stem.json"
}
own_push() {  # the remote-tracking update of the push running this hook, to what it pushed
    marker="$common/hn/replication/pushing/$stem"
    [ -f "$marker" ] && [ ! -L "$marker" ] || return 1
    { IFS= read -r pid && IFS= read -r pushed; } < "$marker" || return 1
    [ -n "$pid" ] && [ "$pid" = "$PPID" ] && [ -n "$pushed" ] || return 1
    while IFS=' ' read -r _old new ref; do
        case $ref in
            refs/remotes/*) ;;
            *) continue ;;
        esac
        case " $pushed " in
            *" $new "*) ;;
            *) return 1 ;;
        esac
    done <<EOF
$input
EOF
}
quiet() {  # what git-hn's import would read is what it last found up to date (see git-hn-hooks(1))
    stamp="$common/hn/replication/quiet/$stem"
    [ -f "$stamp" ] && [ ! -L "$stamp" ] || return 1
    { IFS= read -r magic && IFS= read -r s_remote && IFS= read -r s_file && IFS= read -r s_url &&
        IFS= read -r s_id && IFS= read -r s_bound; } < "$stamp" || return 1
    [ "$magic" = hn-quiet/0 ] && [ "$s_remote" = "$remote" ] && [ "$s_file" = "$stem.json" ] || return 1
    case $s_bound in ""|0*|*[!0-9]*|??????*) return 1 ;; esac  # whole seconds, 1 to 99999
    [ -f "$selection" ] && [ ! -L "$selection" ] || return 1
    for f in "$common"/hn/replication/anchors/*; do
        [ -e "$f" ] && return 1  # an interrupted import: git-hn repairs it
    done
    export LC_ALL=C GIT_NO_REPLACE_OBJECTS=1 GIT_LITERAL_PATHSPECS=1 GIT_TERMINAL_PROMPT=0
    url=$(git remote get-url --end-of-options "$remote" 2>/dev/null) && [ "$url" = "$s_url" ] || return 1
    # the round trip is bounded as git-hn bounds its advertisement (hn.syncStallTimeout when the
    # record was written, in whole seconds): by timeout(1), or where there is none (macOS) by a
    # watchdog of this shell's (``bounded``)
    bound= timed= detached=
    command -v timeout >/dev/null 2>&1 && bound="timeout $s_bound" timed=1
    # and never asks for a passphrase (no terminal: setsid(1), else perl's), as git-hn's do
    command -v setsid >/dev/null 2>&1 && bound="setsid -w $bound" detached=1
    ask=never  # (nor starts an askpass program the user did not choose: ``transport.remote_env``)
    [ -z "${SSH_ASKPASS-}" ] || ask=
    # the bytes of quiet_input: each answer followed by its exit status, so a failure never matches;
    # a bound that ran out (timeout's 124) is said on fd 3, ahead of the ID
    id=$({ { printf '%s\\000' "$url"
        # (exported: assignments before a function may not reach its commands; this is a subshell)
        export GIT_ALLOW_PROTOCOL=file:git:http:https:ssh SSH_ASKPASS_REQUIRE=${SSH_ASKPASS_REQUIRE-$ask}
        bounded $bound git ls-remote --refs -- "$url" 'refs/hn/*' 2>/dev/null
        asked=$?
        printf '\\000%s\\000' $asked
        [ $asked -ne 124 ] || printf 'unanswered ' >&3
        git for-each-ref '--format=%(objectname) %(refname)' "refs/hn/remotes/$remote/memory/" 2>/dev/null
        printf '\\000%s\\000' $?
        cat -- "$selection"; } | git hash-object --stdin 2>/dev/null; } 3>&1) || return 1
    # the remote did not list its memory refs within the bound: git-hn says so and asks no more
    case $id in "unanswered "*) return 2 ;; esac
    [ -n "$id" ] && [ "$id" = "$s_id" ] || return 1
    # the later transactions of this same fetch need not ask again (``seen_by_this_fetch``)
    ! writable "$fetch_stamp" || printf 'hn-seen/0 %s %s\\n' "$caller" "$s_id" > "$fetch_stamp" 2>/dev/null
    return 0
}
bounded() {  # "$@" within $s_bound seconds (124 past them): timeout(1), else (macOS) a watchdog that
    # SIGTERMs its process group as timeout(1) does (git's remote helper holds the pipe), and ends with
    # it. Session (no terminal, no passphrase prompt) and group: setsid(1)'s, else perl's, else none.
    if [ -z "$detached" ] && command -v perl >/dev/null 2>&1; then
        set -- perl -e 'use POSIX (); POSIX::setsid(); exec @ARGV or exit 127' "$@"
    fi
    if [ -n "$timed" ]; then
        "$@"
        return
    fi
    (exec "$@") 3>&- &  # (exec: its ID is the program's, and its group's where it made one; no fd 3:
    # with no group, a remote helper left running held $(…) open, a review)
    lister=$!
    ( trap 'kill "$nap" 2>/dev/null; exit 0' TERM
      sleep "$s_bound" &
      nap=$!
      wait "$nap" && { kill -TERM -"$lister" || kill -TERM "$lister"; } ) </dev/null >/dev/null 2>&1 3>&- &
    dog=$!
    wait "$lister"
    b_status=$?
    kill "$dog" 2>/dev/null
    wait "$dog"
    [ $b_status -ne 143 ] || b_status=124  # (SIGTERM: the watchdog's)
    return $b_status
}
this_fetch() {  # the Git process running this hook, as git-hn's ``hook_caller`` names it: its ID
    # and start time (a later process given the same ID is another): without /proc, ps(1)'s
    # ``lstart``, its words joined by _ (one process, only there); "-" where neither can say
    start=-
    if [ -f "/proc/$PPID/stat" ] && IFS= read -r st < "/proc/$PPID/stat" 2>/dev/null; then
        st=${st##*) }
        set -f
        set -- $st
        set +f
        [ $# -ge 20 ] && eval 'start=${20}'
    elif [ ! -e /proc/self ] && command -v ps >/dev/null 2>&1 &&
            st=$(LC_ALL=C ps -o lstart= -p "$PPID" 2>/dev/null); then
        set -f
        set -- $st
        set +f
        [ $# -eq 0 ] || { start=$1; shift; }
        for w in "$@"; do start=${start}_$w; done
    fi
    caller="$PPID $start"
    fetch_stamp="$common/hn/replication/quiet/$stem.seen"
}
seen_by_this_fetch() {  # an earlier transaction of this fetch found the remote quiet (and the record
    # is still the one it matched), or git-hn's import already ran for this fetch: Git 2.39 gives
    # each ref a fetch updates a transaction of its own, and each asked the remote again (a
    # hostile teammate's 100,000 branches made every fetch pay 100,000 round trips)
    [ -f "$fetch_stamp" ] && [ ! -L "$fetch_stamp" ] || return 1
    IFS=' ' read -r s_magic s_pid s_start s_token < "$fetch_stamp" 2>/dev/null || return 1
    [ "$s_magic" = hn-seen/0 ] && [ "$s_start" != - ] && [ "$s_pid $s_start" = "$caller" ] && [ -n "$s_token" ] || return 1
    case $s_token in imported|checked) return 0 ;; esac
    record="$common/hn/replication/quiet/$stem"
    [ -f "$record" ] && [ ! -L "$record" ] || return 1
    { IFS= read -r _m && IFS= read -r _r && IFS= read -r _f && IFS= read -r _u &&
        IFS= read -r r_id; } < "$record" 2>/dev/null || return 1
    [ "$r_id" = "$s_token" ]
}
commits_left() {  # a remote-tracking ref this transaction moved off a commit its new value lacks (a
    # teammate's force-push): git-hn's ``tracked`` check decides whether an anchor of ours left
    # with it. The quiet record cannot tell (it hashes memory refs only). One local ``rev-list``,
    # only for a ref that existed before (a new branch moves nothing off), only in a clone that
    # ever published memory (``store.given``'s journal: nothing of an importer's can leave), and
    # only until git-hn ran for the fetch (its ``tracked`` record keeps what a later ref left)
    [ -f "$common/hn/replication/given-v0" ] || return 1
    walk=
    while IFS=' ' read -r old new ref; do
        case $ref in
            refs/remotes/*) ;;
            *) continue ;;
        esac
        case $old in
            *[!0]*) ;;
            *) continue ;;
        esac
        walk="$walk$old
"
        case $new in
            *[!0]*) walk="$walk^$new
" ;;
        esac
    done <<EOF
$input
EOF
    [ -n "$walk" ] || return 1
    [ -n "$(printf '%s' "$walk" | git rev-list -n 1 --ignore-missing --stdin 2>/dev/null)" ]
}
ours_left() {  # after ``commits_left``: whether an anchor of this clone's publications to the remote
    # is among the commits that left (``tracked.note_published`` lists them): 0 yes, 1 no, 2 unknown
    # (no list, or an unreadable one). The walk stops at the first one found
    published="$common/hn/replication/published/$stem"
    [ -f "$published" ] && [ ! -L "$published" ] && [ -r "$published" ] || return 2
    IFS= read -r p_magic < "$published" 2>/dev/null && [ "$p_magic" = hn-published/0 ] || return 2
    # (the same $walk commits_left walked: that one stopped at its first commit, -n 1, this one
    # goes on until grep finds an anchor of ours, so neither output can serve the other)
    printf '%s' "$walk" | git rev-list --ignore-missing --stdin 2>/dev/null | grep -qxF -f "$published" && return 0
    return 1
}
git_push() {  # the Git process running this hook is a `git push`, by its command line (/proc): a
    # push brings nothing to import, also one pre-push left no note for (`--no-verify`, nothing to
    # push: a trial found each such push running a whole import and saying its failure again).
    # Without /proc (macOS), ps(1) says it (one process, only there; words split at blanks); where
    # neither can, or a program between Git and this wrapper (a hook manager) is the parent, git-hn
    # runs as for a fetch. Each argument on a line of its own (its own newlines made \\001 first),
    # Git's options before the command skipped (those taking a value, with it; from ps, whose words
    # may be a value's, such an option leaves it unknown: `-c "http.userAgent=a push" fetch`)
    hn_ifs=$IFS
    if [ -r "/proc/$PPID/cmdline" ]; then
        cmdline=$(tr '\\n\\000' '\\001\\n' < "/proc/$PPID/cmdline" 2>/dev/null) || return 1
        split='
'
    elif [ ! -e /proc/self ] && command -v ps >/dev/null 2>&1; then
        cmdline=$(ps -ww -o args= -p "$PPID" 2>/dev/null) || return 1
        split=' '
    else
        return 1
    fi
    set -f
    IFS=$split
    set -- $cmdline
    IFS=$hn_ifs
    set +f
    case ${1-} in
        git|*/git|git.exe|*/git.exe) shift ;;
        git-push|*/git-push) return 0 ;;
        *) return 1 ;;
    esac
    while [ $# -gt 0 ]; do
        case $1 in
            -C|-c|--git-dir|--work-tree|--namespace|--config-env|--super-prefix|--attr-source)
                [ $# -ge 2 ] && [ "$split" != ' ' ] || return 1
                shift 2 ;;
            -*=*) [ "$split" != ' ' ] || return 1; shift ;;
            -*) shift ;;
            *) break ;;
        esac
    done
    [ "${1-}" = push ]
}
own_stream_moved() {  # a Git command other than git-hn may have taken the ref of a stream of an
    # identity of this clone off its commit: a forced fetch moved it to a commit that does not
    # contain the old one, or it is gone, or (`git update-ref REF NEW`, `-d`: Git gives no old
    # value) git-hn decides. Not: a loose ref `git pack-refs` deletes (packed-refs keeps its value),
    # nor the packed-refs transaction's lines, which read as creations of what it holds, nor a
    # deletion's packed-refs transaction: Git runs it inside the loose one, whose lock on the ref
    # is still there, and then runs this hook for the loose one (said twice: a review)
    common=$(git rev-parse --git-common-dir 2>/dev/null) || return 1
    while IFS=' ' read -r old new ref; do
        case $ref in refs/hn/memory/*/*) ;; *) continue ;; esac
        actor=${ref#refs/hn/memory/}
        [ -f "$common/hn/identities/${actor%%/*}.json" ] || continue
        case $new in *[!0]*) ;; *) [ ! -e "$common/$ref.lock" ] || continue ;; esac
        case $old/$new in
            *[!0]*/*[!0]*) git merge-base --is-ancestor "$old" "$new" 2>/dev/null || return 0 ;;
            */*[!0]*) grep -qxF "$new $ref" "$common/packed-refs" 2>/dev/null || return 0 ;;
            *[!0]*/*) [ "$(git rev-parse -q --verify "$ref" 2>/dev/null)" = "$old" ] || return 0 ;;
            *) [ -n "$(git rev-parse -q --verify "$ref" 2>/dev/null)" ] || return 0 ;;
        esac
    done <<EOF
$input
EOF
    return 1
}
case $input in  # git-hn says what the move took, and how to put it back (``fetch_hook``)
    *" refs/hn/memory/"*)
        if [ "${1-}" = committed ] && [ -z "${HN_HOOK_ACTIVE-}" ] && own_stream_moved && find_git_hn; then
            printf '%s\n' "$input" | HN_HOOK_ACTIVE=1 "$hn" hooks run reference-transaction committed own || :
        fi ;;
esac
case $input in
    *" refs/remotes/"*)
        if [ "${1-}" = committed ] && [ -z "${HN_HOOK_ACTIVE-}" ] && moves_remote_ref && has_selection; then
            packed_refs_only && exit 0  # refs packed, none moved: nothing was fetched
            known= caller=
            if [ -n "$common" ] && moved_remote && selection_of; then
                # a remote with no saved selection has nothing to import (another remote has one)
                [ -e "$selection" ] || exit 0
                own_push && exit 0  # a push brings nothing to import (git-hn's pre-push publishes)
                this_fetch
                known=1
            fi
            how=  # git-hn imports, or with "quiet" only checks what left the tracking refs
            if [ -n "$known" ] && seen_by_this_fetch; then
                # git-hn ran for this fetch already (its import or check serves the fetch's later refs)
                # a later ref's force-push is still checked (a review: a fetch that brought memory
                # and force-pushed main said nothing of the anchor main took off): after git-hn's
                # import or check, only when an anchor of this clone's publications left with it
                # (a later review: the first check's stamp kept a later ref's unsaid), else (no
                # list of them) once after an import and no more after a check
                commits_left || exit 0  # (found quiet or imported by an earlier ref: asked once)
                case $s_token in
                    imported|checked)
                        ours_left
                        case $? in
                            0) ;;
                            1) exit 0 ;;
                            *) [ "$s_token" = checked ] && exit 0 ;;
                        esac ;;
                esac
                how=quiet  # a force-push: git-hn checks what left (``tracked``), and imports nothing
            fi
            # (after the per-fetch stamp: a fetch's later refs start no process for this)
            [ -n "$how" ] || ! git_push || exit 0  # a push brings nothing to import
            find_git_hn || exit 0
            if [ -n "$known" ] && [ -z "$how" ]; then
                (quiet)
                case $? in
                    0) commits_left || exit 0
                       how=quiet ;;
                    2) how=unanswered ;;  # (the import would only ask again: an audit, 300 s + 60 s)
                esac
            fi
            printf '%s\\n' "$input" | HN_HOOK_ACTIVE=1 HN_FETCH_CALLER="$caller" \\
                "$hn" hooks run reference-transaction committed ${how:+"$how"} || :
        fi ;;
esac
exit 0
"""

POST_REWRITE = """#!/bin/sh
# git-hn post-rewrite wrapper (installed by `git hn hooks install`; see git-hn-hooks(1)).
# After `git commit --amend` or `git rebase`, memories that were never published and are
# anchored on a rewritten commit are re-anchored on its replacement. Never fails Git.
""" + PRELUDE.replace("@NAME@", "post-rewrite").replace("@WHAT@", "memory was not re-anchored") + """\
# the input is held here, never in a temporary file, which a kill (SIGKILL) left in $TMPDIR
input=$(cat) || exit 0
hook_input() { [ -z "$input" ] || printf '%s\\n' "$input" 2>/dev/null; }  # (Git's lines, as given)
if [ -x "$chained" ]; then
    hook_input | run_chained "$@"
fi
[ -n "${HN_HOOK_ACTIVE-}" ] && exit 0
find_git_hn || exit 0
hook_input | HN_HOOK_ACTIVE=1 "$hn" hooks run post-rewrite "$@" || :
exit 0
"""

TEMPLATES = {"pre-push": PRE_PUSH, "reference-transaction": REFERENCE_TRANSACTION, "post-rewrite": POST_REWRITE}
