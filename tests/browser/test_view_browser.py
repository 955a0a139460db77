"""``git hn memory view`` in a real browser: the OS package's Chromium, headless, driven by
Playwright (issue 14 item 3).

The test starts the browser itself (one per module) from ``/usr/bin/chromium`` (or
``GIT_HN_CHROMIUM``); ``./install.sh --dev`` installs it from the OS packages and Playwright into
``.venv`` (never ``playwright install``: nothing is downloaded). Without them these tests fail
with what to install; ``GIT_HN_SKIP_BROWSER=1`` skips them explicitly.

The page is the one ``git hn memory view`` writes for a repository seeded with hostile author
text from two actors (``seed_hostile``). Asserted: it loads from ``file://`` with no console
error, no CSP violation and no other request; it shows one item per memory; every filter shows
the expected number; no injected script ran and no ``<img>``, ``javascript:`` link or event
handler attribute exists (*stored XSS*); bidi controls are shown, not applied (*Trojan Source*);
and the CSP blocks a script and an image injected at run time (the violation listener's
positive control).
"""

from __future__ import annotations

import os
import shutil

import pytest

from helpers import hn, make_repo
from integration.test_view_page import HANDOFF_SHOWN, empty_clone, seed_handoff, seed_hostile, seed_not_applying

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# collects CSP violations from the first instant (init scripts are the browser's, not the page's)
WATCH_CSP = ("window.__violations = [];"
             "document.addEventListener('securitypolicyviolation',"
             " (e) => window.__violations.push(e.effectiveDirective + ' ' + e.blockedURI));")


