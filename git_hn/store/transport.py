"""Which remotes git-hn talks to, and how it asks them (CONTRACT §9.4, §9.5).

A leaf module (no git-hn imports) so that ``git hn sync`` can validate the remote and start the
advertisement before it imports anything else: the advertisement's round trip then overlaps with
the imports (see ``store.git.start_early``).

Owns: the transport check (a local path, scp-like ssh, or file/git/http/https/ssh URLs; every
``<helper>::`` form refused before any process contacts the remote), the variables every
remote-facing Git process runs with (``GIT_ALLOW_PROTOCOL`` limits Git itself, prompts are off;
everything else the user set, ``GIT_SSH_COMMAND``, ``SSH_AUTH_SOCK``, proxies, is kept, see
``store.git``), the exact arguments of the advertisement and of the remote URL question, and which
configuration says how to reach a remote and authenticate to it (``TRANSPORT_CONFIG``): the only
settings a quarantine takes over from the main repository, so that its fetch reaches the remote
as the advertisement did. Also git-hn's fixed words for why a remote could not be reached or
refused, and the way out of each (never Git's words, which quote the URL), and, for a local path
Git could not enter, whether its repository refuses this user (``unreadable_repository``).

Trusts: the user's transport and credential settings (they run as the user's own ssh, proxy and
credential helpers for the advertisement anyway); nothing a remote sends.
"""

from __future__ import annotations

import os

ALLOWED_PROTOCOLS = "file:git:http:https:ssh"
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_SCHEME_CHARS = _LETTERS | frozenset("0123456789+.-")


def _scheme(url: str, sep: str) -> str | None:
    """The ``[A-Za-z][A-Za-z0-9+.-]*`` name that starts ``url`` when ``sep`` follows it, else
    None (what ``re.match`` of that pattern then ``sep`` would find; without ``re``, 5–12 ms of
    imports that the fetch hook no longer makes before it asks the remote: ``core.remotes``)."""
    at = url.find(sep)
    if at < 1 or url[0] not in _LETTERS or not _SCHEME_CHARS.issuperset(url[:at]):
        return None
    return url[:at]


def transport_allowed(url: str) -> bool:
    """§9.5: a local path, scp-like ssh, or file/git/http/https/ssh URLs; nothing else."""
    if not url or "\n" in url or "\x00" in url:
        return False
    if _scheme(url, "::") is not None:
        return False
    scheme = _scheme(url, "://")
    if scheme is not None:
        return scheme.lower() in ("file", "git", "http", "https", "ssh")
    if "://" in url:
        return False
    return True  # a local path, or scp-like [user@]host:path (ssh)


def is_local(url: str) -> bool:
    """A local path or ``file://`` URL: no ssh, proxy or credential setting applies to it (Git's
    own rule: a colon before any slash makes ``host:path`` scp-like ssh)."""
    scheme = _scheme(url, "://")
    if scheme is not None:
        return scheme.lower() == "file"
    colon, slash = url.find(":"), url.find("/")
    return colon < 0 or 0 <= slash < colon


# the first line of a bundle file, as Git's ``is_bundle`` reads it (v2 and v3)
_BUNDLE_SIGNATURES = (b"# v2 git bundle\n", b"# v3 git bundle\n")


def is_bundle_file(url: str, base: str) -> bool:
    """Whether ``url`` names a bundle file as Git's transport does (a local path, not a
    ``file://`` URL, to a regular file whose first line is a bundle's signature): Git fetches
    from it and can never push to it (its push says only "failed to push some refs", the form
    of a pre-push hook's refusal: a trial was told a hook that did not exist refused it). A
    relative path counts from ``base``, the directory Git runs in (the top of the working tree,
    or a bare repository's Git directory). Reads at most one line; a FIFO is never opened."""
    import stat

    if not url or _scheme(url, "://") is not None or not is_local(url):
        return False
    path = os.path.join(base, url)  # (an absolute ``url`` stays itself)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as file:
            return file.read(len(_BUNDLE_SIGNATURES[0])) in _BUNDLE_SIGNATURES
    except (OSError, ValueError):
        return False


