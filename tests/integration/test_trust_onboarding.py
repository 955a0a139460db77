"""Trust without hand-written JSON (issue 13, item 3): ``git hn policy init|trust|untrust``, the
hint default recall and brief print when the trust policy hides memories, and ``git hn identity
export|import``, on real repositories."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
from pathlib import Path

import pytest

from git_hn.core.limits import KINDS
from git_hn.errors import InputError
from helpers import NO_IDENTITY, actor_of, git, hn, make_repo, named, record_id, shared_remote

ALL_KINDS = sorted(KINDS)
COMMIT_HINT = ("Commit .hn/policy.json to apply it: recall and brief read the policy at the query "
               "commit, never the working tree")


def _policy_file(repo) -> Path:
    return Path(repo) / ".hn" / "policy.json"


def _commit(repo, message="trust"):
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", message)


def _recall_ids(repo, *args) -> list[str]:
    r = hn(repo, "memory", "recall", "--json", *args)
    assert r.code == 0, r.err
    return sorted(m["id"] for m in r.json()["memories"])


def _show(repo) -> dict:
    r = hn(repo, "policy", "show", "--json")
    assert r.code == 0, r.err
    return r.json()


def _canonical(doc: dict) -> str:
    return json.dumps(doc, indent=2) + "\n"


@pytest.fixture
def team(tmp_path):
    """Alice's repository with Bob's streams fetched as accepted refs (Bob works in a clone)."""
    alice = make_repo(tmp_path / "alice")
    assert hn(alice, "init", "--name", "Alice").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(alice), str(bob))
    assert hn(bob, "init", "--name", "Bob").code == 0
    git(alice, "remote", "add", "bob", str(bob))

    def exchange():
        git(alice, "fetch", "-q", "bob", "+refs/hn/memory/*:refs/hn/remotes/bob/memory/*")

    return alice, bob, exchange


# -- policy init -------------------------------------------------------------------------------


def test_policy_init_trusts_the_active_identity_and_recall_follows_once_committed(inited):
    a = actor_of(inited)
    mine = record_id(inited, content="keep the index canonical")
    assert _recall_ids(inited) == []  # no policy: policy-missing

    r = hn(inited, "policy", "init")
    assert r.code == 0, r.err
    assert r.out.splitlines() == [
        f"Created .hn/policy.json trusting {named(a, 'Alice Agent')} for {', '.join(ALL_KINDS)}", COMMIT_HINT]
    expected = {"version": "hn.policy/0", "maintainers": [a], "proposals": {"requiredAccepts": 1},
                "memory": {"trustedActors": [a], "trustedKinds": ALL_KINDS}}
    assert _policy_file(inited).read_text() == _canonical(expected)
    # the commit stays the user's: nothing staged, and recall reads the committed policy only
    assert git(inited, "status", "--porcelain") == "?? .hn/"
    assert _recall_ids(inited) == []

    _commit(inited)
    shown = _show(inited)
    assert shown["memory"] == {"trustedActors": [a], "trustedKinds": ALL_KINDS}
    assert _recall_ids(inited) == [mine]
    r = hn(inited, "memory", "recall")
    assert r.code == 0 and r.err == ""  # nothing hidden, no hint


def test_policy_init_refuses_to_overwrite_and_needs_an_identity(repo):
    r = hn(repo, "policy", "init")
    assert (r.code, r.err) == (1, NO_IDENTITY)
    assert not (repo / ".hn").exists()
    assert hn(repo, "init", "--name", "Alice").code == 0
    (repo / ".hn").mkdir()
    _policy_file(repo).write_text("{ hand written }")
    r = hn(repo, "policy", "init")
    assert (r.code, r.err) == (1, "git-hn: .hn/policy.json already exists in the working tree and is invalid: "
                                  "parse policy: invalid JSON: Expecting property name enclosed in double quotes "
                                  "at offset 2 (line 1, column 3); fix it by hand, or remove it and run git hn policy init\n")
    assert _policy_file(repo).read_text() == "{ hand written }"
    _policy_file(repo).unlink()
    assert hn(repo, "policy", "init").code == 0
    written = _policy_file(repo).read_text()
    r = hn(repo, "policy", "init")  # a valid one is changed with trust|untrust
    assert (r.code, r.err) == (1, "git-hn: .hn/policy.json already exists in the working tree; change "
                                  "it with git hn policy trust|untrust\n")
    assert _policy_file(repo).read_text() == written
    assert hn(repo, "policy", "init", "extra").err == 'git-hn: unexpected argument "extra"; usage: git hn policy init\n'


def test_policy_init_refuses_a_symlinked_policy_directory(inited, tmp_path):
    """*Symlink redirection*: a planted ``.hn`` symlink must not make git-hn write elsewhere."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (inited / ".hn").symlink_to(elsewhere)
    r = hn(inited, "policy", "init")
    assert r.code == 1 and "symbolic link" in r.err
    assert list(elsewhere.iterdir()) == []


# -- policy trust / untrust --------------------------------------------------------------------


def test_trust_and_untrust_by_name_prefix_and_id_change_what_recall_returns(team):
    alice, bob, exchange = team
    a, b = actor_of(alice), actor_of(bob)
    mine = record_id(alice, content="alice decides")
    decision = record_id(bob, content="bob decides")
    observation = record_id(bob, kind="observation", content="bob observes")
    exchange()
    assert hn(alice, "policy", "init").code == 0
    _commit(alice)
    assert _recall_ids(alice) == [mine]

    r = hn(alice, "policy", "trust", "Bob")
    assert r.code == 0, r.err
    assert r.out.splitlines() == [f"Trusted {named(b, 'Bob')} for {', '.join(ALL_KINDS)}", COMMIT_HINT]
    assert git(alice, "diff", "--cached", "--name-only") == ""  # never staged
    assert _recall_ids(alice) == [mine]  # not committed yet
    again = hn(alice, "policy", "trust", "Bob")  # the file has it; what recall reads does not yet
    assert again.out.splitlines() == [f"Unchanged: {named(b, 'Bob')} is already trusted", COMMIT_HINT]
    _commit(alice)
    assert _show(alice)["memory"]["trustedActors"] == sorted([a, b])
    assert _recall_ids(alice) == sorted([mine, decision, observation])

    before = _policy_file(alice).read_bytes()
    r = hn(alice, "policy", "trust", "bob")  # names match case-insensitively when none matches exactly
    assert r.out.splitlines() == [f"Unchanged: {named(b, 'Bob')} is already trusted"]
    assert _policy_file(alice).read_bytes() == before

    r = hn(alice, "policy", "untrust", "--kind", "observation")
    assert r.out.splitlines() == ["Untrusted kind observation for every actor", COMMIT_HINT]
    _commit(alice)
    assert _show(alice)["memory"]["trustedKinds"] == [k for k in ALL_KINDS if k != "observation"]
    assert _recall_ids(alice) == sorted([mine, decision])
    assert hn(alice, "policy", "untrust", "--kind", "observation").out == \
        "Unchanged: kind observation is not trusted\n"

    r = hn(alice, "policy", "untrust", b[:10])
    assert r.out.splitlines() == [f"Untrusted {named(b, 'Bob')}", f"Branches and tags without the commit of this "
                                  f"change still trust {named(b, 'Bob')} until they contain it: the policy is read at "
                                  "the query commit", COMMIT_HINT]
    _commit(alice)
    assert _recall_ids(alice) == [mine]

    r = hn(alice, "policy", "trust", b.upper(), "--kind", "observation")
    assert r.out.splitlines() == [
        f"Trusted {named(b, 'Bob')} for {', '.join(ALL_KINDS)}",
        "Trusted kind observation for every trusted actor", COMMIT_HINT]
    _commit(alice)
    assert _show(alice)["memory"] == {"trustedActors": sorted([a, b]), "trustedKinds": ALL_KINDS}
    assert _recall_ids(alice) == sorted([mine, decision, observation])


