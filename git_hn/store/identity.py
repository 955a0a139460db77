"""The local keyring: identity records and the active identity (CONTRACT §2).

Owns: ``<common-gitdir>/hn/identities/<actor>.json``, ``<common-gitdir>/hn/active``, the
one-way migration of the pre-keyring ``identity.json``, and (git-hn) ``hn/made-here-v0``, the
actors whose only key copy is this keyring (``made_here``). Trusts: nothing on disk until the private
file checks (``private``) and the record checks below pass; a key pair whose seed does not derive
its public key is refused, since it would sign memories that never verify.

The private key never leaves this module except as the seed handed to ``core.keys.sign``; it is
excluded from ``repr`` so that it cannot reach a log or a traceback.
"""

from __future__ import annotations

import os

from ..core import canonical
from ..core.grammar import is_actor
from ..core.keys import actor_of, b64_decode_go, b64_encode, holds_seed, is_weak_public_key, public_key_from_seed
from ..core.strictjson import integer_rule, read_document
from ..errors import ConflictError, HnError, InputError, LocalStateError
from . import private
from .repo import Repo


class Identity:
    """A local signing identity. Immutable; ``repr`` never shows the private key."""

    __slots__ = ("actor", "name", "public_key", "private_key")

    def __init__(self, actor: str, name: str, public_key: str, private_key: str):
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "public_key", public_key)
        object.__setattr__(self, "private_key", private_key)

    def __setattr__(self, name, value):
        raise AttributeError("Identity is immutable")

    def __eq__(self, other) -> bool:
        return isinstance(other, Identity) and all(
            getattr(self, n) == getattr(other, n) for n in self.__slots__)

    __hash__ = None

    def __repr__(self) -> str:
        return f"Identity(actor={self.actor!r}, name={self.name!r})"

    def seed(self) -> bytes:
        return b64_decode_go(self.private_key)[:32]

    def record_json(self) -> dict:
        return {"version": 1, "actor": self.actor, "name": self.name, "publicKey": self.public_key,
                "privateKey": self.private_key, "lifecycle": "available"}


class IdentityExists(InputError):
    """``init`` where an identity is active (``actor``, its record at ``path``): the caller may
    say more when that identity is no longer trusted (``cli.identity_cmd``)."""

    def __init__(self, actor: str, path: str):
        super().__init__(f"identity already exists at {path}; git hn identity show prints it; {SECOND_SIGNER}")
        self.actor, self.path = actor, path


class NoIdentity(InputError):
    def __init__(self):
        # (a newcomer trial: the second command was not quoted as §0.5's first is; both are now,
        # the second after "; " as every addition to the contract's words)
        super().__init__("no identity; run 'git hn init'; or, to sign as one you exported in another clone, run "
                         "'git hn identity import FILE --activate'")


def _read_record(data: bytes, keys: tuple[str, ...]) -> dict:
    try:
        doc = read_document(data, prefix="read identity record: ", max_bytes=65_536,
                            error=LocalStateError, trailing="unexpected trailing JSON", shown=shown_value)
    except LocalStateError:
        raise
    if not isinstance(doc, dict):
        raise LocalStateError("read identity record: json: cannot unmarshal into identity record")
    for key in doc:
        if key not in keys:
            raise LocalStateError(f'read identity record: json: unknown field "{shown_value(key)}"')
    return doc


def shown_value(value: str) -> str:
    """A field name or value from an identity file, as an error may show it: a short word as it
    is (what the contract's messages quote), anything else (a key pasted in the wrong place)
    never: "<N characters, not shown>". Errors name the path and the check, not key material."""
    import re

    if re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", value):
        return value
    return f"<{len(value)} characters, not shown>"


def _text(doc: dict, key: str) -> str:
    value = doc.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LocalStateError(f'read identity record: json: field "{key}" must be a string')
    return value


