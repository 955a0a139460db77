"""The prose of the man pages (roff), beside what ``docgen`` takes from the command tree: each
page's description and the hn-memory(7) overview. Data only; in these non-raw strings roff's
``\\-`` is written ``\\\\-``."""

PROSE = {
    "git-hn": """\
.SH DESCRIPTION
git\\-hn records decisions, observations, assumptions, attempts, verifications and session
handoffs as Ed25519\\-signed, append\\-only memory streams under
.BR refs/hn/memory/* ,
anchored to exact commits and paths, judged by the trust policy in
.BR .hn/policy.json ,
recalled in small bounded JSON for agents, and replicated between clones over ordinary Git
remotes through a quarantine that measures and validates before anything is accepted.
It speaks the protocol hn\\-memory/0; see
.BR hn-memory (7).
.PP
Every error is one line
.B git\\-hn: <message>
on standard error, with exit status 1. Machine output (\\-\\-json) is one line of compact JSON.
Memory content is untrusted inert data: it is never interpreted, and human output replaces
control characters.
.PP
Read commands answer from a verified state kept in
.BR .git/hn/memory/ .
When there is none to use (the first command after an install, or after an upgrade that
changes git\\-hn's verifying code or its Ed25519 libraries, or a damaged state file), a command
verifies every memory again before
it answers: seconds for a hundred thousand memories. Once that has taken a second, and only when
standard error is a terminal (and
.B TERM
is not
.BR dumb ),
one line there names the work and how far it got
.RB ( "git hn: verifying 100,000 memories (40%)" )
and is erased before the command's own output; the hooks that Git waits on do the same. Nothing
is written otherwise, so agents and scripts see no change.
.PP
When its output is not a terminal (a pipe, a script),
.B git hn identity show
prints a
.B Ref:
line naming the collaboration ref
.BR refs/hn/actors/<actor> ;
git\\-hn never creates that ref and keeps the line for compatibility with the other
implementation. On a terminal it shows the name, the short actor ID and the full one instead.
""",
    "git-hn-identity": """\
.SH DESCRIPTION
An identity is an Ed25519 key pair whose actor ID is derived from its public key; every memory
is signed by one. The keyring of a clone is
.BR .git/hn/identities/ ,
one private file (mode 0600) an identity, and one of them is the active identity, which signs
what this clone records.
.B git hn init
creates the first. A display name is whatever its actor chose, and anyone can sign under any
name: trust is given to an actor ID, never to a name (see
.BR git-hn-policy (1)).
.PP
.B export
writes the private identity to a new file (mode 0600, never standard output), and
.B import
adds such a file to another clone's keyring, so one actor signs in several clones and machines;
sync each clone before recording there.
.B use
makes another identity of the keyring the active one, and
.B remove
deletes one that is not active, private key included, after a copy in its
.B \\-\\-backup
file (needed unless init made it here, no export copied it and it signed nothing here). Whoever holds a private key signs
as its actor, and nothing takes a key back: for a lost or copied key, a maintainer untrusts the
actor and its owner makes a new identity.
""",
    "git-hn-memory": """\
.SH DESCRIPTION
Memories are appended to your own streams with compare\\-and\\-swap on the stream ref; a lost
race is retried with a freshly signed envelope.
A write goes to the stream its
.B \\-\\-stream
(or a request's
.BR stream )
names, else the one
.B GIT_HN_STREAM
names for the process, else the one
.B git config hn.stream
names (with
.BR "git config \\-\\-worktree" ,
for one worktree), else your default stream. Each is a full stream ID or
.BR label:NAME ,
your stream of that name (derived from your actor and the label, so the same label continues the
same stream and never names another actor's). Agents that share a clone and an identity each
take a label of their own, so the brief lists each one's latest handoff, and a worktree on an
unpushed branch keeps its memories from holding back the others'.
.PP
.B \\-\\-applies
says where a memory holds:
.B exact
only at its anchor commit (recall and the brief at any other commit leave it out),
.B descendants
at the anchor commit and every commit that has it in its history, and
.B subject
only for a read of the same typed subject
.RB ( "recall \\-\\-subject ID" );
see
.BR hn-memory (7).
.PP
Corrections never rewrite history:
.B supersede
and
.B retract
add new signed memories that change the lifecycle class of the target;
.B challenge
adds another actor's dissent beside it.
.B recall
returns a deterministic, bounded answer (default 20 records and 65536 bytes of encoded
content), served from the verified state under
.B .git/hn/memory/
.RB ( state\\-v0.sqlite ,
sealed by
.BR state\\-v0.seal ):
every command brings it up to date by verifying only the commits that are new since it last
ran, and discards and rebuilds it when it is missing, foreign, inconsistent or unsafe.
.B git hn memory index rebuild
re\\-verifies every signature and also writes
.B index\\-v0.json
(the upstream schema; omitted when it would exceed its 256 MiB bound), which a command that
changes memory refs deletes;
.B git hn memory index verify
re\\-derives everything and compares. Deleting any of these files is always safe.
""",
    "git-hn-policy": """\
.SH DESCRIPTION
The trust policy is the file
.B .hn/policy.json
(an hn.policy/0 document) committed in the repository. Recall, the brief and every other read
judge memories by the policy at the query commit
.RB ( \\-\\-at ,
default HEAD), never by the working tree, so trust changes are reviewed and versioned like
code. Default recall returns only the memories the policy qualifies; without a policy every
memory is
.BR policy\\-missing .
.PP
.BR init ,
.B trust
and
.B untrust
edit the file in the working tree only (rewritten canonically, with what changed printed);
nothing is staged or committed for you: commit the file to apply it. An ACTOR is a full actor
ID, a unique prefix of at least 8 hex characters, or a display name unique among known actors;
anyone can sign under any name, so compare the ID printed with the one the person's own
.B git hn identity public
prints before you commit. A committed policy that is invalid stops the read commands at that
commit with an error naming the file and the commit.
""",
    "git-hn-replication": """\
.SH DESCRIPTION
A selection authorizes transport, never trust. It is saved under
.B .git/hn/replication/selections/
and lists exact memory streams (or \\-\\-all) and the budgets a remote must stay within.
Actor and proposal selectors are stored for compatibility but never imported.
.PP
With exact memory streams,
.B select
asks the remote once which actor owns each (nothing is said when it cannot answer) and keeps
that under
.BR .git/hn/replication/owners/ ,
so that each later sync fetches exactly those refs in one round trip instead of listing every
memory ref of the remote.
.PP
.B forget\\-anchors
ends the reminder that each push to a remote and each sync with it give for an anchor commit a
push, or a branch deleted or squash\\-merged on the server, took off it (see
.BR git-hn-hooks (1)),
only when the commit was taken off on purpose (it held a secret; otherwise the reminder's push
of the commit back is the fix): it forgets the commits named (full or abbreviated IDs, matched
against what is remembered, so a commit gone from this clone can be named), or with none every
one remembered for the remote. All or nothing; nothing is pushed and no memory changes, so
whoever imports such a stream from the remote still stops at that memory.
""",
    "git-hn-sync": """\
.SH DESCRIPTION
Selected streams whose tips moved are fetched into a fresh bare quarantine repository in one
.BR "git fetch" :
by name when every selected stream's owner is known (learnt by
.B replication select
or from earlier syncs), else after one listing of the remote's memory refs. Each is measured
against its budgets, fully verified, checked for rollback and divergence,
classified against the accepted memory set, and promoted to
.B refs/hn/remotes/<remote>/memory/*
in one atomic ref transaction. A valid stream promotes while an invalid one beside it fails.
Then your verified local streams are pushed with explicit, non\\-forced refspecs; the primary
branch and accepted refs are never pushed.
.PP
After a promotion a recall index that served the refs just before it is rebuilt, incrementally
(none is created; a stale one is left to the next recall). With
.BR \\-\\-recover\\-shallow ,
the anchor commits a saved exact selection needs beyond a shallow clone's boundary are fetched
exactly, with depth 1, and become new boundaries; the repository is never unshallowed.
In a partial clone
.RB ( "git clone \\-\\-filter" ),
the files memories are anchored on that the clone lacks are fetched into the quarantine by
object ID, with the memories, and copied into the repository when they are promoted.
.PP
Exit status is 1 when any selection failed; the message says which phase. Memories held back
from publication because their anchor commits (or the memories they cite) are not on the remote
yet are listed with what to push, and do not change the exit status:
.B \\-\\-json
lists them under
.BR heldBack .
.PP
A stream that waits for an anchor commit this clone lacks keeps the contract's
.B recovery
("fetch a branch that contains" the commit) in its
.B \\-\\-json
outcome; after a rebase, an amend or a deleted branch no branch has it, so the outcome's
.B hint
gives what the human output says: which fetch may bring it, or the push by which a clone that
still has it puts it back.
""",
    "git-hn-hooks": """\
.SH DESCRIPTION
.B git hn hooks install
writes three wrappers into the repository's hooks directory (honouring core.hooksPath), or
into the global core.hooksPath with \\-\\-global. An existing hook moves to
.B hn\\-chained/<hook>
in the same directory and runs first with the same arguments and input; its status is honoured.
A chained shell script runs with
.B $0
set to the hook's own path, as Git would have run it, so hook managers that find their files
from
.B $0
keep working; a hook that is a symbolic link runs through its link, so
.B readlink \\-f "$0"
finds the file it leads to, as under Git. Git\\-hn's own publication push, started by git\\-hn's pre\\-push wrapper for a
push your hooks approved, does not run them a second time: neither the chained pre\\-push hook
nor a hook manager's that runs git\\-hn's as its own legacy hook (that publication push uses
.BR \\-\\-no\\-verify ).
A publication started otherwise
.RB ( "git hn sync" ,
or the line a team adds to its own hook, under HOOK MANAGERS) runs the pre\\-push hook with
.B HN_HOOK_ACTIVE=1
set, at the terminal the command has (a hook may ask there; git\\-hn's other network Git
processes never ask). A hook of yours that checks what is pushed (a secret scanner) therefore never sees memory
refs the wrapper published; a
.B git hn sync
publication runs it, and git\\-hn's own secret lint checks every memory either way.
.PP
.B pre\\-push
validates, lints and publishes your local memory streams to the remote you push to.
A failure is reported as one line; it blocks the push only with
.BR "git config hn.prePush block"
(the default is
.BR warn ).
With
.BR warn ,
the publication runs in the background after the checks (the push does not wait for it), and a
failed publication is reported by the next push, which publishes those streams again; with
.B block
it runs before the push goes on for memory anchored on commits the remote has, and right after
the push (in the background) for memory anchored on the commits being pushed. Use
.B git hn sync
where the publication must be complete when the command returns.
A remote that refuses memory refs (a host whose hooks allow branches only), or where you only
read memory, can be left out of publication, by both the hook and
.BR "git hn sync" :
.BR "git config remote.<name>.hnPublish false" .
Git\\-hn's own Git processes never ask at the terminal for a password or an ssh key's
passphrase: each one that may contact a remote runs without a terminal (and, unless
.B SSH_ASKPASS_REQUIRE
or
.B SSH_ASKPASS
is set, ssh starts no askpass program for it), so it fails at once where it would ask; only a
publication push that runs your pre\\-push hook keeps the terminal, for the hook (above). Load a key that
has a passphrase into an agent
.RB ( ssh\\-add ),
or on a desktop let ssh ask in a dialog
.RB ( "export SSH_ASKPASS_REQUIRE=prefer" );
over HTTPS, use a credential helper that keeps the password (one that asks every time cannot
answer git\\-hn:
.BR "git config credential.helper \'cache \\-\\-timeout=3600\'" ).
A remote that pushes elsewhere than it fetches (several push URLs, a team repository and its
mirror; or one push URL that is your fork) is asked, at each push URL, which branches and memory
refs it holds: each push URL is given the memory anchored on commits its own branches hold, and
one that refused a push is named by its place in
.B "git remote get\\-url \\-\\-push \\-\\-all REMOTE"
(a line never shows a URL: it may carry credentials) and is tried again on every push and sync
until it takes it. A push URL that only
.B "url.<base>.pushInsteadOf"
respells (no
.BR "remote.<name>.pushurl" )
is the fetch URL's repository: its remote\\-tracking refs count, as for any remote.
Git runs the hook once for each push URL; with
.B warn
the first one's run says what there is to say, once.
A push that takes off the remote a commit a memory is anchored on (whoever imports the memory's
stream would stop at it) says so, naming whose memories they are (with
.B block
the push is refused, and nothing is published; only if the commit goes on purpose,
.B "git \\-c hn.prePush=warn push \\-\\-force\\-with\\-lease=REF:OID... REMOTE OID:REF..."
(the line gives it in full, to paste; each lease is the tip this clone last saw there, its
remote\\-tracking ref, and refuses a ref a teammate moved since; there is no such command while a
tip there is one this clone has not fetched) repeats the
push with the warning instead; for a
.B \\-\\-mirror
push, or one of more than eight refs, the line says to run your own push again with
.BR "git \\-c hn.prePush=warn push" ),
and names the push that keeps it there as a branch
.BR hn\\-anchor/... ;
each later push to that remote and each
.B git hn sync
with it says it again until the commit is back, or, for a commit taken off on purpose (a
secret), until
.B git hn replication forget\\-anchors
forgets it (importers still stop at the memory). Git\\-hn never pushes it back itself: the push
may have been made to take a secret off the remote. The same reminder names such a commit that a
branch squash\\-merged or deleted on the server took off (a hosting UI's merge): while a memory
you published is anchored off the remote's default branch, each sync with it and each push to it
ask the remote for its branches (one
.BR "git ls-remote --heads" ).
A forced update or a deletion of a remote ref whose tip this clone has not fetched cannot be
checked (what it takes off is not here to walk): while the remote holds memory, the push says so
(with
.B block
it is refused:
.B git fetch
first, then push again). An update that is not forced takes nothing off (Git makes it only as a
fast\\-forward, and refuses the rest itself: "fetch first"), however old this clone's
remote\\-tracking ref is: such a push gets no line of git\\-hn.
The anchor check reads this clone's verified memory state. While another git\\-hn holds it (an
index rebuild, say) the hook waits a few seconds for it, then says the check could not be done; a
clone with no state builds it first (saying so when that verifies many memories), and when it
cannot be built the hook says why the check could not be done. With
.B block
a push that takes commits off and could not be checked is refused.
.PP
.B reference\\-transaction
stands in for the post\\-fetch hook Git does not have: after a committed transaction that
updated
.B refs/remotes/<remote>/*
for a remote with a saved selection, it imports that remote's selected streams. It never fails
the fetch. A fetch that updates no ref runs no transaction and therefore no import, and neither
does the remote\\-tracking update of a push whose pre\\-push hook git\\-hn ran (it brings
nothing to import: the hook noted the push's process and the commits it pushes), nor of any
other push (\\-\\-no\\-verify, or nothing to push), known on Linux by the command line of the
Git process running the hook; in a
repository with no saved selection the wrapper does not start git\\-hn at all, nor for a fetch
from a remote that has none while another remote has one, nor for a transaction that only
deletes remote\\-tracking refs (each branch a
.B git fetch \\-\\-prune
removes: a deletion brings nothing to import), nor for what
.B git pack\\-refs
and
.B git gc
do to refs (their transactions move no ref). When the last import from that
remote found everything up to date, or brought it up to date (every stream it fetched promoted
whole), the wrapper asks Git the same questions (the remote's URL
and memory refs, the accepted refs) and, if the answers and the selection file are exactly what
that import read, starts no git\\-hn either (the quiet record, one per remote, in
.BR .git/hn/replication/quiet/ ;
any change starts git\\-hn as before). The wrapper waits for the remote's memory refs as long as
git\\-hn's import would
.RB ( hn.syncStallTimeout
when the record was written); a remote that does not list them in time makes the import fail at
once, without asking again. Git runs the hook once per ref a fetch updates: the
remote is asked once per fetch, and an import runs once per fetch. A fetch that moves a
remote\\-tracking branch off a commit (a teammate's force\\-push) starts git\\-hn in a clone that
ever published memory, once for the fetch however many branches moved; when nothing is to be
imported it imports nothing and asks the remote nothing more, and says whether an anchor of yours
left with it (asking the remote for its branches only then). A branch the fetch updates later
starts it again only when it takes off a commit that a memory you published to that remote is
anchored on and this fetch has not named yet, so each is said once per fetch (git\\-hn keeps their list in
.BR .git/hn/replication/published/ ,
which the wrapper reads); without that list, what a later branch takes off is said by your next
push or sync. The
import runs inside the fetch, so a fetch that brings new memory takes as long as the import;
after a promotion it deletes the recall index rather than rebuilding it, and the next recall
rebuilds it (incrementally). A problem is one line on stderr with its first cause, shortened
(for example a stream that stops at a memory whose anchor commit is not on the remote), naming
.BR "git hn sync <remote>" ,
which retries the import and reports every outcome.
.PP
Memory refs keep no reflog. A transaction git\\-hn did not make that deletes one of your own
.B refs/hn/memory/*
refs, or moves it back (a forced
.BR "git fetch <remote> '+refs/hn/memory/*:refs/hn/memory/*'" ,
.BR "git update\\-ref" ),
makes the same hook say how many of your memories that took and the
.B git update\\-ref REF TIP
that puts them back; every read says it too until then, and a record to that stream is refused
(it would sign a sequence your key signed already). Your own
.B git hn memory reanchor
and
.B \\-\\-drop
are not such a move.
.PP
Uninstall removes the wrappers and moves chained hooks back, only if nothing changed since
install.
.PP
.B post\\-rewrite
re\\-anchors, after
.B git commit \\-\\-amend
or
.BR "git rebase" ,
your memories that were never published and are anchored on a rewritten commit, on its
replacement (signed anew); a verification whose commit got another tree stays on the commit it
tested, and the hook gives the commands to test the new one and record the result, then drop the
old one (git hn memory reanchor OLD \\-\\-drop). A memory is published only once its anchor
commit is on the remote (reachable from its remote\\-tracking refs, or from a push URL's own branches where the remote
pushes elsewhere than it fetches): after a rejected push nothing anchored on the
rejected commits goes out, and after the rebase and the next push the re\\-anchored memories do.
.PP
When the recorded
.B git\\-hn
is gone, the wrappers use
.B git\\-hn
on PATH; when there is none, they say so (one line for each Git command they serve, a push or
a fetch) and let it go on. The line gives the way out without git\\-hn: reinstall it, or the
commands that take the wrappers out and put back the hooks they chained, as uninstall would.
While the recorded
.B git\\-hn
is there, the wrappers run it, also after another git\\-hn is installed first on PATH (an
upgrade into another directory):
.B git hn hooks status
names the one each hook runs when it is not the git\\-hn on PATH, and
.B git hn hooks install
makes them run that one, and says so. An upgrade into the same directory (install.sh run
again) keeps every clone's wrappers as the earlier git\\-hn wrote them, so fixes to the
wrappers do not reach them:
.B git hn hooks status
names such a wrapper ("an earlier git\\-hn's wrapper"), and so does each run of git\\-hn such a
wrapper starts (a push, a fetch that imports, an amend), in one warning line (a wrapper exports
.B HN_WRAPPER
with a digest of its text; one of an earlier git\\-hn, which does not, is read only then), and
.B git hn hooks install
in each clone updates it, and says so.
.SH HOOK MANAGERS
husky v9 generates
.B .husky/_
(ignored by Git): install chains its stubs and the team's scripts in
.B .husky/
keep running. husky writes its stubs again whenever its own install runs (the
.B prepare
script
.BR husky ,
which every
.B npm install
runs), over git\\-hn's pre\\-push and post\\-rewrite wrappers (the reference\\-transaction
wrapper is not one of husky's hooks and stays): pushes then publish no memory and an amend
re\\-anchors nothing, until
.B git hn hooks install
chains the new stubs again.
.B git hn sync
and
.B git hn memory record
say so in one warning line, and
.B git hn hooks status
says
.BR "not installed" .
.B pre\\-commit install
run after git\\-hn's moves the wrapper to
.B <hook>.legacy
and runs it there, before its own checks, so memory would be published for a push they refuse
(hooks status says so);
.B git hn hooks install
then chains pre\\-commit's hook and puts the wrapper back, so pre\\-commit's checks run first.
When git\\-hn had chained pre\\-commit's own hook, the wrapper skips that copy while
pre\\-commit runs it (it would run inside itself and fail the push).
Install refuses to write into a hooks directory whose files are tracked or would
show in
.B git status
(a committed core.hooksPath such as
.BR .husky ),
because those files are the team's. Call git\\-hn from the team's own pre\\-push hook instead,
where that is agreed, so that teammates without git\\-hn are not blocked:
.PP
.nf
if command \\-v git\\-hn >/dev/null; then git hn hooks run pre\\-push "$@"; fi
.fi
.PP
git\\-hn publishes memory with a push of its own (in the background, after the checks). Started
from this line (not from git\\-hn's wrapper, whose publication push uses
.BR \\-\\-no\\-verify ),
that push runs the team's pre\\-push hook again with
.B HN_HOOK_ACTIVE=1
set; a team hook that does slow work (tests, linters) can skip it then:
.PP
.nf
[ \\-n "${HN_HOOK_ACTIVE\\-}" ] && exit 0
.fi
.PP
Or run
.B git hn sync
after pushing. Likewise, so that an amend or a rebase re\\-anchors your unpublished memories, the
team's post\\-rewrite hook can call (it passes Git's list of rewritten commits on, so it must not
read its standard input first):
.PP
.nf
if command \\-v git\\-hn >/dev/null; then git hn hooks run post\\-rewrite "$@"; fi
.fi
.PP
Without it, after an amend or a rebase the push and
.B git hn sync
name the memories left on the old commits, and
.B git hn memory reanchor OLD NEW
moves them (or, for a commit dropped on purpose,
.B git hn memory reanchor OLD \\-\\-drop
discards your unpublished memories that name it). The reference\\-transaction wrapper has no such stand\\-in: run
.B git hn sync
to import.
.SH PLATFORMS
Linux is the platform git\\-hn is tested on most. Where there is no
.B /proc
(macOS, the BSDs), git\\-hn and the wrappers ask
.BR ps (1)
for what they read there: the command line of the
.B git push
a hook runs in (whether it forces or mirrors, whether a transaction is a push's), the Git
process above a hook manager, and a fetch's start time (one process each, only there: on Linux
nothing more runs). A Git of git\\-hn's that contacts a remote and runs past its time bound is
then ended with its process group. Without
.BR timeout (1)
(macOS) the reference\\-transaction wrapper bounds its question to the remote with a watchdog
of its own, the same bound; without
.BR setsid (1)
it starts that question without a terminal through perl, so ssh asks no passphrase there.
Where neither setsid nor perl exists, ssh may ask for a passphrase in the middle of
.BR "git fetch" :
load the key into an agent; and the watchdog can end only the Git it started, so the fetch goes
on within the bound while Git's ssh or remote helper may run on in the background until the
remote answers or drops the connection. ps joins a command's arguments with blanks, and they are split
again at blanks: a push whose words may belong to an option's value (any option that takes one,
such as
.BR \\-o ,
or a path with a blank) is read as one whose command line cannot be read: the
reference\\-transaction wrapper then runs git\\-hn's import as for a fetch. Where it cannot be
read (so, or no /proc and no ps), a push with
.B hn.prePush
at
.B block
that updates a remote branch this clone has not fetched is refused, forced or not, with no
command that forces it: fetch first.
""",
}

