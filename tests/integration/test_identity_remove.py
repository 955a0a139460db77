"""``git hn identity remove`` (git-hn) and the stray identity of a first ``init`` (a team trial:
a clone on a new machine, ``init`` as the README's first step, then ``identity import`` of the
identity used elsewhere; ``--actor Alice`` was ambiguous, and nothing removed the stray).

Real repositories, a real bare remote, real ``git push``/``git hn sync``."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import actor_of, git, hn, make_repo, named


def _keyring(repo: Path) -> dict[str, bytes]:
    hn_dir = repo / ".git" / "hn"
    out = {"active": (hn_dir / "active").read_bytes()}
    for p in sorted((hn_dir / "identities").iterdir()):
        out[p.name] = p.read_bytes()
    return out


def _refused(repo: Path, args: list[str], text: str) -> None:
    before = _keyring(repo)
    r = hn(repo, "identity", "remove", *args)
    assert r.code == 1 and r.out == "", r.out
    assert r.err == f"git-hn: {text}\n", r.err
    assert _keyring(repo) == before  # nothing changed


def _alice_elsewhere(tmp_path: Path) -> tuple[Path, Path, str, str]:
    """A remote, Alice's first clone (one published memory), her export file: (remote, a, key, actor)."""
    remote = tmp_path / "team.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "origin", "main")
    assert hn(a, "init", "--name", "Alice").code == 0
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "signed on the old machine").code == 0
    assert hn(a, "sync").code == 0
    key = tmp_path / "alice-id.json"
    assert hn(a, "identity", "export", "--output", str(key)).code == 0
    return remote, a, str(key), actor_of(a)


def test_a_new_machine_that_ran_init_first_can_use_and_remove_its_stray_identity(tmp_path):
    """The trial's steps: ``init`` (which now says how to move an identity instead), ``identity
    import`` (which now says how to drop the stray), ``identity use``, ``sync``; ``--actor Alice``
    finds Alice's memories (the stray signed nothing, so it is no match), and ``identity remove``
    deletes the stray without a copy: init made it here, no export copied it, it signed nothing."""
    remote, _a, key, alice = _alice_elsewhere(tmp_path)
    git(tmp_path, "clone", "-q", str(remote), str(tmp_path / "b"))
    b = tmp_path / "b"
    made = hn(b, "init", "--name", "Alice")
    stray = actor_of(b)
    assert made.code == 0
    assert made.err == ("git-hn: hint: if you already sign as an identity in another clone or on another machine, use "
                        "it here instead: export it there (git hn identity export --output FILE), run git hn identity "
                        f"import FILE --activate here, then git hn identity remove {stray[:12]} removes this new one, "
                        "which has signed nothing\n")
    imported = hn(b, "identity", "import", key)
    assert imported.code == 0
    assert imported.err == (f"git-hn: hint: the active identity {named(stray, 'Alice')} has signed nothing here: "
                            f"to sign as the imported one, git hn identity use {alice[:12]}, then git hn identity "
                            f"remove {stray[:12]} removes the unused one\n")
    assert hn(b, "identity", "use", alice[:8]).code == 0
    assert hn(b, "replication", "select", "--all").code == 0
    assert hn(b, "sync").code == 0
    full = hn(b, "memory", "recall", "--include-untrusted", "--json", "--actor", alice)
    assert full.code == 0 and full.json()["matched"] == 1
    by_name = hn(b, "memory", "recall", "--include-untrusted", "--json", "--actor", "Alice")
    assert by_name.code == 0, by_name.err
    assert by_name.out == full.out
    removed = hn(b, "identity", "remove", stray[:8])
    assert removed.code == 0, removed.err
    assert removed.out == f"Removed identity {named(stray, 'Alice')}: its private key is deleted from this clone\n"
    assert not (b / ".git" / "hn" / "identities" / f"{stray}.json").exists()
    assert hn(b, "identity", "list").out == f"{alice}  active   Alice\n"
    assert hn(b, "memory", "recall", "--include-untrusted", "--json", "--actor", "Alice").out == full.out