def remote_env() -> dict:
    """The variables of every Git process that may contact a remote (and only those): Git's
    protocols limited, its own prompts off, and ssh's askpass program off unless the user chose
    (``SSH_ASKPASS_REQUIRE`` set: a CI job's ``force``; or ``SSH_ASKPASS`` set, a desktop's askpass
    or a wallet's, which answers each ssh process on its own: forcing ``never`` broke such a
    setup, a review). ``store.git`` runs such a process in a
    session of its own (``store.git``): without a controlling terminal ssh cannot ask for a
    passphrase either, and fails at once (F67, a trial: each hooked ``git fetch`` asked for the
    passphrase a second time, for git-hn's advertisement, whose quarantine fetch could not use the
    answer; unanswered, it held the fetch 60 s). ``never``: with no terminal, OpenSSH would start
    ``SSH_ASKPASS`` (a desktop's dialog) whenever ``DISPLAY`` is set."""
    return {"GIT_ALLOW_PROTOCOL": ALLOWED_PROTOCOLS, "GIT_TERMINAL_PROMPT": "0",
            **({} if "SSH_ASKPASS_REQUIRE" in os.environ or os.environ.get("SSH_ASKPASS")
               else {"SSH_ASKPASS_REQUIRE": "never"})}


def unmirrored(name: str, base: dict, env: dict) -> dict:
    """``env`` with ``remote.<name>.mirror=false`` added after every ``GIT_CONFIG_COUNT`` entry of
    ``base`` (the environment Git runs with) and ``env``: git-hn's pushes name their refspecs, which Git
    refuses for a remote whose pushes mirror (a review: in a ``git clone --mirror``, ``fatal:
    --mirror can't be combined with refspecs``, and no sync could ever publish there). In the
    environment, never on the command line, where a push URL's credentials would show."""
    count = {**base, **env}.get("GIT_CONFIG_COUNT", "0")
    n = int(count) if count.isdigit() else 0
    return {**env, f"GIT_CONFIG_KEY_{n}": f"remote.{name}.mirror", f"GIT_CONFIG_VALUE_{n}": "false",
            "GIT_CONFIG_COUNT": str(n + 1)}


def url_question(remote: str) -> tuple[str, ...]:
    """The arguments that ask for ``remote``'s fetch URL (``insteadOf`` applied)."""
    return ("remote", "get-url", "--end-of-options", remote)


def advertisement(url: str) -> tuple[str, ...]:
    """The arguments of the one advertisement a sync asks for: every ref under ``refs/hn/`` (the
    memory refs, and the actor and proposal refs §11(c) reports as skipped, are picked out of
    it). ``ls-remote`` sends no ref prefix for patterns (the server lists everything) and matches
    every ref against each one: one pattern costs what none does, where three cost a quarter of
    the listing's time at 10,000 refs, and it keeps a remote's branches and tags out of git-hn's
    memory."""
    return ("ls-remote", "--refs", "--", url, "refs/hn/*")


ADVERTISED_BYTES_PER_STREAM = 2048  # a memory ref's line is ~210 bytes (~235 with SHA-256 IDs)


def advertisement_limit(max_streams: int | None = None) -> int:
    """The most bytes of a remote's listing of ``refs/hn/`` git-hn reads (git-hn, issue 11): a
    hostile remote advertising junk refs (200,000 long names under ``refs/hn/zz/``) held ~300 MB
    of the sync's memory. 2 KiB for each stream the ``max-streams`` budget allows, never less
    than the default budget's 32 MiB (~150,000 memory refs): raising the budget raises it."""
    from ..core.selection import DEFAULT_MAX_STREAMS

    return max(max_streams or 0, DEFAULT_MAX_STREAMS) * ADVERTISED_BYTES_PER_STREAM


