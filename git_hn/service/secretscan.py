"""The detector library behind the secret lint: detect-secrets (CONTRACT §10.6).

Owns: configuring detect-secrets once per process (the plugins of ``core.secretlint``, the
library's own heuristic filters) and turning its findings into ``(start, plugin, value)`` for the
pure lint. Trusts: the library's plugins; nothing is ever sent anywhere (verification of findings
against provider APIs, which the library can do, is never enabled).

The library is imported on first use only: importing it costs about 100 ms, and
``core.secretlint`` calls it only for text that passes its cheap gate, so an ordinary
``git hn memory record`` never loads it.

Configuration choices (docs/decisions.md):
- the plugins are the library's defaults without ``IPPublicDetector`` (an IP address is not a
  credential);
- lines are scanned as the library scans a file without a known extension (its keyword plugin
  then requires quoted values, which keeps prose such as ``the secret: rotate weekly`` out);
- the library's allowlist filter is off: a pasted ``pragma: allowlist secret`` comment must not
  switch the lint off; only ``--allow-secret-shaped`` does.
"""

from __future__ import annotations

from ..core import secretlint

_FILENAME = "memory"
_configured = None


def _configure():
    global _configured
    if _configured is None:
        from detect_secrets.core.scan import _process_line_based_plugins
        from detect_secrets.settings import get_plugins, get_settings

        settings = get_settings()
        settings.configure_plugins([{"name": name} for name in secretlint.LIBRARY_PLUGINS])
        settings.disable_plugins(*secretlint.LIBRARY_DISABLED)
        settings.disable_filters("detect_secrets.filters.allowlist.is_line_allowlisted")
        names = {p.secret_type: type(p).__name__ for p in get_plugins()}
        _configured = (_process_line_based_plugins, names)
    return _configured


def available_plugins() -> set[str]:
    """Every plugin class the installed library ships (for the gate's completeness test)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    return {cls.__name__ for cls in get_mapping_from_secret_type_to_class().values()}


def line_findings(line: str) -> list[tuple[int, str, str]]:
    """(start, plugin class name, value) of every library finding in one line, without the gate.

    The position is where the reported value first occurs in the line (the library reports
    values, not positions); a value it did not take verbatim from the line counts from 0.
    """
    process, names = _configure()
    out = []
    for secret in process([(1, line)], filename=_FILENAME):
        value = secret.secret_value or ""
        at = line.find(value) if value else -1
        out.append((max(at, 0), names.get(secret.type, secret.type), value if at >= 0 else ""))
    return out


def scan(text: str) -> list[tuple[int, str, str]]:
    """(start, plugin class name, value) of every library finding in ``text``, line by line;
    lines that do not pass the gate are not shown to the library."""
    out = []
    offset = 0
    for line in text.split("\n"):
        if secretlint.library_gate(line):
            out += [(offset + start, plugin, value) for start, plugin, value in line_findings(line)]
        offset += len(line) + 1
    return out


def lint_envelope(envelope) -> secretlint.Finding | None:
    """The first finding of a verified envelope (field, detector), for the pre-push hook."""
    return secretlint.lint_envelope(envelope, scan)


def first_memory_finding(memories) -> tuple[str, secretlint.Finding] | None:
    """The first (memory ID, finding) among verified memories, in the order given (for the
    pre-push hook, which reports ``secret-shaped text in memory <id> <field> (<detector>)``)."""
    for mem in memories:
        finding = lint_envelope(mem.envelope)
        if finding is not None:
            return mem.memory_id, finding
    return None


def shaped(text: str) -> bool:
    """Whether one text (a path a message would repeat) holds a finding of the whole secret lint:
    the named detectors and the library, as ``record`` lints a field (``scan`` alone is the
    library's, which misses the named-only shapes, an npm or OpenAI key)."""
    return secretlint.first_in_text(text, scan) is not None
