"""What the trust messages tell a maintainer and a newcomer (a team trial, F40), on real
repositories that share memory through a real bare remote with ``git hn sync``:

- ``policy trust NAME`` says the name is its actor's own choice, what to compare before the commit,
  and which other known actors' names look the same (*name squatting*, *homoglyph impersonation*);
- ``policy show`` names the policy's maintainers, whom a newcomer asks for trust;
"""

from __future__ import annotations

from helpers import actor_of, git, hn, init_as, record_id, shared_remote


def _sync(*repos):
    for repo in repos:
        r = hn(repo, "sync")
        assert r.code == 0, r.err


def _team(tmp_path, *names):
    """Alice (who commits the policy) and a clone per other name, every one selecting all streams
    and holding one memory of its own, all synced: the repositories, Alice's first."""
    _remote, repos = shared_remote(tmp_path, "Alice", *names)
    for repo in repos:
        assert hn(repo, "replication", "select", "--all").code == 0
        record_id(repo, kind="observation", content="here")
    _sync(*repos, repos[0])
    return repos


def test_trust_by_name_says_whose_choice_a_name_is_and_names_the_look_alikes(tmp_path):
    """*Name squatting*: a trial's impostor signed as "Carol" before Carol joined, and ``policy trust
    Carol`` trusted the impostor without a word. *Homoglyph impersonation*: a Cyrillic "а" and a
    blank Braille pattern make two more names that look like "Carol" but resolve apart."""
    alice, carol, cyrillic, braille = _team(tmp_path, "Carol", "C\u0430rol", "Carol\u2800")
    c, y, b = actor_of(carol), actor_of(cyrillic), actor_of(braille)
    assert hn(alice, "policy", "init").code == 0

    r = hn(alice, "policy", "trust", "carol")
    assert r.code == 0 and r.out.startswith(f"Trusted Carol ({c[:12]}) for ")
    alikes = ", ".join(text for _a, text in sorted([(b, f"Carol\\u{{2800}} ({b[:12]})"), (y, f"C\u0430rol ({y[:12]})")]))
    assert r.err == (f"git-hn: hint: Carol is a name its actor chose, and anyone can sign under any name: before you "
                     f"commit, compare {c[:12]} with the actor ID that Carol's git hn identity public prints; other "
                     "known actors' names look the same, differing by a letter of another script or an invisible "
                     f"character: {alikes}\n")
    # nothing more to say of an actor named by its ID or a prefix, or already trusted
    for given in (y, b[:10]):
        r = hn(alice, "policy", "trust", given)
        assert (r.code, r.err) == (0, ""), given
    assert hn(alice, "policy", "trust", "Carol").err == ""
    # nor of one's own identity, whose name is one's own
    assert hn(alice, "policy", "untrust", actor_of(alice)).code == 0
    r = hn(alice, "policy", "trust", "Alice")
    assert (r.code, r.err) == (0, ""), r.err
    # the ambiguous name stays refused: a name that folds the same as another is no choice at all
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(tmp_path / "twin"))
    twin = tmp_path / "twin"
    init_as(twin, "CAROL\u200b")
    assert hn(twin, "replication", "select", "--all").code == 0
    record_id(twin, kind="observation", content="a twin")
    _sync(twin, alice)
    r = hn(alice, "policy", "untrust", c)
    assert r.code == 0
    r = hn(alice, "policy", "trust", "Carol")
    assert r.code == 1 and "actor Carol is ambiguous: it matches 2 known actors" in r.err


def test_policy_show_names_the_maintainers_a_newcomer_asks(tmp_path):
    """A newcomer told "a maintainer runs git hn policy trust …" found no command saying who that
    is: ``policy show`` names the policy's maintainers (known here by name, or by short ID) in one
    hint, with ``--json`` too, whose document (CONTRACT §6.6, which has no maintainers) stays as it
    was; the lines stay the contract's."""
    import json

    alice, bob = _team(tmp_path, "Bob")
    a, b, stranger = actor_of(alice), actor_of(bob), "f" * 64
    assert hn(alice, "policy", "init").code == 0
    path = alice / ".hn" / "policy.json"
    doc = json.loads(path.read_text())
    doc["maintainers"] = [a, stranger, b]
    path.write_text(json.dumps(doc, indent=2) + "\n")
    git(alice, "add", ".hn/policy.json")
    git(alice, "commit", "-q", "-m", "Trust policy")
    git(alice, "push", "-q", "origin", "main")
    git(bob, "pull", "-q", "origin", "main")
    hint = f"git-hn: hint: maintainers in this policy (whom to ask for trust): Alice ({a[:12]}), ffffffffffff, Bob ({b[:12]})\n"
    r = hn(bob, "policy", "show")
    assert r.code == 0 and r.err == f"git-hn: hint: trusted actors known here by name: {a[:12]} Alice\n" + hint
    assert [x.split(":")[0] for x in r.out.splitlines()] == ["Policy commit", "Policy digest", "Memory policy",
                                                             "trustedActor", *["trustedKind"] * 6]
    r = hn(bob, "policy", "show", "--json")
    assert list(r.json()) == ["version", "commit", "policyDigest", "memory"]
    assert r.err.endswith(hint)
