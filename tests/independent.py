"""An independent reader and writer of hn-memory/0 for interoperability tests.

Written from CONTRACT §1.2, §1.3, §2.1, §3, §4.1 only, with plain ``json``, ``hashlib``,
``cryptography`` and Git plumbing; it imports nothing from ``git_hn``, so a bug shared by
git-hn's encoder and its verifier cannot hide here.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey


def canonical(obj) -> bytes:
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text.encode("utf-8")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


class Writer:
    """Writes memories into a repository the way the contract describes, by hand."""

    def __init__(self, seed: bytes, name: str):
        self.key = Ed25519PrivateKey.from_private_bytes(seed)
        self.pub = self.key.public_key().public_bytes_raw()
        self.actor = hashlib.sha256(self.pub).hexdigest()
        self.name = name
        self.stream = "sha256:" + hashlib.sha256(
            b"hn-memory-stream-v0\x00" + self.actor.encode() + b"\x00default").hexdigest()

    def envelope(self, sequence: int, previous: str, timestamp: str, record: dict, **extra) -> dict:
        env = {"protocol": "hn-memory/0", "operation": extra.pop("operation", "record"),
               "actor": self.actor, "actorName": self.name, "publicKey": b64(self.pub),
               "stream": self.stream, "sequence": sequence, "timestamp": timestamp}
        if previous:
            env["previous"] = previous
        if record is not None:
            env["record"] = record
        env.update(extra)
        return env

    def write(self, repo, env: dict, parent: str = "") -> tuple[str, str]:
        payload = canonical(env)
        sig = b64(self.key.sign(payload)).encode()
        m = _git(repo, "hash-object", "-w", "--stdin", input=payload)
        s = _git(repo, "hash-object", "-w", "--stdin", input=sig)
        tree = _git(repo, "mktree", input=f"100644 blob {m}\tmemory.json\n100644 blob {s}\tsignature\n".encode())
        args = ["commit-tree", tree, "-m", "hn memory x"] + (["-p", parent] if parent else [])
        commit = _git(repo, *args)
        ref = f"refs/hn/memory/{self.actor}/{self.stream[7:]}"
        _git(repo, "update-ref", ref, commit)
        return "sha256:" + hashlib.sha256(payload).hexdigest(), commit


def append_by_hand(repo, record: dict) -> str:
    """Append ``record`` (a record object in the contract's field order) to the default stream of
    the repository's active identity, the way another implementation that checks nothing before
    signing would (git-hn refuses evidence naming what this clone does not hold); its memory ID."""
    from datetime import datetime, timezone
    from pathlib import Path

    hn_dir = Path(repo) / ".git" / "hn"
    path = hn_dir / "identities" / f"{(hn_dir / 'active').read_text().strip()}.json"
    doc = json.loads(path.read_text())
    w = Writer(unb64(doc["privateKey"])[:32], doc["name"])
    ref = f"refs/hn/memory/{w.actor}/{w.stream[7:]}"
    head = subprocess.run(["git", "rev-parse", "-q", "--verify", ref], cwd=repo, capture_output=True,
                          text=True).stdout.strip()
    sequence, previous, stamp = 1, "", datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if head:
        payload = _git_bytes(repo, "cat-file", "blob", f"{head}:memory.json")
        last = json.loads(payload)
        sequence, previous = last["sequence"] + 1, "sha256:" + hashlib.sha256(payload).hexdigest()
    return w.write(repo, w.envelope(sequence, previous, stamp, record), head)[0]


def _git_bytes(repo, *args) -> bytes:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True).stdout


def _git(repo, *args, input: bytes | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, input=input, capture_output=True, check=True)
    return proc.stdout.decode().strip()


def verify_commit(repo, commit: str) -> dict:
    """Check one memory commit per the contract; return the envelope as parsed JSON."""
    entries = _git(repo, "ls-tree", commit).splitlines()
    assert len(entries) == 2, entries
    parsed = {}
    for line in entries:
        meta, name = line.split("\t")
        mode, typ, oid = meta.split(" ")
        assert (mode, typ) == ("100644", "blob"), line
        parsed[name] = oid
    assert set(parsed) == {"memory.json", "signature"}
    payload = subprocess.run(["git", "cat-file", "blob", parsed["memory.json"]], cwd=repo,
                             capture_output=True, check=True).stdout
    sig_text = subprocess.run(["git", "cat-file", "blob", parsed["signature"]], cwd=repo,
                              capture_output=True, check=True).stdout.decode()
    assert "\n" not in sig_text and "=" not in sig_text and len(sig_text) == 86
    env = json.loads(payload)
    assert canonical(env) == payload, "payload is not canonical"
    pub = unb64(env["publicKey"])
    assert hashlib.sha256(pub).hexdigest() == env["actor"]
    Ed25519PublicKey.from_public_bytes(pub).verify(unb64(sig_text), payload)
    env["_id"] = "sha256:" + hashlib.sha256(payload).hexdigest()
    return env