def listed(repo, url: str, options: tuple[str, ...] = (), patterns: tuple[str, ...] = (),
           timeout: float | None = None, why: list | None = None,
           as_remote: dict | None = None) -> list[tuple[str, str]] | None:
    """(object ID, ref) of each line ``git ls-remote --refs <options> -- <url> <patterns>``
    lists, its output bounded (``advertisement_limit``) and its time by ``timeout`` (Git's
    default when None); None when the transport is refused or the remote cannot say (a failure,
    a timeout, a listing over the bound, or one that names a ref twice with two object IDs: a
    hostile remote's, whose second line would silently replace the first, as a ref holding
    U+2028 did when the listing was split with ``str.splitlines``: ``core.lines``). Lines that
    are not an object ID and a ref are dropped. ``why``, when given, gets the reason of a None, in
    git-hn's fixed words (``known_reason``; never Git's, which may quote the URL). ``as_remote``:
    the environment that makes ``url`` a remote carrying its remote's settings (``uploadpack``,
    ``proxy``; ``push_targets``), the remote's name under "": asked by that name, as pushed to."""
    from ..core.grammar import is_oid
    from ..core.lines import lines_of
    from ..errors import GitError, OutputTooLarge

    why = [] if why is None else why
    if not transport_allowed(url):
        why.append("its transport is one git-hn does not use")
        return None
    try:
        carried = as_remote or {}
        proc = repo.git.run(["ls-remote", "--refs", *options, "--", carried.get("", url), *patterns],
                            env={**remote_env(), **{k: v for k, v in carried.items() if k}},
                            limit=advertisement_limit(), **({"timeout": timeout} if timeout is not None else {}))
    except OutputTooLarge:
        why.append("its list of refs was larger than git-hn reads")
        return None
    except GitError:
        why.append("it did not answer git ls-remote" + (f" within {timeout:g} s" if timeout is not None else ""))
        return None
    if proc.returncode != 0:
        why.append(known_reason(proc.stderr or b"") or "git ls-remote failed there")
        return None
    out, seen = [], {}
    for line in lines_of(proc.stdout.decode("utf-8", "replace")):
        oid, _tab, ref = line.partition("\t")
        if is_oid(oid) and ref:
            if seen.setdefault(ref, oid) != oid:
                why.append("it named a ref twice, with two object IDs")
                return None
            out.append((oid, ref))
    return out


# Git's words for a remote it could not reach (or that could not serve), and git-hn's fixed words
# for them. Git's own text is never repeated: it quotes the URL, which may carry credentials, and
# a server's text.
NO_CREDENTIALS = "the remote needs credentials and none were given"
NO_PASSPHRASE = "ssh needs a passphrase or password, and git-hn's own Git processes cannot ask for one"
ACCESS_REFUSED = "the remote refused access"  # (ssh's "Permission denied", a server's "access denied")
# A git daemon without ``--informative-errors`` says "access denied or repository not exported" for
# a path it has no repository at, one it does not export, and a service it does not run (a push
# without receive-pack) alike: a newcomer's mistyped path read "the remote refused access". The
# words name both and what to check, and claim neither; no credentials advice (git:// has none).
NOT_EXPORTED = ("the remote's git daemon refused access or has no repository at that path (it does not say which: "
                "check the path in the remote's URL, and that the server exports that repository)")
CREDENTIALS_REFUSED = "the remote refused the credentials given"
NO_REPOSITORY = "the server has no repository at the remote's URL"
NO_GIT_REPOSITORY = "no Git repository is at the remote's URL"  # (Git's "does not appear to be a git repository")
# a local repository (or a directory above it) this user may not read: Git says it "does not appear
# to be a git repository" as of a path with none (f156 left it so: the advice to check the URL was wrong)
UNREADABLE_PATH = ("the remote's URL is a path on this machine that this user may not read (check the permissions "
                   "of that directory and the ones above it with ls -ld, or ask their owner)")
