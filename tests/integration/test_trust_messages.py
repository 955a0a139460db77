"""What the trust messages tell a maintainer and a newcomer (a team trial, F40), on real
repositories that share memory through a real bare remote with ``git hn sync``:

- ``policy trust NAME`` says the name is its actor's own choice, what to compare before the commit,
  and which other known actors' names look the same (*name squatting*, *homoglyph impersonation*);
- ``policy show`` names the policy's maintainers, whom a newcomer asks for trust;
- after a revocation, the messages about the revoked actor say since which commit, and no longer
  offer to trust it (a ready-made request for whoever holds a stolen key);
- ``init`` in a clone whose policy does not trust the new identity says what to send a maintainer.
"""

from __future__ import annotations

from helpers import actor_of, git, git_processes, hn, init_as, named, record_id, shared_remote


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
    assert r.code == 0 and r.out.startswith(f"Trusted {named(c, 'Carol')} for ")
    alikes = ", ".join(text for _a, text in sorted([(b, f'{b[:12]} ("Carol\\u{{2800}}", a self-chosen name)'),
                                                  (y, f'{y[:12]} ("C\u0430rol", a self-chosen name)')]))
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
    hint = (f"git-hn: hint: maintainers in this policy (whom to ask for trust): {named(a, 'Alice')}, ffffffffffff, "
            f"{named(b, 'Bob')}\n")
    r = hn(bob, "policy", "show")
    assert r.code == 0 and r.err == f"git-hn: hint: trusted actors known here by name: {a[:12]} Alice\n" + hint
    assert [x.split(":")[0] for x in r.out.splitlines()] == ["Policy commit", "Policy digest", "Memory policy",
                                                             "trustedActor", *["trustedKind"] * 6]
    r = hn(bob, "policy", "show", "--json")
    assert list(r.json()) == ["version", "commit", "policyDigest", "memory"]
    assert r.err.endswith(hint)


def _actor_of_json(repo) -> str:
    return hn(repo, "identity", "public", "--json").json()["actor"]


def _commit_policy(repo, message):
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", message)
    git(repo, "push", "-q", "origin", "main")