def test_actor_arguments_that_are_short_unknown_or_ambiguous_are_refused(tmp_path):
    """*Name squatting*: two actors may pick the same display name; a name that matches more
    than one known actor is refused instead of trusting either."""
    alice = make_repo(tmp_path / "alice")
    assert hn(alice, "init", "--name", "Alice").code == 0
    twin = tmp_path / "twin"
    git(tmp_path, "clone", "-q", str(alice), str(twin))
    assert hn(twin, "init", "--name", "Alice").code == 0
    record_id(twin, content="I am Alice too")
    git(alice, "remote", "add", "twin", str(twin))
    git(alice, "fetch", "-q", "twin", "+refs/hn/memory/*:refs/hn/remotes/twin/memory/*")
    assert hn(alice, "policy", "init").code == 0
    before = _policy_file(alice).read_bytes()

    pair = ", ".join(f'{named(x, "Alice")}' for x in sorted([actor_of(alice), actor_of(twin)]))
    unknown = ("; a teammate is known once their memory is here (git hn sync; git hn memory recall "
               "--include-untrusted lists it), or use the full actor ID their git hn identity public prints")
    cases = {
        ("trust", "Alice"): f"actor Alice is ambiguous: it matches 2 known actors ({pair}); use a longer "
                            "prefix or the full actor ID",
        ("trust", "ALICE\u200b"): f"actor ALICE\\u{{200b}} is ambiguous: it matches 2 known actors ({pair}); use a "
                                  "longer prefix or the full actor ID",
        ("trust", "abc123"): "actor prefix abc123 is shorter than 8 hex characters; use a longer prefix "
                             "or the full actor ID",
        ("trust", "Mallory"): "no known actor matches Mallory" + unknown.replace("; ", ": ", 1),
        ("trust", "0" * 12): "no known actor matches 000000000000" + unknown.replace("; ", ": ", 1),
        ("trust", actor_of(twin)[:8], "--kind", "secret"): 'invalid kind "secret"; use one of '
                                                            + ", ".join(ALL_KINDS),
        ("untrust", actor_of(twin), "--kind", "decision"): "untrust takes ACTOR or --kind, not both: "
                                                            "trusted kinds apply to every trusted actor",
    }
    for args, message in cases.items():
        r = hn(alice, "policy", *args)
        assert (r.code, r.err) == (1, f"git-hn: {message}\n"), args
    assert hn(alice, "policy", "trust").err == ("git-hn: give an ACTOR, a --kind, or both; usage: git hn policy "
                                                "trust [ACTOR] [--kind KIND]...\n")
    assert hn(alice, "policy", "untrust", "x", "y").err == \
        'git-hn: unexpected argument "y"; usage: git hn policy untrust ACTOR | --kind KIND...\n'
    assert _policy_file(alice).read_bytes() == before
    # a full ID is accepted even for an actor git-hn has not seen (a teammate yet to record)
    stranger = "ab" * 32
    r = hn(alice, "policy", "trust", stranger)
    assert r.out.splitlines()[0] == f"Trusted {stranger[:12]} for {', '.join(ALL_KINDS)}"
    # a unique prefix of the other Alice works where her name does not
    r = hn(alice, "policy", "trust", actor_of(twin)[:8])
    assert r.out.splitlines()[0] == f"Trusted {named(actor_of(twin), 'Alice')} for {', '.join(ALL_KINDS)}"
    # untrust names the one of them the policy lists (init trusted the real Alice: untrust her twin
    # by name, after trusting only the twin)
    r = hn(alice, "policy", "untrust", actor_of(alice)[:8])
    assert r.code == 0, r.err
    r = hn(alice, "policy", "untrust", "alice")
    assert (r.code, r.out.splitlines()[0]) == (0, f"Untrusted {named(actor_of(twin), 'Alice')}")


def test_an_ambiguous_hex_prefix_is_refused():
    from git_hn.core.policyedit import Known, resolve_actor

    known = [Known("abcdef01" + "1" * 56, ("One",)), Known("abcdef01" + "2" * 56, ("Two",))]
    with pytest.raises(InputError) as exc:
        resolve_actor("abcdef01", known)
    assert exc.value.message == ('actor abcdef01 is ambiguous: it matches 2 known actors (abcdef011111 ("One", a '
                                 'self-chosen name), abcdef012222 ("Two", a self-chosen name)); use a longer prefix '
                                 'or the full actor ID')
    assert resolve_actor("abcdef012", known).names == ("Two",)
    # a string that is one actor's name and another's prefix matches both: refused
    squatter = [Known("deadbeef" + "0" * 56, ()), Known("1" * 64, ("deadbeef",))]
    with pytest.raises(InputError):
        resolve_actor("deadbeef", squatter)
    # names that differ only by case, compatibility form or an invisible character are one name:
    # "bob" never quietly means whichever of "Bob" and "bob" published first
    bobs = [Known("1" * 64, ("Bob",)), Known("2" * 64, ("bob",)), Known("3" * 64, ("B\u200bob",)),
            Known("4" * 64, ("\uff22ob",)), Known("5" * 64, ("Carol",))]
    with pytest.raises(InputError) as exc:
        resolve_actor("bob", bobs)
    assert "it matches 4 known actors" in exc.value.message
    assert resolve_actor("bob", bobs, prefer=frozenset({"2" * 64})).actor == "2" * 64
    assert resolve_actor("CAROL", bobs).actor == "5" * 64


def test_edits_keep_the_rest_of_the_policy_and_write_it_canonical_and_sorted(inited):
    a = actor_of(inited)
    other = "f" * 64
    (inited / ".hn").mkdir()
    hand = ('{"Version":"hn.policy/0","maintainers":["%s"],'
            '"proposals":{"allowAuthorApproval":false,"requiredAccepts":1,"trustedReviewers":null},'
            '"pipelines":{"zeta":{"trustedRunners":["%s"],"requiredResults":1},'
            '"alpha":{"requiredResults":1,"trustedRunners":["%s"]}},'
            '"Memory":{"trustedKinds":["decision"],"trustedActors":["%s"]}}' % (a, a, a, other))
    _policy_file(inited).write_text(hand)
    os.chmod(_policy_file(inited), 0o640)
    r = hn(inited, "policy", "trust", a)
    assert r.out.splitlines() == [f"Trusted {named(a, 'Alice Agent')} for decision", COMMIT_HINT]
    assert _policy_file(inited).read_text() == _canonical({
        "version": "hn.policy/0", "maintainers": [a],
        "proposals": {"requiredAccepts": 1, "allowAuthorApproval": False},
        "pipelines": {"alpha": {"requiredResults": 1, "trustedRunners": [a]},
                      "zeta": {"requiredResults": 1, "trustedRunners": [a]}},
        "memory": {"trustedActors": sorted([a, other]), "trustedKinds": ["decision"]}})
    assert stat.S_IMODE(os.stat(_policy_file(inited)).st_mode) == 0o640  # mode kept
    assert [p.name for p in (inited / ".hn").iterdir()] == ["policy.json"]  # no temporary left
    _commit(inited)
    assert _show(inited)["memory"] == {"trustedActors": sorted([a, other]), "trustedKinds": ["decision"]}


def test_edits_refuse_a_missing_invalid_or_symlinked_policy(inited, tmp_path):
    a = actor_of(inited)
    r = hn(inited, "policy", "trust", a)
    assert r.err == "git-hn: no .hn/policy.json in the working tree; create one with git hn policy init\n"
    (inited / ".hn").mkdir()
    twice = json.dumps({"version": "hn.policy/0", "maintainers": [a], "proposals": {"requiredAccepts": 1},
                        "memory": {"trustedActors": [a, a], "trustedKinds": ["decision"]}})
    _policy_file(inited).write_text(twice)
    r = hn(inited, "policy", "untrust", "--kind", "decision")
    assert r.err == (f"git-hn: .hn/policy.json in the working tree is invalid: memory trustedActors contains "
                     f"duplicate actor {a}; fix it by hand, or remove it and run git hn policy init\n")
    assert _policy_file(inited).read_text() == twice
    r = hn(inited, "policy", "init")  # names the problem too, instead of pointing at trust|untrust
    assert (r.code, r.err) == (1, "git-hn: .hn/policy.json already exists in the working tree and is invalid: "
                                  f"memory trustedActors contains duplicate actor {a}; fix it by hand, or remove "
                                  "it and run git hn policy init\n")
    assert _policy_file(inited).read_text() == twice
    # *symlink redirection*: the edit never writes through a link
    target = tmp_path / "outside.json"
    target.write_text(_canonical({"version": "hn.policy/0", "maintainers": [a],
                                  "proposals": {"requiredAccepts": 1}}))
    _policy_file(inited).unlink()
    _policy_file(inited).symlink_to(target)
    before = target.read_bytes()
    r = hn(inited, "policy", "trust", a)
    assert r.code == 1 and r.err == ("git-hn: .hn/policy.json in the working tree is a symbolic link; "
                                     "git hn edits only a regular file\n")
    assert target.read_bytes() == before