# Git's own line for an HTTP 404 (remote-curl's "fatal: repository '<url>' not found"): the URL
# sits between its words, so the line is known by its two ends (a newcomer trial: a mistyped
# HTTP URL was said in no fixed words at all)
_HTTP_MISSING = ("fatal: repository '", "' not found")
REMOTE_CORRUPT = ("the remote's server could not read objects of its repository (possible repository corruption "
                  "on the remote side)")
_UNREACHABLE = (
    # (first: a server's upload-pack that dies on a missing object ends the connection too)
    ("corruption on the remote side", REMOTE_CORRUPT),
    # (ssh with a key that has a passphrase, or a password login, and no terminal to ask on)
    ("read_passphrase", NO_PASSPHRASE),
    ("can't open /dev/tty", NO_PASSPHRASE),
    ("host key verification failed", "ssh could not verify the remote host's key (connect once with ssh "
                                     "to check and accept it)"),
    ("does not appear to be a git repository", NO_GIT_REPOSITORY),
    ("repository not found", NO_REPOSITORY),  # (a hosting service's "remote: Repository not found.")
    ("remote error: no such repository", NO_REPOSITORY),  # (git daemon --informative-errors)
    ("could not resolve host", "the remote's host name does not resolve"),
    ("could not resolve hostname", "the remote's host name does not resolve"),
    ("connection refused", "the remote's server refused the connection"),
    ("couldn't connect to server", "the remote's server refused the connection"),
    ("timed out", "the connection to the remote timed out"),
    ("authentication failed", CREDENTIALS_REFUSED),
    ("could not read username", NO_CREDENTIALS),
    ("could not read password", NO_CREDENTIALS),
    ("terminal prompts disabled", NO_CREDENTIALS),
    ("permission denied", ACCESS_REFUSED),
    ("access denied or repository not exported", NOT_EXPORTED),  # (before "access denied": its own words)
    ("access denied", ACCESS_REFUSED),
    ("the requested url returned error: 401", "the remote's server answered with HTTP 401 (no access)"),
    ("the requested url returned error: 403", "the remote's server answered with HTTP 403 (no access)"),
    ("the requested url returned error: 404", "the remote's server answered with HTTP 404 (no repository)"),
    ("the requested url returned error", "the remote's server answered with an error"),
)
# What Git and ssh print when a connection failed or broke off, and nothing else: a failure whose
# every line is one of these is said as ``CONNECTION_LOST`` (a review: ssh dropping pushes,
# ``kex_exchange_identification: Connection closed by remote host``, was blamed on a pre-push hook).
# A line of anyone else's (a server's ``ERROR: …`` over ssh, a hook's) leaves it unexplained.
CONNECTION_LOST = "the connection to the remote broke off"
_DROPPED = ("kex_exchange_identification:", "ssh_exchange_identification:", "connection closed by",
            "connection reset by", "client_loop:", "packet_write_wait:", "banner exchange:",
            "fatal: could not read from remote repository", "please make sure you have the correct access rights",
            "and the repository exists", "fatal: the remote end hung up unexpectedly", "fatal: early eof",
            "send-pack: unexpected disconnect", "fetch-pack: unexpected disconnect", "error: rpc failed")
NO_ACCESS = (ACCESS_REFUSED, "the remote's server answered with HTTP 401 (no access)",
             "the remote's server answered with HTTP 403 (no access)")
# what a remote one may only read from says to a push (the publication's advice: stop publishing
# there); ``NO_ACCESS`` alone gets credentials advice
NOT_PUSHABLE = (*NO_ACCESS, NOT_EXPORTED)
# the fixed words that say no Git server answered at the remote's URL, or may not have (a git
# daemon's ``NOT_EXPORTED``) (``NOT_REACHED``): a fetch that failed so failed for want of the
# remote, not for its stream (``Outcome.fetch_failed``)
_NOT_REACHED_WORDS = ("host key verification failed", "does not appear to be a git repository", "repository not found",
                      "remote error: no such repository", "access denied or repository not exported",
                      "could not resolve host", "could not resolve hostname", "connection refused",
                      "couldn't connect to server", "timed out", "the requested url returned error: 404")
