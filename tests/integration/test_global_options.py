"""``--no-color``, git-hn's global option, after every command (f164, a newcomer trial):
``policy show --no-color`` and ``identity list --no-color`` were taken, while ``memory brief
--no-color`` and ``memory export --no-color`` were refused, each in its own order of usage and
reason. Every command of the CLI's registry now takes it after the command as before it, and it
changes nothing where the output has no colour. Real Git, a real remote, real keys."""

from __future__ import annotations

import json

from git_hn import docgen
from helpers import actor_of, git, hn, make_repo

NO_COLOR = "--no-color"


def _steps(tmp_path, repo, head: str) -> list[tuple[str, list[str]]]:
    """(command path, its arguments) for a run of every command that succeeds in ``repo``, in
    this order (an ID a step needs is filled in as it is known: ``{alice}``, ``{bob}``, ``{lost}``)."""
    drafts = tmp_path / "drafts.jsonl"
    drafts.write_text(json.dumps({"version": 0, "kind": "observation", "content": "from the wiki",
                                  "anchor": {"commit": head}, "applicability": {"mode": "descendants"},
                                  "topics": [], "evidence": []}) + "\n")
    record = ["--at", "HEAD", "--applies", "descendants", "--json"]
    return [
        ("init", ["--name", "Alice"]),
        ("identity show", []), ("identity list", []), ("identity public", []),
        ("identity export", ["--output", str(tmp_path / "alice.json")]),
        ("identity import", [str(tmp_path / "bob.json")]),
        ("identity use", ["Bob"]),
        ("memory record", ["--kind", "observation", "--content", "bob saw it", *record]),
        ("identity use", ["Alice"]),
        ("memory handoff", ["--content", "halfway", *record]),
        ("memory record", ["--kind", "decision", "--content", "use JSON", *record]),
        ("memory supersede", ["{alice}", "--content", "use JSON Lines"]),
        ("memory challenge", ["{bob}", "--reason", "evidence-mismatch"]),
        ("memory recall", ["--include-untrusted"]), ("memory show", ["{alice}"]), ("memory brief", []),
        ("memory digest", []), ("memory log", ["--no-pager"]),
        ("memory export", ["--output", str(tmp_path / "out.jsonl")]), ("memory import", [str(drafts)]),
        ("memory view", ["--output", str(tmp_path / "page.html")]),
        ("memory retract", ["{alice}", "--reason", "obsolete"]),
        ("memory index rebuild", []), ("memory index verify", []),
        ("policy show", []), ("policy init", []), ("policy trust", ["Bob"]), ("policy untrust", ["Bob"]),
        ("replication select", ["origin", "--all"]), ("replication show", ["origin"]),
        ("replication forget-anchors", ["origin"]), ("sync", ["origin"]),
        ("hooks install", []), ("hooks status", []), ("hooks run", ["post-rewrite", "amend"]),
        ("hooks uninstall", []), ("memory reanchor", ["{lost}", "HEAD"]),
        ("identity remove", ["{bob_actor}", "--backup", str(tmp_path / "bob.json")]),
        ("mcp", []), ("setup", ["claude", "--print"]), ("demo", []), ("version", []),
    ]


def test_every_command_takes_no_color_after_it(tmp_path):
    """Each command of the registry (``docgen.tree``: the typer commands and the ones parsed by
    hand alike), run with ``--no-color`` right after its words, succeeds: no usage error, exit 0
    (``hooks run`` takes it before the hook's name: what follows the name is Git's)."""
    git(tmp_path, "init", "-q", "--bare", "team.git")
    repo = make_repo(tmp_path / "r")
    git(repo, "remote", "add", "origin", str(tmp_path / "team.git"))
    git(repo, "push", "-q", "origin", "main")
    bob = make_repo(tmp_path / "bob")
    assert hn(bob, "init", "--name", "Bob").code == 0
    assert hn(bob, "identity", "export", "--output", str(tmp_path / "bob.json")).code == 0
    steps = _steps(tmp_path, repo, git(repo, "rev-parse", "HEAD").strip())
    assert {path for path, _args in steps} == {" ".join(path) for path, _cmd, _u in docgen.tree()}
    ids = {"bob_actor": actor_of(bob)}
    for path, args in steps:
        if path == "memory reanchor":  # (a memory on a commit that a reset took off its branch)
            git(repo, "commit", "-q", "--allow-empty", "-m", "lost")
            ids["lost"] = git(repo, "rev-parse", "HEAD").strip()
            assert hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
                      "--content", "on a lost commit").code == 0
            git(repo, "reset", "-q", "--hard", "HEAD~1")
        words = path.split()
        r = hn(repo, *words, NO_COLOR, *(a.format(**ids) for a in args))
        assert (r.code, "usage" in r.err, "unknown option" in r.err) == (0, False, False), (path, r.err)
        if path == "memory record":
            ids["bob" if "bob" not in ids else "alice"] = json.loads(r.out)["memoryId"]


def test_no_color_between_a_group_and_its_command_and_after_it_changes_nothing(tmp_path):
    """Where a command's word may stand (before the command, between a group and its command)
    and after the command, ``--no-color`` is the same option: a piped answer is the same as
    without it; given twice after the command, it is refused as every option is."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    assert hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "use JSON").code == 0
    for words in (["memory", "brief"], ["memory", "export"], ["memory", "log"], ["memory", "index", "verify"],
                  ["policy", "show"], ["identity", "list"], ["version"]):
        plain = hn(repo, *words)
        assert plain.code == 0, plain.err
        for given in ([NO_COLOR, *words], [*words[:1], NO_COLOR, *words[1:]], [*words, NO_COLOR]):
            r = hn(repo, *given)
            assert (r.code, r.out, "usage" in r.err) == (0, plain.out, False), (given, r.err)
    r = hn(repo, "memory", "brief", NO_COLOR, NO_COLOR)
    assert (r.code, r.err) == (1, "git-hn: usage: git hn memory brief [--at REV] [--max-bytes N] [--include-untrusted] "
                                  "[--json|--markdown]; --no-color was given twice\n")
    r = hn(repo, "memory", "export", "--query", NO_COLOR)  # (the next option, not the value of --query)
    assert r.code == 1 and "--query needs a value TEXT before --no-color" in r.err, r.err