def test_an_invalid_working_tree_policy_names_the_restore_when_head_has_a_valid_one(inited):
    """A newcomer trial (f146): with a valid policy at HEAD, an invalid one in the working tree
    was told "fix it by hand, or remove it and run git hn policy init", and init then refused,
    naming ``git checkout HEAD -- .hn/policy.json`` only then; ``policy show`` said the file was not
    committed ("commit it to apply it"), not that it is invalid. Each now says the restore at
    once; with HEAD's policy invalid too, today's words stay. The file is left as it was."""
    assert hn(inited, "policy", "init").code == 0
    _commit(inited)
    shown = hn(inited, "policy", "show").out
    broken = '{"version": "hn.policy/0",,}\n'
    _policy_file(inited).write_text(broken)
    cause = ("parse policy: invalid JSON: Expecting property name enclosed in double quotes at offset 26 (line 1, "
             "column 27); git checkout HEAD -- .hn/policy.json restores the committed one, or fix it by hand")
    for args in (("trust", "--kind", "attempt"), ("untrust", "--kind", "attempt"), ("init",)):
        r = hn(inited, "policy", *args)
        where = "already exists in the working tree and is" if args == ("init",) else "in the working tree is"
        assert (r.code, r.err) == (1, f"git-hn: .hn/policy.json {where} invalid: {cause}\n"), args
    r = hn(inited, "policy", "show")
    assert r.code == 0 and r.out == shown  # (HEAD's policy, as before)
    assert r.err.splitlines()[-1] == f"git-hn: hint: .hn/policy.json in the working tree is invalid: {cause}"
    doc = json.loads(git(inited, "show", "HEAD:.hn/policy.json"))
    doc["memory"]["trustedKinds"].reverse()  # (only out of order: committed, no read takes it either)
    _policy_file(inited).write_text(json.dumps(doc))
    assert hn(inited, "policy", "show").err.splitlines()[-1] == (
        "git-hn: hint: .hn/policy.json in the working tree is invalid: memory trustedKinds must be sorted; git hn "
        "policy trust or untrust writes it sorted")
    _policy_file(inited).write_text(broken + " " * (1 << 20))
    r = hn(inited, "policy", "trust", "--kind", "attempt")
    assert r.err == ("git-hn: .hn/policy.json in the working tree is invalid: policy exceeds 1048576 bytes; git "
                     "checkout HEAD -- .hn/policy.json restores the committed one, or fix it by hand\n")
    git(inited, "checkout", "-q", "HEAD", "--", ".hn/policy.json")  # (the advice works)
    assert hn(inited, "policy", "trust", "--kind", "attempt").code == 0
    git(inited, "checkout", "-q", "HEAD", "--", ".hn/policy.json")
    _policy_file(inited).write_text(broken)
    _commit(inited, "broken")  # HEAD's is invalid too: nothing to restore
    _policy_file(inited).write_text(broken + " ")
    r = hn(inited, "policy", "trust", "--kind", "attempt")
    assert r.err == ("git-hn: .hn/policy.json in the working tree is invalid: parse policy: invalid JSON: Expecting "
                     "property name enclosed in double quotes at offset 26 (line 1, column 27); fix it by hand, or "
                     "remove it and run git hn policy init\n")
    assert _policy_file(inited).read_text() == broken + " "


def test_policy_show_json_and_a_working_tree_policy_over_the_bound_say_the_file_is_invalid(inited):
    """f148 made ``policy show`` say that an invalid working-tree policy is invalid, with the way
    out; ``--json`` and a file over the 1 MiB bound said nothing of it (over the bound, with no
    policy at HEAD, the lines even said policy init writes one, which init refuses). Both now say
    it on stderr in the lines' words; the document (the contract's, §6.6) and the lines are HEAD's
    as before, and a valid file waiting for its commit still adds nothing to ``--json``."""
    assert hn(inited, "policy", "init").code == 0
    _commit(inited)
    document, lines = hn(inited, "policy", "show", "--json").out, hn(inited, "policy", "show").out
    restore = "git checkout HEAD -- .hn/policy.json restores the committed one, or fix it by hand"
    invalid = ("git-hn: hint: .hn/policy.json in the working tree is invalid: parse policy: invalid JSON: Expecting "
               f"property name enclosed in double quotes at offset 1 (line 1, column 2); {restore}")
    over = f"git-hn: hint: .hn/policy.json in the working tree is invalid: policy exceeds 1048576 bytes; {restore}"
    for text, said in (("{,}\n", invalid), ("{" + " " * (1 << 20) + "}\n", over)):
        _policy_file(inited).write_text(text)
        for args, out in ((("--json",), document), ((), lines)):
            r = hn(inited, "policy", "show", *args)
            assert (r.code, r.out, r.err.splitlines()[-1]) == (0, out, said), args
            assert r.err.count("in the working tree") == 1
        assert _policy_file(inited).read_text() == text  # (nothing changed)
    git(inited, "checkout", "-q", "HEAD", "--", ".hn/policy.json")
    assert hn(inited, "policy", "untrust", "--kind", "attempt").code == 0  # (valid, waiting for its commit)
    assert "in the working tree" not in hn(inited, "policy", "show", "--json").err
    assert "in the working tree" in hn(inited, "policy", "show").err
    git(inited, "rm", "-q", "--cached", ".hn/policy.json")
    git(inited, "commit", "-q", "-m", "no policy")  # (nothing to restore: the other way out, not init's hint)
    _policy_file(inited).write_text("{" + " " * (1 << 20) + "}\n")
    for args in (("--json",), ()):
        r = hn(inited, "policy", "show", *args)
        assert r.code == 0 and r.err.splitlines() == ["git-hn: hint: .hn/policy.json in the working tree is invalid: "
                                                      "policy exceeds 1048576 bytes; fix it by hand, or remove it and "
                                                      "run git hn policy init"], args


def test_policy_show_says_a_symlinked_working_tree_policy_is_not_followed_and_what_replaces_it(inited, tmp_path):
    """f160 (left by f151): a working-tree policy that is a symbolic link (git hn never follows one:
    *symlink redirection*) got no ``policy show`` hint, and with no policy at HEAD the lines
    advised ``policy init``, which refuses it. Both forms now say it is a link, and what puts a
    regular file in its place: HEAD's, when HEAD has a valid policy (the advice works, and leaves
    the link's target as it was), else a copy of the target, or init once it is gone. The document
    and the lines are HEAD's as before; nothing is changed."""
    assert hn(inited, "policy", "init").code == 0
    _commit(inited)
    document, lines = hn(inited, "policy", "show", "--json").out, hn(inited, "policy", "show").out
    target, committed = tmp_path / "elsewhere.json", _policy_file(inited).read_bytes()
    target.write_bytes(committed)
    _policy_file(inited).unlink()
    _policy_file(inited).symlink_to(target)
    linked = "git-hn: hint: .hn/policy.json in the working tree is a symbolic link, which git hn neither follows nor edits"
    said = (f"{linked}; git checkout HEAD -- .hn/policy.json puts the committed file in its place, or replace the link "
            "with a copy of the file it points to")
    for args, out in ((("--json",), document), ((), lines)):
        r = hn(inited, "policy", "show", *args)
        assert (r.code, r.out, r.err.splitlines()[-1]) == (0, out, said), args
        assert r.err.count("in the working tree") == 1
    assert _policy_file(inited).is_symlink() and target.read_bytes() == committed
    git(inited, "checkout", "-q", "HEAD", "--", ".hn/policy.json")  # (the advice)
    assert not _policy_file(inited).is_symlink() and _policy_file(inited).read_bytes() == target.read_bytes()
    assert "in the working tree" not in hn(inited, "policy", "show").err
    git(inited, "rm", "-q", "--cached", ".hn/policy.json")
    git(inited, "commit", "-q", "-m", "no policy")  # (nothing to restore: the other way out, not init's hint)
    _policy_file(inited).unlink()
    _policy_file(inited).symlink_to(target)
    for args in (("--json",), ()):
        r = hn(inited, "policy", "show", *args)
        assert r.code == 0 and r.err.splitlines() == [f"{linked}; replace the link with a copy of the file it points "
                                                      "to, or remove it and run git hn policy init"], args
    assert _policy_file(inited).is_symlink()


def test_policy_show_says_a_working_tree_policy_this_user_may_not_read_cannot_be_read(inited):
    """f160 (left by f151): a working-tree policy this user may not read (its mode, or ``.hn``'s)
    got no ``policy show`` hint. Both forms now say it cannot be read, why, and what to do, as a
    user file modes refuse (``as_a_user_files_refuse``); the output is HEAD's as before, and
    nothing is changed."""
    from test_errors_that_help import as_a_user_files_refuse

    assert hn(inited, "policy", "init").code == 0
    _commit(inited)
    policy, hn_dir = _policy_file(inited), Path(inited) / ".hn"
    document, lines = hn(inited, "policy", "show", "--json").out, hn(inited, "policy", "show").out
    said = ("git-hn: hint: .hn/policy.json in the working tree cannot be read: this user may not read it, or search "
            ".hn (ls -ld .hn .hn/policy.json shows their owners and modes); make them readable (chmod u+r "
            ".hn/policy.json, chmod u+rx .hn), or ask their owner")
    before = policy.read_bytes()
    for shut, mode in ((policy, 0o644), (hn_dir, 0o755)):
        shut.chmod(0o000 if shut == policy else 0o644)  # (.hn listed, not searched)
        try:
            for args, out in ((("--json",), document), ((), lines)):
                r = subprocess.run(as_a_user_files_refuse(["git", "hn", "policy", "show", *args]), cwd=inited,
                                   capture_output=True, env=os.environ)
                err = r.stderr.decode()
                assert (r.returncode, r.stdout.decode(), err.splitlines()[-1]) == (0, out, said), (shut, args, err)
                assert err.count("in the working tree") == 1
        finally:
            shut.chmod(mode)
    assert policy.read_bytes() == before