# (and ``UNREADABLE_PATH``, which replaces "no Git repository" when the path refuses this user: f165)
NOT_REACHED = frozenset({said for found, said in _UNREACHABLE if found in _NOT_REACHED_WORDS}
                        | {CONNECTION_LOST, UNREADABLE_PATH})


def unreachable_reason(stderr: bytes, shown_by: str) -> str:
    """Why Git could not reach a remote, in git-hn's fixed words (``_UNREACHABLE``), or a pointer
    to Git's own message (``shown_by``, a command to paste: it names the remote, never a
    placeholder, which a shell reads as a redirection)."""
    return known_reason(stderr) or f"{shown_by} shows Git's own message"


def known_reason(stderr: bytes) -> str:
    """``unreachable_reason``'s fixed words, or "" when Git's message is none of those."""
    text = stderr.decode("utf-8", "replace").lower()
    for found, said in _UNREACHABLE:
        if found in text:
            return said
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    if any(line.startswith(_HTTP_MISSING[0]) and line.endswith(_HTTP_MISSING[1]) for line in lines):
        return NO_REPOSITORY
    if lines and all(line.startswith(_DROPPED) for line in lines):
        return CONNECTION_LOST
    return ""


def local_path(url: str) -> str:
    """The path a local ``url`` names (a path, ``~`` expanded as Git's ``enter_repo`` does it, or a
    ``file://`` URL's), relative as given; "" for any other URL, and for a ``~user`` that names
    no user (Git finds no repository there, and looks in no directory: f168)."""
    if not url or not is_local(url):
        return ""
    path = url[len("file://"):] if _scheme(url, "://") is not None else url
    if not path.startswith("~"):
        return path
    path = os.path.expanduser(path)
    return "" if path.startswith("~") else path


def unreadable_repository(path: str) -> bool:
    """Whether Git could not enter the repository at ``path`` (absolute) for want of permissions: a
    directory it tries (Git's order: ``path/.git``, ``path``, ``path.git/.git``, ``path.git``), or
    one above it, refuses this user, or so do the ``objects``, ``refs`` or ``HEAD`` in it that Git
    looks for. Git says of such a path only that it "does not appear to be a git repository", as of
    one with no repository. Only after Git said so: at most a few ``stat`` and ``access`` calls."""
    import stat

    path = path.rstrip("/") or "/"
    for tried in (f"{path}/.git", path, f"{path}.git/.git", f"{path}.git"):
        try:
            mode = os.stat(tried).st_mode
        except PermissionError:
            return True  # (a directory above it this user may not search)
        except OSError:
            continue
        if not stat.S_ISDIR(mode):
            continue  # (a file: Git's gitfile, or nothing it enters)
        if not os.access(tried, os.X_OK):
            return True
        for name, needs in (("objects", os.X_OK), ("refs", os.X_OK), ("HEAD", os.R_OK)):
            inside = os.path.join(tried, name)
            if os.path.lexists(inside) and not os.access(inside, needs):
                return True
    return False


