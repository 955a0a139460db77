"""Command bodies of trust onboarding (issue 13): ``git hn policy init|trust|untrust``,
``git hn identity export|import|use``, and the one-line hint recall and brief print when the trust
policy hides memories.

Like ``commands``, each body turns parsed values into one service call and renders the result;
typer (``app``) registers them. The hint goes to stderr, after the output, as
``git-hn: hint: …``: stdout keeps the contract's line formats and the brief's byte bound, and
``--json`` documents are unchanged; the hint is printed with ``--json`` too (an agent trial: the
form agents are told to use hid an untrusted memory without a word).
"""

from __future__ import annotations

from ..errors import UsageError
from . import render

POLICY_INIT_USAGE = "usage: git hn policy init"
TRUST_USAGE = "usage: git hn policy trust [ACTOR] [--kind KIND]..."
UNTRUST_USAGE = "usage: git hn policy untrust ACTOR | --kind KIND..."
EXPORT_USAGE = "usage: git hn identity export --output FILE"
IMPORT_USAGE = "usage: git hn identity import FILE [--activate]"
USE_USAGE = "usage: git hn identity use ACTOR"
COMMIT_HINT = ("Commit .hn/policy.json to apply it: recall and brief read the policy at the query "
               "commit, never the working tree")


def policy_init_command(extra: list[str]) -> int:
    from ..service import policy_edit
    from ..store.repo import open_repo

    if extra:
        from .options import stray

        raise stray(POLICY_INIT_USAGE, extra)
    who, kinds = policy_edit.init(open_repo())
    render.lines([f"Created .hn/policy.json trusting {_label(who)} for {', '.join(kinds)}", COMMIT_HINT])
    return 0


def policy_change_command(trust: bool, positional: list[str], kinds: list[str]) -> int:
    from ..service import policy_edit
    from ..store.repo import open_repo

    usage = TRUST_USAGE if trust else UNTRUST_USAGE
    if len(positional) > 1:
        from .options import stray

        raise stray(usage, positional[1:])
    if not positional and not kinds:  # both are optional, one is needed
        raise UsageError(f"{usage}; give an ACTOR, a --kind, or both" if trust else f"{usage}; give an ACTOR or a "
                         "--kind")
    if not trust and positional and kinds:
        # the format has no per-actor kinds: "untrust ACTOR --kind K" cannot mean "only K of
        # ACTOR", and removing both would remove more than the user may have meant
        from ..errors import InputError

        raise InputError("untrust takes ACTOR or --kind, not both: trusted kinds apply to every "
                         "trusted actor")
    repo = open_repo()
    outcome = policy_edit.change(repo, trust=trust, actor=positional[0] if positional else None, kinds=kinds)
    lines = change_lines(outcome, trust)
    if trust and outcome.edit.data is None and COMMIT_HINT not in lines and policy_edit.uncommitted(repo):
        lines.append(COMMIT_HINT)  # "unchanged" in the file, but not yet what recall reads
    render.lines(lines)
    revoked = policy_edit.revoked_warning(repo, outcome) if trust else ""
    if revoked:  # (before the name hint: trusting a revoked key again is the graver news)
        from .advice import warn

        warn(revoked)
    level, unknown = policy_edit.unknown_warning(outcome) if trust else ("", "")
    if unknown:
        from .advice import warn

        (warn if level == "warning" else render.hint)(unknown)
    named = policy_edit.name_warning(repo, outcome) if trust else ""
    if named:
        render.hint(named)
    warning = policy_edit.self_trust_warning(repo, outcome) if trust else ""
    if warning:
        from .advice import warn

        warn(warning)
    return 0