def test_trust_adds_a_memory_section_to_a_policy_without_one(inited):
    a = actor_of(inited)
    (inited / ".hn").mkdir()
    _policy_file(inited).write_text(json.dumps({"version": "hn.policy/0", "maintainers": [a],
                                                "proposals": {"requiredAccepts": 1}}))
    assert hn(inited, "policy", "untrust", a).out == f"Unchanged: {named(a, 'Alice Agent')} is not trusted\n"
    r = hn(inited, "policy", "trust", "--kind", "handoff", "--kind", "decision")
    assert r.out.splitlines() == ["Added a memory section to .hn/policy.json",
                                  "Trusted kind decision for every trusted actor",
                                  "Trusted kind handoff for every trusted actor", COMMIT_HINT]
    r = hn(inited, "policy", "trust", "Alice Agent")
    assert r.out.splitlines() == [f"Trusted {named(a, 'Alice Agent')} for decision, handoff", COMMIT_HINT]
    _commit(inited)
    assert _show(inited)["memory"] == {"trustedActors": [a], "trustedKinds": ["decision", "handoff"]}


# -- the hint ----------------------------------------------------------------------------------


def _hint(text: str) -> str:
    return f"git-hn: hint: {text}\n"


def test_default_recall_and_brief_say_how_many_memories_trust_hid(team):
    alice, bob, exchange = team
    a = actor_of(alice)
    record_id(alice, content="alice decides")
    record_id(alice, kind="observation", content="alice observes")
    record_id(bob, content="bob decides")
    exchange()

    missing = _hint("3 memories hidden: no memory trust policy at this commit; see them with "
                    "--include-untrusted, or create one with git hn policy init and commit it")
    assert hn(alice, "memory", "recall").err == missing
    # the brief's body says it (an agent reads only that): not again on stderr (a newcomer trial)
    brief = hn(alice, "memory", "brief")
    assert brief.err == "" and "Memories the trust policy does not qualify are left out" in brief.out
    # --json says it, on stderr (an agent trial: the form agents are told to use hid an
    # untrusted memory without a word); recall's JSON keeps its keys; explicit choices carry no hint
    r = hn(alice, "memory", "recall", "--json")
    assert r.err == missing and list(r.json()) == ["version", "warning", "queryDigest", "matched", "returned",
                                                   "truncated", "memories", "missingDependencies"]
    assert hn(alice, "memory", "brief", "--json").err == missing
    assert hn(alice, "memory", "recall", "--json", "--include-untrusted").err == ""
    assert hn(alice, "memory", "recall", "--include-untrusted").err == ""
    assert hn(alice, "memory", "recall", "--trust", "policy-missing").err == ""
    assert hn(alice, "memory", "brief", "--include-untrusted").err == ""

    policy = _policy_file(alice)
    policy.parent.mkdir(exist_ok=True)
    policy.write_text(json.dumps({"version": "hn.policy/0", "maintainers": [actor_of(alice)],
                                  "proposals": {"requiredAccepts": 1}}))
    # a policy without a memory section: init would refuse it, trust adds the section
    assert hn(alice, "memory", "recall").err == _hint(
        "3 memories hidden: no memory trust policy at this commit; see them with --include-untrusted; "
        ".hn/policy.json in the working tree takes effect once it has a memory section (git hn policy "
        "trust ACTOR|--kind KIND adds one) and is committed")
    policy.unlink()
    assert hn(alice, "policy", "init").code == 0
    # written, not committed (an agent audit: the hint said it still needed a memory section)
    assert hn(alice, "memory", "recall").err == _hint(
        "3 memories hidden: no memory trust policy at this commit; see them with --include-untrusted; "
        ".hn/policy.json in the working tree takes effect once it is committed")
    brief = hn(alice, "memory", "brief")  # the body says it (a trial: it said "policy init writes one"), once
    assert brief.err == "" and ("there is no policy at this commit: .hn/policy.json in the working tree applies "
                                "once it is committed\n") in brief.out, brief
    _commit(alice)
    b = actor_of(bob)[:12]  # (a newcomer trial: the hint named neither who nor which ID)
    authors = _hint(f'1 memory hidden by the trust policy, signed by {b} ("Bob", a self-chosen name); see it with --include-untrusted, '
                    f"or trust its author with git hn policy trust {actor_of(bob)}")  # (one memory: "its", a trial)
    assert hn(alice, "memory", "recall").err == authors
    assert hn(alice, "memory", "recall", "--json").err == authors
    assert hn(alice, "memory", "recall", "--kind", "observation").err == ""  # filters apply first

    assert hn(alice, "policy", "untrust", "--kind", "observation").code == 0
    _commit(alice)
    both = "2 memories hidden by the trust policy; see them with --include-untrusted, or trust their " \
           "authors or kinds with git hn policy trust ACTOR|--kind KIND"
    assert hn(alice, "memory", "recall").err == _hint(both)
    assert hn(alice, "memory", "brief").err == ""
    assert hn(alice, "memory", "recall", "--actor", a).err == _hint(
        "1 memory hidden by the trust policy; see it with --include-untrusted, or trust its kind "
        "with git hn policy trust --kind KIND")


def test_the_hint_counts_the_same_from_the_state_and_from_a_full_collection(team, monkeypatch):
    """The count is derived from the verified state's groups; a full collection must agree."""
    from git_hn.store import stateview

    alice, bob, exchange = team
    record_id(alice, kind="observation", content="alice observes")
    record_id(bob, content="bob decides")
    record_id(bob, "--outcome", "failed", kind="attempt", content="bob tried")
    exchange()
    assert hn(alice, "policy", "init").code == 0
    assert hn(alice, "policy", "untrust", "--kind", "observation").code == 0
    _commit(alice)
    from_state = hn(alice, "memory", "recall").err

    def unavailable(*_a, **_k):
        raise stateview.Unavailable

    monkeypatch.setattr(stateview, "current", unavailable)
    assert hn(alice, "memory", "recall").err == from_state == _hint(
        "3 memories hidden by the trust policy; see them with --include-untrusted, or trust their "
        "authors or kinds with git hn policy trust ACTOR|--kind KIND")


def test_the_hint_names_one_or_two_hidden_authors_as_inert_text_from_the_state_and_a_full_collection(
        team, monkeypatch):
    """A newcomer trial: "1 memory hidden …, or trust its author with git hn policy trust ACTOR"
    said neither who nor which ID. One or two authors are named, each signed name quoted, cut and
    with its invisible characters spelled (author text: a name that reads as a command stays
    inside its quotes), beside the short ID the command uses, which policy trust resolves; a
    full collection says the same; three authors are not named (one line, bounded)."""
    from git_hn.store import stateview

    alice, bob, exchange = team
    tmp = Path(alice).parent
    carol = tmp / "carol"
    git(tmp, "clone", "-q", str(alice), str(carol))
    odd = "Carol\u200b; git hn policy trust 000000000000" + "x" * 40
    assert hn(carol, "init", "--name", odd).code == 0
    git(alice, "remote", "add", "carol", str(carol))
    record_id(bob, content="bob decides")
    record_id(bob, content="bob again")
    record_id(carol, content="carol decides")
    exchange()
    git(alice, "fetch", "-q", "carol", "+refs/hn/memory/*:refs/hn/remotes/carol/memory/*")
    assert hn(alice, "policy", "init").code == 0
    _commit(alice)
    b, c = actor_of(bob)[:12], actor_of(carol)[:12]
    shown = '"Carol\\u{200b}; git hn policy trust 00000…"'  # (40 characters once spelled out, then cut)
    said = {b: f'{b} ("Bob", a self-chosen name)', c: f"{c} ({shown}, a self-chosen name)"}
    full = {b: actor_of(bob), c: actor_of(carol)}
    first, second = sorted([b, c])  # (by actor ID)
    # (the full IDs in the commands: a short one is taken as a name too, a review)
    expected = _hint(f"3 memories hidden by the trust policy, signed by {said[first]} and {said[second]}; see them "
                     f"with --include-untrusted, or trust their authors with git hn policy trust {full[first]} and "
                     f"git hn policy trust {full[second]}")
    assert hn(alice, "memory", "recall").err == expected

    def unavailable(*_a, **_k):
        raise stateview.Unavailable

    with monkeypatch.context() as m:
        m.setattr(stateview, "current", unavailable)
        assert hn(alice, "memory", "recall").err == expected
    assert hn(alice, "policy", "trust", c).code == 0  # the short ID the hint gave resolves
    assert hn(alice, "policy", "untrust", c).code == 0
    dave = tmp / "dave"
    git(tmp, "clone", "-q", str(alice), str(dave))
    assert hn(dave, "init", "--name", "Dave").code == 0
    record_id(dave, content="dave decides")
    git(alice, "fetch", "-q", str(dave), "+refs/hn/memory/*:refs/hn/remotes/dave/memory/*")
    assert hn(alice, "memory", "recall").err == _hint(
        "4 memories hidden by the trust policy; see them with --include-untrusted, or trust their authors with "
        "git hn policy trust ACTOR")


# -- identity export / import ------------------------------------------------------------------