def without_terminal(reason: str, remote: str, url: str = "", git=None, push: bool = False) -> str:
    """The way out when ``reason`` is a prompt git-hn's Git processes could not show (they run
    without a terminal, fetches into quarantine in a session of their own, and Git's own prompt
    for an HTTPS password is off in all of them, ``GIT_TERMINAL_PROMPT=0``), else "". It fits
    the remote's URL (``url``; with ``git``, a ``store.git.Git``, and no ``url``: the remote's
    fetch URL, its push URL with ``push``): the ssh agent for ssh; for http(s) a credential helper,
    and when one is set already (asked of ``git``: a team trial's stored password was wrong, Git
    erased it, and the advice said to set a helper and load an ssh key) a fetch at a terminal,
    which saves the password in it, or a caching helper beside one that asks on ``/dev/tty`` every
    time and stores nothing (a review: the advice looped); also for credentials the remote refused (``CREDENTIALS_REFUSED``,
    HTTP only), and for access an ssh remote refused (``ACCESS_REFUSED``: with no terminal and no
    agent, OpenSSH 9 says only "Permission denied" of a key it could not ask the passphrase of,
    F67). Both ways when the URL is not known. Each fits ``WAY_MAX`` whatever the remote's name
    (``_fitted``; f165). Only on a failure: at most two Git processes."""
    if reason not in (NO_CREDENTIALS, NO_PASSPHRASE, CREDENTIALS_REFUSED, ACCESS_REFUSED):
        return ""
    if not url and git is not None:
        url = remote_url(git, remote, push)
    kind = _credential_kind(url) if reason != NO_PASSPHRASE else "ssh"  # (ssh's own prompt)
    if (reason == CREDENTIALS_REFUSED and kind != "http") or (reason == ACCESS_REFUSED and kind != "ssh"):
        return ""  # (git daemon's "access denied" is no credentials' fault)
    if kind == "ssh":
        return ssh_way(remote, refused=reason == ACCESS_REFUSED)
    if kind == "http" and git is not None and _has_helper(git, url):
        return _fitted(HTTP_HELPER_WAY, remote)
    return _fitted(HTTP_NO_HELPER_WAY if kind == "http" else EITHER_WAY, remote)


def over_git_protocol(url: str) -> bool:
    """Whether ``url`` is a ``git://`` URL: a git daemon's protocol, which carries no credentials
    (only the server decides: its access hook, what it exports, the services it runs)."""
    return (_scheme(url, "://") or "").lower() == "git"


def over_ssh(url: str) -> bool:
    """Whether ``url`` reaches its remote over ssh (``ssh://``, scp-like ``host:path``)."""
    return _credential_kind(url) == "ssh"


def remote_url(git, remote: str, push: bool = False) -> str:
    """``remote``'s fetch URL (its first push URL with ``push``) as Git reaches it (``insteadOf``
    applied), or "" when Git cannot say; ``git``: a ``store.git.Git``. One Git process."""
    proc = git.run(["remote", "get-url", *(["--push"] if push else []), "--end-of-options", remote])
    return proc.stdout.decode("utf-8", "surrogateescape").strip() if proc.returncode == 0 else ""


# a server's own refusal of a fetch over git://, which carries no credentials (f154: "the remote
# refused access" there got ssh's and HTTPS's credentials advice)
GIT_REFUSED_WAY = ("git:// has no credentials: the server refused the fetch itself (check the path in the remote's "
                   "URL, and ask whoever runs it to let you read that repository), then {sync}")
# a repository on this machine (a local path, file://) that refused access: its files' permissions,
# never credentials (f156: "permission denied" there got ssh's and HTTPS's credentials advice)
LOCAL_REFUSED_WAY = ("a local repository has no credentials: this user may not {verb} some of its files (check their "
                     "permissions with ls -l, its objects' too, or ask their owner), then {sync}")
# a server's own refusal over HTTP(S) ("access denied" in its words, not a 401 that asks for a
# password): the account's rights, which a credential helper's password does not change (f156:
# the publication's said ssh's advice, the fetch's to set a helper, and a terminal's fetch asks
# for nothing either)
HTTP_REFUSED_WAY = ("the server refused access itself, asking for no password: check that your account (the one your "
                    "credential helper gives) may {verb} that repository, then {sync}")