def test_after_a_revocation_no_message_offers_to_trust_the_revoked_key_again(tmp_path, monkeypatch):
    """A team trial: after Alice untrusted Bob's lost key, recall's hint told her to trust its
    author, and ``identity show`` in Bob's clone (or a thief's) said which command a maintainer
    runs to trust it, a ready-made request to forward. Each now says since which commit, with its
    subject (author text: one line, bounded, invisible characters spelled), and offers no trust;
    an author never trusted (Carol) still gets the offer."""
    alice, bob, carol = _team(tmp_path, "Bob", "Carol")
    b = actor_of(bob)
    record_id(bob, content="deploys on tuesdays")  # (a decision: the digest lists only decisions and handoffs)
    _sync(bob, alice)
    assert hn(alice, "policy", "init").code == 0
    assert hn(alice, "policy", "trust", b).code == 0
    _commit_policy(alice, "Trust Bob")
    trusted_at = git(alice, "rev-parse", "HEAD")
    assert hn(alice, "policy", "untrust", b).code == 0
    subject = "Revoke Bob's key \u202e " + "x" * 80  # (longer than a hint shows, and a direction control)
    _commit_policy(alice, subject)
    revoked_at = git(alice, "rev-parse", "HEAD")
    shown = "Revoke Bob's key \\u{202e} " + "x" * 40 + "…"
    gone = f'actor {b[:12]} is no longer trusted since {revoked_at[:12]} "{shown}"'

    def hint(n, rest=""):
        return f"git-hn: hint: {n} memories hidden by the trust policy; see them with --include-untrusted; {gone}{rest}\n"

    # Bob's two memories and Carol's one: Carol is offered a trust, Bob is not
    r = hn(alice, "memory", "recall")
    assert r.err == hint(3, "; trust the other authors with git hn policy trust ACTOR")
    assert hn(alice, "memory", "recall", "--json").err == r.err
    assert hn(alice, "memory", "recall", "--actor", b).err == hint(2)
    assert hn(alice, "memory", "recall", "--kind", "decision").err == hint(1).replace("1 memories", "1 memory") \
        .replace("see them", "see it")
    assert hn(alice, "memory", "digest").err == hint(1).replace("1 memories", "1 memory").replace("see them", "see it")
    assert hn(alice, "memory", "brief", "--json").err == hint(3, "; trust the other authors with git hn policy trust "
                                                                 "ACTOR")
    assert f"git-hn: hint: of the authors whose memories the brief leaves out for trust, {gone}\n" in \
        hn(alice, "memory", "brief").err
    # an agent's tools say it as the CLI does (``hint``)
    from git_hn.service.mcp_calls import CALLS
    from git_hn.store.repo import open_repo

    told = CALLS["memory_recall"](open_repo(str(alice)), {"actor": [b]})["hint"]
    assert told.startswith(f"2 memories hidden by the trust policy; see them with includeUntrusted: true; {gone}")
    assert "policy trust" not in told
    # at the commit that trusted him, his memories are not hidden; only the policy drift hint says
    # origin/main's policy would not trust them (policy_drift), and nothing offers to trust him
    err = hn(alice, "memory", "recall", "--actor", b, "--at", trusted_at).err
    assert err.startswith(f"git-hn: hint: the policy at commit {trusted_at[:12]} trusts ") and \
        "would be untrusted there" in err and "policy trust" not in err and err.count("\n") == 1, err

    # in Bob's clone (a thief holding the key would see the same): no command to forward
    git(bob, "pull", "-q", "origin", "main")
    r = hn(bob, "identity", "show")
    assert r.err == (f"git-hn: hint: trust: the policy at HEAD ({revoked_at[:12]}) no longer trusts this actor, since "
                     f'{revoked_at[:12]} "{shown}", so default recall and the brief leave its memory out; to sign '
                     "again, make a new identity as README's \"Lost or compromised key\" shows (git hn init in a "
                     "scratch repository, git hn identity export there, git hn identity import FILE --activate "
                     "here), and send a maintainer what its git hn identity public prints\n")
    r = hn(bob, "setup", "claude")
    assert r.code == 0 and r.err == (
        "git-hn: hint: the brief an agent reads at session start shows only memory the committed trust policy trusts, "
        f'and it no longer trusts your identity ({b[:12]}), since {revoked_at[:12]} "{shown}": the agent\'s records '
        "and handoffs will not show in its next brief\n")
    r = hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "deploys on fridays")
    assert r.code == 0
    assert r.err == (f"git-hn: hint: memory signed, but recall and the brief leave it out (--include-untrusted shows "
                     f'it): the policy at HEAD no longer trusts actor {b[:12]}, since {revoked_at[:12]} "{shown}"; '
                     "to sign again, make a new identity as README's \"Lost or compromised key\" shows (git hn init "
                     "in a scratch repository, git hn identity export there, git hn identity import FILE --activate "
                     "here)\n")
    # Carol, never trusted, is still told what a maintainer runs
    git(carol, "pull", "-q", "origin", "main")
    assert f"a maintainer runs git hn policy trust {actor_of(carol)}" in hn(carol, "identity", "show").err

    # the history is read only when such a hint is printed: never on the quiet path
    trace = tmp_path / "trace"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    assert hn(alice, "memory", "recall", "--include-untrusted").err == ""
    assert hn(alice, "memory", "recall", "--actor", actor_of(alice)).err == ""
    def lookups():  # (the revocation lookup's ``git log`` of the policy file; the drift hint's is ``-1``)
        return [a for a in git_processes(trace) if a[:1] == ["log"] and ".hn/policy.json" in a and "-1" not in a]

    assert not lookups()
    assert hn(alice, "memory", "recall", "--actor", b).err == hint(2)
    assert len(lookups()) == 1

def test_init_in_a_clone_whose_policy_does_not_trust_it_says_what_to_send_a_maintainer(tmp_path):
    alice, = _team(tmp_path)
    assert hn(alice, "policy", "init").code == 0
    _commit_policy(alice, "Trust policy")
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(tmp_path / "dave"))
    r = hn(tmp_path / "dave", "init", "--name", "Dave")
    assert r.code == 0
    assert r.err.splitlines()[1:] == [
        "git-hn: hint: the policy at HEAD does not trust this new identity yet, so recall and the brief leave its memory "
        "out: send a maintainer (git hn policy show names them) what git hn identity public prints, for them to trust "
        "its actor ID and commit .hn/policy.json"]
    # with no memory policy at HEAD (identity show says what to do there), or one that trusts it: nothing more
    git(tmp_path, "clone", "-q", str(alice), str(tmp_path / "erin"))
    git(tmp_path / "erin", "reset", "-q", "--hard", "HEAD~1")
    assert len(hn(tmp_path / "erin", "init", "--name", "Erin").err.splitlines()) == 1
