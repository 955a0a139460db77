"""Comparing every read command's answer from the verified state with the answer of a full
verification and projection (the ``*_full`` reference functions), on a fresh repository object
each time; errors compare by type and text. Shared by the equality and property tests."""

from __future__ import annotations

import hashlib

from git_hn.core import recall as core_recall
from git_hn.errors import HnError
from git_hn.service import brief as brief_service
from git_hn.service import digest as digest_service
from git_hn.service import index as index_service
from git_hn.service import recall as recall_service
from git_hn.service import show as show_service
from git_hn.store.repo import open_repo
from helpers import git

MONTH = "2026-12"


def _call(path, fn, *args, **kw):
    repo = open_repo(str(path))
    try:
        return ("ok", fn(repo, *args, **kw))
    except HnError as exc:
        return (type(exc).__name__, exc.message)
    finally:
        repo.close()


REQUESTS = [
    {}, {"include_untrusted": True}, {"include_untrusted": True, "lifecycle": ("all",)},
    {"include_untrusted": True, "query": "isolation"}, {"include_untrusted": True, "topic": ("architecture",)},
    {"include_untrusted": True, "kind": ("observation", "attempt")}, {"path": "docs/a.md", "include_untrusted": True},
    {"include_untrusted": True, "max_records": 2}, {"include_untrusted": True, "max_content_bytes": 30},
    {"include_untrusted": True, "lifecycle": ("superseded", "retracted")}, {"trust": ("actor-untrusted",)},
    {"include_untrusted": True, "subject": "issue:sha256:" + "1" * 64},
    # the bound on the whole answer (git-hn): a page that gives way, and one that holds no row
    {"include_untrusted": True, "max_bytes": 3000}, {"include_untrusted": True, "max_bytes": 400},
    {"include_untrusted": True, "query": "isolation", "rank": "relevance", "max_bytes": 2500},
]


def _memory_ids(path) -> list[str]:
    out = git(path, "for-each-ref", "--format=%(objectname)", "refs/hn/memory", "refs/hn/remotes")
    ids = set()
    for head in out.split():
        for commit in git(path, "rev-list", head).split():
            try:
                data = git(path, "cat-file", "blob", f"{commit}:memory.json").encode()
            except AssertionError:
                continue
            ids.add("sha256:" + hashlib.sha256(data).hexdigest())
    return sorted(ids)


def compare(path) -> dict:
    """Assert that every command gives the full verification's answer; returns a summary."""
    seen = {}
    for mid in _memory_ids(path) + ["sha256:" + "f" * 64]:
        for query in (mid, mid[7:19]):
            full = _call(path, show_service.show_full, query)
            assert _call(path, show_service.show, query) == full, query
            seen.setdefault("show", []).append(full[0])
            reasons, full_reasons = {}, {}  # (a terminal's: each challenger's reason, beside the document)
            assert _call(path, show_service.show, query, None, reasons) == full == \
                _call(path, show_service.show_full, query, None, full_reasons), query
            assert reasons == full_reasons, query
            seen.setdefault("reasons", []).extend(sorted(reasons.values()))
    for include in (False, True):
        for fmt in ("json", "markdown"):
            for bound in (16_384, 700, 3000):
                kw = {"include_untrusted": include, "fmt": fmt, "max_bytes": bound}
                full = _call(path, brief_service.brief_full, "HEAD", **kw)
                assert _call(path, brief_service.brief, "HEAD", **kw) == full, kw
                seen.setdefault("brief", []).append(full[0])
                if full[0] == "ok":
                    seen.setdefault("briefDocs", []).append(full[1][0])
            # ranked by a focus (issue 13): relevant rows and stale anchors first, both ways
            kw = {"include_untrusted": include, "fmt": fmt, "max_bytes": 3000,
                  "paths": ("docs/a.md", "app.py"), "topics": ("architecture",)}
            full = _call(path, brief_service.brief_full, "HEAD", **kw)
            assert _call(path, brief_service.brief, "HEAD", **kw) == full, kw
        for month in (MONTH, None, "2025-01"):
            full = _call(path, digest_service.digest_full, month, include_untrusted=include)
            assert _call(path, digest_service.digest, month, include_untrusted=include) == full
            seen.setdefault("digest", []).append(full[0])
    for kw in REQUESTS:
        req = core_recall.RecallRequest(at_commit="HEAD", **kw)
        full = _call(path, recall_service.recall_full, req)
        assert _call(path, recall_service.recall, req) == full, kw
        seen.setdefault("recall", []).append(full[0])
        if full[0] == "ok" and full[1].get("nextCursor"):  # the next page, by its cursor
            nxt = req._replace(cursor=full[1]["nextCursor"])
            assert _call(path, recall_service.recall, nxt) == _call(path, recall_service.recall_full, nxt)
    verify = _call(path, index_service.verify)
    if all(v[0] == "ok" for v in seen["show"][:1]):
        assert verify[0] == "ok", verify
    return seen


