"""The release version of git-hn (a leaf module: the CLI, the MCP server and the manual pages
read it, and it imports nothing). Kept equal to ``pyproject.toml``'s ``version`` by a test."""

VERSION = "0.1.0"


def build() -> str:
    """Which code this is: the first 12 hex digits of a SHA-256 over the path and bytes of every
    file of the installed package (its ``.py`` files and assets, not caches), so two builds of the
    same release tell apart and a reinstall of the same code does not (upgrade trial S100 #2:
    every build said ``0.1.0``). Read only by ``version``, ``hooks status`` and the MCP server's
    start (a few milliseconds), never on other commands' way."""
    import hashlib
    import os

    root = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    names = []
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        names += [os.path.join(top, f) for f in files if f.endswith((".py", ".js", ".css"))]
    for path in sorted(names):
        with open(path, "rb") as f:
            data = f.read()
        h.update(f"{os.path.relpath(path, root)}\0{len(data)}\0".encode() + data)
    return h.hexdigest()[:12]


def report(as_json: bool) -> str:
    """``git hn version``'s line (without its newline)."""
    if as_json:
        return f'{{"version":"{VERSION}","protocol":"hn-memory/0","build":"{build()}"}}'
    return f"git-hn {VERSION} (build {build()})"
