"""Pure edits of agent configuration files: add git-hn's part, or strip it (issue 13, item 1).

Owns: merging git-hn's entries into JSON, TOML and Markdown documents without touching anything
else, and taking exactly those entries out again. Every function takes the file's bytes (or
None for a missing file) and returns the new bytes (None: the file should not exist); no I/O.
Trusts nothing in the input: a document that cannot be parsed, has duplicate JSON keys, or
would not round-trip is refused with an ``InputError`` before anything is written.

How each format keeps the user's content:

- JSON is parsed with key order kept and written back with the file's own indentation (two
  spaces for a new file) and its final newline; only ``mcpServers.git-hn`` or git-hn's hook
  handlers are added or removed. Floats are written back in Python's shortest form (the value is
  the same). Duplicate keys are refused: re-serialising would silently drop one.
- TOML (Codex) is never re-serialised: git-hn's ``[mcp_servers.git-hn]`` table is appended as a
  delimited block, and the result is parsed again (``tomllib``) and must equal the old document
  plus that one table, so comments, ordering and formatting of everything else stay byte for
  byte. Removal deletes the block and is checked the same way.
- Markdown gets one delimited section appended after a blank line, replaced in place on update,
  and removed with that blank line.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re

from ..errors import InputError
from . import setup_content as content

MAX_BYTES = 1 << 20  # configuration files; anything larger is refused, not parsed

TOML_BEGIN = "# git-hn:begin (git hn setup codex; git hn setup codex --remove takes it out)"
TOML_END = "# git-hn:end"
TOML_TABLE = {"command": "git", "args": ["hn", "mcp"]}
TOML_BLOCK = (f"{TOML_BEGIN}\n[mcp_servers.{content.SERVER}]\ncommand = \"git\"\n"
              f"args = [\"hn\", \"mcp\"]\n{TOML_END}\n")


# what --remove says of a server named git-hn that is not exactly what setup wrote (the user may
# have added --allow-write, or written it themselves): it is theirs, so it stays, and they are told
DIFFERS = (f"an MCP server named {content.SERVER} differs from what setup writes (changed since, or "
           "the user's own); left as is: remove it by hand if it should go")


HOOK_DIFFERS = ("a hook group that runs git-hn's command was changed since setup (another hook added to it, "
                "or the user's own); left as is: remove git-hn's command from it by hand if it should go")


class Edit:
    """git-hn's part of one file. ``add`` returns the new bytes (``note`` may then say why an
    existing entry was left as is); ``strip`` returns the bytes without git-hn's part, or None
    when the file should disappear (only for a file git-hn created, ``created``). ``original``,
    when set, is the file as it was before setup first changed it: an entry of git-hn's form
    found there is the user's own (a brief hook they wrote), and ``strip`` keeps it."""

    note = ""
    original: bytes | None = None
    upgrade = False  # the file is as setup last wrote it: an earlier form of git-hn's part may be replaced

    def add(self, data: bytes | None, rel: str) -> bytes:
        raise NotImplementedError

    def strip(self, data: bytes, rel: str, created: bool) -> bytes | None:
        raise NotImplementedError


# -- JSON --------------------------------------------------------------------------------------


def _pairs(rel: str):
    def hook(pairs):
        out = {}
        for key, value in pairs:
            if key in out:
                raise InputError(f"{rel} has the key \"{key[:40]}\" twice; not changed")
            out[key] = value
        return out

    return hook


def _load_json(data: bytes | None, rel: str) -> tuple[dict, str | int, bool]:
    """The document, its indentation, and whether it ended with a newline."""
    if data is None or not data.strip():
        return {}, 2, True
    try:
        text = data.decode("utf-8")
        doc = json.loads(text, object_pairs_hook=_pairs(rel))
    except UnicodeDecodeError:
        raise InputError(f"{rel} is not UTF-8; not changed") from None
    except ValueError as exc:
        raise InputError(f"{rel} is not valid JSON (line {getattr(exc, 'lineno', '?')}); "
                         "not changed") from None
    if not isinstance(doc, dict):
        raise InputError(f"{rel} is not a JSON object; not changed")
    found = re.search(r"^([ \t]+)[\"}\]]", text, re.MULTILINE)
    indent: str | int = 2
    if found:
        indent = len(found.group(1)) if set(found.group(1)) == {" "} else found.group(1)
    return doc, indent, text.endswith("\n")


def _dump_json(doc: dict, indent, newline: bool, rel: str) -> bytes:
    try:
        text = json.dumps(doc, indent=indent, ensure_ascii=False)
        return (text + ("\n" if newline else "")).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        raise InputError(f"{rel} cannot be written back faithfully; not changed") from None