def test_identity_remove_refuses_what_could_lose_a_signers_key_and_changes_nothing(tmp_path):
    """A name (two identities may share one), the active identity, an identity that signed memories
    here, and one imported (it may have signed elsewhere) are refused with one line each, the
    keyring untouched; ``--backup FILE`` keeps a copy (a new 0600 file, or an existing export that
    holds that identity, never another's), and the copy imports back."""
    _remote, a, key, alice = _alice_elsewhere(tmp_path)
    # a: Alice signed here; a second identity, imported, signed nothing here
    other_repo = make_repo(tmp_path / "o")
    assert hn(other_repo, "init", "--name", "Olga").code == 0
    olga = actor_of(other_repo)
    olga_key = tmp_path / "olga-id.json"
    assert hn(other_repo, "identity", "export", "--output", str(olga_key)).code == 0
    assert hn(a, "identity", "import", str(olga_key)).code == 0
    # a third, made here by init (kept on the side), signed nothing: removable as it is
    assert hn(a, "identity", "use", olga[:8]).code == 0
    held = (a / ".git" / "hn" / "active").read_bytes()
    (a / ".git" / "hn" / "active").unlink()
    assert hn(a, "init", "--name", "Stray").code == 0
    stray = actor_of(a)
    (a / ".git" / "hn" / "active").write_bytes(held)  # Olga is active

    _refused(a, ["Alice"], "identity remove takes an identity's actor ID, or a prefix of at least 8 hex digits of "
             "it (never a name, which two identities may share): this keyring holds "
             + ", ".join(named(x, n) for x, n in sorted([(alice, "Alice"), (olga, "Olga"), (stray, "Stray")]))
             + "; nothing was removed")
    _refused(a, [olga[:8]], f"identity {named(olga, 'Olga')} is the active identity: it signs what you record, "
             "so it is not removed; make another one active first (git hn identity use ACTOR); nothing was removed")
    assert hn(a, "identity", "use", alice[:8]).code == 0
    _refused(a, [alice], f"identity {named(alice, 'Alice')} is the active identity: it signs what you record, "
             "so it is not removed; make another one active first (git hn identity use ACTOR); nothing was removed")
    assert hn(a, "identity", "use", olga[:8]).code == 0
    copy = ("and without its private key nobody can add to them or correct them; keep a copy with --backup FILE (a "
            "new file is written as git hn identity export writes one; an existing one must hold this identity); "
            "nothing was removed")
    _refused(a, [alice[:8]], f"identity {named(alice, 'Alice')} is not removed: it signed the 1 memory stream this "
             f"clone holds of it, {copy}")
    _refused(a, ["0" * 8], "no identity of this keyring has an actor ID starting with 00000000 (it holds "
             + ", ".join(named(x, n) for x, n in sorted([(alice, "Alice"), (olga, "Olga"), (stray, "Stray")]))
             + "); nothing was removed")
    # an existing file that holds another identity is no copy of this one
    _refused(a, [alice[:8], "--backup", str(olga_key)], f"--backup: identity file {olga_key} holds identity "
             f"{named(olga, 'Olga')}, not the one to remove; nothing was removed")
    # a new file inside the working tree is refused as an export is
    inside = a / "alice.id"
    _refused(a, [alice[:8], "--backup", str(inside)], f"identity export file {inside} would be inside the working "
             "tree, where a commit could publish the private key; write it outside the repository; nothing was "
             "removed")
    assert not inside.exists()

    backup = tmp_path / "alice-backup.json"
    r = hn(a, "identity", "remove", alice[:8], "--backup", str(backup))
    assert r.code == 0, r.err
    assert r.out == (f"Removed identity {named(alice, 'Alice')}: its private key is deleted from this clone\n"
                     f"A copy is in {backup}: git hn identity import FILE puts it back\n")
    assert oct(os.stat(backup).st_mode & 0o777) == "0o600"
    assert not (a / ".git" / "hn" / "identities" / f"{alice}.json").exists()
    assert hn(a, "identity", "import", str(backup)).code == 0  # it puts the same key back
    assert (a / ".git" / "hn" / "identities" / f"{alice}.json").exists()

    # an identity this clone did not make (imported) may have signed elsewhere: a copy is asked for
    assert hn(a, "identity", "use", alice[:8]).code == 0
    _refused(a, [olga[:8]], f"identity {named(olga, 'Olga')} is not removed: it may have signed memories in another "
             f"clone (only a key git hn init made here that no export copied is known to have signed nothing "
             f"elsewhere), {copy}")
    r = hn(a, "identity", "remove", olga[:8], "--backup", str(olga_key))  # the export it came from
    assert r.code == 0, r.err
    assert r.out.endswith(f"A copy is in {olga_key}: git hn identity import FILE puts it back\n")
    r = hn(a, "identity", "remove", stray[:8])  # made here, never exported, signed nothing
    assert r.code == 0, r.err
    assert hn(a, "identity", "list").out == f"{alice}  active   Alice\n"


def test_an_exported_identity_made_here_is_no_longer_taken_without_a_copy(tmp_path):
    """``init`` made it and it signed nothing, but an export copied the key: it may sign in
    another clone, so removing it asks for a copy."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Kept").code == 0
    made = actor_of(repo)
    assert hn(repo, "identity", "export", "--output", str(tmp_path / "k.json")).code == 0
    (repo / ".git" / "hn" / "active").unlink()
    assert hn(repo, "init", "--name", "Other").code == 0
    r = hn(repo, "identity", "remove", made[:8])
    assert r.code == 1 and "it may have signed memories in another clone" in r.err, r.err
    assert (repo / ".git" / "hn" / "identities" / f"{made}.json").exists()


def test_a_stray_beside_another_actor_of_that_name_keeps_the_name_ambiguous(tmp_path):
    """A name is anyone's to sign with: a stray identity of this clone is left out of the matches
    only when another identity of this keyring matches; beside another actor's memory of that
    name, ``--actor`` stays ambiguous, and the error says which identity is the stray."""
    remote, _a, _key, alice = _alice_elsewhere(tmp_path)
    git(tmp_path, "clone", "-q", str(remote), str(tmp_path / "b"))
    b = tmp_path / "b"
    assert hn(b, "init", "--name", "Alice").code == 0
    stray = actor_of(b)
    assert hn(b, "replication", "select", "--all").code == 0
    assert hn(b, "sync").code == 0
    r = hn(b, "memory", "recall", "--actor", "Alice")
    first, second = sorted([alice, stray])
    assert r.code == 1
    assert r.err == (f"git-hn: invalid actor filter; actor Alice is ambiguous: it matches 2 known actors "
                     f"({named(first, 'Alice')}, {named(second, 'Alice')}); use a longer prefix or the full actor "
                     f"ID ({named(stray, 'Alice')}, your active identity, signed nothing here: to sign as one you use "
                     f"elsewhere instead, git hn identity import FILE --activate, then git hn identity remove "
                     f"{stray[:12]})\n")
