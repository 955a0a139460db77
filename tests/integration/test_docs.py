"""Man pages and completion are generated from the CLI and cannot drift (issue "Git-native
integration"); they render without warnings."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from git_hn import docgen
from helpers import hn

ROOT = Path(__file__).resolve().parents[2]


def test_generated_files_are_committed_and_current():
    stale = [rel for rel, text in docgen.outputs().items()
             if not (ROOT / rel).exists() or (ROOT / rel).read_text() != text]
    assert stale == [], f"regenerate with: python -m git_hn.docgen . ({stale})"


def test_every_cli_option_is_in_the_man_pages():
    text = "".join(docgen.pages().values())
    missing = []
    for path, cmd, _usage in docgen.tree():
        for p in cmd.params:
            for name in getattr(p, "opts", []):
                if name.startswith("--") and docgen.esc(name) not in text:
                    missing.append(f"git hn {' '.join(path)} {name}")
    assert missing == []
    for path, _cmd, _usage in docgen.tree():
        assert docgen.esc("git hn " + " ".join(path)) in text


def test_the_man_pages_say_what_help_says(tmp_path):
    """A newcomer trial read ``git hn identity use -h`` and its man page: the page had only the
    help's first paragraph and the options, and its synopsis lacked ``ACTOR``. Every paragraph
    of each command's help and every operand -h lists under Arguments are in its pages, under
    the command, and no synopsis line is the bare name of a command that takes operands."""
    pages = docgen.pages()
    for path, cmd, _usage in docgen.tree():
        name = "git hn " + " ".join(path)
        operands = [(p.metavar or p.name.upper(), p.help or "") for p in cmd.params
                    if p.param_type_name == "argument" and not p.hidden]
        heading = ".SS " + docgen.esc(name) + "\n"
        for text in [t for f, t in pages.items() if f.endswith(".1") and heading in t]:
            section = text.split(heading, 1)[1].split(".SS ", 1)[0].split(".SH ", 1)[0]
            for paragraph in (cmd.help or "").strip().split("\n\n"):
                assert docgen.esc(paragraph.replace("\n", " ")) in section, (name, paragraph)
            out = hn(tmp_path, *path, "-h").out
            for metavar, help_text in operands:
                assert f"\\fI{docgen.esc(metavar)}\\fR\n{docgen.esc(help_text)}" in section, (name, metavar)
                assert metavar in out.split("Arguments:", 1)[1]
            synopsis = text.split(".SH SYNOPSIS\n", 1)[1].split(".SH ", 1)[0].splitlines()
            if operands:  # (identity use had no usage text: its synopsis was the bare name)
                assert docgen.esc(name) not in synopsis, name
    synopsis = pages["git-hn.1"].split(".SH SYNOPSIS\n", 1)[1]
    assert docgen.esc("git hn identity use ACTOR") + "\n" in synopsis


# what each --applies mode means, in the words of CONTRACT §5.5 (exact: R == A; descendants: A in
# R's history; subject: the read's subject)
APPLIES_MEANS = {"exact": "only at the anchor commit", "descendants": "every commit that has it in its history",
                 "subject": "a read of the same"}


def _says_each_mode(text: str) -> None:
    text = " ".join(text.split())
    for mode, meaning in APPLIES_MEANS.items():
        at = text.find(mode + " (")
        assert at >= 0 and meaning in text[at:at + 120], (mode, text[:300])


def test_applies_modes_are_explained_where_users_read(tmp_path):
    """A newcomer trial: ``record -h``, ``man git-hn-memory``, ``man 7 hn-memory`` and the README
    named exact, descendants and subject but never said what they mean (only the protocol
    contract, which is not installed, did). The trial guessed ``exact`` for a verification, and
    one commit later recall and the brief left it out, for good. Each says each mode's meaning."""
    for command in ("record", "handoff", "supersede"):
        r = hn(tmp_path, "memory", command, "-h")
        assert r.code == 0, r.err
        said = " ".join(r.out.split())
        _says_each_mode(said[said.index("--applies MODE"):])
    for page in ("git-hn-memory.1", "hn-memory.7"):
        roff = (ROOT / "man" / page).read_text()
        description = roff.split(".SH OPTIONS")[0] if page.endswith(".1") else roff.split(".SH APPLICABILITY")[1]
        plain = description.replace("\\-", "-").replace(".B ", "").replace(".RB ", "").replace('"', "")
        for mode, meaning in APPLIES_MEANS.items():
            assert mode in plain and meaning in " ".join(plain.split()), (page, mode)
    readme = " ".join((ROOT / "README.md").read_text().split())
    first = readme.index("`--applies` says where a memory holds")
    assert first < readme.index("--applies exact")  # before the README first names a mode in prose
    for mode, meaning in APPLIES_MEANS.items():
        assert meaning in readme[first:readme.index(f"`{mode}`", first) + 200], mode


@pytest.mark.parametrize("page", sorted(docgen.pages()))
def test_man_page_renders_without_warnings(page):
    env = {**os.environ, "MANWIDTH": "80", "MAN_KEEP_FORMATTING": "0"}
    proc = subprocess.run(["man", "--warnings", "-l", str(ROOT / "man" / page)], capture_output=True,
                          env=env, text=True)
    assert proc.returncode == 0
    assert proc.stderr == ""
    assert "git-hn" in proc.stdout or "hn-memory" in proc.stdout


