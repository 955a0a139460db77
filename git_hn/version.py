"""The release version of git-hn (a leaf module: the CLI, the MCP server and the manual pages
read it, and it imports nothing). Kept equal to ``pyproject.toml``'s ``version`` by a test."""

VERSION = "0.1.0"
