"""Generate many validly signed memories quickly, for benchmarks.

Memories are built from CONTRACT §1.2/§1.3 with plain ``json`` and ``cryptography`` and written
with one ``git fast-import`` process per call, so a 100k-memory repository takes seconds, not the
hours that 100k ``git hn memory record`` processes would.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import subprocess

WORDS = ("stream isolation index cursor policy actor anchor commit verify signature ledger replica "
         "quarantine budget receipt promotion handoff decision assumption attempt observation "
         "verification parser codec tokenizer recall bound digest fingerprint lifecycle branch "
         "merge rebase fetch push remote hook sync memory agent session context").split()


def canonical(obj) -> bytes:
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text.encode()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


class Actor:
    def __init__(self, seed: bytes, name: str):
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        self.seed, self.name = seed, name
        self.key = Ed25519PrivateKey.from_private_bytes(seed)
        self.pub = self.key.public_key().public_bytes_raw()
        self.actor = hashlib.sha256(self.pub).hexdigest()
        self.stream = self.stream_id("default")

    def stream_id(self, name: str) -> str:
        """A stream ID derived like the default stream's, for a named stream."""
        return "sha256:" + hashlib.sha256(
            b"hn-memory-stream-v0\x00" + self.actor.encode() + b"\x00" + name.encode()).hexdigest()

    def install(self, repo: str) -> None:
        """Make this actor the repository's active identity (keyring files, CONTRACT §2.2)."""
        hn = os.path.join(repo, ".git", "hn")
        os.makedirs(os.path.join(hn, "identities"), mode=0o700, exist_ok=True)
        os.chmod(hn, 0o700)
        os.chmod(os.path.join(hn, "identities"), 0o700)
        rec = {"version": 1, "actor": self.actor, "name": self.name, "publicKey": b64(self.pub),
               "privateKey": b64(self.seed + self.pub), "lifecycle": "available"}
        path = os.path.join(hn, "identities", self.actor + ".json")
        with open(path, "w") as fh:
            fh.write(json.dumps(rec, indent=2) + "\n")
        os.chmod(path, 0o600)
        with open(os.path.join(hn, "active"), "w") as fh:
            fh.write(self.actor + "\n")
        os.chmod(os.path.join(hn, "active"), 0o600)


def sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + f" {rng.randrange(10**9)}"


def write_streams(repo: str, env: dict, actors: list[Actor], per_actor: int, anchor: str,
                  rng: random.Random, texts: list | None = None, streams_per_actor: int = 1,
                  words: int = 12) -> None:
    """``streams_per_actor`` streams per actor under ``refs/hn/memory`` (the default stream
    first), ``per_actor`` memories spread over them, contents of ``words`` words plus a number.
    The searchable text of each memory (content and topic) goes to ``texts`` if given."""
    out = []
    mark = 0
    kinds = ("decision", "observation", "assumption")
    plan = [(a, a.stream if k == 0 else a.stream_id(f"stream-{k}"), per_actor // streams_per_actor)
            for a in actors for k in range(streams_per_actor)]
    for a, stream, count in plan:
        ref = f"refs/hn/memory/{a.actor}/{stream[7:]}"
        previous, last_commit = "", 0
        for seq in range(1, count + 1):
            content = sentence(rng, words)
            topic = rng.choice(WORDS)
            if texts is not None:
                texts.append(content + "\n" + topic)
            env_doc = {"protocol": "hn-memory/0", "operation": "record", "actor": a.actor,
                       "actorName": a.name, "publicKey": b64(a.pub), "stream": stream,
                       "sequence": seq, "timestamp": f"2026-01-{1 + seq % 28:02d}T00:{seq % 60:02d}:00Z"}
            if previous:
                env_doc["previous"] = previous
            env_doc["record"] = {"kind": kinds[seq % 3], "content": content,
                                 "anchor": {"commit": anchor}, "applicability": {"mode": "descendants"},
                                 "topics": [topic], "evidence": []}
            payload = canonical(env_doc)
            sig = b64(a.key.sign(payload)).encode()
            previous = "sha256:" + hashlib.sha256(payload).hexdigest()
            m, s, c = mark + 1, mark + 2, mark + 3
            mark += 3
            msg = f"hn memory {previous}".encode()
            out.append(b"blob\nmark :%d\ndata %d\n%s\n" % (m, len(payload), payload))
            out.append(b"blob\nmark :%d\ndata %d\n%s\n" % (s, len(sig), sig))
            out.append(b"commit %s\nmark :%d\ncommitter %s <%s@hn.invalid> 1767225600 +0000\n"
                       b"data %d\n%s\n" % (ref.encode(), c, a.name.encode(), a.actor[:12].encode(),
                                           len(msg), msg))
            if last_commit:
                out.append(b"from :%d\n" % last_commit)
            out.append(b"M 100644 :%d memory.json\nM 100644 :%d signature\n\n" % (m, s))
            last_commit = c
    out.append(b"done\n")
    subprocess.run(["git", "fast-import", "--quiet", "--done"], cwd=repo, env=env,
                   input=b"".join(out), check=True)