HN_MEMORY_7 = """\
.TH HN-MEMORY 7 "{date}" "git-hn {version}" "git-hn Manual"
.SH NAME
hn-memory \\- the Agent Memory Protocol hn\\-memory/0: format, trust model and safety limits
.SH FORMAT
Each memory is a Git commit with exactly two mode\\-100644 blobs:
.B memory.json
(the canonical UTF\\-8 JSON envelope) and
.B signature
(unpadded base64 Ed25519 over those exact bytes). The memory ID is sha256 of memory.json.
Streams are append\\-only chains under refs/hn/memory/<actor>/<stream>; sequence starts at 1 and
both the Git parent and the signed previous ID name the predecessor.
.SH APPLICABILITY
Each record says where it holds
.RB ( "\\-\\-applies MODE" ),
and recall and the brief at a commit (HEAD by default) keep only what applies there (the view
page marks the others):
.B exact
applies only at the anchor commit itself, so recall and the brief at any other commit leave it
out;
.B descendants
applies at the anchor commit and at every commit that has it in its history (the usual choice);
.B subject
applies only to a read of the same typed subject
.RB ( "recall \\-\\-subject ID" ),
at any commit.
.SH TRUST MODEL
Five judgments stay separate: signature validity proves attribution and integrity; policy
qualification says the actor and kind are listed in the memory section of .hn/policy.json at the
exact query commit; evidence resolution says named objects exist; semantic truth is a human or
agent judgment; and no memory, handoff, signature or selection ever grants prompt authority.
Without a policy every memory is policy\\-missing and default recall returns nothing.
Since the policy is read at the query commit, a branch or tag without a maintainer's later
untrust still trusts that actor, and a branch can trust its own author: a read that shows
memories as trusted adds one hint line when the policy at the remote's default branch does not
trust their actor or kind (policy drift); the trust classes stay those of the query commit.
.SH SAFETY LIMITS
Content at most 65536 bytes; 32 topics of at most 128 bytes; 64 evidence items; 128 anchored
paths (4096 bytes each, 65536 in total); handoff lists of 64 entries of 4096 bytes, 65536 bytes
in total; memory.json at most 512 KiB when read. Weak Ed25519 keys (small order, non\\-canonical
encodings) are refused. Requests, policies and private files are read as strict UTF\\-8 JSON
without duplicate keys. Replication budgets bound events, objects and bytes per stream, and a
byte watchdog stops oversized fetches.
.SH SEE ALSO
.BR git-hn (1),
.BR git-hn-memory (1),
.BR git-hn-replication (1),
.BR git-hn-sync (1),
.BR git-hn-hooks (1)
"""