def _chromium() -> str:
    found = os.environ.get("GIT_HN_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        _missing("Chromium (the OS package `chromium`)")
    return found


def _missing(what: str):
    if os.environ.get("GIT_HN_SKIP_BROWSER") == "1":
        pytest.skip(f"{what} is not installed (GIT_HN_SKIP_BROWSER=1)")
    pytest.fail(f"{what} is needed by the browser tests: run ./install.sh --dev as root (or with "
                "sudo), or set GIT_HN_SKIP_BROWSER=1 to skip them", pytrace=False)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the Python package playwright")
    executable = _chromium()
    with sync_playwright() as p:
        # Playwright gives the browser a fresh temporary profile (user data directory)
        b = p.chromium.launch(executable_path=executable, args=ARGS, headless=True, timeout=60_000)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def seeded_page(tmp_path_factory):
    seeded = seed_hostile(tmp_path_factory.mktemp("view-browser"))
    target = seeded["repo"].parent / "page.html"
    r = hn(seeded["repo"], "memory", "view", "--output", str(target))
    assert r.code == 0, r.err
    return seeded, target


class Opened:
    def __init__(self, page, url):
        self.page, self.url = page, url
        self.console, self.errors, self.requests, self.failed, self.loaded = [], [], [], [], []

    def shown(self) -> int:
        return self.page.locator("#timeline > li.memory:not([hidden])").count()

    def violations(self) -> list:
        return self.page.evaluate("window.__violations")


@pytest.fixture
def opened(browser, seeded_page):
    seeded, target = seeded_page
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    o = Opened(page, target.as_uri())
    page.on("console", lambda m: o.console.append((m.type, m.text)))
    page.on("pageerror", lambda e: o.errors.append(str(e)))
    page.on("request", lambda r: o.requests.append(r.url))
    page.on("requestfailed", lambda r: o.failed.append((r.url, r.failure)))
    page.on("requestfinished", lambda r: o.loaded.append(r.url))
    page.add_init_script(WATCH_CSP)
    page.goto(o.url, wait_until="load")
    try:
        yield o, seeded
    finally:
        context.close()


def test_page_loads_with_no_console_error_csp_violation_or_request(opened):
    o, seeded = opened
    assert o.page.locator("#count").text_content() == f"{seeded['total']} of {seeded['total']} memories shown"
    assert [m for m in o.console if m[0] in ("error", "warning")] == []
    assert o.errors == []
    assert o.violations() == []
    assert o.requests == [o.url]  # nothing but the file itself


def test_one_item_per_memory_with_its_classes_and_anchor(opened):
    o, s = opened
    assert o.page.locator("#timeline > li.memory").count() == s["total"] == o.shown()
    item = o.page.locator("#m-" + s["b1"][len("sha256:"):])
    assert item.locator(".badge").all_text_contents() == ["decision", "active", "actor-untrusted"]
    assert item.locator(".name").text_content() == "Bob \\u{202e}evil <script>window.__pwned=1</script>"
    # a name is its author's own choice: the short actor ID always follows it
    assert item.locator(".author > .actor").text_content() == f" ({s['bob'][:12]})"
    item.locator("summary").click()
    assert item.locator("dd").all_text_contents()[:2] == [s["b1"], s["bob"]]
    a1 = o.page.locator("#m-" + s["a1"][len("sha256:"):])
    assert a1.locator(".badge").all_text_contents() == ["decision", "superseded", "qualified"]


def test_each_filter_shows_the_expected_number(opened):
    o, s = opened
    page = o.page
    for field, values in s["expect"].items():
        for value, n in values.items():
            page.select_option(f"#f-{field}", value=value)
            assert o.shown() == n, (field, value)
            assert page.locator("#count").get_attribute("data-shown") == str(n)
            page.select_option(f"#f-{field}", value="")
            assert o.shown() == s["total"]
    page.select_option("#f-actor", value=s["bob"])
    assert o.shown() == 1
    page.select_option("#f-actor", value=s["alice"])
    assert o.shown() == 3
    page.select_option("#f-kind", value="decision")  # filters combine
    assert o.shown() == 2
    page.select_option("#f-topic", value="javascript:alert(1)")
    assert o.shown() == 0 and page.locator("#count").text_content() == f"0 of {s['total']} memories shown"
    page.click("#reset")
    assert o.shown() == s["total"]
    assert o.violations() == [] and o.errors == []


def test_filter_counts_follow_the_other_filters_and_an_empty_result_says_so(opened):
    """A newcomer trial: with Kind = decision, Actor still listed every actor's total, and
    choosing one without a decision showed "0 of 10 memories shown" over an empty timeline.
    Each option counts what the other active filters leave (facet counts), and nothing matching
    says so, with a way to clear the filters."""
    o, s = opened
    page = o.page

    def option_texts(field):
        return page.locator(f"#f-{field} option").all_text_contents()

    none = page.locator("#no-match")
    assert none.is_hidden() and option_texts("actor")[0] == f"all ({s['total']})"
    page.select_option("#f-kind", value="observation")  # Alice's one observation
    actors = option_texts("actor")
    assert actors[0] == "all (1)"
    assert [t for t in actors if f"({s['alice'][:12]})" in t] == [f"Alice ({s['alice'][:12]}) (1)"]
    assert [t for t in actors if f"({s['bob'][:12]})" in t][0].endswith(" (0)")
    assert option_texts("kind")[0] == f"all ({s['total']})"  # a filter never narrows its own options
    assert "observation (1)" in option_texts("kind") and "decision (3)" in option_texts("kind")
    assert none.is_hidden()
    page.select_option("#f-actor", value=s["bob"])
    assert o.shown() == 0 and none.is_visible()
    assert none.text_content() == "No memory matches these filters. Clear the filters"
    assert "decision (1)" in option_texts("kind") and "observation (0)" in option_texts("kind")
    page.click("#clear")
    assert o.shown() == s["total"] and none.is_hidden()
    assert page.locator("#f-kind").input_value() == "" and page.locator("#f-actor").input_value() == ""
    assert option_texts("actor")[0] == f"all ({s['total']})"
    assert o.violations() == [] and o.errors == []


def test_injected_markup_never_runs_stored_xss(opened):
    o, s = opened
    page = o.page
    for summary in page.locator("details > summary").all():  # open every detail: all text is in the DOM
        summary.click()
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("img").count() == 0
    assert page.locator("script").count() == 2  # the page's data and program, nothing injected
    assert page.locator("style").count() == 1
    hrefs = page.evaluate("Array.from(document.querySelectorAll('[href]'), (e) => e.getAttribute('href'))")
    assert hrefs and all(h.startswith("#m-") for h in hrefs)  # only links to memories on the page
    handlers = page.evaluate("Array.from(document.querySelectorAll('*')).flatMap((e) =>"
                             " e.getAttributeNames().filter((n) => n.startsWith('on')))")
    assert handlers == []
    text = page.evaluate("document.body.innerText")
    assert "<img src=x onerror=\"window.__pwned=2\"> [red]x[/red]" in text  # shown as text
    assert "javascript:alert(1)" in text and "</style><style>body{display:none}</style>" in text
    assert "\u202e" not in text and "\\u{202e}evil" in text  # Trojan Source: visible, not applied
    assert "\x1b" not in text
    assert page.locator("#timeline").is_visible()  # the injected style hid nothing
    assert o.violations() == [] and o.errors == [] and o.requests == [o.url]


def test_csp_blocks_script_and_image_injected_at_run_time(opened):
    """The positive control: were author text ever to reach the DOM as markup, the policy would
    still refuse to run or load it, and the violation listener sees that."""
    o, _ = opened
    o.page.evaluate("() => { const s = document.createElement('script');"
                    " s.textContent = 'window.__pwned = 5'; document.body.appendChild(s);"
                    " const i = document.createElement('img'); i.src = 'http://127.0.0.1:9/x.png';"
                    " document.body.appendChild(i); }")
    o.page.wait_for_function("window.__violations.length >= 2")
    assert o.page.evaluate("typeof window.__pwned") == "undefined"
    assert sorted(v.split(" ")[0] for v in o.violations()) == ["img-src", "script-src-elem"]
    o.page.wait_for_function("document.querySelector('img').complete")
    assert o.loaded == [o.url]  # the image was refused by the policy, never fetched
    assert o.failed == [("http://127.0.0.1:9/x.png", "csp")]  # refused by the policy


def test_relations_show_supersession_retraction_and_challenge(opened):
    o, s = opened
    rel = o.page.locator("#relations")
    hexes = {k: s[k][len("sha256:"):][:12] for k in ("a1", "a2", "a3", "retraction", "challenge")}
    nodes = rel.locator("li.node")
    assert nodes.count() == 3  # a1 -> a2 (one chain), a3; b1 has no relation
    chain = rel.locator(":scope > li.chain").nth(0).locator(":scope > ol > li.node")
    assert chain.count() == 2  # flat: a chain's length never becomes depth
    assert chain.nth(0).locator(":scope > .ref").text_content() == hexes["a1"]
    assert chain.nth(1).locator(":scope > .ref").text_content() == hexes["a2"]
    # the successor first, as the sentence reads: "a2 supersedes a1" (a newcomer trial read
    # "supersedes a1: a2" backwards), with a link to what it supersedes
    assert chain.nth(1).text_content().startswith(f"{hexes['a2']} supersedes {hexes['a1']} ")
    assert chain.nth(1).locator(":scope > .rel-type").text_content() == f"supersedes {hexes['a1']}"
    assert chain.nth(1).locator(":scope > .rel-type > a.ref").get_attribute("href") == "#m-" + s["a1"][len("sha256:"):]
    assert chain.nth(0).locator(":scope > .rel-type").count() == 0
    challenged = chain.nth(1).locator(":scope > ul > li.relation")
    # each relation's author is said trusted or not (in words) before the name it chose: a
    # stranger's challenge signed "Alice" with a Cyrillic A looked like the maintainer's
    assert challenged.text_content() == \
        f"challenged by {hexes['challenge']} by untrusted actor Bob \\u{{202e}}evil " \
        f"<script>window.__pwned=1</script> ({s['bob'][:12]}): incorrect"
    assert challenged.locator(".standing").get_attribute("title") == \
        "the policy at this commit does not list this actor"
    retracted = rel.locator(":scope > li.chain").nth(1).locator(":scope > ol > li.node > ul > li.relation")
    assert retracted.text_content() == \
        f"retracted by {hexes['retraction']} by trusted actor Alice ({s['alice'][:12]}): incorrect"
    # the timeline's relation lines say the same, and a chain's members carry their trust
    a2 = o.page.locator("#m-" + s["a2"][len("sha256:"):])
    assert a2.locator(".relations-of .standing").all_text_contents() == ["untrusted actor"]
    assert chain.nth(1).locator(":scope > .badge").all_text_contents() == ["decision", "active", "qualified"]
    # an in-page link goes to the memory it names
    o.page.locator(f"#m-{s['a1'][len('sha256:'):]} .relations-of a.ref").click()
    assert o.page.evaluate("location.hash") == "#m-" + s["a2"][len("sha256:"):]
    assert o.requests == [o.url]


def test_details_show_an_attempts_outcome_and_a_handoffs_lists_as_text(browser, tmp_path):
    s = seed_handoff(tmp_path)
    target = tmp_path / "page.html"
    assert hn(s["repo"], "memory", "view", "--output", str(target)).code == 0
    context = browser.new_context()
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(target.as_uri(), wait_until="load")
        attempt = page.locator("#m-" + s["attempt"][len("sha256:"):])
        attempt.locator("summary").click()
        fields = dict(zip(attempt.locator("dt").all_text_contents(), attempt.locator("dd").all_text_contents()))
        assert fields["Outcome"] == "failed" and attempt.locator(".part").count() == 0
        handoff = page.locator("#m-" + s["handoff"][len("sha256:"):])
        handoff.locator("summary").click()
        assert "Outcome" not in handoff.locator("dt").all_text_contents()
        assert handoff.locator(".part").all_text_contents() == [p["label"] for p in HANDOFF_SHOWN]
        lists = handoff.locator("ul.entries")
        assert [lists.nth(i).locator("li").all_text_contents() for i in range(lists.count())] == \
            [p["entries"] for p in HANDOFF_SHOWN]
        assert handoff.locator("ul.entries li").first.is_visible()
        assert page.locator("img").count() == 0 and page.evaluate("typeof window.__pwned") == "undefined"
        assert errors == []
    finally:
        context.close()


def test_the_policy_drift_notice_is_shown_as_text(browser, tmp_path):
    """A branch that trusts its own author while origin/main does not (*self-trusting branch*):
    the page says so under its heading, the author's name as text (``service.policy_drift``)."""
    from helpers import actor_of, git, init_as, make_repo

    repo = make_repo(tmp_path / "r")
    init_as(repo, "Mal <img src=x onerror=window.__pwned=9>")
    assert hn(repo, "policy", "init").code == 0
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", "policy")
    assert hn(repo, "policy", "untrust", actor_of(repo)).code == 0
    git(repo, "commit", "-q", "-am", "untrust the author")
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "remote.git"))
    git(repo, "remote", "add", "origin", str(tmp_path / "remote.git"))
    git(repo, "push", "-q", "origin", "main")
    git(repo, "checkout", "-q", "-b", "other")
    assert hn(repo, "policy", "trust", actor_of(repo)).code == 0
    git(repo, "commit", "-q", "-am", "trust myself")
    assert hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "merge it").code == 0
    target = tmp_path / "page.html"
    assert hn(repo, "memory", "view", "--output", str(target)).code == 0
    context = browser.new_context()
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(target.as_uri(), wait_until="load")
        notice = page.locator("header > p.notice").text_content()
        assert notice.startswith(f'The policy at HEAD trusts {actor_of(repo)[:12]} ("Mal <img src=x '
                                 'onerror=window.__pwned=9>", a self-chosen name), which the policy at origin/main ('), \
            notice
        assert page.locator("img").count() == 0 and page.evaluate("typeof window.__pwned") == "undefined"
        assert errors == []
    finally:
        context.close()


