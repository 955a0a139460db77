"""The typer application: every command's options, help text and usage text (CONTRACT §10).

Commands are thin: they collect parsed values and call one function of ``commands``. Options of
``record`` and ``handoff`` are generated from ``options`` so that the fast path and typer cannot
drift apart. Help output never interprets markup (``rich_markup_mode=None``), and typer's pretty
exceptions are off: ``main`` handles every error itself, without locals. Every command is an
``HnCommand`` and every group an ``HnGroup``, whose help shows exactly the declared operands
(a test runs ``-h`` of every command).
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from typing import List, Optional

import typer
from typer.core import TyperCommand, TyperGroup

from ..core import hints
from ..errors import UsageError
from . import (commands, export_cmd, fast, forget_cmd, hooks_cmd, identity_cmd, lifecycle_cmd, log_cmd, options,
               reanchor_cmd, recall_cmd, trust, view_cmd)
from .click_errors import click_hint, command_path

CTX = {"help_option_names": ["-h", "--help"]}


@contextmanager
def _whole_words(formatter):
    """While help is formatted, click wraps lines at spaces only: its wrapper (``textwrap``'s,
    ``break_on_hyphens`` on) cut ``--allow-write`` into ``--allow-`` and ``write``, and
    ``post-rewrite`` after its hyphen (a newcomer trial), so an option or a hook read as two
    words. click's ``wrap_text`` takes its wrapper class from its ``_textwrap`` module at each
    call (typer's copy of click, or click itself: the formatter's package); it is swapped for the
    length of one help text (a help runs alone, then the process exits)."""
    import importlib

    _textwrap = importlib.import_module(type(formatter).__module__.rsplit(".", 1)[0] + "._textwrap")
    plain = _textwrap.TextWrapper

    class Whole(plain):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "break_on_hyphens": False})

    _textwrap.TextWrapper = Whole
    try:
        yield
    finally:
        _textwrap.TextWrapper = plain


def _usage(command, ctx, formatter) -> None:
    """A help's first line as ``git hn -h`` and Git (``git commit -h``) write it: ``usage: …``
    (click's ``Usage:``; a newcomer trial saw both)."""
    formatter.write_usage(ctx.command_path, " ".join(command.collect_usage_pieces(ctx)), prefix="usage: ")


class HnCommand(TyperCommand):
    """A command whose help shows its arguments as declared: the usage line lists each visible
    argument's metavar verbatim (``MEMORY``, ``[REMOTE]``, ``MEMORY [CONTENT]``), and the
    Arguments section gives metavar and help, without typer's type labels (``<list[str]>``).
    A hidden catch-all argument (kept so that a stray word is a usage error, not click's) shows
    nowhere. A command without an option of ``options.GLOBAL_OPTS`` takes it all the same,
    hidden from its help (its output has no colour to turn off)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from typer._coercion import bool_flag_type_descriptor  # (typer is pinned: pyproject.toml)
        from typer.core import TyperOption

        given = {name for p in self.params for name in p.opts}
        self.params += [TyperOption(param_decls=[o.name], type_descriptor=bool_flag_type_descriptor(), is_flag=True,
                                    default=False, hidden=True, expose_value=False, help=o.help)
                        for o in options.GLOBAL_OPTS if o.name not in given]  # (switches all)

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        """click's parsing, after the checks of ``options.parse``'s that click lacks
        (``options.check_click``: a missing value, -h anywhere, an empty value, one given twice)."""
        def show_help():
            show = self.get_help_option(ctx)
            show.callback(ctx, show, True)  # (prints this command's help and exits)

        options.check_click(args, [p for p in self.get_params(ctx) if p.param_type_name == "option"],
                            _TABLES.get((ctx.parent.info_name if ctx.parent else None, ctx.info_name), ()),
                            USAGE.get(ctx.command_path, "usage: " + ctx.command_path), show_help)
        return super().parse_args(ctx, args)

    def _arguments(self, ctx):
        return [p for p in self.get_params(ctx)
                if p.param_type_name == "argument" and not p.hidden and p.metavar]

    def collect_usage_pieces(self, ctx) -> list[str]:
        return [self.options_metavar, *(p.metavar for p in self._arguments(ctx))]

    def format_usage(self, ctx, formatter) -> None:
        _usage(self, ctx, formatter)

    def format_help(self, ctx, formatter) -> None:
        with _whole_words(formatter):
            super().format_help(ctx, formatter)

    def format_options(self, ctx, formatter) -> None:
        args = [(p.metavar, p.help or "") for p in self._arguments(ctx)]
        opts = [rv for p in self.get_params(ctx) if p.param_type_name == "option"
                for rv in [p.get_help_record(ctx)] if rv is not None]
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)


class HnGroup(TyperGroup):
    """A command group (``git hn memory``): usage ``<command> [options]`` and every subcommand
    with the first paragraph of its help, wrapped rather than cut off."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        return ["<command>", "[options]"]

    def format_usage(self, ctx, formatter) -> None:
        _usage(self, ctx, formatter)

    def format_help(self, ctx, formatter) -> None:
        with _whole_words(formatter):
            super().format_help(ctx, formatter)

    def format_commands(self, ctx, formatter) -> None:
        rows = [(name, (cmd.help or "").strip().split("\n\n")[0].replace("\n", " "))
                for name, cmd in self.commands.items() if not cmd.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


CMD = {"context_settings": CTX, "cls": HnCommand}


def _typer(**kw) -> typer.Typer:
    return typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False,
                       pretty_exceptions_show_locals=False, no_args_is_help=False, cls=HnGroup,
                       context_settings=CTX, **kw)


app = _typer(help="Signed, verifiable project memory carried by Git (hn-memory/0).")
identity_app = _typer(help="Show, list, export, import, choose (use) and remove local identities.")
memory_app = _typer(help="Record, correct, inspect and recall memory.")
policy_app = _typer(help="Show the trust policy at a commit, or edit it in the working tree.")
index_app = _typer(help="Rebuild or verify the private recall index.")
replication_app = _typer(help="Choose which remote memory streams sync may import, with budgets.")
hooks_app = _typer(help="Install the hooks that publish your memory on git push (pre-push), import on git fetch (reference-transaction) and move it with rewritten commits (post-rewrite).")
app.add_typer(hooks_app, name="hooks")
app.add_typer(replication_app, name="replication")
memory_app.add_typer(index_app, name="index")
app.add_typer(identity_app, name="identity")
app.add_typer(memory_app, name="memory")
app.add_typer(policy_app, name="policy")

# Usage text per command path (CONTRACT §10.1 table).
USAGE = {
    "git hn init": "usage: git hn init [--name NAME]",
    "git hn identity show": "usage: git hn identity show",
    "git hn identity list": "usage: git hn identity list",
    "git hn identity public": "usage: git hn identity public",
    "git hn memory record": "usage: git hn memory record --kind KIND --at REV --applies MODE --content TEXT",
    "git hn memory handoff": "usage: git hn memory handoff --at REV --applies MODE --input FILE|- --json",
    "git hn memory show": "usage: git hn memory show MEMORY [--json]",
    "git hn memory supersede": "usage: git hn memory supersede MEMORY [record fields]",
    "git hn memory retract": "usage: git hn memory retract MEMORY --reason REASON",
    "git hn memory challenge": "usage: git hn memory challenge MEMORY --reason REASON [--evidence TYPED-ID]",
    "git hn memory recall": "usage: git hn memory recall [filters] [bounds] [--json]",
    "git hn memory index": "usage: git hn memory index rebuild|verify",
    "git hn memory index rebuild": "usage: git hn memory index rebuild|verify",
    "git hn memory index verify": "usage: git hn memory index rebuild|verify",
    "git hn replication": "usage: git hn replication <select|show> [REMOTE]",
    "git hn replication select": commands.SELECT_USAGE,
    "git hn replication show": "usage: git hn replication show [REMOTE]",
    "git hn replication forget-anchors": forget_cmd.FORGET_USAGE,
    "git hn sync": commands.SYNC_USAGE,
    "git hn hooks": "usage: git hn hooks install|uninstall|status [--global]",
    "git hn hooks install": "usage: git hn hooks install|uninstall|status [--global]",
    "git hn hooks uninstall": "usage: git hn hooks install|uninstall|status [--global]",
    "git hn hooks status": "usage: git hn hooks install|uninstall|status [--global]",
    "git hn hooks run": hooks_cmd.HOOKS_RUN_USAGE,
    "git hn version": "usage: git hn version [--json]",
    "git hn memory brief": commands.BRIEF_USAGE,
    "git hn memory digest": commands.DIGEST_USAGE,
    "git hn memory log": log_cmd.LOG_USAGE,
    "git hn memory export": export_cmd.EXPORT_USAGE,
    "git hn memory import": export_cmd.IMPORT_USAGE,
    "git hn memory view": view_cmd.VIEW_USAGE,
    "git hn memory reanchor": reanchor_cmd.REANCHOR_USAGE,
    "git hn mcp": commands.MCP_USAGE,
    "git hn policy": "usage: git hn policy show [REV] [--json]",
    "git hn policy show": "usage: git hn policy show [REV] [--json]",
    "git hn policy init": trust.POLICY_INIT_USAGE,
    "git hn policy trust": trust.TRUST_USAGE,
    "git hn policy untrust": trust.UNTRUST_USAGE,
    "git hn identity export": trust.EXPORT_USAGE,
    "git hn identity import": trust.IMPORT_USAGE,
    "git hn identity use": trust.USE_USAGE,
    "git hn identity remove": identity_cmd.REMOVE_USAGE,
    "git hn demo": "usage: git hn demo",
    "git hn setup": "usage: git hn setup claude|codex|cursor|agents-md [--remove] [--print]",
}


_CONTENT_HELP = "the content, if neither --content nor --content-file gives it"
_MEMORY_HELP = "full memory ID, or a unique hex prefix of at least 8 characters"

# The man pages' synopsis lines of commands with more than one form (else the usage text's);
# the same lines as the usage summary (``main.SUMMARY``).
SYNOPSIS = {
    "git hn memory record": ("git hn memory record --kind KIND --at REV --applies MODE [record fields]",
                             "git hn memory record --input FILE|- --json"),
    "git hn memory handoff": ("git hn memory handoff --at REV --applies MODE [record fields]",
                              "git hn memory handoff --input FILE|- --json [--at REV] [--applies MODE]"),
}


def _table_command(group: typer.Typer, name: str, opts, help_text: str, body,
                   metavar: str = "[CONTENT]", arg_help: str = _CONTENT_HELP):
    """Register a command whose options come from an ``options`` table. Its positional words
    are collected as a list and checked by ``body``; with ``metavar=""`` the command takes none,
    and the (hidden) list only lets ``body`` report a stray word with the command's usage."""
    positional = typer.Argument(None, metavar=metavar or None, help=arg_help if metavar else None,
                                hidden=not metavar, show_default=False)
    params = [inspect.Parameter("positional", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                default=positional, annotation=Optional[List[str]])]
    for o in opts:
        if o.metavar is None:
            default, ann = typer.Option(False, o.name, help=o.help), bool
        elif o.multiple:
            default = typer.Option(None, o.name, metavar=o.metavar, help=o.help, show_default=False)
            ann = Optional[List[str]]
        else:
            default = typer.Option(None, o.name, metavar=o.metavar, help=o.help, show_default=False)
            ann = Optional[str]
        params.append(inspect.Parameter(o.dest, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=ann))

    def command(**values):
        positional = values.pop("positional") or []
        for o in opts:
            if o.multiple and values[o.dest] is None:
                values[o.dest] = []
        return body(values, positional)

    command.__signature__ = inspect.Signature(params)
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__name__ = name
    command.__doc__ = help_text
    group.command(name, **CMD)(command)
    _TABLES[({id(memory_app): "memory", id(replication_app): "replication"}.get(id(group)), name)] = opts


_TABLES: dict = {}  # (group name, command name) -> its ``options`` table (``HnCommand.parse_args``)


_table_command(memory_app, "record", options.RECORD_OPTS,
               "Sign and append one memory record to your stream.",
               lambda v, p: commands.record_command(v, p, handoff=False))
_table_command(memory_app, "handoff", options.HANDOFF_OPTS,
               "Record a session handoff (completed, assumptions, blockers, next actions).",
               lambda v, p: commands.record_command(v, p, handoff=True))


_table_command(memory_app, "supersede", options.SUPERSEDE_OPTS,
               "Replace one of your memories with a corrected record (the old one stays in history).\n\n"
               "Every record field not given is the superseded memory's: kind, anchor commit (--at), "
               "applicability, subject, topics, paths and evidence, and its outcome and handoff lists while "
               "the kind stays the same.",
               lifecycle_cmd.supersede_command, metavar="MEMORY [CONTENT]",
               arg_help=f"the memory to replace ({_MEMORY_HELP}), then its new content if given here")


_table_command(memory_app, "retract", options.RETRACT_OPTS, "Retract one of your memories.",
               fast.lifecycle("retract"), metavar="MEMORY", arg_help=_MEMORY_HELP)
_table_command(memory_app, "challenge", options.CHALLENGE_OPTS,
               "Challenge another actor's memory; the challenge stays visible beside it.",
               fast.lifecycle("challenge"), metavar="MEMORY", arg_help=_MEMORY_HELP)


def _recall(values: dict, positional: list[str]) -> int:
    if positional:
        raise UsageError(recall_cmd.RECALL_USAGE)
    return recall_cmd.recall_command(values)


_table_command(memory_app, "recall", options.RECALL_OPTS,
               "Recall a bounded, deterministic set of memories for an agent's context.", _recall,
               metavar="")


_table_command(replication_app, "select", options.SELECT_OPTS,
               "Save which streams (and budgets) git hn sync imports from REMOTE (default origin).",
               commands.select_command, metavar="[REMOTE]", arg_help="remote (default origin)")


@replication_app.command("show", **CMD)
def replication_show(remote: Optional[List[str]] = typer.Argument(None, metavar="[REMOTE]",
                                                                  help="remote (default origin)")) -> int:
    """Show the saved replication selection for REMOTE (default origin)."""
    return commands.show_selection_command(remote or [])


@replication_app.command("forget-anchors", **CMD)
def replication_forget_anchors(
        words: Optional[List[str]] = typer.Argument(None, metavar="REMOTE [COMMIT]...", show_default=False,
                                                    help="the remote, then the commits to forget (full or "
                                                         "abbreviated IDs, as the reminder names them; none: "
                                                         "every one remembered for REMOTE)"),
        dry_run: bool = typer.Option(False, "--dry-run", help="say what would be forgotten; change nothing"),
        json: bool = typer.Option(False, "--json", help="print one line of JSON")) -> int:
    """Stop reminding of anchors a push or the server took off REMOTE: forget them here.

    Pushes to REMOTE and syncs with it remind of each anchor commit of a memory that a push took
    off REMOTE, or that a branch deleted or squash-merged there did, until a branch of REMOTE holds
    it again. The fix is the reminder's push of the commit back (a branch hn-anchor/...). Only
    when the commit was taken off on purpose (it held a secret) does this forget it (or, with no
    COMMIT, every one remembered for REMOTE): nothing is pushed and no memory changes, so whoever
    imports its stream from REMOTE still stops at that memory."""
    return forget_cmd.forget_anchors_command(words or [], dry_run, json)


@app.command("sync", **CMD)
def sync(remote: Optional[str] = typer.Argument(None, metavar="[REMOTE]", help="remote (default origin)"),
         recover_shallow: bool = typer.Option(False, "--recover-shallow",
                                              help="fetch exactly the missing anchors of saved selectors"),
         rebase: bool = typer.Option(False, "--rebase",
                                     help="when your identity appended to a stream in another clone too, sign "
                                          "your unpublished memories of it again on top of REMOTE's chain"),
         json: bool = typer.Option(False, "--json", help="print the outcomes as one line of JSON"),
         no_color: bool = typer.Option(False, "--no-color", help=options.NO_COLOR_HELP)) -> int:
    """Import selected memory streams through a quarantine, then publish your own streams."""
    args = ([remote] if remote else []) + (["--recover-shallow"] if recover_shallow else []) + \
        (["--rebase"] if rebase else []) + (["--json"] if json else [])
    return commands.sync_command(args)


def _hooks_command(name: str, doc: str):
    def command(global_: bool = typer.Option(False, "--global",
                                             help="use the directory of git config --global core.hooksPath")) -> int:
        from . import hooks_cmd

        return hooks_cmd.hooks_command(name, global_)

    command.__doc__ = doc
    command.__name__ = f"hooks_{name}"
    hooks_app.command(name, **CMD)(command)


_hooks_command("install", "Install the wrappers, chaining to any existing hook (never replacing it).")
_hooks_command("uninstall", "Remove the wrappers and restore the chained hooks byte for byte.")
_hooks_command("status", "Show whether each wrapper is installed and what it chains.")


# ``hooks run`` and ``version`` are answered by ``main.dispatch`` before typer loads (a hook, and
# ``version``, stay cheap); they are here for their -h listing, the man pages and completion
@hooks_app.command("run", **CMD)
def hooks_run(words: Optional[List[str]] = typer.Argument(
        None, metavar="HOOK [ARGS]...", show_default=False,
        help="pre-push, post-rewrite or reference-transaction, then the arguments Git gave the hook")) -> int:
    """What git-hn's hook wrappers run, with the hook's arguments and standard input; a team's own pre-push or post-rewrite hook may call it (see git-hn-hooks(1), HOOK MANAGERS)."""
    import sys

    if (words or [""])[0] not in ("pre-push", "post-rewrite", "reference-transaction"):
        return hooks_cmd.hooks_run_usage(words or [])
    return hooks_cmd.hooks_run_command(words, sys.stdin.buffer.read())


@index_app.command("rebuild", **CMD)
def index_rebuild() -> int:
    """Rebuild the private index and recall database from verified streams (atomic)."""
    return commands.index_command("rebuild")


@index_app.command("verify", **CMD)
def index_verify() -> int:
    """Re-derive the index and recall database from verified streams and compare (non-zero if stale)."""
    return commands.index_command("verify")


@policy_app.command("show", **CMD)
def policy_show(rev: Optional[str] = typer.Argument(None, metavar="[REV]", help="commit (default HEAD)"),
                json: bool = typer.Option(False, "--json", help="print one line of JSON"),
                no_color: bool = typer.Option(False, "--no-color", help=options.NO_COLOR_HELP)) -> int:
    """Print the memory section of .hn/policy.json at a commit, and its digest.

    On stderr, the policy's maintainers (the people to ask for trust) and the trusted actors known
    here by name."""
    return commands.policy_show_command(rev, json)


@policy_app.command("init", **CMD)
def policy_init(extra: Optional[List[str]] = typer.Argument(None, hidden=True)) -> int:
    """Create .hn/policy.json trusting your active identity for every kind (never overwrites).

    The file is written in the working tree only: commit it to apply it, since recall reads the
    policy at the query commit."""
    return trust.policy_init_command(extra or [])


_KIND_HELP = ("kind to trust or untrust (repeatable); trusted kinds apply to every trusted actor, "
              "since the policy has no per-actor kinds")


@policy_app.command("trust", **CMD)
def policy_trust(actor: Optional[str] = typer.Argument(
                     None, metavar="[ACTOR]", show_default=False,
                     help="full actor ID, a unique prefix of at least 8 hex characters, or a display "
                          "name unique among known actors (a name is one its actor chose)"),
                 kind: Optional[List[str]] = typer.Option(None, "--kind", metavar="KIND", help=_KIND_HELP,
                                                          show_default=False)) -> int:
    """Add ACTOR (and/or kinds) to the memory section of .hn/policy.json in the working tree.

    Rewrites the file in canonical, sorted form and prints what changed; commit it to apply it.
    Anyone can sign under any display name: before committing a grant by name, compare the short
    ID it printed with the actor ID that person's git hn identity public prints."""
    return trust.policy_change_command(True, [actor] if actor is not None else [], kind or [])


@policy_app.command("untrust", **CMD)
def policy_untrust(actor: Optional[str] = typer.Argument(
                       None, metavar="[ACTOR]", show_default=False,
                       help="full actor ID, a unique prefix of at least 8 hex characters, or a "
                            "display name unique among known actors"),
                   kind: Optional[List[str]] = typer.Option(None, "--kind", metavar="KIND", help=_KIND_HELP,
                                                            show_default=False)) -> int:
    """Remove ACTOR, or kinds, from the memory section of .hn/policy.json in the working tree.

    Rewrites the file in canonical, sorted form and prints what changed; commit it to apply it."""
    return trust.policy_change_command(False, [actor] if actor is not None else [], kind or [])


_table_command(memory_app, "show", options.SHOW_OPTS,
               "Show one verified memory (full ID or a hex prefix of at least 8 characters) with its "
               "projection.", fast.show, metavar="MEMORY", arg_help=_MEMORY_HELP)


@app.command("init", **CMD)
def init(extra: Optional[List[str]] = typer.Argument(None, hidden=True),
         name: Optional[str] = typer.Option(None, "--name", metavar="NAME",
                                            help="identity name, signed into every memory (default: git config user.name; "
                                                 "one of the two is needed)")) -> int:
    """Create a signing identity for this repository."""
    return identity_cmd.init_command(name, extra or [])


@identity_app.command("show", **CMD)
def identity_show(no_color: bool = typer.Option(False, "--no-color", help=options.NO_COLOR_HELP),
                  json: bool = typer.Option(False, "--json", hidden=True)) -> int:
    """Show the active identity, and on stderr whether the trust policy at HEAD trusts it."""
    return identity_cmd.identity_command("show", no_color, json)


@identity_app.command("list", **CMD)
def identity_list(no_color: bool = typer.Option(False, "--no-color", help=options.NO_COLOR_HELP)) -> int:
    """List stored identities."""
    return identity_cmd.identity_command("list", no_color)


@identity_app.command("public", **CMD)
def identity_public(no_color: bool = typer.Option(False, "--no-color", help=options.NO_COLOR_HELP),
                    json: bool = typer.Option(False, "--json", help="print one line of JSON: actor, name, "
                                              "publicKey and trustAtHead")) -> int:
    """Show the active identity's public key, and whether the trust policy at HEAD trusts it."""
    return identity_cmd.identity_command("public", no_color, json)


@identity_app.command("export", **CMD)
def identity_export(extra: Optional[List[str]] = typer.Argument(None, hidden=True),
                    output: Optional[str] = typer.Option(
                        None, "--output", metavar="FILE", show_default=False,
                        help="new file for the private identity, created with mode 0600 (never "
                             "standard output, never an existing file, never inside the working tree)")
                    ) -> int:
    """Write the active identity, private key included, to a new private file.

    Import it in another clone or on another machine with git hn identity import FILE, so that
    one person keeps one actor everywhere; then delete the file."""
    return trust.identity_export_command(output, extra or [])


@identity_app.command("import", **CMD)
def identity_import(file: Optional[str] = typer.Argument(None, metavar="FILE", show_default=False,
                                                        help="a file written by git hn identity export"),
                    activate: bool = typer.Option(False, "--activate",
                                                  help="make it the active identity even if another is")
                    ) -> int:
    """Add an identity exported by git hn identity export to this repository's keyring.

    The file must be readable by its owner alone (mode 0600). The identity becomes active when
    there is no active identity, or with --activate; a different key already stored for the same
    actor is never replaced."""
    return trust.identity_import_command([file] if file is not None else [], activate)


@identity_app.command("use", **CMD)
def identity_use(actor: Optional[str] = typer.Argument(None, metavar="ACTOR", show_default=False,
                                                     help="a stored identity's name, a hex prefix of at "
                                                          "least 8 characters, or its full actor ID")
                 ) -> int:
    """Make another identity of this repository's keyring the active one.

    git hn identity list shows them; the memories you record from now on are signed by it."""
    return trust.identity_use_command([actor] if actor is not None else [])


@identity_app.command("remove", **CMD)
def identity_remove(actor: Optional[str] = typer.Argument(None, metavar="ACTOR", show_default=False,
                                                        help="the identity's actor ID, or a hex prefix of at "
                                                             "least 8 characters (never a name)"),
                    extra: Optional[List[str]] = typer.Argument(None, hidden=True),
                    backup: Optional[str] = typer.Option(None, "--backup", metavar="FILE",
                                                         help="a file that keeps a copy of the identity: an "
                                                              "existing export of it, or a new file written as "
                                                              "git hn identity export writes one")) -> int:
    """Remove a stored identity other than the active one, private key included (git-hn).

    For an identity this clone's git hn init made by mistake (git hn identity import FILE
    --activate was meant, to sign as the identity you use elsewhere). Without its private key
    nobody can add to an identity's streams or correct its memories, so --backup FILE is
    required unless git hn init generated the key here, no export copied it and no stream of it
    is here: then it can have signed nothing anywhere."""
    return identity_cmd.remove_command(([actor] if actor is not None else []) + (extra or []), backup)


_table_command(memory_app, "brief", options.BRIEF_OPTS,
               "What an agent starting work needs: handoffs, decisions, assumptions, failures, challenges.",
               fast.brief, metavar="")
_table_command(memory_app, "digest", options.DIGEST_OPTS, "The handoffs and decisions signed in one month.",
               fast.digest, metavar="")
_table_command(memory_app, "log", options.LOG_OPTS,
               "A timeline of memories, newest first, like git log --oneline (--graph: relations).",
               log_cmd.log, metavar="")
_table_command(memory_app, "export", options.EXPORT_OPTS,
               "Write verified memories as JSON Lines (re-verifiable) or Markdown (for people).",
               export_cmd.export, metavar="")
_table_command(memory_app, "import", options.IMPORT_OPTS,
               "Record a JSON Lines file of drafts under your identity as one append (all or nothing).",
               export_cmd.import_, metavar="FILE",
               arg_help="JSON Lines file of drafts, or - for standard input")
@memory_app.command("reanchor", **CMD)
def memory_reanchor(old: Optional[str] = typer.Argument(None, metavar="OLD", show_default=False,
                                                        help="the commit your unpublished memories name"),
                    new: Optional[str] = typer.Argument(None, metavar="NEW", show_default=False,
                                                        help="the commit they should name instead"),
                    extra: Optional[List[str]] = typer.Argument(None, hidden=True),
                    drop: bool = typer.Option(False, "--drop",
                                              help="instead of moving them, discard your unpublished memories that "
                                                   "name OLD (git-hn; no NEW)"),
                    files_only: bool = typer.Option(False, "--files-only",
                                                    help="move a memory whose anchored path is a directory or a "
                                                         "submodule at NEW too, that path left out (git-hn)"),
                    json: bool = typer.Option(False, "--json", help="print one line of JSON")) -> int:
    """Move your unpublished memories from commit OLD to commit NEW (for a discarded commit).

    A memory waits to be published until its anchor commit is on the remote; one anchored on a
    commit that git reset (or a deleted branch) discarded would wait for ever, with every later
    memory of its stream. This rebuilds them as git commit --amend and git rebase do through the
    post-rewrite hook: anchors and git: evidence naming OLD name NEW (anchored paths are read again
    at NEW), and each rebuilt memory, and every later one of its stream, is signed again under a
    new ID. Published memories are never rewritten. NEW is a commit a branch, a tag, a
    remote-tracking ref or HEAD holds; one only a detached HEAD holds is taken, and its memories
    wait until a branch that contains it is pushed (a hint says so). A memory whose anchored path
    is a directory or a submodule at NEW stays on OLD (an anchor names files), with a line naming
    it and what moves it; with --files-only it moves, that path left out of its anchor.

    With --drop (a commit dropped in git rebase -i, whose note nobody wants), your unpublished
    memories that name OLD are discarded instead, and the later ones of their streams are signed
    again under new IDs. Refused, changing nothing, when HEAD, a branch, a tag or a
    remote-tracking ref still holds OLD (a push carries it, and its memories with it), when one
    of your memories that names OLD was published, or when a memory that stays cites one that
    would go (as a retraction or a supersession of it anchored elsewhere does). Memory refs keep
    no reflog: the output names each stream's tip before (undo: git update-ref REF TIP)."""
    return reanchor_cmd.reanchor_command([w for w in (old, new) if w is not None] + (extra or []), json, drop,
                                         files_only)


_table_command(memory_app, "view", options.VIEW_OPTS,
               "Write a self-contained HTML page of the memory timeline and relations; --open shows it.",
               view_cmd.view, metavar="")


@app.command("mcp", **CMD)
def mcp(allow_write: bool = typer.Option(False, "--allow-write",
                                         help="also offer the write tools (record, handoff, supersede, "
                                              "retract, challenge)"),
        repo: Optional[str] = typer.Option(None, "--repo", metavar="PATH",
                                           help="serve the repository at PATH (default: the current "
                                                "directory)")) -> int:
    """Serve memory tools to an agent over MCP (stdio); read-only unless --allow-write."""
    return commands.mcp_command(allow_write, repo)


@app.command("setup", **CMD)
def setup(agent: Optional[str] = typer.Argument(None, metavar="AGENT",
                                                help="claude, codex, cursor or agents-md"),
          remove: bool = typer.Option(False, "--remove",
                                      help="take git-hn out again (restores the files byte for byte "
                                           "when nothing else changed them)"),
          print_: bool = typer.Option(False, "--print",
                                      help="show the diff of what would change; write nothing")) -> int:
    """Make an agent use git-hn: its MCP server, a session-start brief hook, instructions."""
    from .setup_cmd import setup_command

    return setup_command(agent, remove, print_)


@app.command("demo", **CMD)
def demo() -> int:
    """Run a walkthrough in a throwaway repository and print what it did."""
    return commands.demo_command()


@app.command("version", **CMD)
def version(json: bool = typer.Option(False, "--json", help="print one line of JSON")) -> int:
    """Print git-hn's version and build (a digest of its code); with --json, one line of JSON with the protocol it speaks."""
    from ..version import report

    typer.echo(report(json))
    return 0


def click_command():
    return typer.main.get_command(app)


def run_app(argv: list[str]) -> int:
    from typer import _click

    cmd = click_command()
    try:
        # click's ``main`` without its standalone handling, whose Ctrl-C became a silent exit 130
        # (a trial): ``KeyboardInterrupt`` reaches ``main``, which says so as every command does
        with cmd.make_context("git hn", list(argv)) as ctx:
            rv = cmd.invoke(ctx)
    except EOFError:
        raise UsageError("aborted") from None
    except _click.exceptions.UsageError as exc:
        path = command_path(cmd, argv)
        raise UsageError(hints.append(USAGE.get(path, "usage: " + path), click_hint(exc, cmd, argv))) from None
    except _click.exceptions.ClickException as exc:
        raise UsageError(exc.format_message()) from None
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        raise UsageError("aborted") from None
    return rv if isinstance(rv, int) else 0
