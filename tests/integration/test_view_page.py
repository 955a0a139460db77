"""``git hn memory view`` (issue 14 item 3): one self-contained HTML page, checked without a browser.

The page is parsed with the standard library: its Content-Security-Policy allows only its own
script and style by hash, it names no URL, it has no event handler attribute, and hostile author
text (names, content, topics, paths) is present only as escaped JSON data (*stored XSS*,
*HTML injection*, *Trojan Source*, *terminal escape injection*, *markup injection*). The data
it embeds equals the same document computed from a full verification, and the CLI writes,
replaces and refuses files as documented. ``tests/browser/test_view_browser.py`` loads the page
in a real Chromium.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import stat
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers import actor_of, git, hn, hn_proc, init_as, make_repo, record_id

HOSTILE_FILE = "<img src=x onerror=window.__pwned=3>"
BIDI_FILE = "bidi\u202eevil.txt"
SCRIPT = "</script><script>window.__pwned=1</script>"
BOB_NAME = "Bob \u202eevil <script>window.__pwned=1</script>"


def seed_hostile(root: Path) -> dict:
    """Alice's repository with memories from Alice and Bob (fetched from Bob's clone), hostile
    author text everywhere it can be, one supersession, one retraction and one challenge, and a
    policy trusting Alice only. Returns the repository, the IDs and the expected counts."""
    alice = make_repo(root / "alice", files={"README.md": "hello\n", "src/app.py": "print(1)\n",
                                             HOSTILE_FILE: "x\n", BIDI_FILE: "y\n"})
    assert hn(alice, "init", "--name", "Alice").code == 0
    a1 = record_id(alice, "--topic", "arch", "--path", "src/app.py",
                   content=f"{SCRIPT}\nfirst decision")
    r = hn(alice, "memory", "supersede", a1, "--json", "--content",
           "</style><style>body{display:none}</style> javascript:alert(1)")
    assert r.code == 0, r.err
    a2 = r.json()["memoryId"]
    a3 = record_id(alice, "--topic", "<b>x</b>", "--path", HOSTILE_FILE, kind="observation",
                   content="<img src=x onerror=\"window.__pwned=2\"> [red]x[/red] "
                           "\x1b[31mred\x1b[0m \u202eevil\u202c https://example.invalid/t.png")
    r = hn(alice, "memory", "retract", a3, "--reason", "incorrect", "--json")
    assert r.code == 0, r.err
    retraction = r.json()["memoryId"]

    bob = root / "bob"
    git(root, "clone", "-q", str(alice), str(bob))
    git(bob, "fetch", "-q", "origin", "+refs/hn/memory/*:refs/hn/remotes/origin/memory/*")
    init_as(bob, BOB_NAME)
    b1 = record_id(bob, "--topic", "javascript:alert(1)", "--path", BIDI_FILE,
                   content='<a href="javascript:window.__pwned=4">click</a>')
    r = hn(bob, "memory", "challenge", a2, "--reason", "incorrect", "--json")
    assert r.code == 0, r.err
    challenge = r.json()["memoryId"]
    git(alice, "fetch", "-q", str(bob), "+refs/hn/memory/*:refs/hn/remotes/bob/memory/*")

    assert hn(alice, "policy", "init").code == 0
    git(alice, "add", ".hn/policy.json")
    git(alice, "commit", "-q", "-m", "trust Alice")
    return {"repo": alice, "a1": a1, "a2": a2, "a3": a3, "b1": b1, "retraction": retraction,
            "challenge": challenge, "alice": actor_of(alice), "bob": actor_of(bob),
            # filter -> value -> expected number of memories shown
            "expect": {"kind": {"observation": 1, "decision": 3},
                       "topic": {"arch": 2, "<b>x</b>": 1, "javascript:alert(1)": 1},
                       "path": {"src/app.py": 2, HOSTILE_FILE: 1},
                       "lifecycle": {"superseded": 1, "retracted": 1, "active": 2},
                       "trust": {"qualified": 3, "actor-untrusted": 1}, "applicability": {"applicable": 4}},
            "total": 4}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_hostile(tmp_path_factory.mktemp("view"))


class Page(HTMLParser):
    """Every start tag with its attributes, and the text of each script and style element."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.tags: list[tuple[str, dict]] = []
        self.blocks: list[tuple[str, dict, str]] = []
        self._open = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._open = (tag, dict(attrs), [])

    def handle_data(self, data):
        if self._open is not None:
            self._open[2].append(data)

    def handle_endtag(self, tag):
        if self._open is not None and tag == self._open[0]:
            self.blocks.append((tag, self._open[1], "".join(self._open[2])))
            self._open = None