def refused_way(reason: str, remote: str, url: str = "", git=None, push: bool = False) -> str:
    """The way out of a fetch (a push with ``push``) the remote refused access to (``reason`` in
    ``NO_ACCESS`` or ``CREDENTIALS_REFUSED``), fitting ``url``'s transport: for a ``git://`` URL,
    where only the server decides (a git daemon's access hook, what it exports), what to check;
    for a local path or ``file://`` URL, whose "permission denied" is the files' permissions, which
    to check; for HTTP(S), a server's own "access denied" (no 401: it asked for no password), the
    account's rights; else the credentials advice of a prompt that could not be shown
    (``without_terminal``). The one map from a refusal and a URL's kind to its way out: the
    stream's fetch failure and the background publication both ask it (f156). Each of those three
    fits ``WAY_MAX`` whatever the remote's name (``_fitted``)."""
    if reason == ACCESS_REFUSED and over_git_protocol(url):
        return _fitted(GIT_REFUSED_WAY, remote)
    if reason == ACCESS_REFUSED and url and is_local(url):
        return _fitted(LOCAL_REFUSED_WAY, remote, verb="write" if push else "read")
    if reason == ACCESS_REFUSED and _credential_kind(url) == "http":
        return _fitted(HTTP_REFUSED_WAY, remote, verb="push to" if push else "read")
    return without_terminal(NO_CREDENTIALS, remote, url, git, push)


WAY_MAX = 200  # characters of a way out the sync's stderr line keeps (``outcomes.failure_pointer``: else none)
# (the sync again, when naming the remote would take the way past ``WAY_MAX``: the remote is named
# beside the way already, by the sync's Replication line and JSON outcome, the fetch hook's line
# and the publication's)
SYNC_IT_AGAIN = "git hn sync that remote again"
FETCH_IT = "a git fetch from that remote"  # (``git fetch <remote>`` past ``WAY_MAX``, as ``SYNC_IT_AGAIN``)


# the ways out of an HTTP(S) prompt no Git process of git-hn's can show, without and with a credential
# helper set, and of one whose URL is not known (ssh's or HTTPS's). Each names the remote once, in
# its sync (f165: the HTTPS ways named it twice, in a ``git fetch`` too, and were over ``WAY_MAX`` for
# ``origin``, so the sync's line gave no way out at all): the fetch to run at a terminal is the one
# from the remote named beside the way, as ``SYNC_IT_AGAIN`` is
HTTP_NO_HELPER_WAY = ("set a credential helper (git config --global credential.helper cache) and fetch from that remote "
                      "once at a terminal so it saves the password, then {sync}")
# (a helper that asks on ``/dev/tty`` every time and stores nothing cannot answer git-hn's Git, which
# has no terminal: a review found the advice looped; one that keeps the password, beside it, can)
HTTP_HELPER_WAY = ("fetch from that remote at a terminal so your credential helper saves the password (one that asks "
                   "each time cannot answer git-hn: git config credential.helper cache), then {sync}")
EITHER_WAY = ("give Git the credentials without a prompt: load the ssh key into an agent (ssh-add) or set an HTTPS "
              "credential helper (git config --global credential.helper cache), then {sync}")


def _fitted(way: str, remote: str, **words: str) -> str:
    """``way`` (ending "then {sync}") with ``git hn sync <remote>``, or ``SYNC_IT_AGAIN`` when
    that name takes it over ``WAY_MAX`` characters: a remote named by more than ~20 characters
    (Git's names take 128) made the summary line drop the advice whole (f160)."""
    named = way.format(sync=f"git hn sync {remote}", **words)
    return named if len(named) <= WAY_MAX else way.format(sync=SYNC_IT_AGAIN, **words)


NO_PROMPT = "give Git the credentials without a prompt"  # (``ssh_way``'s start on the sync's line)


