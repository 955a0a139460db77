"""The protocol core (git_hn/core) is pure: no processes, no file system, no network, no Git.

Checked twice: statically, by parsing every core module's imports (top level and inside
functions) and calls; and dynamically, by importing every core module in a fresh interpreter and
looking at ``sys.modules``.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "git_hn" / "core"
MODULES = sorted(CORE.glob("*.py"))
FORBIDDEN = {"subprocess", "os", "pathlib", "shutil", "socket", "git", "tempfile", "io",
             "multiprocessing", "asyncio", "urllib", "http", "ssl", "select", "signal", "ctypes",
             "importlib", "fcntl", "mmap", "glob", "fileinput", "sqlite3", "pty", "sys"}
FORBIDDEN_CALLS = {"open", "exec", "eval", "compile", "__import__", "input", "breakpoint"}


def _imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names.add(node.module)
            elif node.level == 1 and node.module is None:
                names.update(f".{alias.name}" for alias in node.names)
            else:
                names.add("." * node.level + (node.module or ""))
    return names


def test_core_has_modules():
    names = {p.stem for p in MODULES}
    assert {"envelope", "grammar", "gostr", "canonical", "strictjson", "keys", "chain",
            "limits"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_core_module_imports_nothing_impure(path):
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    for name in _imports(tree):
        if name.startswith("."):
            # Relative: only siblings in core, or the one-level-up error module.
            assert name.startswith("..errors") or not name.startswith(".."), (path.name, name)
            continue
        top = name.split(".")[0]
        assert top not in FORBIDDEN, (path.name, name)
        assert not name.startswith("git_hn.") or name.startswith(("git_hn.core", "git_hn.errors")), \
            (path.name, name)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_core_module_calls_no_file_or_code_builtins(path):
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, (path.name, node.func.id, node.lineno)
        if isinstance(node, ast.Attribute):
            assert node.attr not in ("read_text", "read_bytes", "write_text", "write_bytes",
                                     "popen", "system"), (path.name, node.attr, node.lineno)


def test_import_walker_sees_nested_imports():
    tree = ast.parse("def f():\n    import subprocess\n    from os import path\n")
    assert {"subprocess", "os"} <= _imports(tree)


def test_errors_module_is_pure_too():
    tree = ast.parse((ROOT / "git_hn" / "errors.py").read_text("utf-8"))
    assert not {n.split(".")[0] for n in _imports(tree)} & FORBIDDEN


PROBE = r"""
import importlib, json, sys
sys.path.insert(0, ROOT)
before = set(sys.modules)
for name in MODULES:
    importlib.import_module("git_hn.core." + name)
from git_hn.core import envelope, gostr, grammar, strictjson
payload = PAYLOAD.encode("utf-8")
env = envelope.decode(payload)
assert envelope.encode(env) == payload
gostr.tokens(env.record.content)
grammar.is_timestamp(env.timestamp)
strictjson.read_document(b'{"a":1}', prefix="", max_bytes=100)
print(json.dumps({"loaded": sorted(set(sys.modules) - before), "all": sorted(sys.modules)}))
"""


def test_importing_core_in_a_fresh_interpreter_loads_no_process_or_git_module():
    vectors = json.loads((ROOT / "tests" / "vectors" / "hn-memory-v0.json").read_text("utf-8"))
    payload = next(v["payload"] for v in vectors if v["name"] == "hn-record")
    names = [p.stem for p in MODULES if p.stem != "__init__"]
    code = f"ROOT = {str(ROOT)!r}\nPAYLOAD = {payload!r}\nMODULES = {names!r}\n" + PROBE
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True,
                          cwd=str(ROOT), timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    result = json.loads(proc.stdout)
    loaded, everything = set(result["loaded"]), set(result["all"])
    assert {f"git_hn.core.{n}" for n in names} <= loaded
    for name in ("subprocess", "git", "socket", "shutil", "tempfile", "git_hn.store",
                 "git_hn.service", "git_hn.cli"):
        assert name not in everything, name
        assert not any(m.startswith(name + ".") for m in everything), name