def _object(parent: dict, key: str, rel: str, create: bool) -> dict | None:
    value = parent.get(key)
    if value is None and key not in parent:
        if not create:
            return None
        parent[key] = value = {}
    if not isinstance(value, dict):
        raise InputError(f"{rel}: \"{key}\" is not a JSON object; not changed")
    return value


def check_server_entry(entry, rel: str, where: str, shape: str = "an object") -> None:
    """An existing ``git-hn`` server entry is left as is only when it is a server definition (an
    object with a ``command`` or a ``url`` string): an audit's ``"git-hn": 5`` was reported as
    "already configured; left as is", and setup said done, while no agent could start it. The
    entry is the user's, so it is not replaced: they are told to fix or remove it."""
    if isinstance(entry, dict) and any(isinstance(entry.get(k), str) and entry[k] for k in ("command", "url")):
        return
    raise InputError(f"{rel}: {where} is not a server definition ({shape} with a command or a url), so no "
                     f"agent can start it; not changed: remove that entry (setup then writes its own) or fix it, "
                     "then run this setup again")


class JsonServer(Edit):
    """``mcpServers.git-hn`` in a Claude Code or Cursor MCP file. An existing ``git-hn`` entry
    with other values (the user's own, say with ``--allow-write``) is left as is."""

    def __init__(self, server: dict):
        self.server = server

    def add(self, data, rel):
        doc, indent, newline = _load_json(data, rel)
        servers = _object(doc, "mcpServers", rel, create=True)
        if content.SERVER in servers:
            if servers[content.SERVER] != self.server:
                check_server_entry(servers[content.SERVER], rel, f'"mcpServers"."{content.SERVER}"')
                self.note = f"an MCP server named {content.SERVER} is already configured; left as is"
            return data if data is not None else _dump_json(doc, indent, newline, rel)
        servers[content.SERVER] = copy.deepcopy(self.server)
        return _dump_json(doc, indent, newline, rel)

    def strip(self, data, rel, created):
        doc, indent, newline = _load_json(data, rel)
        servers = _object(doc, "mcpServers", rel, create=False)
        if servers is None or servers.get(content.SERVER) != self.server:
            if servers is not None and content.SERVER in servers:
                self.note = DIFFERS
            return data
        del servers[content.SERVER]
        if not servers:
            del doc["mcpServers"]
        if created and not doc:
            return None
        return _dump_json(doc, indent, newline, rel)


def _is_ours(group, event: str, hooks=None) -> bool:
    """Whether ``group`` is exactly one that setup writes (or, by default, wrote: ``FORMER_HOOKS``)
    for ``event``."""
    return isinstance(group, dict) and any(
        e == event and group.get("hooks") == [{"type": "command", "command": c}] and
        group.get("matcher") == m
        for e, m, c in (content.SESSION_HOOKS + content.FORMER_HOOKS if hooks is None else hooks))


def _group(matcher, command: str) -> dict:
    group = {"hooks": [{"type": "command", "command": command}]}
    return group if matcher is None else {"matcher": matcher, **group}


FORMER_LEFT = (f"a SessionStart hook (the user's own, or an earlier git hn setup's in a file changed since) "
               f"runs the brief without --max-bytes {content.BRIEF_MAX_BYTES}; left as is: add --max-bytes "
               f"{content.BRIEF_MAX_BYTES} to it by hand to bound what the agent reads")


FORMER_DROPPED = ("removed an earlier git hn setup's SessionStart hook beside the current one: it ran the brief a "
                  f"second time, without --max-bytes {content.BRIEF_MAX_BYTES}")
FORMER_TWICE = (f"a SessionStart hook (the user's own, or changed since an earlier git hn setup) runs the brief "
                f"without --max-bytes {content.BRIEF_MAX_BYTES} beside the current one, so the agent reads it twice; "
                "left as is: remove it by hand")


def _runs(group, commands: set) -> bool:
    """Whether ``group`` holds a handler running one of ``commands``."""
    return isinstance(group, dict) and isinstance(group.get("hooks"), list) and any(
        isinstance(h, dict) and h.get("command") in commands for h in group["hooks"])


