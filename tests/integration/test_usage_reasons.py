"""Every usage error says why (CONTRACT §0.5, §10.1; ``hints.reason_first``): the commands
parsed by hand (``sync``, ``mcp``, ``version``, the bare groups, ``memory index``, the hooks'
own ``hooks run``) printed their usage line alone for an unknown option, a switch given a value
or twice, a missing value, subcommand or hook, or a stray operand. The contract's usage texts
stay first with the reason after them; git-hn's own say the reason first."""

from __future__ import annotations

import pytest

from helpers import hn, refs_snapshot

SYNC = "usage: git hn sync [REMOTE] [--recover-shallow] [--rebase] [--json]"
MCP = "usage: git hn mcp [--allow-write] [--repo PATH]"
HOOKS = "usage: git hn hooks install|uninstall|status [--global]"
INDEX = "usage: git hn memory index rebuild|verify"


@pytest.mark.parametrize("args,message", [
    (["sync", "-x"], f"{SYNC}; unknown option -x"),
    (["sync", "--json=1"], f"{SYNC}; --json takes no value"),  # (was: "unknown option --json; did you mean --json?")
    (["sync", "--rebase", "--rebase"], f"{SYNC}; --rebase was given twice"),
    (["sync", "--at", "HEAD"], f"{SYNC}; unknown option --at for this command (other git hn commands take it)"),
    (["mcp", "--bogus"], f"{MCP}; unknown option --bogus"),
    (["mcp", "--allow"], f"{MCP}; unknown option --allow; did you mean --allow-write?"),
    (["mcp", "--allow-write=yes"], f"{MCP}; --allow-write takes no value"),
    (["mcp", "--repo"], f"{MCP}; --repo needs a value PATH"),
    (["mcp", "--", "extra"], f'{MCP}; unexpected argument "extra"'),
    (["mcp", "a", "b"], f'{MCP}; unexpected argument "a" and 1 more'),
    (["hooks"], f"{HOOKS}; missing the hooks command"),
    (["hooks", "run"], f"{HOOKS}; git hn hooks run is what the installed hooks run, with the hook's name (pre-push, "
                       "reference-transaction, post-rewrite)"),
    (["hooks", "run", "pre-pusj"], f"{HOOKS}; git hn hooks run is what the installed hooks run, with the hook's name "
                                   "(pre-push, reference-transaction, post-rewrite)"),
    (["memory", "index"], f"{INDEX}; missing the index command"),
    (["memory", "index", "rebuid"], f'{INDEX}; unknown index command "rebuid"; did you mean rebuild?'),
    (["memory", "index", "--json"], f"{INDEX}; unknown option --json for this command (other git hn commands take it)"),
    # git-hn's own usage texts: the reason first
    (["version", "extra"], 'unexpected argument "extra"; usage: git hn version [--json]'),
    (["version", "--json", "--json"], "--json was given twice; usage: git hn version [--json]"),
])
def test_a_usage_error_says_why(inited, args, message):
    before = refs_snapshot(inited)
    r = hn(inited, *args)
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: {message}\n"), args
    assert refs_snapshot(inited) == before
