"""Recall's query language and its relevance order (a git-hn extension of CONTRACT §7.8;
issue 13). Pure: strings in, values out.

The contract's query is exact-word AND over the §7.9 tokens. git-hn keeps that meaning for every
query that uses none of the syntax below, and adds prefix terms, ``OR`` and quoted phrases:

- The query is cut into *units* at white space (Go ``unicode.IsSpace``) and at double quotes.
  A *word* is a run of characters that are neither; its §7.9 tokens (lowercased letter/number
  runs, in text order) are all required, exactly as before (``foo-bar`` needs ``foo`` and
  ``bar``). A word with no tokens (``!!!``) is ignored, as before.
- ``term*``: a word that ends in ``*`` right after a letter or digit makes its last token a
  prefix: ``pars*`` matches ``parser`` and ``parsers``. A ``*`` elsewhere inside a word separates
  tokens like any punctuation (as before); a word that ends in ``*`` after anything else (``*``,
  ``x-*``, ``pars**``) is an error.
- ``"quoted phrase"``: its tokens must appear consecutively, in order, in the memory's text (its
  content, then its topics, one token sequence). Inside quotes ``*`` and ``OR`` have no meaning
  (``OR`` is the token ``or``). A phrase of one token is that term; a phrase without tokens, or a
  quote left open, is an error.
- ``OR`` (uppercase, a word of its own) between two units: either may match. ``OR`` binds tighter
  than the implicit AND, so ``a b OR c d`` is ``a AND (b OR c) AND d``, and ``x-y OR z`` is
  ``(x AND y) OR z``. ``OR`` with no term before it (at the start, or twice in a row) or after
  it (at the end) is an error. Lowercase ``or`` is an ordinary word.

Every leaf (a term, a prefix or a phrase) is a substring test on the memory's *wrapped token
sequence*: each token in text order, each surrounded by its own spaces (`` a  b  a ``). A term
``t`` is `` t ``, a prefix ``p`` is `` p`` and a phrase is its tokens wrapped and joined. Tokens
hold no spaces, so these tests are exact, and they are the same tests whether Python or SQLite's
``instr`` runs them (the verified state stores the same string). A leaf's frequency in a memory is
the number of non-overlapping occurrences of its pattern (``str.count``; SQLite's ``replace``).

Relevance (``--rank relevance``) is BM25 as Lucene computes it: for each distinct leaf with
document frequency ``n`` among ``N`` memories, ``idf = ln(1 + (N - n + 0.5) / (n + 0.5))``, and a
memory of ``D`` tokens in which the leaf occurs ``f`` times gets
``idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl))`` with ``k1 = 1.2``, ``b = 0.75``,
summed over the leaves in query order. The statistics (``N``, ``n``, ``avgdl``) are over every
memory row of the verified set (all lifecycles and trust classes), so a score does not depend on
filters, bounds or the query commit; higher scores come first, then the §7.7 order. Scores are
computed from integers by ``scorer`` (the full reference) and by ``sql_score`` (the verified
state, in SQLite, which keeps only a page's worth of the best rows): the same double operations
in the same order, so both give the same order bit for bit.
"""

from __future__ import annotations

from ..errors import InputError
from .gostr import _SPACE, token_sequence
from .tuples import NamedTuple

K1 = 1.2
B = 0.75
RANKS = ("relevance",)  # besides the default §7.7 order ("", spelled "default" on input)


class Leaf(NamedTuple):
    kind: str  # "term", "prefix" or "phrase"
    tokens: tuple[str, ...]
    pattern: str  # the substring searched for in a wrapped token sequence


def leaf(kind: str, toks) -> Leaf:
    toks = tuple(toks)
    return Leaf(kind, toks, " " + toks[0] if kind == "prefix" else wrap(toks))


class Query(NamedTuple):
    """AND over groups; a group is OR over alternatives; an alternative is AND over leaves."""

    groups: tuple[tuple[tuple[Leaf, ...], ...], ...]

    def leaves(self) -> tuple[Leaf, ...]:
        """The distinct leaves, in the order they first appear."""
        return tuple(dict.fromkeys(x for g in self.groups for alt in g for x in alt))

    def needs_sequence(self) -> bool:
        """Whether some leaf needs the token sequence (a phrase), not just the token set."""
        return any(x.kind == "phrase" for x in self.leaves())

    def plain_terms(self) -> list[str] | None:
        """The terms of a query in the contract's own syntax (only single-term groups), else None."""
        out = []
        for g in self.groups:
            if len(g) != 1 or any(x.kind != "term" for x in g[0]):
                return None
            out += [x.tokens[0] for x in g[0]]
        return out


def wrap(seq) -> str:
    """The wrapped token sequence: every token surrounded by its own spaces."""
    return " " + "  ".join(seq) + " " if seq else ""


def length(wrapped: str) -> int:
    """The number of tokens in a wrapped token sequence."""
    return wrapped.count("  ") + 1 if wrapped else 0


def _error(problem: str) -> InputError:
    return InputError(f"recall query {problem}")