class JsonHooks(Edit):
    """git-hn's session hooks in a Claude Code ``.claude/settings.json`` or a Codex
    ``.codex/hooks.json``: one matcher group per handler, appended after the user's groups of
    the same event; a group is git-hn's when it is exactly one that setup writes. A group of an
    earlier setup (``FORMER_HOOKS``) is replaced in place when the file is as setup last wrote
    it (``upgrade``, set by the caller from the setup record) and the file did not hold that
    group before the first setup (``original``); otherwise it is the user's, stays, and no
    second brief is added beside it. Beside the current handler, such a group that the file did
    not hold before the first setup is taken out (an older git-hn's setup added it, say a
    teammate's: the agent read the brief twice); one the user had, or a group changed since
    that runs the earlier command, stays with a note, never silently."""

    def add(self, data, rel):
        doc, indent, newline = _load_json(data, rel)
        hooks = _object(doc, "hooks", rel, create=True)
        changed = data is None
        for event, matcher, command in content.SESSION_HOOKS:
            groups = hooks.setdefault(event, [])
            if not isinstance(groups, list):
                raise InputError(f"{rel}: \"hooks.{event}\" is not a JSON array; not changed")
            earlier = [(e, m, c) for e, m, c in content.FORMER_HOOKS if (e, m) == (event, matcher)]
            former = [i for i, g in enumerate(groups) if _is_ours(g, event, earlier)]
            # a group the file held before the first setup is the user's even when setup wrote
            # the file last (the same test as ``strip``): only setup's own is replaced
            theirs = self._theirs(event, rel)
            users = {i for i, g in enumerate(groups) if _is_ours(g, event) and _taken(theirs, g)}
            # an earlier command in a group changed since (another hook or key beside it)
            edited = any(not _is_ours(g, event) and _runs(g, {c for _e, _m, c in earlier}) for g in groups)
            if any(_runs(g, {command}) for g in groups):
                # beside the current handler, an earlier setup's exact group (an older git-hn's
                # setup run by a teammate, say) would make the agent read the brief twice
                drop = [i for i in former if i not in users]
                for i in reversed(drop):
                    del groups[i]
                if drop:
                    self.note, changed = FORMER_DROPPED, True
                if len(drop) < len(former) or edited:
                    self.note = FORMER_TWICE
                continue
            replace = [i for i in former if i not in users] if self.upgrade else []
            if edited and not replace:
                self.note = FORMER_LEFT
                continue
            if replace:
                groups[replace[0]] = _group(matcher, command)
            elif former:
                self.note = FORMER_LEFT
                continue
            else:
                groups.append(_group(matcher, command))
            changed = True
        return _dump_json(doc, indent, newline, rel) if changed else data

    def strip(self, data, rel, created):
        doc, indent, newline = _load_json(data, rel)
        hooks = _object(doc, "hooks", rel, create=False)
        if hooks is None:
            return data
        changed = False
        for event in {e for e, _m, _c in content.SESSION_HOOKS}:
            groups = hooks.get(event)
            if not isinstance(groups, list):
                continue
            theirs = self._theirs(event, rel)
            kept = [g for g in groups if not _is_ours(g, event) or _taken(theirs, g)]
            mine = {c for e, _m, c in content.SESSION_HOOKS + content.FORMER_HOOKS if e == event}
            if any(not _is_ours(g, event) and isinstance(g, dict) and isinstance(g.get("hooks"), list)
                   and any(isinstance(h, dict) and h.get("command") in mine for h in g["hooks"]) for g in kept):
                self.note = HOOK_DIFFERS
            if len(kept) != len(groups):
                changed = True
                if kept:
                    hooks[event] = kept
                else:
                    del hooks[event]
        if not changed:
            return data
        if not hooks:
            del doc["hooks"]
        if created and not doc:
            return None
        return _dump_json(doc, indent, newline, rel)


    def _theirs(self, event: str, rel: str) -> list:
        """The groups of ``event`` in the original file that have git-hn's form."""
        if self.original is None:
            return []
        try:
            hooks = _load_json(self.original, rel)[0].get("hooks")
        except InputError:
            return []
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        return [g for g in groups if _is_ours(g, event)] if isinstance(groups, list) else []


def _taken(pool: list, group) -> bool:
    """True (and ``group`` taken out of ``pool``) if ``pool`` holds a group equal to it."""
    for i, g in enumerate(pool):
        if g == group:
            del pool[i]
            return True
    return False


# -- TOML (Codex) ------------------------------------------------------------------------------


def _load_toml(text: str, rel: str) -> dict:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise InputError(f"{rel} is not valid TOML; not changed") from None


