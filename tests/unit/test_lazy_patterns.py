"""Module-level regular expressions are compiled at their first use (``gostr.Lazy``): compiling
costs ~0.2 M instructions a pattern, and a command uses few of the patterns of the modules it
loads (issue 11, fixed cost)."""

from __future__ import annotations

import re
import subprocess
import sys

from git_hn.core.gostr import Lazy

# the modules whose patterns were compiled at import by a record, recall, show or brief
MODULES = ("git_hn.core.gostr", "git_hn.core.grammar", "git_hn.core.invisible", "git_hn.core.policy",
           "git_hn.core.strictjson", "git_hn.core.hints", "git_hn.core.mistyped", "git_hn.core.brief",
           "git_hn.core.policyedit",
           "git_hn.store.resolver", "git_hn.store.replication", "git_hn.service.show")

PROBE = """
import re._compiler, sys
compiled = []
real = re._compiler.compile
re._compiler.compile = lambda p, flags=0: compiled.append(p) or real(p, flags)
for name in sys.argv[1:]:
    __import__(name)
print(repr(compiled))
"""


def test_importing_the_hot_modules_compiles_no_pattern():
    proc = subprocess.run([sys.executable, "-c", PROBE, *MODULES], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert proc.stdout.strip() == "[]"


def test_a_lazy_pattern_answers_as_the_compiled_one():
    lazy, real = Lazy(r"([0-9a-f]+)-(x)?", re.I), re.compile(r"([0-9a-f]+)-(x)?", re.I)
    for text in ("ab-x", "AB-", "zz", "01-x-ff-", ""):
        assert bool(lazy.fullmatch(text)) == bool(real.fullmatch(text))
        assert lazy.findall(text) == real.findall(text)
        assert lazy.sub("<\\1>", text) == real.sub("<\\1>", text)
        assert lazy.split(text) == real.split(text)
        assert (lazy.search(text) or None) is None or lazy.search(text).groups() == real.search(text).groups()
    assert lazy.pattern == real.pattern and lazy.flags == real.flags and lazy.groups == 2
    assert Lazy(rb"a+").fullmatch(b"aaa")  # bytes patterns too


def test_an_attribute_is_looked_up_once_then_held():
    lazy = Lazy("a+")
    first = lazy.fullmatch
    assert "fullmatch" in vars(lazy) and lazy.fullmatch is first