@pytest.mark.parametrize("page", sorted(docgen.pages()))
def test_no_font_alternating_macro_runs_prose_together(page):
    """An audit: ``.BR "git ... push" ), and names the push that keeps it`` printed
    "push),andnamesthepushthatkeepsit": ``.BR`` and its kin join their arguments without a space.
    Each takes a few words (a name, its punctuation); prose goes on the next line."""
    import shlex

    for line in (ROOT / "man" / page).read_text().splitlines():
        if line[:3] in (".BR", ".RB", ".IR", ".RI", ".BI", ".IB"):
            assert len(shlex.split(line[3:].replace("\\", "\\\\"))) <= 4, line


def test_bash_completion_completes_commands_and_options():
    script = ROOT / "completion" / "git-hn.bash"
    check = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr

    def complete(*words):
        line = " ".join(["git-hn", *words])
        probe = (f'source "{script}"; COMP_WORDS=(git-hn {" ".join(words)}); '
                 f'COMP_CWORD={len(words)}; _git_hn_standalone; printf "%s\\n" "${{COMPREPLY[@]}}"')
        out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True)
        assert out.returncode == 0, (line, out.stderr)
        return out.stdout.split()

    assert {"memory", "sync", "hooks", "replication"} <= set(complete(""))
    assert "recall" in complete("memory", "re")
    assert "--max-records" in complete("memory", "recall", "--max")
    assert complete("hooks", "") == ["install", "uninstall", "status", "run"]
    assert {"version", "help"} <= set(complete(""))  # (an audit: both were missing)
    assert "memory" in complete("help", "")


def test_version_is_the_packages_version():
    import tomllib

    from git_hn.version import VERSION

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert VERSION == meta["project"]["version"]
    out = hn(ROOT, "--version")
    assert re.fullmatch(rf"git-hn {re.escape(VERSION)} \(build [0-9a-f]{{12}}\)\n", out.out), out.out


def _table_keys(text: str, heading: str) -> list[str]:
    """The first-column keys of the table under ``heading`` in docs/requests.md."""
    import re

    section = text[text.index(heading):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    keys = []
    for line in section.splitlines():
        if line.startswith("| `"):
            keys += re.findall(r"`([A-Za-z]+)`", line.split("|")[1])
    return keys


def test_the_request_reference_lists_exactly_the_keys_the_readers_take(inited):
    """docs/requests.md names every key a record or recall request may hold, and no other; its
    record example, given a real commit, records."""
    import json
    import re

    from git_hn.core import recall
    from git_hn.service import requests

    text = (ROOT / "docs" / "requests.md").read_text()
    assert _table_keys(text, "## Record:") == list(requests._TOP)
    assert _table_keys(text, "## Recall:") == list(recall._KEYS)
    example = re.search(r"```json\n(.*?)```", text, re.S).group(1)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=inited, capture_output=True, text=True).stdout.strip()
    doc = json.loads(re.sub(r'"4f1c…\(40 hex digits\)"', json.dumps(head), example))
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(doc).encode())
    assert r.code == 0, r.err
    assert json.loads(r.out)["anchor"]["commit"] == head


def test_what_depends_on_linux_is_said_where_users_read():
    """A portability trial (S76): nothing user-facing said what needs /proc, setsid(1) or
    timeout(1). The README and git-hn-hooks(1) say what works where, and the fallbacks."""
    readme = (ROOT / "README.md").read_text()
    page = (ROOT / "man" / "git-hn-hooks.1").read_text()
    assert "\nPlatforms: " in readme and ".SH PLATFORMS\n" in page
    for text in (readme, page):
        for word in ("/proc", "ps", "timeout", "setsid", "perl", "process group", "agent"):
            assert word in text, word


def test_the_label_stream_rule_in_the_request_reference_is_the_refusals(inited):
    """An audit: docs/requests.md gave a ``label:NAME`` stream's characters but not that NAME
    starts with a letter or digit, which the refusal says. (The fix is in docs/requests.md:
    without it this fails; no git_hn change makes it fail.)"""
    from git_hn.core.grammar import STREAM_CHOICE_RULE

    row = next(line for line in (ROOT / "docs" / "requests.md").read_text().splitlines()
               if line.startswith("| `stream` |"))
    assert "(starting with a letter or digit)" in STREAM_CHOICE_RULE
    assert "NAME being 1 to 64 of `a-z`, `0-9`, `.`, `_`, `-`, starting with a letter or digit;" in row
    r = subprocess.run(["git", "-c", "hn.stream=label:_x", "hn", "memory", "record", "--kind", "decision", "--at",
                        "HEAD", "--applies", "exact", "--content", "x"], cwd=inited, capture_output=True, text=True)
    assert r.returncode == 1 and "(starting with a letter or digit)" in r.stderr, r.stderr


def test_the_digest_tools_smallest_max_bytes_is_documented():
    """An audit: MCP ``memory_digest`` refuses a ``maxBytes`` under 1024, a bound its schema
    alone gave (docs/requests.md, docs/responses.md and the README named only the default). The
    schema's description, and those documents, name it."""
    from git_hn.service import mcp_tools

    prop = mcp_tools.SCHEMAS["memory_digest"]["properties"]["maxBytes"]
    least = prop["minimum"]
    assert f"at least {least}" in prop["description"]
    for name, said in (("docs/requests.md", f"`memory_digest`'s `maxBytes` is at least {least:,}"),
                       ("docs/responses.md", f"(default 65,536, at least {least:,})"),
                       ("README.md", f"`maxBytes`, default 65536 (at least {least})")):
        assert said in (ROOT / name).read_text(), name
