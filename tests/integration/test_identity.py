"""Identity commands and the keyring's private-file rules (CONTRACT §2), on real repositories."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from helpers import NO_IDENTITY, actor_of, git, hn, make_repo, named, record_id, refs_snapshot, shared_remote


def _modes(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_init_creates_owner_only_keyring(repo):
    r = hn(repo, "init", "--name", "Alice Agent")
    assert r.code == 0, r.err
    hn_dir = repo / ".git" / "hn"
    actor = (hn_dir / "active").read_text()[:-1]
    record = hn_dir / "identities" / f"{actor}.json"
    assert r.out.splitlines() == [f"Created identity {named(actor, 'Alice Agent')}",
                                  f"Private identity stored in {record}"]
    assert _modes(hn_dir) == 0o700
    assert _modes(hn_dir / "identities") == 0o700
    assert _modes(record) == 0o600
    assert _modes(hn_dir / "active") == 0o600
    assert (hn_dir / "active").read_bytes() == actor.encode() + b"\n"
    doc = json.loads(record.read_text())
    assert list(doc) == ["version", "actor", "name", "publicKey", "privateKey", "lifecycle"]
    assert doc["version"] == 1 and doc["lifecycle"] == "available" and doc["name"] == "Alice Agent"
    assert len(doc["publicKey"]) == 43 and len(doc["privateKey"]) == 86
    # MarshalIndent layout: two-space indent and a final newline
    assert record.read_text().startswith('{\n  "version": 1,\n  "actor": "')
    assert record.read_text().endswith('"lifecycle": "available"\n}\n')


def test_init_twice_refuses_and_keeps_keys(inited):
    hn_dir = inited / ".git" / "hn"
    actor = (hn_dir / "active").read_text()[:-1]
    before = (hn_dir / "identities" / f"{actor}.json").read_bytes()
    r = hn(inited, "init", "--name", "Other")
    assert r.code == 1
    assert r.err == (f"git-hn: identity already exists at {hn_dir / 'identities' / (actor + '.json')}; "
                     "git hn identity show prints it; to sign as someone else (an agent), run git hn init --name "
                     "NAME in a clone of its own; git hn identity use ACTOR switches to an identity this keyring "
                     "holds\n")
    assert (hn_dir / "identities" / f"{actor}.json").read_bytes() == before
    assert len(os.listdir(hn_dir / "identities")) == 1


def test_init_name_falls_back_to_git_config_and_none_is_refused_before_anything_is_made(repo, tmp_path):
    # a blank --name is refused, not replaced by user.name (a script's unset "$NAME"; docs/decisions.md)
    r = hn(repo, "init", "--name", "   ")
    assert (r.code, r.err) == (1, "git-hn: identity name cannot be signed: it holds control characters or no "
                                  "visible text; choose another with --name NAME\n")
    r = hn(repo, "init")
    assert r.code == 0
    assert '("Test User", a self-chosen name)' in r.out and r.err == ""  # named by Git: no hint
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", str(other))
    git(other, "config", "user.name", " ")
    # a newcomer trial signed as "anonymous" and was then told to rm its private key files
    for args in ([],):
        r = hn(other, "init", *args)
        assert (r.code, r.out, r.err) == (1, "", "git-hn: git hn init needs a name to sign with, and none was given: "
                                                 "git hn init --name NAME, or set git config user.name; the name is "
                                                 "signed into every memory you record; nothing was created\n")
        assert not (other / ".git" / "hn" / "identities").exists()
    # an identity named "anonymous" (by an earlier git-hn) still says how to replace it
    first = hn(other, "init", "--name", "anonymous")
    path = first.out.splitlines()[1].removeprefix("Private identity stored in ")
    again = hn(other, "init", "--name", "Chosen")
    assert again.code == 1 and 'it is named "anonymous" (no name was given then): if it signed nothing yet' in again.err
    # the command it gives replaces it (nothing was signed with it yet)
    for doomed in again.err.split("rm ", 1)[1].split(" && ")[0].split():
        Path(doomed).unlink()
    assert path in again.err
    named = hn(other, "init", "--name", "Chosen")
    assert named.code == 0 and '("Chosen", a self-chosen name)' in named.out and named.err == ""


def test_init_positional_is_usage_error(repo):
    r = hn(repo, "init", "extra")
    assert (r.code, r.err) == (1, 'git-hn: usage: git hn init [--name NAME]; unexpected argument "extra"\n')
    assert not (repo / ".git" / "hn").exists()


def test_identity_show_public_list(inited):
    actor = (inited / ".git" / "hn" / "active").read_text()[:-1]
    doc = json.loads((inited / ".git" / "hn" / "identities" / f"{actor}.json").read_text())
    assert hn(inited, "identity", "show").out.splitlines() == [
        "Name:   Alice Agent", f"Actor:  {actor}", f"Ref:    refs/hn/actors/{actor}"]
    assert hn(inited, "identity", "public").out.splitlines() == [
        "Name:       Alice Agent", f"Actor:      {actor}", f"Public key: {doc['publicKey']}"]
    assert hn(inited, "identity", "list").out == f"{actor}  active   Alice Agent\n"
    # git-hn never creates the collaboration ref named by the Ref: line
    assert "refs/hn/actors" not in refs_snapshot(inited)


def test_the_manual_says_the_ref_line_is_printed_only_off_a_terminal(inited):
    """An audit: git-hn(1) said ``identity show`` prints a ``Ref:`` line, which it does only when
    its output is not a terminal; on one it shows the name and the short and full actor IDs."""
    import sys

    from git_hn import docgen
    from helpers import on_terminal

    actor = (inited / ".git" / "hn" / "active").read_text()[:-1]
    assert f"Ref:    refs/hn/actors/{actor}" in hn(inited, "identity", "show").out
    shown = on_terminal(inited, [sys.executable, "-m", "git_hn", "identity", "show", "--no-color"], 100, {})
    assert "Ref" not in shown and "Full actor" in shown and actor in shown
    prose = " ".join(docgen.pages()["git-hn.1"].split(".SH DESCRIPTION", 1)[1].split(".SH ", 1)[0].split())
    assert "When its output is not a terminal (a pipe, a script), .B git hn identity show prints a .B Ref:" in prose
    assert "On a terminal it shows the name, the short actor ID and the full one instead." in prose


def test_identity_usage_and_unknown(inited):
    assert hn(inited, "identity").err == ("git-hn: usage: git hn identity <show|list|public>; missing the identity "
                                          "command (git hn identity -h also lists export, import, remove, use)\n")
    assert hn(inited, "identity", "rotate").err == \
        'git-hn: unknown identity command "rotate"; git hn identity -h lists them\n'
    assert hn(inited, "identity", "show", "x").err == 'git-hn: usage: git hn identity show; unexpected argument "x"\n'


def test_list_without_keyring_prints_nothing(repo):
    r = hn(repo, "identity", "list")
    assert (r.code, r.out, r.err) == (0, "", "")


def test_no_identity_refuses_and_writes_nothing(repo):
    before = refs_snapshot(repo)
    r = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", "x")
    assert (r.code, r.err) == (1, NO_IDENTITY)
    assert refs_snapshot(repo) == before
    assert hn(repo, "identity", "show").err == NO_IDENTITY


def test_key_file_with_group_permissions_is_refused(inited):
    hn_dir = inited / ".git" / "hn"
    actor = (hn_dir / "active").read_text()[:-1]
    key = hn_dir / "identities" / f"{actor}.json"
    os.chmod(key, 0o640)
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", "x")
    assert r.err == (f"git-hn: private identity file {key} has unsafe permissions; it must be closed to group "
                     f"and others (mode 0600, or 0400 read-only; it has 0640): chmod 600 {key}\n")
    assert refs_snapshot(inited) == before


def test_symlinked_keyring_directory_is_refused(repo, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    os.symlink(elsewhere, repo / ".git" / "hn")
    r = hn(repo, "init", "--name", "x")
    assert r.err == f"git-hn: private identity directory {repo / '.git' / 'hn'} is a symbolic link\n"
    assert os.listdir(elsewhere) == []


def test_symlinked_key_file_is_refused(inited, tmp_path):
    hn_dir = inited / ".git" / "hn"
    actor = (hn_dir / "active").read_text()[:-1]
    key = hn_dir / "identities" / f"{actor}.json"
    target = tmp_path / "stolen.json"
    target.write_bytes(key.read_bytes())
    os.chmod(target, 0o600)
    key.unlink()
    os.symlink(target, key)
    r = hn(inited, "identity", "show")
    assert r.err == f"git-hn: private identity file {key} is a symbolic link\n"


def test_strict_identity_record(inited):
    hn_dir = inited / ".git" / "hn"
    actor = (hn_dir / "active").read_text()[:-1]
    key = hn_dir / "identities" / f"{actor}.json"
    good = key.read_bytes()
    doc = json.loads(good)
    cases = [
        (good[:-1] + b'{}\n', "read identity record: unexpected trailing JSON"),
        (json.dumps({**doc, "extra": 1}).encode(), 'read identity record: json: unknown field "extra"'),
        (json.dumps({**doc, "version": 2}).encode(), "unsupported identity record version 2"),
        (json.dumps({**doc, "lifecycle": "retired"}).encode(),
         'unsupported local identity lifecycle "retired"'),
        # key material pasted where a word belongs is never echoed (errors name the check)
        (json.dumps({**doc, "lifecycle": doc["privateKey"]}).encode(),
         f'unsupported local identity lifecycle "<{len(doc["privateKey"])} characters, not shown>"'),
        (json.dumps({**doc, doc["privateKey"]: 1}).encode(),
         f'read identity record: json: unknown field "<{len(doc["privateKey"])} characters, not shown>"'),
        (json.dumps({**doc, "actor": "0" * 64}).encode(), "identity record actor does not match its path"),
        (json.dumps({**doc, "publicKey": doc["publicKey"] + "="}).encode(),
         "identity has an invalid public key"),
    ]
    fix = (f", in {key}: the file was edited or damaged; put back a copy made with git hn identity export "
           "(git hn identity import FILE --activate)")
    for data, message in cases:
        key.write_bytes(data)
        os.chmod(key, 0o600)
        r = hn(inited, "identity", "show")
        assert r.err == f"git-hn: {message}{fix}\n", data
    # a private key whose seed does not derive the public key (git-hn hardening, §2.3)
    from git_hn.core.keys import b64_decode_go, b64_encode

    priv = b64_decode_go(doc["privateKey"])
    forged = b64_encode(bytes(32) + priv[32:])
    key.write_bytes(json.dumps({**doc, "privateKey": forged}).encode())
    assert hn(inited, "identity", "show").err == f"git-hn: identity key pair does not match{fix}\n"


def test_invalid_active_file(inited):
    active = inited / ".git" / "hn" / "active"
    active.write_text("not-a-fingerprint\n")
    assert hn(inited, "identity", "show").err == \
        (f"git-hn: active identity contains an invalid actor fingerprint; {active} only names the identity in use: "
         f"remove it (rm {active}), then git hn identity use ACTOR picks one of this keyring's (git hn identity "
         "list lists them)\n")


def test_legacy_single_identity_file_is_migrated(inited):
    hn_dir = inited / ".git" / "hn"
    actor = (hn_dir / "active").read_text()[:-1]
    record = json.loads((hn_dir / "identities" / f"{actor}.json").read_text())
    legacy = {k: record[k] for k in ("actor", "name", "publicKey", "privateKey")}
    (hn_dir / "active").unlink()
    (hn_dir / "identities" / f"{actor}.json").unlink()
    (hn_dir / "identity.json").write_text(json.dumps(legacy))
    os.chmod(hn_dir / "identity.json", 0o600)
    r = hn(inited, "identity", "show")
    assert r.code == 0, r.err
    assert f"Actor:  {actor}" in r.out
    assert (hn_dir / "active").read_text() == actor + "\n"
    assert json.loads((hn_dir / "identities" / f"{actor}.json").read_text()) == record


@pytest.mark.parametrize("name,why", [("A\x1bB", "it holds control characters or no visible text"),
                                      ("tab\there", "it holds control characters or no visible text"),
                                      ("x" * 257, "it is longer than 256 bytes")])
def test_init_refuses_a_name_no_envelope_could_carry(repo, name, why):
    """§2.6 says such a name makes every later append fail with `memory actorName is invalid`;
    git-hn refuses it at init, where the cause is in view, and writes nothing."""
    before = sorted(p.name for p in (repo / ".git").iterdir())
    r = hn(repo, "init", "--name", name)
    assert (r.code, r.out) == (1, "")
    assert r.err == f"git-hn: identity name cannot be signed: {why}; choose another with --name NAME\n"
    assert sorted(p.name for p in (repo / ".git").iterdir()) == before  # no keyring, no .git/hn
    assert hn(repo, "init", "--name", "x" * 256).code == 0  # the bound itself is fine


@pytest.mark.parametrize("name", ["Eve\u202eexe.txt", "A\u2066B", "rtl\u200fmark", "\u061cx"])
def test_init_refuses_a_name_with_a_direction_control(repo, name):
    """A newcomer trial's U+202E was accepted while control characters were refused: a direction
    control reorders the name and the text beside it (*Trojan Source*), signed for good. Refused
    before anything is made, from --name and from git config user.name alike."""
    refusal = ("git-hn: identity name is refused: it holds a direction control (U+202A-U+202E, U+2066-U+2069, "
               "U+200E, U+200F or U+061C), which reorders how it and the text beside it read; choose another "
               "with --name NAME\n")
    r = hn(repo, "init", "--name", name)
    assert (r.code, r.out, r.err) == (1, "", refusal)
    assert not (repo / ".git" / "hn").exists()  # (an audit: nothing private made, no cache either)
    git(repo, "config", "user.name", name)
    assert hn(repo, "init").err == refusal
    assert not (repo / ".git" / "hn" / "identities").exists()
    assert hn(repo, "init", "--name", "Zoë \u05e9\u05dc\u05d5\u05dd").code == 0  # right-to-left letters are names


# synthetic credentials, made when the tests run (none is a literal in the repository)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_SECRET_NAMES = [("ghp_" + "".join(_ALNUM[(7 * i) % 62] for i in range(36)), "github-token"),
                 ("AKIA" + "QW3ERTY7UIOP4ASD", "aws-access-key"),
                 ("-----BEGIN " + "PRIVATE KEY-----", "private-key-block"),
                 ("Bob password=" + "Hunter2secretX", "password-assignment"),
                 ("sk_" + "live_" + "aB3" * 9, "StripeDetector")]  # (the detector library's own)


@pytest.mark.parametrize("name,detector", _SECRET_NAMES, ids=[d for _n, d in _SECRET_NAMES])
def test_init_refuses_a_secret_shaped_name_without_echoing_it(repo, name, detector):
    """A review: ``init --name`` took a GitHub token, an AWS key ID or a private key's first line,
    though the name is signed into every memory and published with it, and ``record`` refuses the
    same text as content (§10.6). Refused before anything is made, from --name and from git config
    user.name alike; the refusal names the detector, never the name (*secret echo*)."""
    refusal = (f"git-hn: identity name is refused: it is secret-shaped ({detector}), and the name is signed into "
               "every memory and published with it; nothing was created; choose another with --name NAME\n")
    r = hn(repo, "init", "--name", name)
    assert (r.code, r.out, r.err) == (1, "", refusal)
    assert not (repo / ".git" / "hn").exists()
    git(repo, "config", "user.name", name)
    r = hn(repo, "init")
    assert (r.code, r.out, r.err) == (1, "", refusal)
    assert not (repo / ".git" / "hn" / "identities").exists()
    assert hn(repo, "init", "--name", "Bob (password rotation owner)").code == 0


def test_import_refuses_an_identity_whose_name_cannot_be_signed(inited, tmp_path):
    out = tmp_path / "me.json"
    assert hn(inited, "identity", "export", "--output", str(out)).code == 0
    record = json.loads(out.read_text())
    record["name"] = "Mallory\x07"
    out.write_text(json.dumps(record))
    out.chmod(0o600)
    other = make_repo(tmp_path / "other")
    r = hn(other, "identity", "import", str(out))
    assert r.code == 1 and r.err == ("git-hn: identity name cannot be signed: it holds control characters or "
                                     "no visible text; no memory could be recorded with this identity, so it "
                                     "is not imported\n")
    keyring = other / ".git" / "hn" / "identities"
    assert not keyring.exists() or not any(keyring.iterdir())


def test_importing_an_identity_to_sign_with_says_to_sync_before_recording(tmp_path):
    """A team trial: the identity imported with --activate recorded at once, before the clone
    had its stream, and the two clones' chains forked. The import says to sync first; doing so,
    the next record continues the stream the remote holds."""
    _remote, (a, b) = shared_remote(tmp_path, "Alice", "Second")
    assert hn(a, "replication", "select", "--all").code == 0 and hn(b, "replication", "select", "--all").code == 0
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "signed in the first clone").code == 0
    assert hn(a, "sync").code == 0
    key = tmp_path / "alice.id"
    assert hn(a, "identity", "export", "--output", str(key)).code == 0
    actor = actor_of(a)
    r = hn(b, "identity", "import", str(key), "--activate")
    assert r.code == 0
    from git_hn.core.grammar import default_stream

    stream = default_stream(actor)
    stray = next(p.stem for p in (b / ".git" / "hn" / "identities").iterdir() if p.stem != actor)  # (b's init)
    assert r.err == (f"git-hn: hint: identity {named(stray, 'Second')} of this keyring has signed nothing here: "
                     f"git hn identity remove {stray[:12]} removes it\n"
                     "git-hn: hint: it may have signed memories in another clone: git hn sync imports them before you "
                     "record here (when the replication selection takes its stream: --all, or --memory "
                     f"{stream}); a memory recorded first forks its stream, which git hn sync --rebase then mends\n")
    assert hn(b, "replication", "select", "--memory", stream).code == 0  # what it says (no --all)
    assert hn(b, "sync").code == 0
    assert hn(b, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "signed in the second clone").code == 0
    synced = hn(b, "sync")
    assert synced.code == 0, synced.out + synced.err
    assert hn(a, "sync").code == 0
    assert hn(a, "memory", "recall", "--include-untrusted", "--json").json()["matched"] == 2


def _killed_write(directory: Path, data: bytes, age: float) -> Path:
    """A private write SIGKILLed between writing its temporary and renaming it into place (the
    real ``write_beside``, in a process that dies where ``place`` would rename), aged ``age`` s."""
    import signal
    import subprocess
    import sys

    from git_hn.store import private

    before = set(os.listdir(directory))
    code = ("import os, signal, sys\nfrom git_hn.store import private\n"
            "private.write_beside(sys.argv[1], private.TEMPORARY, sys.argv[2].encode(), "
            "lambda tmp: os.kill(os.getpid(), signal.SIGKILL), mode=private.FILE_MODE, fsync=True)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(directory), data.decode()])
    assert proc.returncode == -signal.SIGKILL
    (left,) = set(os.listdir(directory)) - before
    path = directory / left
    assert left.startswith(private.TEMPORARY) and _modes(path) == 0o600
    past = path.stat().st_mtime - age
    os.utime(path, (past, past))
    return path


def test_a_killed_keyring_writes_temporary_is_swept(repo):
    """An ``init`` killed mid-write left a ``.hn-private-*`` temporary holding a whole identity
    record, private key included, in ``hn/identities`` (and ``hn`` for ``active``) that no later
    command removed: ``init`` and the identity commands sweep the stale ones, never a younger one
    (a concurrent write's)."""
    from git_hn.store import private

    hn_dir = repo / ".git" / "hn"
    (hn_dir / "identities").mkdir(parents=True, mode=0o700)
    hn_dir.chmod(0o700)
    stale = private.STALE_TEMPORARY + 60
    key = _killed_write(hn_dir / "identities", b'{"privateKey": "..."}', stale)
    active = _killed_write(hn_dir, b"actor\n", stale)
    young = _killed_write(hn_dir / "identities", b'{"privateKey": "..."}', 0)
    assert hn(repo, "init", "--name", "Alice Agent").code == 0
    assert not key.exists() and not active.exists() and young.exists()
    later = _killed_write(hn_dir / "identities", b'{"privateKey": "..."}', stale)
    assert hn(repo, "identity", "list").code == 0
    assert not later.exists() and young.exists()


def test_init_in_a_bare_repository_without_a_remote_warns_it_looks_like_the_server(tmp_path):
    """A newcomer trial: ``git hn init`` inside the team's bare server repository stored a
    private key in the shared remote, silently. It still works (a warning, not a refusal), says
    so in one line, and says how to undo; a bare clone (it has its origin) is left alone."""
    server = tmp_path / "team server.git"  # (a review: the rm -r it gives was not quoted)
    git(tmp_path, "init", "-q", "--bare", str(server))
    r = hn(server, "init", "--name", "X")
    assert r.code == 0 and (server / "hn" / "identities").is_dir(), r.err
    assert r.err == ("git-hn: warning: this is a bare repository with no remote: a server's repository? the private "
                     "key stored here is readable by whoever can read the repository; run git hn init in your "
                     f"clone instead (rm -r '{server / 'hn'}' takes out what it made here)\n"), r.err
    clone = tmp_path / "mirror.git"
    git(tmp_path, "clone", "-q", "--bare", str(server), str(clone))
    r = hn(clone, "init", "--name", "Y")
    assert r.code == 0 and "warning" not in r.err, r.err


def test_import_refuses_a_secret_shaped_name_without_echoing_it(inited, tmp_path):
    """A review (S96): ``init`` refused a secret-shaped name, but an exported identity whose
    ``name`` was a GitHub token was imported and signed into every memory. The import refuses it,
    naming the detector only, and the same file renamed imports the same key."""
    out = tmp_path / "me.json"
    assert hn(inited, "identity", "export", "--output", str(out)).code == 0
    record = json.loads(out.read_text())
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    record["name"] = token
    out.write_text(json.dumps(record))
    out.chmod(0o600)
    other = make_repo(tmp_path / "other")
    r = hn(other, "identity", "import", str(out))
    assert r.code == 1 and token not in r.err + r.out, r
    assert r.err.startswith("git-hn: identity name is refused: it is secret-shaped ("), r.err
    assert r.err.endswith('nothing was imported: name it anew in a copy of the file (its "name" field), which '
                          "imports the same key\n"), r.err
    keyring = other / ".git" / "hn" / "identities"
    assert not keyring.exists() or not any(keyring.iterdir())
    record["name"] = "Alice"
    out.write_text(json.dumps(record))
    assert hn(other, "identity", "import", str(out)).code == 0


def test_an_identity_stored_with_a_secret_shaped_name_signs_nothing(inited, tmp_path):
    """A review (S96 #5): an identity whose name is a GitHub token, stored by a git-hn from before
    ``init`` and ``identity import`` linted names, was signed into every new memory by record,
    supersede, retract, challenge and import without a word. Each append refuses it in one line
    that does not echo the name and changes nothing; the way out it gives (a new identity made
    elsewhere, exported, imported with --activate) records again."""
    from git_hn.core import canonical
    from git_hn.store import identity as identmod
    from git_hn.store import private
    from git_hn.store.repo import open_repo

    kept = record_id(inited, content="signed under a plain name")
    opened = open_repo(str(inited))
    ident = identmod.load_active(opened)
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    private.write_private(opened.hn_dir, opened.identity_path(ident.actor),
                          canonical.indented(identmod.Identity(ident.actor, token, ident.public_key,
                                                              ident.private_key).record_json()))
    drafts = tmp_path / "drafts.jsonl"
    drafts.write_text(json.dumps({"version": 0, "kind": "decision", "content": "imported", "topics": [],
                                  "anchor": {"commit": git(inited, "rev-parse", "HEAD")}, "evidence": [],
                                  "applicability": {"mode": "descendants"}}) + "\n")
    before = refs_snapshot(inited)
    for args in (("record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "x"),
                 ("record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "x",
                  "--allow-secret-shaped"),
                 ("supersede", kept, "--content", "newer"), ("retract", kept, "--reason", "obsolete"),
                 ("challenge", kept, "--reason", "wrong"), ("import", str(drafts)),
                 ("handoff", "--at", "HEAD", "--applies", "descendants", "--content", "h", "--next-action", "n")):
        r = hn(inited, "memory", *args)
        assert r.code == 1 and token not in r.out + r.err and len(r.err.splitlines()) == 1, (args, r.err)
        assert r.err.startswith("git-hn: the active identity's name is secret-shaped (github-token)"), r.err
        assert "nothing was signed" in r.err and "git hn identity import FILE --activate" in r.err, r.err
    assert refs_snapshot(inited) == before
    # the way out it gives
    other = tmp_path / "empty"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    assert hn(other, "init", "--name", "Alice Again").code == 0
    out = tmp_path / "new.json"
    assert hn(other, "identity", "export", "--output", str(out)).code == 0
    assert hn(inited, "identity", "import", str(out), "--activate").code == 0
    assert record_id(inited, content="signed under the new name")


def test_lines_naming_an_identity_withhold_a_secret_shaped_name(inited, tmp_path):
    """A review (S99 #6): with the active identity stored under a GitHub token's shape (by a
    git-hn from before names were linted), ``policy init`` printed ``trusting 9b757cfcb773
    ("ghp_…", a self-chosen name)``. The lines that name an identity of this keyring on their own
    accord (policy init, trust, untrust and show's hints, identity export, use and remove) give
    its short ID and say the name is withheld; ``identity show`` still prints it (accepted:
    docs/decisions.md)."""
    from git_hn.core import canonical
    from git_hn.store import identity as identmod
    from git_hn.store import private
    from git_hn.store.repo import open_repo

    opened = open_repo(str(inited))
    ident = identmod.load_active(opened)
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    private.write_private(opened.hn_dir, opened.identity_path(ident.actor),
                          canonical.indented(identmod.Identity(ident.actor, token, ident.public_key,
                                                              ident.private_key).record_json()))
    short = ident.actor[:12]
    withheld = f"{short} (its name is not repeated here: it looks like a credential)"
    r = hn(inited, "policy", "init")
    assert r.code == 0 and token not in r.out + r.err, r.out + r.err
    assert r.out.startswith(f"Created .hn/policy.json trusting {withheld} for "), r.out
    git(inited, "add", ".hn/policy.json")
    git(inited, "commit", "-q", "-m", "policy")
    for args, code, said in (
            (("policy", "untrust", ident.actor), 0, f"Untrusted {withheld}"),
            (("policy", "trust", short), 0, f"Trusted {withheld} for "),
            (("policy", "trust", short), 0, f"Unchanged: {withheld} is already trusted"),
            (("policy", "show"), 0, f"maintainers in this policy (whom to ask for trust): {short}\n"),
            (("identity", "export", "--output", str(tmp_path / "it.json")), 0, f"Exported identity {withheld} to "),
            (("identity", "use", short), 0, f"Unchanged: {withheld} is already the active identity"),
            (("identity", "use", "nobody-here"), 1, f"(it holds: {withheld})"),
            (("identity", "remove", short), 1, f"identity {withheld} is the active identity")):
        r = hn(inited, *args)
        assert r.code == code and token not in r.out + r.err and said in r.out + r.err, (args, r.out + r.err)
    assert token in hn(inited, "identity", "show").out  # (the keyring's own view: decided)