def _parse(text: str) -> Page:
    p = Page()
    p.feed(text)
    p.close()
    return p


def _write(repo, *args) -> tuple[str, str]:
    r = hn(repo, "memory", "view", *args)
    assert r.code == 0, r.err
    path = r.out.rstrip("\n")
    assert r.out.count("\n") == 1 and os.path.isabs(path)
    return path, Path(path).read_text("utf-8")


def _data(page: str) -> dict:
    blocks = [b for b in _parse(page).blocks if b[1].get("type") == "application/json"]
    assert len(blocks) == 1 and blocks[0][1].get("id") == "hn-data"
    return json.loads(blocks[0][2])


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_page_csp_allows_only_its_own_script_and_style_by_hash(seeded):
    _, page = _write(seeded["repo"])
    parsed = _parse(page)
    metas = [a for t, a in parsed.tags if t == "meta"]
    assert metas[0] == {"charset": "utf-8"}
    assert metas[1]["http-equiv"] == "Content-Security-Policy"  # before any script or style
    policy = dict(d.strip().split(" ", 1) for d in metas[1]["content"].split(";"))
    scripts = [b for b in parsed.blocks if b[0] == "script" and "type" not in b[1]]
    styles = [b for b in parsed.blocks if b[0] == "style"]
    assert len(scripts) == 1 and len(styles) == 1
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == _sha(scripts[0][2])
    assert policy["style-src"] == _sha(styles[0][2])
    assert policy["base-uri"] == policy["form-action"] == policy["img-src"] == "'none'"
    assert [t for t, _ in parsed.tags].count("script") == 2  # the program and its data, nothing else
    # no inline handler, no style attribute, no URL attribute anywhere in the markup
    for tag, attrs in parsed.tags:
        assert not any(a.startswith("on") or a in ("style", "href", "src", "action", "srcset")
                       for a in attrs), (tag, attrs)
    # the page's script never turns a string into markup or code
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\b|Function\(|"
                         r"setAttribute|\.src\b|\.style\b", scripts[0][2])


def test_page_names_no_url_and_loads_nothing(tmp_path):
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    record_id(repo, content="plain")
    _, page = _write(repo)
    assert not re.search(r"(?i)(https?|ftp|wss?|file|data|javascript):|url\(|@import|//[a-z]", page)
    assert page.isascii()


def test_hostile_author_text_is_only_escaped_data_stored_xss(seeded):
    _, page = _write(seeded["repo"])
    # every '<' in the page is markup of the page itself: the hostile strings appear nowhere raw
    for raw in ("window.__pwned", "<img", "onerror", "</style><style>", "<b>x</b>", "<a href"):
        outside = page.split('<script type="application/json"', 1)
        assert raw not in outside[0] and raw not in outside[1].split("</script>", 1)[1]
    assert page.count("</script>") == 2 and page.count("</style>") == 1
    assert page.count("<script") == 2 and page.count("<style") == 1
    assert "\u202e" not in page and "\x1b" not in page and "\u2028" not in page
    doc = _data(page)
    by = {m["id"]: m for m in doc["memories"]}
    assert by[seeded["a1"]]["content"] == SCRIPT + "\nfirst decision"  # the text itself is kept
    a3 = by[seeded["a3"]]
    assert "\\u{202e}evil\\u{202c}" in a3["content"]  # Trojan Source: shown, never applied
    assert "\ufffd[31mred\ufffd[0m" in a3["content"]  # terminal escapes: inert
    # the summary line shows them as the details do (it showed spaces), line breaks as spaces
    assert "\ufffd[31mred\ufffd[0m" in a3["summary"] and "\n" not in a3["summary"]
    assert "[red]x[/red]" in a3["content"]
    assert a3["paths"] == [HOSTILE_FILE] and a3["topics"] == ["<b>x</b>"]
    b1 = by[seeded["b1"]]
    assert b1["actorName"] == "Bob \\u{202e}evil <script>window.__pwned=1</script>"
    assert b1["paths"] == ["bidi\\u{202e}evil.txt"]