def _record_bytes(repo) -> bytes:
    a = actor_of(repo)
    return (Path(repo) / ".git" / "hn" / "identities" / f"{a}.json").read_bytes()


def test_identity_export_import_round_trip_keeps_one_actor(inited, tmp_path, monkeypatch):
    a = actor_of(inited)
    secret = json.loads(_record_bytes(inited))["privateKey"]
    out = tmp_path / "alice.identity"
    r = hn(inited, "identity", "export", "--output", str(out))
    assert r.code == 0, r.err
    assert r.out.splitlines() == [
        f"Exported identity {named(a, 'Alice Agent')} to {out}",
        "The file holds your private key: keep it private, import it with git hn identity import FILE, "
        "then delete it"]
    assert secret not in r.out
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    assert out.read_bytes() == _record_bytes(inited)  # exactly a keyring record

    # another machine: its own HOME and a clone without any identity
    other_home = tmp_path / "other-home"
    other_home.mkdir()
    (other_home / ".gitconfig").write_text("[user]\n\tname = Other\n\temail = o@example.invalid\n")
    monkeypatch.setenv("HOME", str(other_home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(other_home / ".gitconfig"))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(inited), str(clone))
    record_path = clone / ".git" / "hn" / "identities" / f"{a}.json"
    r = hn(clone, "identity", "import", str(out))
    assert r.code == 0, r.err
    assert r.out.splitlines() == [f"Imported identity {named(a, 'Alice Agent')} into {record_path}",
                                  f"Active identity: {named(a, 'Alice Agent')}"]
    assert actor_of(clone) == a
    assert stat.S_IMODE(os.stat(record_path).st_mode) == 0o600
    assert record_path.read_bytes() == _record_bytes(inited)
    mid = record_id(clone, content="recorded on the other machine")
    shown = hn(clone, "memory", "show", mid, "--json").json()
    assert shown["envelope"]["actor"] == a
    # importing the same identity again changes nothing
    r = hn(clone, "identity", "import", str(out))
    assert r.out.splitlines() == [f"Identity {named(a, 'Alice Agent')} is already in this keyring",
                                  f"Active identity: {named(a, 'Alice Agent')}"]


def test_identity_export_refuses_stdout_existing_files_and_the_working_tree(inited, tmp_path):
    """*Key disclosure*: never to a terminal or log, never over or through an existing file,
    never where a commit could publish it."""
    secret = json.loads(_record_bytes(inited))["privateKey"]
    results = []
    for args in (["--output", "-"], []):
        results.append(hn(inited, "identity", "export", *args))
    assert results[0].err == ("git-hn: identity export never uses standard output: a private key "
                              "belongs in a file only you can read; name one\n")
    assert results[1].err == "git-hn: missing --output; usage: git hn identity export --output FILE\n"
    existing = tmp_path / "existing"
    existing.write_text("keep me")
    results.append(hn(inited, "identity", "export", "--output", str(existing)))
    assert results[-1].err == (f"git-hn: identity export file {existing} already exists; an export "
                               "never overwrites a file, so name a new one\n")
    assert existing.read_text() == "keep me"
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "target")
    results.append(hn(inited, "identity", "export", "--output", str(link)))
    assert results[-1].code == 1 and not (tmp_path / "target").exists()
    inside = inited / "alice.identity"
    results.append(hn(inited, "identity", "export", "--output", str(inside)))
    assert results[-1].err == (f"git-hn: identity export file {inside} would be inside the working tree, "
                               "where a commit could publish the private key; write it outside the "
                               "repository\n")
    assert not inside.exists()
    results.append(hn(inited, "identity", "export", "--output", str(tmp_path / "no" / "such" / "dir")))
    assert results[-1].err.startswith(f"git-hn: identity export file {tmp_path / 'no' / 'such' / 'dir'} "
                                      "cannot be created: ")
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        results.append(hn(inited, "identity", "export", "--output", str(locked / "x")))
        assert results[-1].err == (f"git-hn: identity export file {locked / 'x'} cannot be created: "
                                   "Permission denied\n")
    for r in results:
        assert r.code == 1 and r.out == "" and secret not in r.err


def test_identity_import_checks_the_file_and_never_replaces_a_key(inited, tmp_path):
    a = actor_of(inited)
    export = tmp_path / "alice.identity"
    assert hn(inited, "identity", "export", "--output", str(export)).code == 0
    record = json.loads(export.read_text())
    target = make_repo(tmp_path / "target")
    errors = []

    def refused(path, message):
        r = hn(target, "identity", "import", str(path))
        assert (r.code, r.err) == (1, f"git-hn: {message}\n"), r
        errors.append(r.err)

    # *key disclosure*: a file others could read (or have replaced) is refused
    os.chmod(export, 0o644)
    refused(export, f"identity file {export} has unsafe permissions: it must be yours and readable by "
                    "you alone (mode 0600)")
    os.chmod(export, 0o600)
    link = tmp_path / "link.identity"
    link.symlink_to(export)
    refused(link, f"identity file {link} is a symbolic link; name the file itself")
    refused(tmp_path / "absent", f"identity file {tmp_path / 'absent'} does not exist")
    assert hn(target, "identity", "import", "-").err == (
        "git-hn: identity import never uses standard input: a private key belongs in a file only you "
        "can read; name one\n")
    assert hn(target, "identity", "import").err == "git-hn: missing FILE; usage: git hn identity import FILE [--activate]\n"

    # *key substitution*: a private key that is not the actor's own is refused
    forged = tmp_path / "forged.identity"
    other = json.loads(_record_bytes(make_identity(tmp_path / "mallory")))
    fd = os.open(forged, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, json.dumps({**record, "privateKey": other["privateKey"]}, indent=2).encode())
    os.close(fd)
    refused(forged, f"identity file {forged} is not a valid identity: identity key pair does not match")
    # an audit: the raw private key alone got "read identity record: unexpected trailing JSON"
    for raw in (record["privateKey"], "0" + record["privateKey"], ""):
        bare = tmp_path / "bare.key"
        bare.unlink(missing_ok=True)
        fd = os.open(bare, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, raw.encode() + b"\n")
        os.close(fd)
        refused(bare, f"identity file {bare} is not an identity export: git hn identity import reads the JSON file "
                      "that git hn identity export --output FILE writes in a clone holding the identity (a key "
                      "alone cannot be imported)")
    for err in errors:
        assert record["privateKey"] not in err and other["privateKey"] not in err
    assert not (target / ".git" / "hn" / "identities").exists() or \
        os.listdir(target / ".git" / "hn" / "identities") == []

    # a target with its own active identity keeps it unless --activate
    assert hn(target, "init", "--name", "Target").code == 0
    mine = actor_of(target)
    r = hn(target, "identity", "import", str(export))
    assert r.out.splitlines()[1] == "Active identity unchanged; add --activate to sign with the imported one"
    assert actor_of(target) == mine
    assert hn(target, "identity", "list").out.splitlines() == sorted(
        [f"{a}  stored   Alice Agent", f"{mine}  active   Target"])
    r = hn(target, "identity", "import", str(export), "--activate")
    assert r.out.splitlines()[1] == f"Active identity: {named(a, 'Alice Agent')}"
    assert actor_of(target) == a

    # the same actor with a different name (or key) never replaces the stored record
    renamed = tmp_path / "renamed.identity"
    fd = os.open(renamed, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, json.dumps({**record, "name": "Mallory"}, indent=2).encode())
    os.close(fd)
    refused(renamed, f"identity {a} is already in this keyring with a different name or key; the import "
                     "would replace it, so it is refused")
    assert json.loads(_record_bytes(target))["name"] == "Alice Agent"


def make_identity(path: Path) -> Path:
    repo = make_repo(path)
    assert hn(repo, "init", "--name", "Mallory").code == 0
    return repo


def test_an_empty_recall_in_a_clone_without_a_selection_says_how_to_import(tmp_path):
    """A fresh clone imports no memory until a replication selection is saved; a recall that
    matches nothing there says so (with --json: the brief's header line, f97). Once a selection
    exists, until a sync imports it, recall says that instead (a team trial's fresh clone:
    test_fresh_clone_not_imported)."""
    from git_hn.service.brief import NOT_IMPORTED

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    record_id(alice, content="alice decides")
    assert hn(alice, "sync").code == 0
    r = hn(bob, "memory", "recall")
    assert r.code == 0 and r.err == _hint(
        "nothing matched; no replication selection is saved here, so a fetch imports no memory; choose "
        "what to import with git hn replication select --all (or --memory sha256:<stream>), then git hn sync")
    assert hn(bob, "memory", "recall", "--json").err == _hint(NOT_IMPORTED[:1].lower() + NOT_IMPORTED[1:])
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "memory", "recall").err == _hint(
        "nothing is imported from origin yet, though its replication selection is saved: git hn sync origin "
        "imports what it selects (a git fetch imports only when it moves a branch)")
    assert hn(bob, "sync").code == 0
    assert "nothing is imported" not in hn(bob, "memory", "recall").err
    assert hn(bob, "memory", "recall", "--include-untrusted").out.count("alice decides") == 1