def check_key_pair(actor: str, public_key: str, private_key: str) -> None:
    pub = b64_decode_go(public_key)
    if pub is None or len(pub) != 32 or b64_encode(pub) != public_key:
        raise LocalStateError("identity has an invalid public key")
    priv = b64_decode_go(private_key)
    if priv is None or len(priv) != 64 or b64_encode(priv) != private_key:
        raise LocalStateError("identity has an invalid private key")
    if actor_of(pub) != actor:
        raise LocalStateError("identity actor does not match its public key")
    if priv[32:] != pub or public_key_from_seed(priv[:32]) != pub:
        raise LocalStateError("identity key pair does not match")
    if is_weak_public_key(pub):
        raise LocalStateError("identity has an invalid public key")


def load_record(repo: Repo, actor: str) -> Identity | None:
    path = repo.identity_path(actor)
    data = private.read_private(repo.hn_dir, path)
    if data is None:
        return None
    try:
        return parse_record(data, actor)
    except LocalStateError as exc:  # (the messages never hold key material: ``shown_value``)
        raise LocalStateError(f"{exc.message}, in {path}: the file was edited or damaged; put back a copy "
                              "made with git hn identity export (git hn identity import FILE --activate)") from None


def parse_record(data: bytes, actor: str | None = None) -> Identity:
    """An identity record's bytes (CONTRACT §2.2, §2.3); ``actor`` is the one its keyring path
    names (None for a record outside the keyring: an export file)."""
    doc = _read_record(data, ("version", "actor", "name", "publicKey", "privateKey", "lifecycle"))
    version = doc.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise LocalStateError(integer_rule('read identity record: json: field "version" must be an integer', version,
                                           1, 1))
    if version != 1:
        raise LocalStateError(f"unsupported identity record version {version}")
    lifecycle = _text(doc, "lifecycle")
    if lifecycle != "available":
        from ..core.gostr import one_line

        raise LocalStateError(f'unsupported local identity lifecycle "{one_line(shown_value(lifecycle))}"')
    ident = Identity(_text(doc, "actor"), _text(doc, "name"), _text(doc, "publicKey"),
                     _text(doc, "privateKey"))
    if actor is not None and ident.actor != actor:
        raise LocalStateError("identity record actor does not match its path")
    if not is_actor(ident.actor):
        raise LocalStateError("identity actor does not match its public key")
    check_key_pair(ident.actor, ident.public_key, ident.private_key)
    return ident


def active_actor(repo: Repo) -> str | None:
    """The active identity's actor as the keyring names it, or None (no identity, or anything
    wrong: ``load_active`` reports that). Reads one small file; checks no key."""
    try:
        return _read_active(repo)
    except (HnError, OSError):
        return None


def _read_active(repo: Repo) -> str | None:
    data = private.read_private(repo.hn_dir, repo.active_path())
    if data is None:
        return None
    text = data.decode("ascii", "replace")
    if not text.endswith("\n") or not is_actor(text[:-1]):
        import shlex  # (error path only)

        # (§2.3's words, then the file and the way out: an audit's garbage file was named nowhere;
        # removed, ``identity use`` and ``list`` work again, and nothing else is lost)
        path = repo.active_path()
        raise LocalStateError(f"active identity contains an invalid actor fingerprint; {path} only names the "
                              f"identity in use: remove it (rm {shlex.quote(path)}), then git hn identity use "
                              "ACTOR picks one of this keyring's (git hn identity list lists them)")
    return text[:-1]


def _store_record(repo: Repo, ident: Identity) -> str:
    path = repo.identity_path(ident.actor)
    existing = load_record(repo, ident.actor)
    if existing is not None:
        if existing != ident:
            raise LocalStateError(f"identity record for actor {ident.actor} already contains "
                                  "different key material or metadata")
        return path
    private.write_private(repo.hn_dir, path, canonical.indented(ident.record_json()))
    return path


class ActiveExists(LocalStateError):
    def __init__(self, actor: str):
        super().__init__(f"active identity already exists for actor {actor}")
        self.actor = actor