def ssh_way(remote: str, refused: bool = False, start: str = NO_PROMPT) -> str:
    """The way out for ssh that could not authenticate with no terminal: a key in an agent, and
    on a desktop whose askpass ``remote_env`` turned off (no ``SSH_ASKPASS``, ``DISPLAY`` set) a
    dialog, ``SSH_ASKPASS_REQUIRE=prefer``. Access ``refused`` with an agent's socket set is no
    missing agent (a review: the key was simply not authorised): ssh offered keys the remote did
    not accept, and the user's own ``git fetch`` shows ssh's reason (git-hn starts nothing more).
    Within ``WAY_MAX`` whatever the remote's name (f165: the dialog's way was over it for a name of
    ~30 characters), but with another ``start``: the background publication's, whose line keeps
    its remote named (it has no such bound)."""
    if refused and os.environ.get("SSH_AUTH_SOCK"):
        way = "the remote accepted none of the keys ssh offered (your agent's included): {fetch} shows ssh's own reason"
        named = way.format(fetch=f"git fetch {remote}")
        return named if len(named) <= WAY_MAX else way.format(fetch=FETCH_IT)
    dialog = (", or let ssh ask in a desktop dialog (export SSH_ASKPASS_REQUIRE=prefer)" if os.environ.get("DISPLAY")
              and not os.environ.get("SSH_ASKPASS_REQUIRE") and not os.environ.get("SSH_ASKPASS") else "")
    way = f"{start}: load the ssh key into an agent (ssh-add){dialog}, then {{sync}}"
    return _fitted(way, remote) if start == NO_PROMPT else way.format(sync=f"git hn sync {remote}")


def _credential_kind(url: str) -> str:
    """How ``url`` authenticates: "http" (http, https), "ssh" (ssh://, scp-like ``host:path``),
    "" otherwise (a local path, file://, git://, or not known)."""
    scheme = _scheme(url, "://")
    if scheme is not None:
        return {"http": "http", "https": "http", "ssh": "ssh"}.get(scheme.lower(), "")
    return "ssh" if url and not is_local(url) and "://" not in url else ""


def _has_helper(git, url: str) -> bool:
    """Whether Git has a credential helper for ``url`` (``credential.helper``, or
    ``credential.<url>.helper``, in any scope; an empty value resets the list)."""
    proc = git.run(["config", "--get-urlmatch", "--end-of-options", "credential.helper", url])
    return proc.returncode == 0 and bool(proc.stdout.strip())


# How a remote is reached and authenticated to: the ssh command and variant, the git:// proxy,
# askpass, and every http.* and credential.* key (also URL-specific ones). Nothing here names a
# repository, object store, hook or fsck setting. Matched against Git's canonical key names.
TRANSPORT_CONFIG = r"^(core\.(sshcommand|gitproxy|askpass)|ssh\.variant|http\..+|credential\..+)$"
# the scopes a quarantine does not read itself (it reads the global and system files)
_CARRIED_SCOPES = frozenset({"local", "worktree", "command"})
_SECTIONS = frozenset({"core", "ssh", "http", "credential"})
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def transport_config_question() -> tuple[str, ...]:
    """The arguments that list the transport configuration a repository sees, every scope in
    Git's order (``git -c`` last), each entry NUL-terminated after its scope."""
    return ("config", "-z", "--show-scope", "--get-regexp", TRANSPORT_CONFIG)


def transport_settings(listing: bytes) -> list[tuple[str, str | None, str, str | None]]:
    """(section, subsection, name, value) of the repository-local, worktree and ``git -c``
    entries of ``transport_config_question``'s answer, in order; value None is a bare boolean.
    Global and system entries are left out (a quarantine reads those files itself, and a copy
    would add list-valued keys such as ``credential.helper`` twice), as is anything that is not
    a well-formed transport key."""
    fields = listing.decode("utf-8", "surrogateescape").split("\0")
    out = []
    for scope, entry in zip(fields[0::2], fields[1::2]):
        key, nl, value = entry.partition("\n")
        section, _, rest = key.partition(".")
        sub, dot, name = rest.rpartition(".")
        if scope in _CARRIED_SCOPES and section in _SECTIONS and _is_key_name(name):
            out.append((section, sub if dot else None, name, value if nl else None))
    return out


def _is_key_name(name: str) -> bool:
    """``[a-z][a-z0-9-]*``: a configuration key's canonical (lowercase) variable name."""
    return bool(name) and "a" <= name[0] <= "z" and _NAME_CHARS.issuperset(name)