def show_policy(repo, doc: dict, maintainers=()) -> None:
    """``policy show``'s lines (on a terminal, a trusted actor known here also gets its name:
    ``recall.policy_lines``), the names hint (``names_hint``), and a hint for entries that can
    never match."""
    from ..service import recall

    actors = (doc.get("memory") or {}).get("trustedActors") or []
    if render.on_terminal() and actors:
        from rich.cells import cell_len

        from .terminal import width

        names = _names(repo)
        render.lines(recall.policy_lines(doc, names, width(), cell_len))
        names_hint(repo, (), maintainers, names)
    else:
        render.lines(recall.policy_lines(doc))
        names_hint(repo, actors, maintainers)
    upper = [a for a in actors if a != a.lower()]
    if upper:  # valid, but trust matches exactly and actor IDs are lowercase (§6.3)
        render.hint(f"{len(upper)} trusted actor{'s' if len(upper) > 1 else ''} with uppercase hex "
                    f"never match{'' if len(upper) > 1 else 'es'} an actor (IDs are lowercase), such as "
                    f"{upper[0][:12]}…: write {'them' if len(upper) > 1 else 'it'} in lowercase, or use "
                    "git hn policy trust")
    if not working_hint(repo, doc):
        absent_hint(repo, doc)


def working_hint(repo, doc: dict, waiting: bool = True) -> bool:
    """``policy show`` of HEAD when the working tree's policy file is not HEAD's: one hint that it
    is in a merge conflict, or one git hn does not read (a symbolic link, a file this user may not
    read: ``policy_edit.unusable_working``, f160), or invalid (why, and the way out:
    ``policy_edit.invalid_working``, a file over the policy's bound too), or, with ``waiting``, not
    committed yet. ``--json`` passes ``waiting`` False: its document is the contract's, so a file
    that cannot be committed as it is is said on stderr as the lines' form says it (f151), and one
    waiting for its commit, as before, not at all. Whether the working tree holds such a file
    (``absent_hint`` is then not said)."""
    from ..service.policy_working import differs_from_working

    if doc["commit"] != repo.head_commit() or not differs_from_working(repo, doc["commit"]):  # (HEAD's: an
        # older commit's policy differs from the working tree's as a matter of course)
        return False
    from ..service.policy_edit import UNMERGED, invalid_working, unmerged, unusable_working

    if unmerged(repo):  # (a trial: "commit it to apply it" said of a file of conflict markers)
        render.hint(f"{UNMERGED}; until the merge is committed, this shows the policy at commit "
                    f"{doc['commit'][:12]}, which recall and brief read")
        return True
    invalid = unusable_working(repo) or invalid_working(repo)
    if invalid:  # (a trial: "commit it to apply it" said of a file that is not valid JSON)
        render.hint(invalid)
    elif waiting:
        render.hint(f".hn/policy.json in the working tree is not the policy at commit {doc['commit'][:12]}, which "
                    "is what this shows and what recall and brief read: commit it to apply it")
    return True


def absent_hint(repo, doc: dict) -> None:
    """``policy show`` (also with ``--json``) of HEAD without a memory policy, and none waiting in
    the working tree: how to make one (a newcomer trial read ``Memory policy: absent`` and did
    not know what to do)."""
    if doc.get("memory") is None and doc["commit"] == repo.head_commit():
        from ..core.policy import MISSING_DIGEST
        from ..service.policy_working import differs_from_working

        if differs_from_working(repo, doc["commit"]):
            return
        if doc.get("policyDigest") not in (None, MISSING_DIGEST):  # (a trial: a committed file without a
            # memory section was told "policy init writes one", and init refuses a file that exists)
            render.hint("no memory policy at HEAD (.hn/policy.json has no memory section), so recall and the brief "
                        "leave every memory out: git hn policy trust ACTOR|--kind KIND adds one; commit it to apply it")
        else:
            render.hint("no memory policy at HEAD, so recall and the brief leave every memory out: git hn "
                        "policy init writes one in .hn/policy.json trusting you; commit it to apply it")


NAMES_SHOWN = 10  # trusted actors (and maintainers) a names hint names