def test_a_memory_that_does_not_apply_here_is_marked_on_its_row(browser, tmp_path):
    """A newcomer trial: a verification ``--applies exact`` three commits back ("Tests pass at
    this commit") showed as a green "qualified" row like every current one; only its collapsed
    Details said "inapplicable", while recall and the brief at that commit leave it out. Its row
    carries a badge that says so (with why, as its title), a dashed bar and muted text; the
    Applies here filter chooses such rows."""
    s = seed_not_applying(tmp_path)
    target = tmp_path / "page.html"
    assert hn(s["repo"], "memory", "view", "--output", str(target)).code == 0
    context = browser.new_context()
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(target.as_uri(), wait_until="load")
        exact = page.locator("#m-" + s["exact"][len("sha256:"):])
        current = page.locator("#m-" + s["current"][len("sha256:"):])
        assert exact.locator(".head > .badge").all_text_contents() == \
            ["verification", "active", "qualified", "inapplicable here"]
        assert exact.locator(".badge.applicability").get_attribute("title") == \
            "Not at this page's commit: it applies only at its anchor commit; recall and the brief here leave it out"
        assert current.locator(".head > .badge").all_text_contents() == ["decision", "active", "qualified"]

        def style(item, prop, inner=":scope"):
            return item.locator(inner).first.evaluate(f"(e) => getComputedStyle(e).{prop}")

        assert (style(exact, "borderLeftStyle"), style(current, "borderLeftStyle")) == ("dashed", "solid")
        assert style(exact, "color", ".summary") != style(current, "color", ".summary")
        assert sorted(page.locator("#f-applicability option").all_text_contents()) == \
            ["all (2)", "applicable (1)", "inapplicable (1)"]
        page.select_option("#f-applicability", value="inapplicable")
        assert page.locator("#timeline > li.memory").count() == 1 and exact.is_visible()
        assert errors == []
    finally:
        context.close()


