"""The commands on an agent's hot path load only what they use (issue 11, item 6: fast start).

Each command runs in a real process, in a real repository, through ``git_hn.cli.main.run`` (what
the ``git-hn`` executable runs), and reports the modules it loaded at its exit. What a module
costs to import was measured with ``valgrind --tool=callgrind`` (instructions, not time: the
machine's speed drifts): ``signal`` 3.3 M, ``threading`` 3.7 M, ``typing`` ~8 M, ``subprocess``
(with ``signal``, ``threading``, ``selectors``…) ~15 M, against 38 M for ``python -c pass``.
"""

from __future__ import annotations

import subprocess
import sys

from helpers import hn

# never on these paths: the CLI framework and its models, GitPython, and standard modules that
# the C modules under them replace (``_thread``, ``_signal``, ``posix_spawn``, ``_sqlite3``,
# ``binascii``, ``_frozen_importlib_external``: ``importlib`` loads ``warnings``, 1.3 ms)
NEVER = ("typer", "click", "pydantic", "git", "typing", "subprocess", "signal", "threading",
         "datetime", "sqlite3", "rich", "base64", "struct", "importlib", "warnings", "json", "contextlib",
         "re", "enum", "functools", "collections")
# ``json``: the package (its three modules and six regular expressions) costs ~4.5 M instructions;
# git-hn encodes and parses through the C functions it calls (``_json``: ``core.canonical``,
# ``core.strictjson.scanner``), and loads it only for what it leaves to it (a parse error's words);
# ``contextlib`` (~3 M: its classes): the state, the locks and the append use ``core.contexts``;
# ``re`` with ``enum`` (~13 M): the checks of identifiers, control characters, tokens, a root
# tree's entries and the secret lint's gate on ordinary text are written without it
# (``tests/unit/test_checks_without_re.py``); ``functools`` with ``collections`` (~7 M): the SQLite
# module loads without it (``store.sqlitelib``), and ``core.contexts`` names its functions itself

PROBE = ("import os, sys\n"  # (not json: NEVER)
         "exit = os._exit\n"
         "def report(code):\n"
         "    sys.stdout.flush()\n"
         "    sys.stderr.write('\\n' + ' '.join(sorted(sys.modules)))\n"
         "    sys.stderr.flush()\n"
         "    exit(code)\n"
         "os._exit = report\n"
         "sys.argv = ['git-hn'] + sys.argv[1:]\n"
         "from git_hn.cli.main import run\n"
         "run()\n")


def _isolated() -> dict:
    """The environment of an interpreter started with ``-S``: git-hn from this tree and the
    installed packages on ``PYTHONPATH``, and no ``.pth`` file processed, as in a regular
    install (the development install is editable: its import hook loads ``importlib``)."""
    import os
    import site

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return dict(os.environ, PYTHONPATH=os.pathsep.join([root, *site.getsitepackages()]))


def _loaded(repo, *args) -> set[str]:
    proc = subprocess.run([sys.executable, "-S", "-c", PROBE, *args], cwd=repo, capture_output=True,
                          timeout=120, env=_isolated())
    assert proc.returncode == 0, (args, proc.stderr[-500:])
    return set(proc.stderr.decode().rsplit("\n", 1)[1].split(" "))


def test_hot_commands_load_no_framework_and_no_heavy_standard_module(inited):
    first = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies",
               "exact", "--content", "the codec is pure", "--json")
    assert first.code == 0, first.err
    mid = first.json()["memoryId"]
    record = ["memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
              "--content"]
    loaded = {"record": _loaded(inited, *record, "a second memory")}
    # the state is current now: the read commands verify only the signatures of what they serve
    # (CONTRACT §11(d)), with libsodium; the cryptography library decides only what it refuses
    for name, args in (("recall", ["memory", "recall", "--include-untrusted"]),
                       ("recall --json", ["memory", "recall", "--json", "--include-untrusted"]),
                       ("show", ["memory", "show", mid]),
                       ("brief", ["memory", "brief", "--include-untrusted"]),
                       ("brief --json", ["memory", "brief", "--json", "--include-untrusted"])):
        loaded[name] = _loaded(inited, *args)
        assert not any(m.startswith("cryptography") for m in loaded[name]), name
        assert "nacl._sodium" in loaded[name], name
    for name, modules in loaded.items():
        assert "git_hn.store.process" in modules, name  # the probe saw the command run
        bad = sorted(m for m in modules if m.split(".")[0] in NEVER)
        assert bad == [], (name, bad)
    # signing needs a backend: libsodium (PyNaCl's compiled module, ~2 ms), not the cryptography
    # library's (~9 ms), which only decides signatures libsodium refused (``core.keys``)
    assert "nacl._sodium" in loaded["record"]
    assert not any(m.startswith("cryptography") for m in loaded["record"])
    for name in ("show", "brief", "brief --json"):  # another command's module only for its usage
        assert {"git_hn.cli.export_cmd", "git_hn.cli.view_cmd", "git_hn.cli.log_cmd"}.isdisjoint(loaded[name]), name