def _decode(data: bytes, rel: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{rel} is not UTF-8; not changed") from None


def _without_server(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    servers = doc.get("mcp_servers")
    if isinstance(servers, dict):
        servers.pop(content.SERVER, None)
        if not servers:
            del doc["mcp_servers"]
    return doc


class TomlServer(Edit):
    """``[mcp_servers.git-hn]`` in Codex's ``config.toml``, as an appended delimited block."""

    def add(self, data, rel):
        text = _decode(data or b"", rel)
        doc = _load_toml(text, rel)
        servers = doc.get("mcp_servers")
        if isinstance(servers, dict) and content.SERVER in servers:
            if servers[content.SERVER] != TOML_TABLE:
                check_server_entry(servers[content.SERVER], rel, f"mcp_servers.{content.SERVER}", "a table")
                self.note = f"an MCP server named {content.SERVER} is already configured; left as is"
            return data if data is not None else TOML_BLOCK.encode()
        new = text
        if new and not new.endswith("\n"):
            new += "\n"
        if new:
            new += "\n"
        new += TOML_BLOCK
        expected = copy.deepcopy(doc)
        if not isinstance(expected.setdefault("mcp_servers", {}), dict):
            raise InputError(f"{rel}: mcp_servers is not a table; not changed")
        expected["mcp_servers"][content.SERVER] = TOML_TABLE
        # An inline ``mcp_servers = {...}`` cannot take a new table: the parse below says so.
        try:
            ok = _load_toml(new, rel) == expected
        except InputError:
            ok = False
        if not ok:
            raise InputError(f"{rel}: [mcp_servers.{content.SERVER}] cannot be appended safely; "
                             "not changed")
        return new.encode("utf-8")

    def strip(self, data, rel, created):
        text = _decode(data, rel)
        servers = _load_toml(text, rel).get("mcp_servers")
        if not isinstance(servers, dict) or servers.get(content.SERVER) != TOML_TABLE:
            if isinstance(servers, dict) and content.SERVER in servers:
                self.note = DIFFERS
            return data  # absent, or the user's own entry: not git-hn's to take out
        start = text.find(TOML_BEGIN)
        if start < 0 or (start > 0 and text[start - 1] != "\n"):
            return data
        end = text.find(TOML_END, start)
        if end < 0:
            return data
        end += len(TOML_END)
        if text[end:end + 1] == "\n":
            end += 1
        if text[:start].endswith("\n\n"):
            start -= 1  # the blank line setup put before the block
        new = text[:start] + text[end:]
        if _without_server(_load_toml(text, rel)) != _load_toml(new, rel):
            raise InputError(f"{rel}: the git-hn block no longer holds only [mcp_servers."
                             f"{content.SERVER}]; remove it by hand")
        if created and not new.strip():
            return None
        return new.encode("utf-8")


# -- Markdown ----------------------------------------------------------------------------------


def _section_span(data: bytes) -> tuple[int, int] | None:
    """Byte offsets of the whole lines from the begin marker to the end marker, if any."""
    begin, end = content.BEGIN.encode(), content.END.encode()
    found = re.search(rb"(?m)^" + re.escape(begin) + rb"[ \t]*\r?$", data)
    if not found:
        return None
    closing = re.compile(rb"(?m)^" + re.escape(end) + rb"[ \t]*\r?$").search(data, found.end())
    if not closing:
        return None
    stop = closing.end()
    if data[stop:stop + 1] == b"\n":
        stop += 1
    return found.start(), stop


class Markdown(Edit):
    """git-hn's instructions section in AGENTS.md or CLAUDE.md."""

    @staticmethod
    def _section(data: bytes | None) -> bytes:
        crlf = data is not None and b"\r\n" in data
        section = content.SECTION.encode()
        return section.replace(b"\n", b"\r\n") if crlf else section

    def add(self, data, rel):
        section = self._section(data)
        if not data:
            return section
        span = _section_span(data)
        if span is not None:
            return data[:span[0]] + section + data[span[1]:]
        eol = b"\r\n" if section.endswith(b"\r\n") else b"\n"
        body = data if data.endswith(b"\n") else data + eol
        return body + eol + section

    def strip(self, data, rel, created):
        span = _section_span(data)
        if span is None:
            return data
        start, stop = span
        for blank in (b"\r\n\r\n", b"\n\n"):
            if data[:start].endswith(blank):
                start -= len(blank) // 2
                break
        new = data[:start] + data[stop:]
        if created and not new.strip():
            return None
        return new


class Whole(Edit):
    """A file that is git-hn's alone (the Cursor rule)."""

    def __init__(self, text: str):
        self.data = text.encode()

    def add(self, data, rel):
        return self.data

    def strip(self, data, rel, created):
        if data == self.data or hashlib.sha256(data).hexdigest() in content.FORMER_CURSOR_RULES:
            return None
        return data


def edit_for(target: content.Target) -> Edit:
    if target.kind == content.JSON_SERVER:
        return JsonServer(target.server)
    if target.kind == content.JSON_HOOKS:
        return JsonHooks()
    if target.kind == content.TOML_SERVER:
        return TomlServer()
    if target.kind == content.MARKDOWN:
        return Markdown()
    return Whole(content.CURSOR_RULE)