def names_hint(repo, actors, maintainers=(), names: dict | None = None) -> None:
    """Off a terminal (the contract's lines carry IDs only, §6.6), and with ``--json``: one hint
    naming the trusted ``actors`` known here (a team trial: a list of 64-hex IDs said nothing of
    who is trusted); then, everywhere, one naming the policy's ``maintainers`` (which neither the
    lines nor the document of §6.6 carry: a newcomer told "a maintainer runs …" could not find
    who that is). Names are the authors' own (identities here, verified memory), printed inert;
    ``names``: those already read (actor -> name)."""
    if not actors and not maintainers:
        return
    from ..core.gostr import short_id

    names = _names(repo) if names is None else names
    known = [f"{short_id(a)} {names[a]}" for a in actors if a in names]
    if known:
        more = f" and {len(known) - NAMES_SHOWN} more" if len(known) > NAMES_SHOWN else ""
        render.hint(f"trusted actors known here by name: {', '.join(known[:NAMES_SHOWN])}{more}")
    if maintainers:
        from ..core.hints import named_actor

        listed = [named_actor(a, names.get(a)) for a in maintainers]  # (the ID first: *display name spoofing*)
        more = f" and {len(listed) - NAMES_SHOWN} more" if len(listed) > NAMES_SHOWN else ""
        render.hint(f"maintainers in this policy (whom to ask for trust): {', '.join(listed[:NAMES_SHOWN])}"
                    f"{more}")


def _names(repo) -> dict:
    """actor -> the newest name it is known here by (``known_actors``); nothing when the verified
    state cannot be read (advisory: a review found an invalid stream failed policy show, which
    §6.6 keeps display only). A secret-shaped name is left out: the actor is named by its ID alone
    (``names.named_identity``: an identity stored before names were linted)."""
    from ..errors import HnError
    from ..service.policy_edit import known_actors
    from ..service.secretscan import shaped

    try:
        return {k.actor: k.names[0] for k in known_actors(repo) if k.names and not shaped(k.names[0])}
    except HnError:
        return {}


def _label(known) -> str:
    """``policyedit.label`` of an actor a policy line names, its name withheld when secret-shaped
    (``names.named_identity``: the active identity's own, for ``policy init``)."""
    from ..service.names import named_identity

    return named_identity(known.actor, known.names[0] if known.names else None)


def change_lines(outcome, trust: bool) -> list[str]:
    edit = outcome.edit
    lines = ["Added a memory section to .hn/policy.json"] if edit.created_section else []
    if edit.sorted_lists:
        lines.append("Sorted the memory section's lists of .hn/policy.json (the policy requires that order)")
    for change in edit.changes:
        if change.what == "actor":
            who = _label(outcome.who)
            if outcome.twins:  # (another known actor has its short ID: the whole ID tells them apart)
                who = outcome.who.actor + who[12:]
            if trust and change.done:
                kinds = ", ".join(edit.kinds) if edit.kinds else "no kinds yet (add them with --kind KIND)"
                lines.append(f"Trusted {who} for {kinds}")
            elif trust:
                lines.append(f"Unchanged: {who} is already trusted")
            else:
                lines.append(f"Untrusted {who}" if change.done else f"Unchanged: {who} is not trusted")
                if change.done:  # (a trial: a revoked key's memories read as trusted on a release branch)
                    lines.append(f"Branches and tags without the commit of this change still trust {who} until "
                                 "they contain it: the policy is read at the query commit")
        elif trust:
            lines.append(f"Trusted kind {change.value} for every trusted actor" if change.done
                         else f"Unchanged: kind {change.value} is already trusted")
        else:
            lines.append(f"Untrusted kind {change.value} for every actor" if change.done
                         else f"Unchanged: kind {change.value} is not trusted")
    if edit.data is not None:
        lines.append(COMMIT_HINT)
    return lines


def identity_export_command(output: str | None, extra: list[str]) -> int:
    from ..core.gostr import echoed
    from ..service import identity_transfer
    from ..service.names import named_identity
    from ..store.repo import open_repo

    if extra:
        from .options import stray

        raise stray(EXPORT_USAGE, extra)
    if output is None:
        raise UsageError(f"{EXPORT_USAGE}; missing --output")
    from ..store.argpath import os_path

    ident, path = identity_transfer.export_active(open_repo(), os_path(output))
    render.lines([f"Exported identity {named_identity(ident.actor, ident.name)} to {echoed(path)}",
                  "The file holds your private key: keep it private, import it with git hn identity "
                  "import FILE, then delete it"])
    return 0


