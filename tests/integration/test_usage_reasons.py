"""Every usage error says why (CONTRACT §0.5, §10.1; ``hints.reason_first``): the commands
parsed by hand (``sync``, ``mcp``, ``version``, the bare groups, ``memory index``, the hooks'
own ``hooks run``) and a few typer bodies printed their usage line alone for an unknown option,
a switch given a value or twice, a missing value, subcommand or operand, or a stray operand. The
contract's usage texts stay first with the reason after them; git-hn's own say the reason first."""

from __future__ import annotations

import pytest

from helpers import hn, refs_snapshot

SYNC = "usage: git hn sync [REMOTE] [--recover-shallow] [--rebase] [--json]"
MCP = "usage: git hn mcp [--allow-write] [--repo PATH]"
HOOKS = "usage: git hn hooks install|uninstall|status [--global]"
RUN = "usage: git hn hooks run pre-push|post-rewrite|reference-transaction [ARGS]..."
RUN_WHAT = "git hn hooks run is what the installed hooks run; git hn hooks install|uninstall|status manage them"
SELECT = ("usage: git hn replication select [REMOTE] [--actor ACTOR]... [--proposal ID]... [--memory STREAM]... "
          "[--all] [budgets]")
INDEX = "usage: git hn memory index rebuild|verify"


@pytest.mark.parametrize("args,message", [
    (["sync", "-x"], f"{SYNC}; unknown option -x"),
    (["sync", "--json=1"], f"{SYNC}; --json takes no value"),  # (was: "unknown option --json; did you mean --json?")
    (["sync", "--rebase", "--rebase"], f"{SYNC}; --rebase was given twice"),
    (["sync", "--at", "HEAD"], f"{SYNC}; unknown option --at for this command (other git hn commands take it)"),
    # replication select's options (a trial: "git hn sync --all"): the select to run, then the sync
    (["sync", "--all"], f"{SYNC}; unknown option --all for sync; git hn replication select takes it: run git hn "
                        "replication select --all, then git hn sync"),
    (["sync", "--max-events", "5", "upstream"], f"{SYNC}; unknown option --max-events for sync; git hn replication "
     "select takes it: run git hn replication select upstream --max-events N, then git hn sync upstream"),
    (["sync", "a;b", "--memory=x"], f"{SYNC}; unknown option --memory for sync; git hn replication select takes "
     "it: run git hn replication select --memory STREAM, then git hn sync"),  # (no remote name: not repeated)
    (["mcp", "--bogus"], f"{MCP}; unknown option --bogus"),
    (["mcp", "--allow"], f"{MCP}; unknown option --allow; did you mean --allow-write?"),
    (["mcp", "--allow-write=yes"], f"{MCP}; --allow-write takes no value"),
    (["mcp", "--repo"], f"{MCP}; --repo needs a value PATH"),
    (["mcp", "--", "extra"], f'{MCP}; unexpected argument "extra"'),
    (["mcp", "a", "b"], f'{MCP}; unexpected argument "a" and 1 more'),
    (["replication", "select", "origin", "extra"], f'{SELECT}; unexpected argument "extra"'),
    (["replication", "show", "origin", "extra"], 'usage: git hn replication show [REMOTE]; unexpected argument '
                                                 '"extra"'),
    (["hooks"], f"{HOOKS}; missing the hooks command"),
    (["hooks", "run"], f"{RUN}; missing the hook's name ({RUN_WHAT})"),
    (["hooks", "run", "pre-pusj"], f'{RUN}; unknown hook "pre-pusj" ({RUN_WHAT})'),
    (["memory", "index"], f"{INDEX}; missing the index command"),
    (["memory", "index", "rebuid"], f'{INDEX}; unknown index command "rebuid"; did you mean rebuild?'),
    (["memory", "index", "--json"], f"{INDEX}; unknown option --json for this command (other git hn commands take it)"),
    # (``memory index rebuild --no-color`` was refused here, S73; every command takes it since f164:
    # test_every_command_takes_no_color_after_it)
    # git-hn's own usage texts: the reason first
    (["version", "extra"], 'unexpected argument "extra"; usage: git hn version [--json]'),
    (["version", "--json", "--json"], "--json was given twice; usage: git hn version [--json]"),
    (["setup"], "missing AGENT; usage: git hn setup claude|codex|cursor|agents-md [--remove] [--print]"),
    (["policy", "untrust"], "give an ACTOR or a --kind; usage: git hn policy untrust ACTOR | --kind KIND..."),
    (["identity", "import"], "missing FILE; usage: git hn identity import FILE [--activate]"),
    (["identity", "use"], "missing ACTOR (git hn identity list shows them); usage: git hn identity use ACTOR"),
    (["identity", "use", "a", "b"], 'unexpected argument "b"; usage: git hn identity use ACTOR'),  # (its own usage)
])
def test_a_usage_error_says_why(inited, args, message):
    before = refs_snapshot(inited)
    r = hn(inited, *args)
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: {message}\n"), args
    assert refs_snapshot(inited) == before


def _mistakes():
    """(argv) of the usual mistakes with every command: an unknown option (long and short), four
    stray words, each switch given a value, each option that takes a value without it, a missing
    operand, a bare group."""
    from git_hn.cli.app import click_command

    def leaves(cmd, path):
        subs = getattr(cmd, "commands", None)
        if not subs:
            yield path, cmd
        for name, sub in (subs or {}).items():
            yield from leaves(sub, [*path, name])

    # (a switch given twice is a usage error on every command, as a value option given twice)
    out = [["hooks"], ["replication"], ["identity"], ["policy"], ["memory", "index"], ["hooks", "run"],
           ["version", "x"], ["version", "--x"], *([cmd, o, o] for cmd, o in (
               ("sync", "--json"), ("sync", "--rebase"), ("sync", "--recover-shallow"), ("mcp", "--allow-write"),
               ("version", "--json")))]
    for path, cmd in leaves(click_command(), []):
        names = [(o, p.is_flag) for p in cmd.params if p.param_type_name == "option" for o in p.opts
                 if o.startswith("--")]
        out += [[*path, "--bogus"], [*path, "-x"], [*path, "a", "b", "c", "d"], [*path, "--", "a", "b", "c", "d"]]
        out += [[*path, f"{o}=1"] if flag else [*path, o] for o, flag in names]
        if any(p.param_type_name == "argument" and not p.hidden and p.metavar and not p.metavar.startswith("[")
               for p in cmd.params):
            out.append(path)  # (its operand missing)
    return out


def test_no_usage_error_is_its_usage_alone(inited):
    """Whatever the command and the mistake, a usage error carries a reason beside the usage."""
    alone = []
    for args in _mistakes():
        r = hn(inited, *args)
        message = r.err[len("git-hn: "):].rstrip("\n")
        if r.code == 1 and "usage: " in message and "; " not in message:
            alone.append((args, message))
        assert r.err.count("\n") <= 1, args
    assert alone == []