def test_untrusted_rows_look_apart_under_the_inert_data_warning(opened):
    """A newcomer trial: an ``actor-untrusted`` memory had the same look as a trusted one (only its
    small badge was red), and the page lacked the warning every CLI and JSON output carries. The
    row is tinted and its trust badge filled; the header says the content is inert data."""
    from git_hn.core.limits import WARNING

    o, s = opened
    untrusted = o.page.locator("#m-" + s["b1"][len("sha256:"):])
    trusted = o.page.locator("#m-" + s["a2"][len("sha256:"):])
    assert "untrusted" in untrusted.get_attribute("class").split()
    assert "untrusted" not in trusted.get_attribute("class").split()

    def background(item, inner=":scope"):
        return item.locator(inner).first.evaluate("(e) => getComputedStyle(e).backgroundColor")

    assert background(untrusted) != background(trusted) == "rgba(0, 0, 0, 0)"
    assert background(untrusted, ".badge.untrusted") != background(trusted, ".badge.trusted")
    warning = o.page.locator("header > p.warning")
    assert warning.text_content() == WARNING and warning.is_visible()


def test_a_page_with_no_memory_shows_what_imports_some(browser, tmp_path):
    """A newcomer trial's fresh clone: the page showed "0 verified memories" over an empty
    timeline. Its timeline says there is no memory here yet and what to run, as the command's
    hint says it on stderr."""
    newcomer = empty_clone(tmp_path)
    target = tmp_path / "page.html"
    r = hn(newcomer, "memory", "view", "--output", str(target))
    assert r.code == 0
    context = browser.new_context()
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(target.as_uri(), wait_until="load")
        empty = page.locator("#empty")
        assert empty.is_visible()
        hint = r.err[len("git-hn: hint: "):].rstrip("\n")
        assert empty.text_content() == hint[:1].upper() + hint[1:]
        assert "git hn replication select --all" in hint
        assert page.locator("#no-match").is_hidden() and errors == []
    finally:
        context.close()