def _write_active(repo: Repo, actor: str) -> None:
    """Make ``actor`` active where no identity is: created exclusively, so of two commands racing
    (two ``init``s) one wins and the other gets ``ActiveExists``, never a silent overwrite."""
    current = _read_active(repo)
    if current is None:
        try:
            private.create_private(repo.hn_dir, repo.active_path(), (actor + "\n").encode("ascii"))
            return
        except FileExistsError:
            current = _read_active(repo)
    if current is not None and current != actor:
        raise ActiveExists(current)


def _migrate_legacy(repo: Repo) -> Identity | None:
    data = private.read_private(repo.hn_dir, repo.legacy_identity_path())
    if data is None:
        return None
    doc = _read_record(data, ("actor", "name", "publicKey", "privateKey"))
    ident = Identity(_text(doc, "actor"), _text(doc, "name"), _text(doc, "publicKey"),
                     _text(doc, "privateKey"))
    if not is_actor(ident.actor):
        raise LocalStateError("identity actor does not match its public key")
    check_key_pair(ident.actor, ident.public_key, ident.private_key)
    _store_record(repo, ident)
    _write_active(repo, ident.actor)
    return ident


def load_active(repo: Repo) -> Identity:
    """CONTRACT §2.5."""
    actor = _read_active(repo)
    if actor is not None:
        ident = load_record(repo, actor)
        if ident is None:
            raise LocalStateError(missing_record(repo, actor))
        return ident
    ident = _migrate_legacy(repo)
    if ident is None:
        raise NoIdentity()
    return ident


def missing_record(repo: Repo, actor: str) -> str:
    """The active identity ``actor``'s record is gone (a lost key): a copy put back, or, with none
    (a trial: nothing said how to sign again), a new identity made where the old one was active."""
    import shlex

    return (f"active identity record {repo.identity_path(actor)} is missing; put back a copy made with git hn "
            "identity export (git hn identity import FILE --activate), or, with no copy, make a new identity: rm "
            f"{shlex.quote(repo.active_path())} && git hn init --name NAME (a maintainer then trusts its new ID)")


def lost_active(repo: Repo, rows) -> str:
    """For ``identity list`` (its ``rows``, none of them active): ``missing_record`` when the
    keyring names an active identity whose record is gone, else ""."""
    try:
        actor = _read_active(repo)
    except (HnError, OSError):
        return ""
    return missing_record(repo, actor) if actor and not any(active for _i, active in rows) else ""


def sweep_killed_writes(repo: Repo) -> None:
    """Remove the temporaries of keyring writes a kill interrupted (``.hn-private-*`` in
    ``hn/identities`` and ``hn`` itself: a whole identity record with its private key, mode 0600,
    that nothing else ever removes), once older than ``private.STALE_TEMPORARY`` (a concurrent
    write's are younger). Called where the keyring is written (``init``, ``identity import``,
    ``use``, ``remove``) and by ``identity list``, never on the record/recall path. Best effort:
    an unsafe or absent directory is left to the check that reads it."""
    try:
        if not private.check_dirs(repo.hn_dir, repo.hn_dir):
            return
        private.sweep_temporaries(repo.hn_dir)
        if private.check_dirs(repo.hn_dir, repo.identities_dir()):
            private.sweep_temporaries(repo.identities_dir())
    except LocalStateError:
        return