def test_policy_show_names_trusted_actors_on_a_terminal_only(tmp_path):
    """On a terminal each trusted actor known here is followed by its name (inert: a direction
    override in a name is escaped); a pipe keeps the contract's lines, byte for byte."""
    from helpers import on_terminal

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob\u202e")
    record_id(bob, content="bob decides")
    assert hn(bob, "sync").code == 0 and hn(alice, "replication", "select", "--all").code == 0
    assert hn(alice, "sync").code == 0
    assert hn(alice, "policy", "init").code == 0
    assert hn(alice, "policy", "trust", actor_of(bob)).code == 0
    _commit(alice)
    piped = hn(alice, "policy", "show").out.splitlines()
    assert f"trustedActor: {actor_of(alice)}" in piped and f"trustedActor: {actor_of(bob)}" in piped
    shown = on_terminal(alice, ["git", "hn", "policy", "show"], 200, {}).splitlines()
    assert f"trustedActor: {actor_of(alice)}  Alice" in shown
    bob_line = next(line for line in shown if actor_of(bob) in line)
    assert bob_line == f"trustedActor: {actor_of(bob)}  Bob\\u{{202e}}"  # an override, shown inert
    assert [line.split("  ")[0] for line in shown] == piped
    # 80 columns (a trial: "<64 hex>  Bob" wrapped, and "Bob" alone on the next line read as
    # another entry): a named actor is shown by its short ID, then its name; the piped lines stay
    narrow = on_terminal(alice, ["git", "hn", "policy", "show"], 80, {}).splitlines()
    assert f"trustedActor: {named(actor_of(alice), 'Alice')}" in narrow
    assert f'trustedActor: {actor_of(bob)[:12]} ("Bob\\u{{202e}}", a self-chosen name)' in narrow
    assert all(len(line) <= 80 for line in narrow if line.startswith("trustedActor: ")), narrow
    assert [line for line in narrow if not line.startswith("trustedActor: ")] == \
        [line for line in piped if not line.startswith("trustedActor: ")]
    assert hn(alice, "policy", "show").out.splitlines() == piped


def test_policy_show_says_an_uppercase_trusted_actor_never_matches(inited):
    """§6.3: an uppercase entry validates but never matches (actor IDs are lowercase); a
    hand-edited policy like that trusted no one, silently."""
    a = actor_of(inited)
    record_id(inited, content="mine")
    path = _policy_file(inited)
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"version": "hn.policy/0", "maintainers": [a], "proposals": {"requiredAccepts": 1},
                                "memory": {"trustedActors": [a.upper()], "trustedKinds": ["decision"]}}))
    _commit(inited)
    r = hn(inited, "policy", "show")
    assert r.code == 0 and f"trustedActor: {a.upper()}" in r.out.splitlines()
    maintainers = _hint(f"maintainers in this policy (whom to ask for trust): {named(a, 'Alice Agent')}")
    assert r.err == maintainers + _hint(f"1 trusted actor with uppercase hex never matches an actor (IDs are "
                                        f"lowercase), such as {a.upper()[:12]}…: write it in lowercase, or use git hn "
                                        "policy trust")
    assert _recall_ids(inited) == []  # as the hint says
    assert hn(inited, "policy", "show", "--json").err == maintainers


def test_identity_use_switches_between_the_keyrings_identities(tmp_path):
    """After ``identity import --activate`` there was no way back to the clone's own identity
    but editing ``hn/active`` by hand; ``identity use`` takes a name, a prefix or an ID, among
    this keyring's identities only, and changes nothing when it cannot say which."""
    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    key = tmp_path / "alice.id"
    assert hn(alice, "identity", "export", "--output", str(key)).code == 0
    assert hn(bob, "identity", "import", str(key), "--activate").code == 0
    active = bob / ".git" / "hn" / "active"
    assert active.read_text() == actor_of(alice) + "\n"
    r = hn(bob, "identity", "use", "bob")
    assert (r.code, r.err) == (0, "") and r.out.startswith(f'Active identity: {actor_of(bob)[:12]} ("Bob", ')
    bob_actor = active.read_text().strip()
    assert bob_actor != actor_of(alice)
    assert hn(bob, "identity", "use", "BOB").out.startswith(f'Unchanged: {bob_actor[:12]} ("Bob", ')
    assert record_id(bob, content="signed by bob again") and actor_of(bob) == bob_actor
    assert hn(bob, "identity", "use", actor_of(alice)[:10]).out.startswith(
        f'Active identity: {named(actor_of(alice), "Alice")}')
    before = active.read_bytes()
    for args, message in [
        (["carol"], "no identity of this keyring matches carol (it holds: "),
        (["1234567"], "actor prefix 1234567 is shorter than 8 hex characters"),
        (["f" * 64], f"no identity of actor {'f' * 64} is in this keyring; import it with git hn identity import FILE"),
        ([], "missing ACTOR (git hn identity list shows them); usage: git hn identity use ACTOR"),
    ]:
        r = hn(bob, "identity", "use", *args)
        assert r.code != 0 and r.err.startswith("git-hn: " + message), r.err
        assert active.read_bytes() == before
    # with a linked worktree, a switch says it is the repository's, not the worktree's
    git(bob, "worktree", "add", "-q", str(tmp_path / "bob-wt"))
    r = hn(tmp_path / "bob-wt", "identity", "use", "bob")
    assert r.code == 0 and r.err == ("git-hn: hint: every worktree of this repository signs with it (2 of them): "
                                     "the active identity is the repository's, not the worktree's\n"), r.err
    assert active.read_text().strip() == bob_actor


def _private_file(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, data)
    os.close(fd)


def test_identity_export_refuses_every_working_tree_of_the_repository(tmp_path):
    """An identity auditor's cases: run from inside ``.git`` (no working tree there), from a bare
    repository with a linked worktree, or aimed at a sibling linked worktree, the export wrote the
    private key where ``git add -A`` publishes it."""
    a = make_repo(tmp_path / "a")
    assert hn(a, "init", "--name", "Alice").code == 0
    r = hn(a / ".git", "identity", "export", "--output", "../leak.json")
    assert r.code == 1 and "would be inside the working tree" in r.err and not (a / "leak.json").exists(), r.err
    wt = tmp_path / "wt"
    git(a, "worktree", "add", "-q", str(wt))
    r = hn(a, "identity", "export", "--output", str(wt / "k.json"))
    assert r.code == 1 and "would be inside the working tree" in r.err and not (wt / "k.json").exists(), r.err
    bare = tmp_path / "b.git"
    git(tmp_path, "clone", "-q", "--bare", str(a), str(bare))
    bwt = tmp_path / "bwt"
    git(bare, "worktree", "add", "-q", str(bwt), "main")
    assert hn(bare, "init", "--name", "Bare").code == 0
    r = hn(bare, "identity", "export", "--output", str(bwt / "k.json"))
    assert r.code == 1 and "would be inside the working tree" in r.err and not (bwt / "k.json").exists(), r.err
    assert hn(bare, "identity", "export", "--output", str(tmp_path / "outside.json")).code == 0


def test_identity_errors_and_names_never_show_the_private_key(inited, tmp_path):
    """A duplicate field named by the key itself was quoted whole (unknown fields are hidden);
    a name holding its own private key was imported and printed by every identity command."""
    export = tmp_path / "alice.identity"
    assert hn(inited, "identity", "export", "--output", str(export)).code == 0
    record = json.loads(export.read_text())
    key = record["privateKey"]
    dup = tmp_path / "dup.identity"
    _private_file(dup, ('{"version":1,"%s":1,"%s":2}' % (key, key)).encode())
    target = make_repo(tmp_path / "target")
    r = hn(target, "identity", "import", str(dup))
    assert r.code == 1 and key not in r.err and key[:20] not in r.err, r.err
    assert 'duplicate JSON field "<86 characters, not shown>"' in r.err, r.err
    named = tmp_path / "named.identity"
    _private_file(named, json.dumps({**record, "name": key}).encode())
    r = hn(target, "identity", "import", str(named))
    assert (r.code, r.out) == (1, ""), r.out
    assert r.err == ("git-hn: identity name holds the identity's own private key; it is not imported (name "
                     "it anew in a copy of the file)\n")
    assert not (target / ".git" / "hn" / "identities").exists() or \
        os.listdir(target / ".git" / "hn" / "identities") == []


def test_a_damaged_identity_record_is_put_back_by_importing_its_export(inited, tmp_path):
    """The damaged-record error advises importing an export with ``--activate``; that import
    failed with the same error (it read the damaged record first), and with the record removed,
    with "active identity record … is missing"."""
    a = actor_of(inited)
    export = tmp_path / "alice.identity"
    assert hn(inited, "identity", "export", "--output", str(export)).code == 0
    good = _record_bytes(inited)
    path = inited / ".git" / "hn" / "identities" / f"{a}.json"
    path.write_bytes(b'{"version":1')
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", "x")
    assert r.code == 1 and "git hn identity import FILE --activate" in r.err, r.err
    r = hn(inited, "identity", "import", str(export), "--activate")
    assert r.code == 0, r.err
    assert path.read_bytes() == good and stat.S_IMODE(path.stat().st_mode) == 0o600
    path.unlink()
    r = hn(inited, "identity", "show")
    assert r.code == 1 and "is missing; put back a copy made with git hn identity export" in r.err, r.err
    assert hn(inited, "identity", "import", str(export), "--activate").code == 0
    assert path.read_bytes() == good and actor_of(inited) == a