def test_a_sync_of_a_few_memories_hashes_without_loading_openssl(tmp_path):
    """A sync hashes little (each memory's ID, the remote's URL for its record): the interpreter's
    built-in SHA-256 (``core.hashing``), never ``hashlib``, whose loading of OpenSSL cost 3 ms of
    every sync when the URL record (``replication.renamed``) called it directly."""
    from helpers import record_id, shared_remote

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    mid = record_id(alice, content="alice's decision")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    loaded = _loaded(bob, "sync")
    assert "git_hn.service.replication.renamed" in loaded  # (the URL was recorded: this sync imported)
    assert mid in hn(bob, "memory", "show", mid).out
    assert {"hashlib", "_hashlib"}.isdisjoint(loaded), sorted(m for m in loaded if "hash" in m)


def test_the_fetch_hook_s_import_loads_neither_the_installer_nor_the_state_in_a_readers_clone(tmp_path):
    """Every fetch that starts git-hn runs ``hooks run reference-transaction``: it loaded the
    hooks' installer (``service.hooks``, ~2 ms) for the hooks' names, and in a clone with no
    identity and no stream of its own the state's modules for a list of published anchors that
    is empty there (``tracked._own_anchors``)."""
    import os

    from git_hn.hookpaths import wrapper_mark
    from git_hn.hookscripts import TEMPLATES
    from helpers import git, shared_remote

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "alice's decision").code == 0
    assert hn(alice, "sync").code == 0
    reader = tmp_path / "reader"
    git(tmp_path, "clone", "-q", git(bob, "remote", "get-url", "origin"), str(reader))
    assert hn(reader, "replication", "select", "--all").code == 0
    head = git(reader, "rev-parse", "origin/HEAD")
    line = f"{'0' * 40} {head} refs/remotes/origin/probe\n".encode()
    # (as the installed wrapper runs it: its mark says it is this git-hn's)
    env = {**_isolated(), "HN_HOOK_ACTIVE": "1", "HN_WRAPPER": wrapper_mark(TEMPLATES["reference-transaction"])}
    for step in ("imports", "finds nothing new"):  # (the first promotes: that takes the state)
        proc = subprocess.run([sys.executable, "-S", "-c", PROBE, "hooks", "run", "reference-transaction",
                               "committed"], cwd=reader, capture_output=True, timeout=120, input=line, env=env)
        assert proc.returncode == 0, proc.stderr[-500:]
        loaded = set(proc.stderr.decode().rsplit("\n", 1)[1].split(" "))
        assert "git_hn.service.replication.run" in loaded, step  # (the import ran)
        assert git(reader, "for-each-ref", "refs/hn/remotes/origin/memory/")
        for quiet in (reader / ".git" / "hn" / "replication" / "quiet").iterdir():
            quiet.unlink()  # (the next run imports again)
    assert os.path.exists(reader / ".git" / "hn" / "replication" / "published")
    assert {"git_hn.service.hooks", "git_hn.store.stateview"}.isdisjoint(loaded), \
        sorted(m for m in loaded if m in ("git_hn.service.hooks", "git_hn.store.stateview"))


def test_hints_that_do_not_apply_load_nothing_for_them(inited):
    """A record with no ``memory:`` evidence, no absent path, not a handoff, hidden at HEAD for want
    of a policy, with no policy file in the working tree: ``show``'s lookup, the hints' texts and
    the policy editor stay unloaded (each was loaded after every record, issue 11: fixed cost).
    A recall and a brief with no failed-imports record load none of sync's modules for that line,
    and a Markdown brief that shows nothing as trusted loads no drift check."""
    assert hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "first").code == 0
    record = _loaded(inited, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
                     "--content", "second")
    assert "git_hn.store.append" in record
    assert {"git_hn.service.show", "git_hn.core.hints", "git_hn.service.policy_edit",
            "git_hn.core.policyedit"}.isdisjoint(record), sorted(record)
    for args in (["memory", "recall"], ["memory", "brief"], ["memory", "brief", "--json"]):
        loaded = _loaded(inited, *args)
        assert "git_hn.store.stateview" in loaded, args
        assert not any(m.startswith("git_hn.service.replication") for m in loaded), (args, sorted(loaded))
    assert "git_hn.service.policy_drift" not in _loaded(inited, "memory", "brief")


def test_show_loads_none_of_the_briefs_modules(inited):
    """``show``'s drift check reads a show document, which has no brief sections: the brief's
    modules (and the recall and hint modules under them) stay unloaded; a trusted memory's drift
    line is still said (``test_policy_drift``)."""
    first = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
               "--content", "first", "--json")
    assert first.code == 0, first.err
    for args in (["memory", "show", first.json()["memoryId"]], ["memory", "show", "--json", first.json()["memoryId"]]):
        loaded = _loaded(inited, *args)
        assert "git_hn.service.show" in loaded
        assert {"git_hn.core.brief", "git_hn.core.recall", "git_hn.core.hints"}.isdisjoint(loaded), args