def _units(query: str):
    """("word", text) and ("phrase", text) items, and "OR" markers, in order."""
    out, i, n = [], 0, len(query)
    while i < n:
        ch = query[i]
        if ch in _SPACE:
            i += 1
        elif ch == '"':
            end = query.find('"', i + 1)
            if end < 0:
                raise _error("has an unbalanced quote")
            out.append(("phrase", query[i + 1:end]))
            i = end + 1
        else:
            j = i
            while j < n and query[j] not in _SPACE and query[j] != '"':
                j += 1
            word = query[i:j]
            out.append("OR" if word == "OR" else ("word", word))
            i = j
    return out


def _word_leaves(word: str) -> tuple[Leaf, ...]:
    prefix = word.endswith("*")
    if prefix:
        word = word[:-1]
        if not word or not token_sequence(word[-1]):
            raise _error("has a * that does not follow a letter or digit")
    seq = token_sequence(word)
    leaves = [leaf("term", (t,)) for t in seq]
    if prefix:
        leaves[-1] = leaf("prefix", (seq[-1],))
    return tuple(dict.fromkeys(leaves))


def parse(query: str) -> Query | None:
    """The parsed query, or None for an empty one; raises ``InputError`` naming the problem."""
    if not query:
        return None
    groups: list[list[tuple[Leaf, ...]]] = []
    pending_or = False
    for item in _units(query):
        if item == "OR":
            if not groups or pending_or:
                raise _error("has OR without a term before it")
            pending_or = True
            continue
        kind, text = item
        if kind == "phrase":
            seq = tuple(token_sequence(text))
            if not seq:
                raise _error("has a phrase without letters or digits")
            leaves = (leaf("term" if len(seq) == 1 else "phrase", seq),)
        else:
            leaves = _word_leaves(text)
            if not leaves:
                continue  # punctuation only: ignored, as the contract's tokenizer does
        if pending_or:
            groups[-1].append(leaves)
            pending_or = False
        else:
            groups.append([leaves])
    if pending_or:
        raise _error("has OR without a term after it")
    if not groups:
        raise InputError("memory index query has no lexical terms")
    return Query(tuple(tuple(g) for g in groups))


def matches(query: Query, wrapped: str) -> bool:
    """Whether a memory whose wrapped token sequence is ``wrapped`` satisfies ``query`` (without
    a phrase, its space-separated token set answers the same: the state's ``rows.tokens``)."""
    return all(any(all(x.pattern in wrapped for x in alt) for alt in g) for g in query.groups)


class Stats(NamedTuple):
    """BM25's corpus statistics: memory rows, their total tokens, each leaf's document count."""

    docs: int
    tokens: int
    df: tuple[int, ...]


def frequencies(leaves, wrapped: str) -> tuple[int, ...]:
    return tuple(wrapped.count(x.pattern) for x in leaves)


def weights(stats: Stats) -> tuple[float, list[float]]:
    """``(avgdl, idf of each leaf)`` for one corpus: the floats both scorers start from."""
    import math  # (here: only a ranked recall scores, and math's import costs every command ~0.4 M instructions)

    avgdl = stats.tokens / stats.docs if stats.docs and stats.tokens else 1.0
    return avgdl, [math.log(1.0 + (stats.docs - n + 0.5) / (n + 0.5)) for n in stats.df]


def scorer(stats: Stats):
    """``score(freqs, length)`` for one corpus: BM25 (see the module docstring). ``sql_score``
    writes the same operations, in the same order, for SQLite."""
    avgdl, idf = weights(stats)

    def score(freqs, length: int) -> float:
        norm = K1 * (1.0 - B + B * length / avgdl)
        total = 0.0
        for f, w in zip(freqs, idf):
            if f:
                total += w * (f * (K1 + 1.0)) / (f + norm)
        return total

    return score


def sql_score(stats: Stats, freqs: list[str], length: str) -> tuple[str, list]:
    """``score``'s arithmetic as an SQL expression over integer columns (``freqs``, one per
    leaf, and ``length``) and its arguments. SQLite computes in IEEE doubles as Python does, and
    each operation here is ``score``'s, in its order, so the two give the same float bit for bit
    (a leaf that does not occur adds ``w * 0.0 / x``, an exact zero, where ``score`` adds nothing)."""
    avgdl, idf = weights(stats)
    norm = f"? * (? + ? * {length} / ?)"
    terms, args = [], []
    for f, w in zip(freqs, idf):
        terms.append(f"? * ({f} * ?) / ({f} + {norm})")
        args += [w, K1 + 1.0, K1, 1.0 - B, B, avgdl]
    return "0.0" + "".join(f" + {t}" for t in terms), args


def rank(items, score_of) -> list:
    """``items`` (already in the §7.7 order) by descending score; equal scores keep that order."""
    return sorted(items, key=score_of, reverse=True)


def check_rank(rank_: str) -> str:
    """The normalized rank: "" for the §7.7 order, or "relevance"."""
    if rank_ in ("", "default"):
        return ""
    if rank_ in RANKS:
        return rank_
    raise InputError("invalid rank: expected default or relevance")


__all__ = ["Leaf", "leaf", "Query", "parse", "matches", "wrap", "length", "Stats", "frequencies",
           "weights", "scorer", "sql_score", "rank", "check_rank"]