def create(repo: Repo, name: str | None, library=None) -> tuple[Identity, str]:
    """``git hn init``: generate a key pair, store it, make it active. ``library`` is the secret
    lint's detector library (``core.secretlint.Library``; None: its named detectors only)."""
    sweep_killed_writes(repo)
    try:
        existing = load_active(repo)
    except NoIdentity:
        existing = None
    if existing is not None:
        path = repo.identity_path(existing.actor)
        if existing.name == ANONYMOUS and name and name != ANONYMOUS:  # (a newcomer: init, then init --name)
            raise InputError(f'identity already exists at {path}; it is named "{ANONYMOUS}" (no name was given '
                             f"then): if it signed nothing yet (git hn memory log --actor {existing.actor} lists "
                             f"nothing), {_replace_command(repo, path)}")
        raise IdentityExists(existing.actor, path)
    from ..core.gostr import is_blank

    if name is None:  # (given, a blank name is refused below, not replaced by user.name)
        configured = repo.git.run(["config", "--get", "user.name"]).stdout.decode("utf-8", "replace")
        configured = configured[:-1] if configured.endswith("\n") else configured
        if is_blank(configured):  # (CONTRACT §2.7 falls back to "anonymous": see NO_NAME)
            raise InputError(NO_NAME)
        name = configured
    check_signing_name(name)
    check_name_not_secret(name, library)
    from ..core.invisible import has_direction_control

    if has_direction_control(name):
        # (a newcomer trial's U+202E was accepted: every view spells it as \u{202e}, but the
        # name is signed for good, and a reader elsewhere may show it reordering the line)
        raise InputError("identity name is refused: it holds a direction control (U+202A-U+202E, "
                         "U+2066-U+2069, U+200E, U+200F or U+061C), which reorders how it and the text "
                         "beside it read; choose another with --name NAME")
    while True:
        seed = os.urandom(32)
        pub = public_key_from_seed(seed)
        if not is_weak_public_key(pub):
            break
    ident = Identity(actor_of(pub), name, b64_encode(pub), b64_encode(seed + pub))
    path = _store_record(repo, ident)
    try:
        _write_active(repo, ident.actor)
    except ActiveExists as exc:  # another init won the race: its identity stays, this key goes
        os.unlink(path)
        raise IdentityExists(exc.actor, repo.identity_path(exc.actor)) from None
    note_made_here(repo, ident.actor, True)
    return ident, path


ANONYMOUS = "anonymous"  # the name ``init`` signed with when it was given none and Git had none
# Refused now, before anything is created (a newcomer trial signed as "anonymous", then was told
# to delete private key files): the name is signed into every memory, so it is asked for once.
NO_NAME = ("git hn init needs a name to sign with, and none was given: git hn init --name NAME, or set "
           "git config user.name; the name is signed into every memory you record; nothing was created")
# the way out of a second ``init``: the active identity is the repository's (every worktree
# shares it), so a second signer (an agent beside a person) needs a repository of its own
SECOND_SIGNER = ("to sign as someone else (an agent), run git hn init --name NAME in a clone of its own; "
                 "git hn identity use ACTOR switches to an identity this keyring holds")


def _replace_command(repo: Repo, path: str) -> str:
    """The shell command that replaces the identity stored at ``path`` (paths quoted for a shell:
    a review found a directory with a space in it split the ``rm``)."""
    import shlex

    return f"rm {shlex.quote(path)} {shlex.quote(repo.active_path())} && git hn init --name NAME"


def check_signing_name(name: str, fix: str = "choose another with --name NAME") -> None:
    """Refuse a name no envelope could carry (§1.5: control characters, more than 256 bytes,
    blank, not UTF-8), which would make every later append fail with ``memory actorName is
    invalid`` (§2.6 describes that failure; git-hn stops it at ``init`` and ``identity import``
    instead, where the cause is still in view). The name itself is not echoed."""
    from ..core.gostr import has_control, is_blank, is_utf8, utf8_len
    from ..core.invisible import remove_invisible
    from ..core.limits import LIMITS

    # (a name of invisible characters only, such as U+200B, shows as no name at all, or as
    # \u{200b}: nothing a reader can tell apart or recognise; a differential trial signed one)
    if not is_utf8(name) or has_control(name) or is_blank(remove_invisible(name)):
        raise InputError(f"identity name cannot be signed: it holds control characters or no "
                         f"visible text; {fix}")
    if utf8_len(name) > LIMITS.max_actor_name:
        raise InputError(f"identity name cannot be signed: it is longer than {LIMITS.max_actor_name} "
                         f"bytes; {fix}")