def test_a_lost_key_without_a_copy_is_told_how_to_sign_again(inited):
    """A trial: with the active identity's record removed and no export, ``init``, ``identity
    public`` and ``record`` said only to put back a copy, and ``identity list`` printed nothing.
    Each says the way without a copy (the command, pasted, makes a new identity), and the list
    says the active one is missing."""
    a = actor_of(inited)
    (inited / ".git" / "hn" / "identities" / f"{a}.json").unlink()
    active = inited / ".git" / "hn" / "active"
    way = f"or, with no copy, make a new identity: rm {active} && git hn init --name NAME (a maintainer then trusts"
    for args in (("init", "--name", "Alice"), ("identity", "public"),
                 ("memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "x")):
        r = hn(inited, *args)
        assert r.code == 1 and f"{a}.json is missing; put back a copy" in r.err and way in r.err, (args, r.err)
    r = hn(inited, "identity", "list")
    assert r.code == 0 and r.out == "" and r.err.startswith("git-hn: warning: active identity record ") \
        and way in r.err and r.err.count("\n") == 1, r
    assert subprocess.run(f"rm {shlex.quote(str(active))} && git hn init --name Alice", shell=True, cwd=inited,
                          capture_output=True).returncode == 0
    r = hn(inited, "identity", "list")
    assert r.err == "" and "  active   Alice" in r.out and actor_of(inited) != a, r


def test_inits_started_together_leave_one_identity_and_say_so(tmp_path):
    """Six ``git hn init`` at once (an identity auditor's case): two printed "Created identity"
    while only one was active, and a refused one left its key in the keyring. Exactly one wins
    now; every other is refused and leaves nothing."""
    import subprocess
    import sys

    repo = make_repo(tmp_path / "r")
    procs = [subprocess.Popen([sys.executable, "-m", "git_hn", "init", "--name", f"N{i}"], cwd=repo,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(6)]
    results = [(p.wait(timeout=120), p.stdout.read().decode(), p.stderr.read().decode()) for p in procs]
    winners = [r for r in results if r[0] == 0]
    assert len(winners) == 1, results
    for code, out, err in results:
        if code != 0:
            assert out == "" and err.startswith("git-hn: identity already exists at "), (out, err)
    records = os.listdir(repo / ".git" / "hn" / "identities")
    assert records == [f"{actor_of(repo)}.json"], records
    assert f"({actor_of(repo)[:12]})" in winners[0][1] or actor_of(repo) in winners[0][1], winners[0][1]


def test_policy_edits_at_once_take_turns_and_none_is_lost(inited):
    """A race auditor's case: six ``policy untrust --kind`` at once: most failed with "changed
    while git hn was editing it", and some said they were done while their kind stayed trusted
    (the check and the rename of one edit let another's write in between). They take turns."""
    import subprocess
    import sys

    assert hn(inited, "policy", "init").code == 0
    assert hn(inited, "policy", "trust", *[x for k in KINDS for x in ("--kind", k)]).code == 0
    procs = [subprocess.Popen([sys.executable, "-m", "git_hn", "policy", "untrust", "--kind", k], cwd=inited,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for k in KINDS]
    results = [(p.wait(timeout=120), p.stderr.read().decode()) for p in procs]
    assert all(code == 0 for code, _err in results), results
    doc = json.loads(_policy_file(inited).read_text())
    assert doc["memory"].get("trustedKinds", []) == []


def test_the_hint_for_an_older_commit_than_the_committed_policy(inited):
    """A review's case: with the policy committed at HEAD, ``recall --at HEAD~1`` (no policy there)
    said the working tree's policy "takes effect once it is committed"; it is."""
    record_id(inited, content="before any policy")
    assert hn(inited, "policy", "init").code == 0
    _commit(inited)
    r = hn(inited, "memory", "recall", "--at", "HEAD~1")
    assert r.err == _hint("1 memory hidden: no memory trust policy at this commit; see it with "
                          "--include-untrusted; .hn/policy.json is committed at HEAD but not at the commit asked about")


def test_an_author_the_policy_does_not_trust_is_told_at_write_time(team):
    """A trial's case: an untrusted author's record, handoff and supersede succeeded without a
    word, and the next brief left them out. Each write now says so, with what a maintainer runs;
    a qualified write, a retraction and a challenge (which take effect whatever their author's
    trust) say nothing of it."""
    alice, bob, _exchange = team
    b = actor_of(bob)  # (in full: a maintainer who has not fetched Bob's memory knows no prefix of it)
    start = "git-hn: hint: memory signed, but recall and the brief leave it out (--include-untrusted shows it) " \
            "until the trust policy trusts it: "
    missing = start + ("HEAD has no memory trust policy; a maintainer runs git hn policy init (which trusts "
                       f"whoever runs it; git hn policy trust {b} adds this actor when another runs it) and "
                       "commits .hn/policy.json\n")
    r = hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "use the new parser")
    assert r.code == 0 and _unwaited(r.err) == missing
    r = hn(bob, "memory", "handoff", "--json", "--at", "HEAD", "--applies", "descendants", "--content", "stopped")
    # (--json too: an agent reads stderr of a write; said again within ten minutes, shorter: store.hints_said)
    again = ("git-hn: hint: memory signed, still left out of recall and the brief: HEAD has no memory trust policy "
             "(a maintainer runs git hn policy init; said in full ")
    assert r.code == 0 and _unwaited(r.err).startswith(again) and r.err.endswith(" ago)\n"), r.err

    assert hn(alice, "policy", "init").code == 0
    _commit(alice)
    git(bob, "pull", "-q", "--no-rebase", str(alice), "main")
    untrusted = start + (f"the policy at HEAD does not trust actor {b[:12]}; a maintainer runs git hn policy trust "
                         f"{b} and commits .hn/policy.json\n")
    r = hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "keep the index canonical")
    assert r.code == 0 and _unwaited(r.err) == untrusted  # (another policy state: in full again)
    mine = r.out.split()[1]
    r = hn(bob, "memory", "supersede", mine, "--content", "keep the index sorted")
    # (the record said it in full: the supersede just after it says it shorter)
    assert r.code == 0 and _unwaited(r.err).startswith(
        f"git-hn: hint: memory signed, still left out of recall and the brief: the policy at HEAD does not trust "
        f"actor {b[:12]} (a maintainer runs git hn policy trust {b}; said in full "), r.err
    r = hn(bob, "memory", "retract", r.out.split()[1], "--reason", "incorrect")
    assert r.code == 0 and _unwaited(r.err) == ""

    assert hn(alice, "policy", "trust", b).code == 0
    assert hn(alice, "policy", "untrust", "--kind", "observation").code == 0
    _commit(alice)
    # (from origin, whose main is then Alice's: a clone behind its origin/main's policy is told of
    # the drift, ``policy_drift``)
    git(bob, "pull", "-q", "--no-rebase", "origin", "main")
    r = hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "trusted now")
    assert r.code == 0 and _unwaited(r.err) == ""
    r = hn(bob, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
           "--content", "an observation")
    assert r.code == 0 and _unwaited(r.err) == start + ("the policy at HEAD does not trust kind observation; a maintainer "
                                             "runs git hn policy trust --kind observation and commits "
                                             ".hn/policy.json\n")
    assert _unwaited(hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies",
                        "descendants", "--content", "alice is trusted").err) == ""
    # (bob's merges of alice's policy commits are on no remote-tracking ref, and alice never
    # fetched bob's branches: their writes also say that their publication waits for a push or a
    # fetch, which _unwaited leaves out)


def _unwaited(err: str) -> str:
    return "".join(x for x in err.splitlines(keepends=True) if " waits until commit " not in x)