# -- at scale: synthetic rows through the same page code (pure: rows in, HTML out) ----------------


def _row(i: int, topic: str, successors=(), lifecycle="active") -> dict:
    return {"id": f"sha256:{i:064x}", "stream": "sha256:" + "5" * 64, "actor": "1" * 64,
            "signedTimestamp": f"2026-11-{1 + i // 1000:02d}T{(i // 60) % 24:02d}:{i % 60:02d}:00Z",
            "kind": "observation", "lifecycle": lifecycle, "trust": "qualified",
            "applicability": "applicable", "evidence": "resolved", "successors": list(successors),
            "retractions": [], "challengers": [],
            "data": {"content": f"memory {i}", "anchor": {"commit": "a" * 40},
                     "applicability": {"mode": "descendants"}, "topics": [topic], "evidence": []}}


def _synthetic_page(tmp_path, rows_and_targets) -> str:
    from git_hn.core import view_page
    from git_hn.service.view import render as render_page

    entries = [view_page.memory_entry(row, "Alice", target) for row, target in rows_and_targets]
    path = tmp_path / "page.html"
    path.write_text(render_page(view_page.document(entries, [], "b" * 40)), encoding="utf-8")
    return path.as_uri()


def test_filtering_thousands_of_memories_stays_fast(browser, tmp_path):
    """A filter that takes a long run out of the list (the first 1,000 of 2,000) answers in well
    under a second: the page rebuilds the list instead of hiding items one by one."""
    import time

    url = _synthetic_page(tmp_path, [(_row(i, "a" if i < 1000 else "b"), "") for i in range(2000)])
    page = browser.new_page()
    try:
        page.goto(url, wait_until="load")
        assert page.locator("#count").text_content() == "2000 of 2000 memories shown"
        started = time.monotonic()
        page.select_option("#f-topic", "b")
        page.wait_for_function("document.getElementById('count').dataset.shown === '1000'")
        assert time.monotonic() - started < 3
        assert page.locator("#timeline > li.memory").count() == 1000
        page.click("#reset")
        assert page.locator("#timeline > li.memory").count() == 2000
        # the order is kept: newest first, as before the filter
        first = page.locator("#timeline > li.memory").first.locator("code.short").text_content()
        assert first == f"{1999:064x}"[:12]
    finally:
        page.close()