def test_a_first_line_cut_in_the_timeline_ends_with_an_ellipsis(tmp_path):
    """A newcomer trial: the page's timeline cut a long first line at 200 characters without a
    sign (the memory's full content, further down, is whole)."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    long_line = "word " * 60
    mid = record_id(repo, content=long_line + "\nsecond")
    _, page = _write(repo)
    entry = next(m for m in _data(page)["memories"] if m["id"] == mid)
    assert entry["summary"] == long_line.strip()[:199] + "\u2026"
    assert entry["content"] == long_line + "\nsecond"


def test_page_data_timeline_relations_trust_and_anchors(seeded):
    _, page = _write(seeded["repo"])
    doc = _data(page)
    s = seeded
    ids = [m["id"] for m in doc["memories"]]
    assert sorted(ids) == sorted([s["a1"], s["a2"], s["a3"], s["b1"]])  # records only
    assert ids[-1] == s["a1"] and ids[0] == s["b1"]  # newest first, as memory log
    assert doc["atCommit"] == git(s["repo"], "rev-parse", "HEAD")
    by = {m["id"]: m for m in doc["memories"]}
    assert [(r["type"], r["memoryId"]) for r in by[s["a2"]]["relations"]] == \
        [("supersedes", s["a1"]), ("challengedBy", s["challenge"])]
    assert [(r["type"], r["memoryId"]) for r in by[s["a1"]]["relations"]] == [("supersededBy", s["a2"])]
    assert [(r["type"], r["memoryId"]) for r in by[s["a3"]]["relations"]] == \
        [("retractedBy", s["retraction"])]
    events = {e["id"]: e for e in doc["events"]}
    assert set(events) == {s["retraction"], s["challenge"]}
    assert (events[s["challenge"]]["operation"], events[s["challenge"]]["actor"],
            events[s["challenge"]]["target"], events[s["challenge"]]["reason"]) == \
        ("challenge", s["bob"], s["a2"], "incorrect")
    # each event's author's standing under the policy at the page's commit (it trusts Alice only)
    assert [(events[i]["standing"], events[i]["standingWhy"]) for i in (s["challenge"], s["retraction"])] == \
        [("untrusted", "the policy at this commit does not list this actor"),
         ("trusted", "the policy at this commit lists this actor")]
    assert [(m["lifecycle"], m["trust"]) for m in (by[s["a1"]], by[s["a2"]], by[s["a3"]], by[s["b1"]])] == \
        [("superseded", "qualified"), ("active", "qualified"), ("retracted", "qualified"),
         ("active", "actor-untrusted")]
    a2 = by[s["a2"]]  # supersede inherits the anchor, topics and paths
    assert a2["anchor"]["commit"] == by[s["a1"]]["anchor"]["commit"]
    assert (a2["applies"]["mode"], a2["topics"], a2["paths"]) == ("descendants", ["arch"], ["src/app.py"])
    assert a2["short"] == s["a2"][len("sha256:"):][:12] and a2["actor"] == s["alice"]
    for field, values in s["expect"].items():  # the filters' expectations match the data
        key = {"topic": "topics", "path": "paths"}.get(field, field)
        for value, n in values.items():
            assert sum(value in (m[key] if isinstance(m[key], list) else [m[key]])
                       for m in doc["memories"]) == n, (field, value)


def seed_handoff(root: Path) -> dict:
    """A failed attempt and a handoff with every list, one entry of each hostile."""
    repo = make_repo(root / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    attempt = record_id(repo, "--outcome", "failed", kind="attempt", content="tried the cache")
    r = hn(repo, "memory", "handoff", "--json", "--at", "HEAD", "--applies", "descendants",
           "--content", "End of session", "--completed", "codec", "--completed", "parser\nsecond line",
           "--assumption", "Git 2.30 or newer", "--blocker", "<img src=x onerror=window.__pwned=5>",
           "--next-action", "run \u202erm -rf\u202c" + "".join(chr(0xE0000 + ord(c)) for c in "NOW"))
    assert r.code == 0, r.err
    return {"repo": repo, "attempt": attempt, "handoff": r.json()["memoryId"]}


HANDOFF_SHOWN = [
    {"label": "Completed", "entries": ["codec", "parser\nsecond line"]},
    {"label": "Assumptions", "entries": ["Git 2.30 or newer"]},
    {"label": "Blockers", "entries": ["<img src=x onerror=window.__pwned=5>"]},
    {"label": "Proposed next actions (inert, not instructions)",
     "entries": ["run \\u{202e}rm -rf\\u{202c}\\u{e004e}\\u{e004f}\\u{e0057}"]},
]


def test_page_has_an_attempts_outcome_and_a_handoffs_lists_as_show_does(tmp_path):
    s = seed_handoff(tmp_path)
    _, page = _write(s["repo"])
    by = {m["id"]: m for m in _data(page)["memories"]}
    assert (by[s["attempt"]]["outcome"], by[s["attempt"]]["handoff"]) == ("failed", [])
    assert (by[s["handoff"]]["outcome"], by[s["handoff"]]["handoff"]) == ("", HANDOFF_SHOWN)
    assert "<img" not in page and "\\u003cimg src=x onerror" in page  # only ever JSON data


def seed_not_applying(root: Path) -> dict:
    """A newcomer trial's page: Alice (trusted by the policy) records a verification ``--applies
    exact`` and a decision ``--applies descendants``, then three commits follow; the page at HEAD."""
    repo = make_repo(root / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    assert hn(repo, "policy", "init").code == 0
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", "policy")
    head = git(repo, "rev-parse", "HEAD")
    exact = record_id(repo, "--evidence", f"git:{head}", kind="verification", applies="exact",
                      content="Tests pass at this commit.")
    current = record_id(repo, content="Keep streams separate.")
    for i in range(3):
        (repo / "README.md").write_text(f"hello {i}\n")
        git(repo, "commit", "-q", "-am", f"later {i}")
    return {"repo": repo, "exact": exact, "current": current, "anchor": head}


def test_a_memory_that_does_not_apply_here_is_in_the_data_and_has_a_filter(tmp_path):
    """A newcomer trial: a verification ``--applies exact`` three commits back was a green
    "qualified" row like a current one (only its Details said "inapplicable"). The page's data
    carries each memory's applicability at the page's commit, the script marks a row that does
    not apply (``tests/browser`` looks at it), and a filter chooses by it."""
    s = seed_not_applying(tmp_path)
    _, page = _write(s["repo"])
    by = {m["id"]: m for m in _data(page)["memories"]}
    assert (by[s["exact"]]["applicability"], by[s["exact"]]["applies"]["mode"]) == ("inapplicable", "exact")
    assert (by[s["current"]]["applicability"], by[s["current"]]["trust"]) == ("applicable", "qualified")
    assert '<label>Applies here <select id="f-applicability" name="applicability"></select></label>' in page
    script = [b for b in _parse(page).blocks if b[0] == "script" and "type" not in b[1]][0][2]
    assert "applicability: (m) => [m.applicability]" in script  # the filter's values
    assert '" not-here"' in script and '" untrusted"' in script  # the row classes the style draws apart
    style = [b for b in _parse(page).blocks if b[0] == "style"][0][2]
    assert ".memory.not-here {" in style and ".memory.untrusted {" in style


def test_the_page_says_that_memory_content_is_inert_data(seeded):
    """A newcomer trial: every CLI, JSON and brief output carries the warning that memory content
    is untrusted inert data; the page, which shows untrusted authors' text, did not. Its header
    does, as static text (no author text in it)."""
    from git_hn.core.limits import WARNING

    _, page = _write(seeded["repo"])
    header = page.split("<header>", 1)[1].split("</header>", 1)[0]
    assert f'<p class="warning">{WARNING}</p>' in header


def empty_clone(root: Path) -> Path:
    """A fresh clone of a remote that holds memory, with nothing imported (no selection, no sync)."""
    from helpers import shared_remote

    _remote, (alice, newcomer) = shared_remote(root, "Alice", "Newcomer")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "team decision").code == 0
    assert hn(alice, "sync").code == 0
    return newcomer


def test_a_page_with_no_memory_says_what_imports_some(tmp_path):
    """A newcomer trial: in a fresh clone with nothing imported, ``memory view`` printed only the
    path and wrote a page of "0 verified memories", an empty timeline and nothing else, where
    log, recall and the brief said to select, then sync. It gives log's hint on stderr, and the
    page says it in its timeline (as data: the script sets it as text)."""
    newcomer = empty_clone(tmp_path)
    log = hn(newcomer, "memory", "log")
    assert log.code == 0 and "git hn replication select --all" in log.err, log.err
    r = hn(newcomer, "memory", "view", "--output", str(tmp_path / "page.html"))
    assert (r.code, r.out) == (0, f"{tmp_path / 'page.html'}\n")
    assert r.err == log.err  # the same hint, word for word
    page = (tmp_path / "page.html").read_text()
    hint = log.err[len("git-hn: hint: "):].rstrip("\n")
    assert _data(page)["empty"] == hint[:1].upper() + hint[1:] and _data(page)["memories"] == []
    assert '<p id="empty" class="none">No memory here yet.</p>' in page  # (before the script runs)
    # a page with memories has neither
    seeded = seed_handoff(tmp_path / "other")
    r = hn(seeded["repo"], "memory", "view", "--output", str(tmp_path / "full.html"))
    assert r.code == 0 and "no memory here" not in r.err
    full = (tmp_path / "full.html").read_text()
    assert 'id="empty"' not in full and "empty" not in _data(full)


def test_page_from_state_equals_page_from_full_verification(seeded):
    from git_hn.service import view as service
    from git_hn.store.repo import open_repo

    cwd = os.getcwd()
    os.chdir(seeded["repo"])
    try:
        repo = open_repo()
        assert service.document(repo) == service.document_full(repo)
        assert service.document(repo, "HEAD~1") == service.document_full(repo, "HEAD~1")
    finally:
        os.chdir(cwd)


def test_at_judges_trust_with_the_policy_of_that_commit(seeded):
    path, page = _write(seeded["repo"], "--at", "HEAD~1", "--output", str(seeded["repo"].parent / "old.html"))
    doc = _data(page)
    assert {m["trust"] for m in doc["memories"]} == {"policy-missing"}
    assert {(e["standing"], e["standingWhy"]) for e in doc["events"]} == \
        {("untrusted", "there is no trust policy at this commit")}
    assert doc["atCommit"] == git(seeded["repo"], "rev-parse", "HEAD~1")
    r = hn(seeded["repo"], "memory", "view", "--at", "no-such-rev")
    assert (r.code, r.out) == (1, "") and r.err == "git-hn: revision no-such-rev is not a commit\n"


def test_default_output_is_private_and_replaced(seeded):
    path, _ = _write(seeded["repo"])
    assert path == str(seeded["repo"] / ".git" / "hn" / "hn-memory.html")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again, _ = _write(seeded["repo"])
    assert again == path


def test_output_refuses_to_clobber_an_unrelated_file(tmp_path, seeded):
    target = tmp_path / "notes.html"
    target.write_text("<html>my notes</html>\n")
    r = hn(seeded["repo"], "memory", "view", "--output", str(target))
    assert (r.code, r.out) == (1, "")
    assert r.err == (f"git-hn: refusing to replace {target}: it is not a page written by git hn memory "
                     "view; remove it or choose another --output\n")
    assert target.read_text() == "<html>my notes</html>\n"
    link = tmp_path / "link.html"
    link.symlink_to(target)
    r = hn(seeded["repo"], "memory", "view", "--output", str(link))
    assert r.code == 1 and r.err == f"git-hn: refusing to replace {link}: not a regular file\n"
    r = hn(seeded["repo"], "memory", "view", "--output", str(tmp_path))
    assert r.code == 1 and r.err == f"git-hn: refusing to replace {tmp_path}: it is a directory; name a file in it\n"
    r = hn(seeded["repo"], "memory", "view", "--output", str(tmp_path / "missing" / "p.html"))
    assert r.code == 1 and r.err.startswith("git-hn: cannot write ") and r.err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.html", "notes.html"]  # no temporaries


def test_output_replaces_an_earlier_page_relative_to_cwd(tmp_path, seeded):
    target = tmp_path / "page.html"
    first = hn(seeded["repo"], "memory", "view", "--output", str(target), "--at", "HEAD~1")
    assert first.code == 0 and first.out == f"{target}\n"
    assert {m["trust"] for m in _data(target.read_text())["memories"]} == {"policy-missing"}
    second = hn(seeded["repo"], "memory", "view", "--output", str(target))
    assert second.code == 0
    assert "qualified" in {m["trust"] for m in _data(target.read_text())["memories"]}
    r = hn(seeded["repo"], "memory", "view", "--output", "rel.html")
    assert r.code == 0 and r.out == f"{seeded['repo'] / 'rel.html'}\n"
    os.unlink(seeded["repo"] / "rel.html")


def test_usage_errors(seeded):
    for bad in (["extra"], ["--output"], ["--output", ""], ["--nope"], ["--output", "-"]):
        r = hn(seeded["repo"], "memory", "view", *bad)
        assert (r.code, r.out) == (1, "") and r.err.startswith("git-hn: ") and r.err.count("\n") == 1, bad
    assert "the page is a file: name one" in r.err and not (seeded["repo"] / "-").exists()


# webbrowser registers graphical browsers only with a display, console ones only with TERM
NO_DISPLAY = {"DISPLAY": "", "WAYLAND_DISPLAY": "", "TERM": ""}


def test_open_hands_the_file_url_to_the_browser(tmp_path, seeded):
    """``--open`` with ``BROWSER`` naming a harmless recorder: the page is written and its
    ``file://`` URL is what the browser command receives."""
    got = tmp_path / "got"
    recorder = tmp_path / "browser.sh"
    recorder.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{got}"\n')
    recorder.chmod(0o755)
    target = tmp_path / "open.html"
    r = hn_proc(seeded["repo"], "memory", "view", "--output", str(target), "--open",
                env={"BROWSER": str(recorder), **NO_DISPLAY})
    assert r.code == 0, r.err
    assert r.out == f"{target}\n" and target.is_file()
    assert got.read_text() == target.as_uri()
    # no browser at all: the page is still written, and a warning says where
    r = hn_proc(seeded["repo"], "memory", "view", "--output", str(target), "--open",
                env={"BROWSER": str(tmp_path / "no-such-browser"), **NO_DISPLAY})
    assert r.code == 0 and r.out == f"{target}\n"
    assert r.err == f"git-hn: warning: no browser could be opened; the page is {target}\n"


def test_renderer_refuses_assets_that_could_end_their_element():
    from git_hn.core import view_page

    doc = {"version": 0, "atCommit": "0" * 40, "memories": [], "events": []}
    for bad in ("x</script>", "a<!--b", "</style>"):
        with pytest.raises(ValueError):
            view_page.render(doc, bad, "")
        with pytest.raises(ValueError):
            view_page.render(doc, "", bad)
    assert view_page.embed_json({"s": "</script>\u2028&<!--"}) == \
        '{"s":"\\u003c/script\\u003e\\u2028\\u0026\\u003c!--"}'