def check_name_not_secret(name: str, library=None) -> None:
    """Refuse a credential-shaped name by the secret lint ``record`` applies to content (CONTRACT
    §10.6): the name is signed into every memory and published with it, for good (a review: a
    GitHub token given as ``--name`` was taken). As the lint's own refusal, only the detector is
    named, never the name (*secret echo*)."""
    from ..core.secretlint import first_in_text

    detector = first_in_text(name, library)
    if detector is not None:
        from ..errors import SecretShapedError

        raise SecretShapedError(f"identity name is refused: it is secret-shaped ({detector}), and the name is "
                                "signed into every memory and published with it; nothing was created; choose "
                                "another with --name NAME")


def commit_name(ident: Identity, library=None) -> str:
    """The author and committer name of the memory commits git-hn signs again for ``ident``
    (``reanchor``, the post-rewrite hook, ``reanchor --drop``, ``sync --rebase``): its name, or its
    short actor ID when the secret lint finds the name credential-shaped (a review: an identity
    stored under a GitHub token's shape by an older git-hn, which appends refuse, put the token
    in the author line of every re-signed commit, and sync published it). The commit's names are
    no part of what a verifier checks (CONTRACT §4.2; the memory ID is the payload's); the
    envelopes keep the name they were signed with (docs/decisions.md). ``library``: as ``create``'s."""
    from ..core.gostr import short_id
    from ..core.secretlint import first_in_text

    return ident.name if first_in_text(ident.name, library) is None else short_id(ident.actor)


def install(repo: Repo, ident: Identity, *, activate: bool = False) -> tuple[str, bool, bool]:
    """``git hn identity import``: store a validated identity in this keyring and make it active
    when there is no active identity (or, with ``activate``, in place of the active one).

    Returns (record path, whether the record is new, whether it is now the active identity). A
    record already stored for the actor must be identical: an import never replaces a key."""
    sweep_killed_writes(repo)
    check_key_pair(ident.actor, ident.public_key, ident.private_key)
    check_signing_name(ident.name, "no memory could be recorded with this identity, so it is not imported")
    if holds_seed(ident.name.encode("utf-8", "surrogateescape"), b64_decode_go(ident.private_key)[:32]):
        raise InputError("identity name holds the identity's own private key; it is not imported (name it "
                         "anew in a copy of the file)")
    try:
        existing = load_record(repo, ident.actor)
        damaged = False
    except LocalStateError:
        # the same actor is the same key pair (its ID is the public key's digest, checked above):
        # this import is how a damaged record is put back (what that record's error advises)
        existing, damaged = None, True
    if existing is not None and existing != ident:
        raise InputError(f"identity {ident.actor} is already in this keyring with a different name or "
                         "key; the import would replace it, so it is refused")
    try:
        current = load_active(repo).actor
    except NoIdentity:
        current = None
    except LocalStateError:  # (the active identity's record is damaged or gone: maybe this one's)
        current = active_actor(repo)
    if damaged:
        private.write_private(repo.hn_dir, repo.identity_path(ident.actor), canonical.indented(ident.record_json()))
    path = _store_record(repo, ident)
    if current is None:
        try:
            _write_active(repo, ident.actor)
        except ActiveExists as exc:  # (another command made an identity active meanwhile)
            current = exc.actor
            if activate:
                private.write_private(repo.hn_dir, repo.active_path(), (ident.actor + "\n").encode("ascii"))
    elif current != ident.actor and activate:
        private.write_private(repo.hn_dir, repo.active_path(), (ident.actor + "\n").encode("ascii"))
    return path, existing is None, current is None or activate or current == ident.actor