def test_a_very_long_supersede_chain_is_drawn_flat(browser, tmp_path):
    """A peer's 1,500 supersedes in one chain: the page loads (nesting one level per successor
    crashed the renderer) and draws the chain as one flat list."""
    n = 1500
    rows = [(_row(i, "a", successors=[f"sha256:{i + 1:064x}"] if i + 1 < n else [],
                  lifecycle="superseded" if i + 1 < n else "active"), f"sha256:{i - 1:064x}" if i else "")
            for i in range(n)]
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(_synthetic_page(tmp_path, rows), wait_until="load")
        members = page.locator("#relations > li.chain > ol > li.node")
        assert members.count() == n and errors == []
        before = f"{n - 2:064x}"[:12]  # the short ID of what the last one supersedes
        assert members.nth(n - 1).locator(":scope > .rel-type").text_content() == f"supersedes {before}"
        depth = page.evaluate("""() => { let d = 0, e = document.querySelector('#relations li.node:last-child');
                                 while (e) { d += 1; e = e.parentElement; } return d; }""")
        assert depth < 20
    finally:
        page.close()


def test_a_narrow_window_never_scrolls_sideways(browser, seeded_page):
    """A phone-sized window (320 CSS pixels): long IDs, names and hostile unbroken text wrap
    instead of widening the page."""
    _seeded, target = seeded_page
    context = browser.new_context(viewport={"width": 320, "height": 800})
    try:
        page = context.new_page()
        page.goto(target.as_uri(), wait_until="load")
        assert page.evaluate("document.documentElement.scrollWidth") == 320
    finally:
        context.close()


def test_lookalike_paths_are_told_apart_in_the_path_filter(browser, tmp_path):
    """A trial (S93 #5): the Path filter offered two identical ``café.txt (1)`` options (NFC and
    NFD), and ``nor`` U+00A0 ``mal.txt`` read as ``nor mal.txt``."""
    from integration.test_lookalike_views import NFC, NFD, _record

    repo = make_repo(tmp_path / "r", files={NFC: "a\n", NFD: "b\n", "nor\u00a0mal.txt": "c\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    for n in (NFC, NFD, "nor\u00a0mal.txt"):
        _record(repo, "about it", n)
    target = tmp_path / "page.html"
    assert hn(repo, "memory", "view", "--output", str(target)).code == 0
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(target.as_uri(), wait_until="load")
        options = page.locator("#f-path option").all_text_contents()
        assert sorted(options) == sorted(["all (3)", f"{NFC} (composed U+00E9) (1)",
                                          f"{NFD} (decomposed e + U+0301) (1)", "nor\\u{a0}mal.txt (1)"])
    finally:
        context.close()