def test_only_a_ranked_recall_loads_math(inited):
    """``math`` (~0.4 M instructions) serves BM25's scores only (``core.search.scorer``): a record,
    a show and a brief do without it, and a ranked recall has it (test_recall_search checks its
    scores)."""
    first = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
               "--content", "the ranking is BM25", "--json")
    assert first.code == 0, first.err
    for args in (["memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact", "--content",
                  "second"], ["memory", "show", first.json()["memoryId"]], ["memory", "brief"]):
        assert "math" not in _loaded(inited, *args), args
    ranked = _loaded(inited, "memory", "recall", "--query", "ranking", "--rank", "relevance", "--include-untrusted")
    assert {"math", "git_hn.core.search"} <= ranked



# split off modules at the line limit (f155): what hot commands do not run in the usual case
SPLIT_OFF = ("git_hn.store.receipt_files", "git_hn.store.rebase", "git_hn.service.hook_uninstall",
             "git_hn.service.post_rewrite", "git_hn.cli.click_errors",
             # (f157: a push Git did not complete, an own fork weighed for --rebase, a whole store
             # listed for many objects, a mistyped word's suggestion)
             "git_hn.service.replication.push_refused", "git_hn.service.replication.own_fork",
             "git_hn.store.bulk_objects", "git_hn.core.mistyped")
# (f157) a new state put in place, or one taken away: only where there is none to read or update
STATE_REPLACED = "git_hn.store.state_replace"
# the hook wrappers' text: a hook run checks its wrapper against it; a sync that leaves a quiet
# record writes it with ``store.replication.quiet_input``, beside the writer, and loads neither
WRAPPER_TEXT = ("git_hn.hookscripts", "git_hn.hookprelude")


def test_the_rooms_split_off_the_largest_modules_stay_unloaded_on_the_hot_paths(tmp_path):
    """A receipt or an anchor read back (``store.receipt_files``: the pending state is remembered
    as nothing, no anchor is left), ``sync --rebase``'s plan (``store.rebase``: no fork), ``hooks
    uninstall``, the post-rewrite hook's run and click's usage errors were split off modules at
    the 700-line limit (f155) so that no hot command loads more than before: a sync that imports
    and promotes, one that publishes, a record, a recall, a show and a brief load none of them.
    Nor of the forty-sixth session's (f157): what a push Git did not complete means, the user's own
    fork weighed for ``--rebase``, presence by listing a whole store, a mistyped word's suggestion;
    and, once the state exists (bob's first sync builds it), putting a new state in place
    (``store.state_replace``), which a sync that imports again, the commands after it and a pre-push
    hook with nothing to publish never load. Nor the hook wrappers' text (``hookscripts``,
    ``hookprelude``), which only a hook run needs: the syncs here leave quiet records, whose
    bytes ``store.replication.quiet_input`` lays out beside their writer."""
    from git_hn.hookpaths import wrapper_mark
    from git_hn.hookscripts import TEMPLATES
    from helpers import git, record_id, shared_remote

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    mid = record_id(alice, content="alice's decision")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    loaded = {"sync (imports)": _loaded(bob, "sync")}
    assert {"git_hn.service.replication.promote", "git_hn.store.reanchor"} <= loaded["sync (imports)"]
    assert mid in hn(bob, "memory", "show", mid).out  # (it promoted alice's memory)
    loaded["record"] = _loaded(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies",
                               "exact", "--content", "bob's decision")
    loaded["sync (publishes)"] = _loaded(bob, "sync")
    for name, args in (("recall", ["memory", "recall"]), ("show", ["memory", "show", mid]),
                       ("brief", ["memory", "brief"]), ("brief --json", ["memory", "brief", "--json"])):
        loaded[name] = _loaded(bob, *args)
    record_id(alice, content="alice's second decision")
    assert hn(alice, "sync").code == 0
    loaded["sync (imports again)"] = _loaded(bob, "sync")
    assert "git_hn.service.replication.promote" in loaded["sync (imports again)"]
    head = git(bob, "rev-parse", "HEAD")  # (a push of main as origin has it: nothing to publish)
    env = {**_isolated(), "HN_HOOK_ACTIVE": "1", "HN_WRAPPER": wrapper_mark(TEMPLATES["pre-push"])}
    proc = subprocess.run([sys.executable, "-S", "-c", PROBE, "hooks", "run", "pre-push", "origin",
                           git(bob, "remote", "get-url", "origin")], cwd=bob, capture_output=True, timeout=120,
                          input=f"refs/heads/main {head} refs/heads/main {head}\n".encode(), env=env)
    assert proc.returncode == 0, proc.stderr[-500:]
    loaded["pre-push"] = set(proc.stderr.decode().rsplit("\n", 1)[1].split(" "))
    assert "git_hn.service.hook_runs" in loaded["pre-push"]
    for name, modules in loaded.items():
        assert "git_hn.store.process" in modules, name  # the probe saw the command run
        assert set(SPLIT_OFF).isdisjoint(modules), (name, sorted(set(SPLIT_OFF) & modules))
        assert name == "sync (imports)" or STATE_REPLACED not in modules, name
        assert name == "pre-push" or set(WRAPPER_TEXT).isdisjoint(modules), (name, sorted(set(WRAPPER_TEXT) & modules))