def test_a_write_hint_says_an_uncommitted_policy_takes_effect_once_committed(inited):
    """A newcomer trial ran policy init, then recorded: the write's hint still said "a maintainer
    runs git hn policy init", while recall's said the file takes effect once it is committed. The
    write's hint now reads the working tree's policy too, and says what it changes."""
    a = actor_of(inited)
    start = "git-hn: hint: memory signed, but recall and the brief leave it out (--include-untrusted shows it) " \
            "until the trust policy trusts it: "

    n = iter(range(100))

    def written(kind="decision") -> str:
        outcome = ["--outcome", "failed"] if kind == "attempt" else []
        # (each its own content: the same record again is a replay, whose hint says it signed nothing)
        r = hn(inited, "memory", "record", "--kind", kind, "--at", "HEAD", "--applies", "descendants",
               *outcome, "--content", f"x{next(n)}")
        assert r.code == 0, r.err
        return r.err

    assert hn(inited, "policy", "init").code == 0
    assert written() == start + ("HEAD has no memory trust policy; .hn/policy.json in the working tree trusts it "
                                 "and takes effect once it is committed\n")
    assert hn(inited, "policy", "untrust", "--kind", "attempt").code == 0
    assert written("attempt") == start + ("HEAD has no memory trust policy; .hn/policy.json in the working tree "
                                          "does not trust it yet: git hn policy trust --kind attempt, then commit it\n")
    _commit(inited)
    assert hn(inited, "policy", "trust", "--kind", "attempt").code == 0  # an edit not committed yet
    assert written("attempt") == start + ("the policy at HEAD does not trust it; .hn/policy.json in the working "
                                          "tree trusts it and takes effect once it is committed\n")
    _policy_file(inited).write_text("{")
    assert written("attempt") == start + ("the policy at HEAD does not trust it; .hn/policy.json in the working "
                                          "tree is invalid: fix it, then commit it\n")
    _policy_file(inited).write_text(json.dumps({"version": "hn.policy/0", "maintainers": [a],
                                                "proposals": {"requiredAccepts": 1}}))
    assert written("attempt") == start + ("the policy at HEAD does not trust it; .hn/policy.json in the working "
                                          f"tree has no memory section yet: git hn policy trust {a} adds one, then "
                                          "commit it\n")


def test_a_non_maintainers_trust_hint_says_what_a_maintainer_runs(team):
    """A trial: Bob, no maintainer of the committed policy, recalled his own memory's hint "or trust
    its author with git hn policy trust <his id>", an edit of a policy he cannot change, where
    ``record`` told him "a maintainer runs … and commits". Recall says it as record does; the
    maintainer is still offered the command."""
    alice, bob, exchange = team
    assert hn(alice, "policy", "init").code == 0
    _commit(alice)
    git(bob, "pull", "-q", "origin", "main")
    b = actor_of(bob)
    r = hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "bob decides")
    runs = f"a maintainer runs git hn policy trust {b} and commits .hn/policy.json"
    assert r.code == 0 and runs in r.err, r.err
    r = hn(bob, "memory", "recall")  # (then the brief's line: Bob's clone imports nothing of Alice's, f97)
    assert r.err.splitlines(True)[0] == _hint(f'1 memory hidden by the trust policy, signed by {named(b, "Bob")}; '
                                              f"see it with --include-untrusted; to trust its author, {runs}"), r.err
    exchange()
    r = hn(alice, "memory", "recall")
    assert r.err.endswith(f"or trust its author with git hn policy trust {b}\n"), r.err


def test_a_full_id_mistyped_after_its_short_id_is_told_apart_from_the_teammate(team):
    """*Mistyped ID* (a newcomer trial, f146): the maintainer trusted the teammate's ID with its
    last digit mistyped; ``policy trust`` said "Trusted 92d5b172086c for …", the teammate's own
    short ID, and the committed policy trusted no one. Another known actor with that short ID
    now makes the lines print the whole ID, and a warning says it is no one known here and how
    to take it out; an ID of no one known here, with no such twin, gets a hint to compare it
    whole with what its owner's ``identity public`` prints. The file is edited as before."""
    alice, bob, exchange = team
    b = actor_of(bob)
    record_id(bob, content="bob decides")
    assert hn(alice, "policy", "init").code == 0
    _commit(alice)
    stranger = "f" * 64
    r = hn(alice, "policy", "trust", stranger)  # (Bob's memory not fetched yet: nothing knows the ID)
    assert r.code == 0 and r.out.splitlines() == [f"Trusted {stranger[:12]} for {', '.join(ALL_KINDS)}", COMMIT_HINT]
    assert r.err == (f"git-hn: hint: no identity or memory here is {stranger[:12]} yet, so nothing here checks that "
                     "ID: before you commit, compare it whole with the Actor: line of that person's git hn identity "
                     "public (git hn sync brings their memory, with the name they sign under)\n")
    git(alice, "checkout", "-q", "--", ".hn/policy.json")
    exchange()
    typo = b[:-1] + ("0" if b[-1] != "0" else "1")
    r = hn(alice, "policy", "trust", typo)
    assert r.code == 0 and r.out.splitlines() == [f"Trusted {typo} for {', '.join(ALL_KINDS)}", COMMIT_HINT]
    assert r.err == (f"git-hn: warning: no identity or memory here is {typo}, yet its short ID is that of "
                     f"{b} (\"Bob\", a self-chosen name): an ID mistyped after its twelfth character trusts no one; "
                     f"compare it whole with the Actor: line of that person's git hn identity public; git hn policy "
                     f"untrust {typo} takes it out\n")  # (the twin whole too, f151: its short ID read as the typo's)
    assert _show_file(alice)["memory"]["trustedActors"] == sorted([actor_of(alice), typo])
    r = hn(alice, "policy", "untrust", typo)
    assert r.code == 0 and r.out.splitlines()[0] == f"Untrusted {typo}" and r.err == ""
    r = hn(alice, "policy", "trust", b)  # (the teammate, known by the name they sign under: no warning)
    assert r.code == 0 and r.out.splitlines()[0] == f"Trusted {named(b, 'Bob')} for {', '.join(ALL_KINDS)}"
    assert r.err == ""


def test_the_mistyped_id_warning_shows_each_twin_as_far_as_it_differs_from_the_id_given(inited):
    """*Mistyped ID* (f151): f146's warning printed the ID given whole and the known actor with its
    short ID by that short ID alone, the very twelve digits the two share, so nothing on the line
    told them apart. Each twin now shows the fewest leading digits (never under 12) at which it and
    the ID given differ (``policyedit.distinct_width``): the 21 of an ID mistyped at its 21st."""
    a = actor_of(inited)
    assert hn(inited, "policy", "init").code == 0
    typo = a[:20] + ("0" if a[20] != "0" else "1") + a[21:]
    r = hn(inited, "policy", "trust", typo)
    assert r.code == 0 and r.out.splitlines()[0] == f"Trusted {typo} for {', '.join(ALL_KINDS)}"
    assert r.err == (f"git-hn: warning: no identity or memory here is {typo}, yet its short ID is that of "
                     f'{a[:21]} ("Alice Agent", a self-chosen name): an ID mistyped after its twelfth character trusts '
                     f"no one; compare it whole with the Actor: line of that person's git hn identity public; git hn "
                     f"policy untrust {typo} takes it out\n")
    assert typo in _show_file(inited)["memory"]["trustedActors"]  # (taken as given, as before)


def test_an_ambiguous_prefix_lists_ids_mistyped_after_their_short_id_long_enough_to_tell_apart(inited):
    """*Mistyped ID* (a newcomer trial, f146): with an ID mistyped in its last digit in the policy,
    ``policy trust`` and ``untrust`` of a prefix of both refused with ``(92d5b172086c,
    92d5b172086c ("Nico New", …))``, two IDs that read the same. Each listed ID now shows as many
    digits as it takes to tell them all apart (here, all 64); the file is left as it was."""
    a = actor_of(inited)
    assert hn(inited, "policy", "init").code == 0
    typo = a[:-1] + ("0" if a[-1] != "0" else "1")
    assert hn(inited, "policy", "trust", typo).code == 0
    before = _policy_file(inited).read_bytes()
    pair = ", ".join(x if x == typo else f'{x} ("Alice Agent", a self-chosen name)' for x in sorted([a, typo]))
    for verb, prefix in (("trust", a[:63]), ("untrust", a[:20])):
        r = hn(inited, "policy", verb, prefix)
        assert (r.code, r.err) == (1, f"git-hn: actor {prefix} is ambiguous: it matches 2 known actors ({pair}); use a "
                                      "longer prefix or the full actor ID\n"), verb
    assert _policy_file(inited).read_bytes() == before


def test_an_ambiguous_list_shows_the_fewest_digits_that_tell_its_ids_apart():
    from git_hn.core.policyedit import Known, distinct_width, resolve_actor

    # two IDs alike in their first 14 digits show 15; a third, apart at 12, shows 15 too (one width)
    known = [Known("abcdef012345" + "67" + "1" * 50, ("One",)), Known("abcdef012345" + "67" + "2" * 50, ()),
             Known("abcdef01" + "9" * 56, ("Three",))]
    with pytest.raises(InputError) as exc:
        resolve_actor("abcdef01", known)
    assert exc.value.message == ("actor abcdef01 is ambiguous: it matches 3 known actors (abcdef0123456"
                                 "72, abcdef012345671 (\"One\", a self-chosen name), abcdef019999999 (\"Three\", "
                                 "a self-chosen name)); use a longer prefix or the full actor ID")
    assert distinct_width(["1" * 64, "2" * 64]) == 12 and distinct_width(["1" * 64, "1" * 63 + "2"]) == 64
    assert distinct_width([]) == 12


def _show_file(repo) -> dict:
    return json.loads(_policy_file(repo).read_text())
