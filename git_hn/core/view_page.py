"""``git hn memory view``: the page's data document and the self-contained HTML around it (issue 14).

Pure: projected rows (index-row form, §8.2), the author names their signed envelopes carry, the
retractions and challenges that target them and the memory policy that says whether their authors
are trusted go in; one HTML string comes out. Nothing here reads Git, files or the clock (the
page's script and style are passed in, as text).

Trust boundary: every author string (names, content, topics, paths, subjects, reasons) is hostile.
It reaches the page only as data, never as markup (*HTML injection*, *stored XSS*):

- the document is JSON inside ``<script type="application/json">``, with ``<``, ``>``, ``&`` and
  every non-ASCII character escaped as ``\\uXXXX`` (so ``</script>``, ``<!--`` and U+2028/2029
  cannot end or change the block); the page's own script reads it with ``textContent`` and
  ``JSON.parse`` and builds the DOM only with ``createElement``/``textContent``;
- a Content-Security-Policy in the first ``<meta>`` of ``<head>`` allows nothing by default and
  only the page's one script and one style, by their SHA-256 hashes: an injected ``<script>``,
  event handler attribute, ``javascript:`` URL or style could not run even if it reached the DOM,
  and no URL outside the file is ever fetched (*data exfiltration*, *tracking pixels*);
- author text is made inert before it is embedded (``inert``): control characters other than
  newline and tab become U+FFFD (ANSI escapes included), and bidirectional controls and every
  other invisible character are shown as ``\\u{202e}``-style text (*Trojan Source*, *ASCII
  smuggling*: ``core.invisible``); the style also isolates each author string's direction.

The header carries the warning every CLI and JSON output carries (``limits.WARNING``: memory content
is untrusted inert data), and the script marks the rows that do not apply at the page's commit
and those the policy there does not qualify (a newcomer trial read an ``--applies exact``
verification three commits back as a current green row).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re

from . import log as logcore
from .gostr import one_line, safe_text, short_id
from .grammar import utc_timestamp
from .invisible import lookalikes, spell_invisible
from .limits import WARNING
from .policy import actor_standing

GENERATOR = "git-hn memory view"
MARKER = f'<meta name="generator" content="{GENERATOR}">'
# marks a file this command wrote (``is_page``): found within the first bytes of the file
MARKER_WITHIN = 1024

_HEX_ID = re.compile(r"sha256:[0-9a-f]{64}\Z")


def inert(text: str) -> str:
    """Multi-line author text as the page shows it: ``safe_text``, and direction controls and
    every other invisible character spelled as ``\\u{…}`` (``core.invisible``); a space other
    than U+0020 is kept (prose: ``spell_invisible``'s ``spaces``)."""
    return spell_invisible(safe_text(text), spaces=False)


def inert_line(text: str) -> str:
    """One-line author text (names, topics, paths, subjects, reasons): ``inert`` on one line.
    Controls are shown as U+FFFD first (``safe_text``), as the details show them, and only line
    breaks and tabs become spaces: the summary showed ESC as a space and the details as U+FFFD."""
    return spell_invisible(one_line(safe_text(text)))


def memory_entry(row: dict, actor_name: str, target: str) -> dict:
    """One record of the timeline (``row``: its index row; ``target``: what it supersedes)."""
    data = row["data"]
    anchor = data["anchor"]
    applies = data["applicability"]
    handoff = data.get("handoff")
    utc = utc_timestamp(row["signedTimestamp"])
    return {
        "id": row["id"], "short": short_id(row["id"]), "stream": row["stream"], "actor": row["actor"],
        "actorName": inert_line(actor_name).strip() or "?", "signedTimestamp": row["signedTimestamp"],
        "utc": utc, "date": utc[:10], "kind": row["kind"], "lifecycle": row["lifecycle"],
        "trust": row["trust"], "applicability": row["applicability"], "evidence": row["evidence"],
        "summary": spell_invisible(one_line(safe_text(logcore.summary(data["content"]))), spaces=False), "content": inert(data["content"]),
        "topics": [inert_line(t) for t in data["topics"]],
        "paths": [inert_line(p["path"]) for p in anchor.get("paths", ())],
        "anchor": {"commit": anchor["commit"], "subject": inert_line(anchor.get("subject", ""))},
        "applies": {"mode": applies["mode"], "subject": inert_line(applies.get("subject", ""))},
        "evidenceRefs": [inert_line(e) for e in data["evidence"]],
        # an attempt's outcome and a handoff's lists, as ``show`` gives them (labels included, so
        # the page's script has no copy of them); empty when the record has none
        "outcome": inert_line(data.get("attemptOutcome", "")),
        "handoff": [{"label": label, "entries": [inert(e) for e in handoff[key]]}
                    for key, label in logcore.HANDOFF_PARTS if handoff and handoff.get(key)],
        "relations": [{"type": t, "memoryId": m, "short": short_id(m)}
                      for t, m in logcore.relations(row, target)],
    }


def event_entry(memory_id: str, env, policy) -> dict:
    """A retraction or challenge shown under its target (they are not records of their own), with
    its author's standing under ``policy`` (the memory policy at the page's commit, None when there
    is none: ``core.policy.actor_standing``), which the page shows before the self-chosen name."""
    standing, why = actor_standing(env.actor, policy)
    return {"id": memory_id, "short": short_id(memory_id), "operation": env.operation,
            "actor": env.actor, "actorName": inert_line(env.actor_name).strip() or "?",
            "standing": standing, "standingWhy": why,
            "signedTimestamp": env.timestamp, "target": env.target, "reason": inert_line(env.reason)}


def document(entries: list[dict], events: list[dict], at_commit: str) -> dict:
    """The page's data: records newest first (as ``memory log``), events by ID. A path that
    another path of the page looks identical to (the same name in another Unicode normalization)
    is shown with what tells it apart (``invisible.lookalikes``): the Path filter offered two
    identical ``café.txt (1)``, a trial."""
    told = lookalikes(p for e in entries for p in e["paths"])
    if told:
        entries = [e | {"paths": [f"{p} ({told[p]})" if p in told else p for p in e["paths"]]} for e in entries]
    ordered = sorted(entries, key=lambda e: e["id"])
    ordered.sort(key=lambda e: logcore.order_key(e["utc"]), reverse=True)
    return {"version": 0, "atCommit": at_commit, "memories": ordered,
            "events": sorted(events, key=lambda e: e["id"])}


def embed_json(doc: dict) -> str:
    """JSON that is inert inside a ``<script>`` data block: ASCII only, and none of ``<``,
    ``>``, ``&`` (so no ``</script>``, ``<!--`` or entity can appear; U+2028/2029 are escaped by
    ``ensure_ascii``)."""
    text = json.dumps(doc, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def source_hash(text: str) -> str:
    """A CSP source expression for an inline block with exactly this text."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def csp(script: str, style: str) -> str:
    """Nothing by default; the page's own script and style by hash. ``base-uri`` and
    ``form-action`` do not fall back to ``default-src``, so they are closed explicitly."""
    return ("default-src 'none'; script-src " + source_hash(script) + "; style-src " + source_hash(style)
            + "; img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'")


_CLOSERS = re.compile(r"</|<!--|<script|]]>", re.IGNORECASE)


def check_asset(text: str) -> str:
    """The page's own script or style must not be able to end its element early."""
    if _CLOSERS.search(text):
        raise ValueError("a page asset holds a sequence that ends its element")
    return text


def render(doc: dict, script: str, style: str) -> str:
    """The whole page. ``script`` and ``style`` are the page's own assets (trusted, checked)."""
    return "".join(render_parts({**doc, "memories": []}, [doc["memories"]], len(doc["memories"]), script, style))


def render_parts(doc: dict, batches, total: int, script: str, style: str):
    """``render``'s page in parts, its ``total`` memories given in ``batches`` (lists, in the
    document's order) rather than in ``doc`` (whose ``memories`` is empty): a page of the whole
    history is never one string (issue 11). The same text."""
    script, style = check_asset(script), check_asset(style)
    at = doc["atCommit"]
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", at):
        raise ValueError("the query commit is not an object ID")
    before, slot, after = embed_json(doc).partition('"memories":[]')
    if not slot:  # pragma: no cover - sorted keys: always there
        raise ValueError("the document has no memories")
    yield _page_head(at, total, script, style) + f'<script type="application/json" id="hn-data">{before}"memories":['
    sep = ""
    for batch in batches:
        for m in batch:
            if not _HEX_ID.match(m["id"]):
                raise ValueError("a memory ID is not a sha256 ID")
        if batch:
            yield sep + ",".join(embed_json(m) for m in batch)
            sep = ","
    yield f"]{after}</script>\n<script>{script}</script>\n</body>\n</html>\n"


def _page_head(at: str, total: int, script: str, style: str) -> str:
    """The page up to its data block."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en" dir="ltr">\n<head>\n'
        '<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp(script, style)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"{MARKER}\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>git-hn memory at {at[:12]}</title>\n"
        f"<style>{style}</style>\n"
        "</head>\n<body>\n"
        "<header>\n"
        "<h1>git-hn memory</h1>\n"
        f'<p class="at">{total} verified memor{"y" if total == 1 else "ies"} '
        f"as seen at commit <code>{at}</code> (trust by the policy at that commit)</p>\n"
        f'<p class="warning">{html.escape(WARNING)}</p>\n'
        "<noscript><p>This page builds its lists with its own script; "
        "it runs nothing else and loads nothing.</p></noscript>\n"
        "</header>\n"
        '<form id="filters" class="filters">\n'
        + "".join(f'<label>{label} <select id="f-{name}" name="{name}"></select></label>\n'
                  for name, label in FILTERS)
        + '<button type="button" id="reset">Show all</button>\n'
        '<output id="count" aria-live="polite"></output>\n'
        "</form>\n"
        '<main>\n<section aria-labelledby="h-timeline">\n<h2 id="h-timeline">Timeline</h2>\n'
        '<ol id="timeline" class="timeline"></ol>\n'
        # (a page with no memory at all says so; the script puts the command's hint here: ``empty``)
        + ('<p id="empty" class="none">No memory here yet.</p>\n' if not total else "")
        + '<p id="no-match" class="none" hidden>No memory matches these filters. '
        '<button type="button" id="clear">Clear the filters</button></p>\n</section>\n'
        '<section aria-labelledby="h-relations">\n<h2 id="h-relations">Relations</h2>\n'
        '<p class="note">Supersession chains from the oldest record, with the retractions and '
        "challenges of each record (every memory, whatever the filters).</p>\n"
        '<ul id="relations" class="relations"></ul>\n</section>\n</main>\n'
    )


# the client-side filters, in the order shown: (field, label)
FILTERS = (("kind", "Kind"), ("actor", "Actor"), ("topic", "Topic"), ("path", "Path"),
           ("lifecycle", "Lifecycle"), ("trust", "Trust"), ("applicability", "Applies here"))


def is_page(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a page this command wrote (it may be replaced)."""
    return MARKER.encode() in head[:MARKER_WITHIN]