def identity_import_command(positional: list[str], activate: bool) -> int:
    from ..core.hints import named_actor
    from ..service import identity_transfer
    from ..store.repo import open_repo

    if len(positional) != 1:
        from .options import stray

        raise stray(IMPORT_USAGE, positional[1:]) if positional else UsageError(f"{IMPORT_USAGE}; missing FILE")
    from ..store.argpath import os_path

    repo = open_repo()
    ident, record, new, active = identity_transfer.import_file(repo, os_path(positional[0]), activate)
    who = named_actor(ident.actor, ident.name)
    lines = [f"Imported identity {who} into {record}" if new
             else f"Identity {who} is already in this keyring"]
    lines.append(f"Active identity: {who}" if active else
                 "Active identity unchanged; add --activate to sign with the imported one")
    render.lines(lines)
    _stray_hint(repo, ident.actor, active)
    remotes = sorted(repo.remote_names(), key=lambda r: (r != "origin", r)) if active else []
    if remotes:  # (a team trial: recorded at once, the two clones' chains forked)
        from ..core.grammar import default_stream

        sync = "git hn sync" + ("" if remotes[0] == "origin" else f" {remotes[0]}")
        # (a team trial: the hint said --actor, a selector git-hn skips (§11(c)): nothing was imported)
        render.hint(f"it may have signed memories in another clone: {sync} imports them before you record here (when "
                    f"the replication selection takes its stream: --all, or --memory {default_stream(ident.actor)}); "
                    f"a memory recorded first forks its stream, which {sync} --rebase then mends")
    return 0


def _stray_hint(repo, imported: str, active: bool) -> None:
    """After an import: how to drop an identity ``init`` made here that signed nothing (a team
    trial followed the README: ``init`` in the new clone, then the import; the stray identity
    stayed, and no command removed it)."""
    from ..errors import HnError
    from ..service import identity_transfer
    from ..service.names import named_identity

    try:
        found = identity_transfer.strays(repo, imported)
    except HnError:
        return
    for ident, is_active in found[:1]:
        who = named_identity(ident.actor, ident.name)
        remove = f"git hn identity remove {ident.actor[:12]}"
        if is_active and not active:
            render.hint(f"the active identity {who} has signed nothing here: to sign as the imported one, git hn "
                        f"identity use {imported[:12]}, then {remove} removes the unused one")
        else:
            render.hint(f"identity {who} of this keyring has signed nothing here: {remove} removes it")


def identity_use_command(positional: list[str]) -> int:
    from ..core.lines import lines_of
    from ..service import identity_transfer
    from ..service.names import named_identity
    from ..store.repo import open_repo

    if len(positional) != 1:
        from .options import stray

        raise stray(USE_USAGE, positional[1:]) if positional else UsageError(
            f"{USE_USAGE}; missing ACTOR (git hn identity list shows them)")
    repo = open_repo()
    ident, already = identity_transfer.use(repo, positional[0])
    who = named_identity(ident.actor, ident.name)
    render.lines([f"Unchanged: {who} is already the active identity" if already else f"Active identity: {who}"])
    listed = lines_of(repo.git.run(["worktree", "list", "--porcelain"]).stdout.decode("utf-8", "replace"))
    trees = sum(line.startswith("worktree ") for line in listed)
    if trees > 1 and not already:  # (§2.5: one active identity per repository, in its common directory)
        render.hint(f"every worktree of this repository signs with it ({trees} of them): the active identity "
                    "is the repository's, not the worktree's")
    return 0


# -- the hint ----------------------------------------------------------------------------------


BRIEF_WORKING = {  # what the brief's own line cannot know: the working tree's policy file
    "memory": ".hn/policy.json in the working tree is not committed yet: the brief reads the policy at "
              "the commit, so it takes effect once it is committed",
    "no-memory": ".hn/policy.json in the working tree has no memory section: git hn policy trust "
                 "ACTOR|--kind KIND adds one, then commit it",
    "invalid": ".hn/policy.json in the working tree is invalid: fix it, then commit it",
}