def activate(repo: Repo, actor: str) -> tuple[Identity, bool]:
    """``git hn identity use``: make the stored identity of ``actor`` the active one; (it,
    whether it was active already). Its record is checked first (key pair and name), so the
    active identity is never one that cannot sign."""
    sweep_killed_writes(repo)
    ident = load_record(repo, actor)
    if ident is None:
        raise InputError(f"no identity of actor {actor} is in this keyring; import it with git hn "
                         "identity import FILE")
    check_key_pair(ident.actor, ident.public_key, ident.private_key)
    if active_actor(repo) == actor:
        return ident, True
    private.write_private(repo.hn_dir, repo.active_path(), (actor + "\n").encode("ascii"))
    return ident, False


def made_here(repo: Repo) -> frozenset[str]:
    """The actors whose key ``init`` generated in this repository and that no ``identity export``
    has copied since: the keyring holds the only copy of such a key, so ``identity remove`` knows
    it can have signed nothing outside this clone. Unreadable or missing: none (every identity
    then counts as possibly used elsewhere, the careful answer)."""
    try:
        data = private.read_private(repo.hn_dir, repo.made_here_path()) or b""
    except (HnError, OSError):
        return frozenset()
    return frozenset(line for line in data.decode("ascii", "replace").splitlines() if is_actor(line))


def note_made_here(repo: Repo, actor: str, made: bool) -> None:
    """Add ``actor`` to ``made_here`` (``init``), or take it out (an export copied the key, or the
    identity was removed). Best effort: a failure only makes ``identity remove`` ask for a copy."""
    have = made_here(repo)
    want = have | {actor} if made else have - {actor}
    if want == have:
        return
    try:
        private.write_private(repo.hn_dir, repo.made_here_path(),
                              "".join(a + "\n" for a in sorted(want)).encode("ascii"))
    except (HnError, OSError):
        pass


def remove(repo: Repo, actor: str) -> Identity:
    """``git hn identity remove`` (git-hn): delete the stored record of ``actor``, private key
    included; never the active identity's. The active identity is read again after the unlink:
    an ``identity use`` of it that ran meanwhile gets its record back, and the removal fails."""
    sweep_killed_writes(repo)
    ident = load_record(repo, actor)
    if ident is None:
        raise InputError(f"no identity of actor {actor} is in this keyring; nothing was removed")
    if _read_active(repo) == actor:
        raise InputError(active_not_removed(ident))
    path = repo.identity_path(actor)
    try:
        os.unlink(path)
    except OSError as exc:
        raise LocalStateError(f"private identity file {path} cannot be removed: {exc.strerror}; "
                              "nothing was removed") from None
    if active_actor(repo) == actor:
        private.write_private(repo.hn_dir, path, canonical.indented(ident.record_json()))
        raise ConflictError(f"identity {actor} was made active while it was being removed; it is kept")
    note_made_here(repo, actor, False)
    return ident


def active_not_removed(ident: Identity, who: str = "") -> str:
    """The refusal to remove the active identity, named ``who`` (``service.names.named_identity``,
    which withholds a secret-shaped name), else by its short ID alone."""
    return (f"identity {who or ident.actor[:12]} is the active identity: it signs what "
            "you record, so it is not removed; make another one active first (git hn identity use ACTOR); "
            "nothing was removed")


def list_identities(repo: Repo) -> list[tuple[Identity, bool]]:
    """Every stored record, sorted by actor, with whether it is the active one."""
    directory = repo.identities_dir()
    if not private.check_dirs(repo.hn_dir, directory):
        return []
    active = _read_active(repo)
    out = []
    for entry in sorted(os.listdir(directory)):
        if not entry.endswith(".json") or not is_actor(entry[:-5]):
            continue
        ident = load_record(repo, entry[:-5])
        if ident is not None:
            out.append((ident, ident.actor == active))
    return out


__all__ = ["Identity", "NoIdentity", "activate", "create", "install", "list_identities", "load_active",
           "made_here", "remove", "HnError"]