def brief_hint(repo, doc: dict, authors: dict | None = None, found=None) -> None:
    """After a Markdown brief that left memories out for trust: its body says so already, with
    what qualifies them (an agent reads only that), so stderr adds only what the body cannot
    know, the state of the working tree's policy file when the commit has a policy (without
    one, the body says it: ``service.brief.trust_advice``; a newcomer trial read the same note
    twice, in the body and as a hint), and which of their ``authors`` (actor -> memories left
    out as ``actor-untrusted``) the policy no longer trusts, since when (``service.revoked``;
    ``found``: its answer, when the brief asked it already)."""
    if doc.get("excludedUntrusted", 0):
        from ..core.policy import MISSING_DIGEST

        text = BRIEF_WORKING.get(_policy_file(repo)) if doc.get("policyDigest") != MISSING_DIGEST else None
        if text:
            render.hint(text)
        if authors:
            from ..core.hints import no_longer_trusted
            from ..service.revoked import among

            revoked, _every = found if found is not None else among(repo, doc["atCommit"], authors)
            if revoked:
                render.hint(f"of the authors whose memories the brief leaves out for trust, {no_longer_trusted(revoked)}")


def brief_json_hint(repo, doc: dict, authors: dict | None = None) -> None:
    """After a JSON brief that left memories out for trust: the hint recall gives (an agent trial:
    the form agents are told to use left them out without a word; the document, the contract's,
    carries only the ``excludedUntrusted`` count), with the ``authors`` of those left out as
    ``actor-untrusted`` that the policy no longer trusts."""
    count = doc.get("excludedUntrusted", 0)
    if count:
        from ..core.hints import left_out_classes
        from ..service.policy_edit import policy_present

        hidden = left_out_classes(count, sum((authors or {}).values()), policy_present(repo, doc["atCommit"]))
        hint(hidden, repo, doc["atCommit"], authors)


def empty_hint(repo) -> bool:
    """After a recall that matched nothing, in a clone with a remote but no saved replication
    selection: the team's memory is not imported until one is chosen (a fresh clone's usual
    state; ``hooks install`` says the same); within ten minutes of saying it in full, shorter
    (``advice.said_lately``). Whether it said so."""
    from ..service import hooks

    text = hooks.selection_hint(repo)
    if text and repo.remote_names():
        from .advice import said_lately

        # (an agent's burst of recalls heard it in full at each one: shorter for ten minutes)
        said_lately(repo, "nothing matched; " + text + ", then git hn sync",
                    [("nothing matched; still no replication selection is saved here, so a fetch imports no memory",
                      "git hn replication select --all or --memory sha256:<stream>, then git hn sync")])
        return True
    return False


def hint(hidden: dict[str, int], repo=None, at: str = "", authors: dict | None = None) -> None:
    """The trust hint of recall, the brief and the digest (``hints.trust_hidden``); with the
    query commit ``at`` (a revision), the authors of the ``actor-untrusted`` ones (``authors``,
    else ``hidden.authors``) that its policy no longer trusts are said so (``service.revoked``)."""
    from ..core.hints import trust_hidden

    authors = getattr(hidden, "authors", None) if authors is None else authors
    revoked, every = (), False
    if repo is not None and at and authors and hidden.get("actor-untrusted", 0) > 0:
        from ..service.revoked import among

        revoked, every = among(repo, at, authors)
    names = getattr(hidden, "names", None)
    if names is None and repo is not None and authors and hidden.get("actor-untrusted", 0) > 0 and not revoked:
        from ..service.recall import author_names  # (the brief and the digest: named as recall names them)

        names = author_names(repo, authors)
    outsider = False  # (a trial: a non-maintainer was told to trust its own memory's author itself)
    if repo is not None and not hidden.get("policy-missing", 0) and any(hidden.values()):
        from ..service.policy_edit import not_maintainer

        outsider = not_maintainer(repo)
    text = trust_hidden(hidden, _policy_file(repo) if hidden.get("policy-missing", 0) > 0 else "",
                        revoked=revoked, every=every, names=names, maintainer=not outsider)
    if text:
        render.hint(text)


def _policy_file(repo) -> str:
    """What the working tree holds at the policy's path (asked only for the hint)."""
    if repo is None:
        return ""
    from ..service.policy_working import working_policy

    return working_policy(repo)
