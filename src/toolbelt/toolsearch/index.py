"""The search index over a catalog of tools: exact names first, then BM25.

Users' first complaint about tool search elsewhere is that it misses a tool they named
exactly (openai/codex#21503): a ranking function can bury an exact name under tools whose
descriptions repeat the query's words. Here a name is looked up before anything is ranked —
the full name or the part after ``mcp__<server>__``, case-insensitive, as the whole query (then
the tools of that name are the whole answer) or as one of its words (then they come first).
The rest is ranked by BM25 over the words of the name (weight 3), the parameters' names
(2), the description and the parameters' descriptions (1); a query word that is no word of
any tool is read as a prefix (``repo`` finds ``repository``).

The index is plain Python dictionaries built once per catalog (500 tools take 20-30 ms,
``bench/run.py toolsearch``), so rebuilding it when a server's tool list
changes is cheaper than keeping it up to date piece by piece.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolbelt.core.registry import AnyTool
from toolbelt.core.schema_visit import subschemas
from toolbelt.toolsearch.terms import name_parts, server_of, short_name, words

__all__ = ["Match", "ToolIndex"]

_K1 = 1.2
_B = 0.75
_NAME_WEIGHT = 3.0
_PARAMETER_WEIGHT = 2.0
_PREFIX_WEIGHT = 0.5
_MIN_PREFIX = 3


@dataclass(frozen=True, slots=True)
class Match:
    """A tool the search found: whether its name was asked for exactly, and its BM25 score."""

    tool: AnyTool
    exact: bool
    score: float


class ToolIndex:
    """Exact-name lookup and BM25 postings over ``tools``, which it never changes."""

    def __init__(self, tools: Sequence[AnyTool]) -> None:
        self.tools = tuple(tools)
        self._servers = [server_of(tool.name) for tool in self.tools]
        self._names: dict[str, list[int]] = {}
        self._postings: dict[str, list[tuple[int, float]]] = {}
        self._lengths: list[float] = []
        for doc, tool in enumerate(self.tools):
            for key in dict.fromkeys((tool.name.lower(), short_name(tool.name).lower())):
                self._names.setdefault(key, []).append(doc)
            counts = _weighted_words(tool)
            self._lengths.append(sum(counts.values()))
            for word, count in counts.items():
                self._postings.setdefault(word, []).append((doc, count))
        self._average = sum(self._lengths) / len(self._lengths) if self._lengths else 1.0

    def servers(self) -> tuple[str, ...]:
        """The servers whose tools are in the index, in catalog order."""
        return tuple(dict.fromkeys(server for server in self._servers if server is not None))

    def resolve(self, name: str, *, server: str | None = None) -> list[AnyTool]:
        """The tools named ``name`` (full or short, any case), on ``server`` when given."""
        allowed = self._allowed(server)
        return [
            self.tools[doc] for doc in self._names.get(name.strip().lower(), ()) if allowed(doc)
        ]

    def search(self, query: str, *, server: str | None = None, limit: int = 5) -> list[Match]:
        """The best ``limit`` tools for ``query``: exact names first, then by BM25 score.

        A query that is a tool's name as a whole returns the tools of that name alone.
        """
        allowed = self._allowed(server)
        scores = self._scores(words(query))
        exact = self._exact(query)
        if any(rank == 0 and allowed(doc) for doc, rank in exact.items()):
            # the query is a name: its tools alone, not the tools that merely share its words
            exact = {doc: rank for doc, rank in exact.items() if rank == 0}
            scores = {doc: scores.get(doc, 0.0) for doc in exact}
        ranked = sorted(
            (doc for doc in set(exact) | set(scores) if allowed(doc)),
            key=lambda doc: (exact.get(doc, 2), -scores.get(doc, 0.0), doc),
        )
        return [
            Match(self.tools[doc], doc in exact, scores.get(doc, 0.0)) for doc in ranked[:limit]
        ]

    def _allowed(self, server: str | None) -> Callable[[int], bool]:
        """Whether a document passes the ``server`` filter (any case; None: every document)."""
        if server is None:
            return lambda doc: True
        wanted = server.strip().lower()
        return lambda doc: (self._servers[doc] or "").lower() == wanted

    def _exact(self, query: str) -> dict[int, int]:
        """Documents whose name is the whole query (rank 0) or one of its words (rank 1)."""
        lowered = query.strip().lower()
        found: dict[int, int] = dict.fromkeys(self._names.get(lowered, ()), 0)
        for part in lowered.split():
            for doc in self._names.get(part.strip("`'\",.;:()"), ()):
                found.setdefault(doc, 1)
        return found

    def _scores(self, query_words: list[str]) -> dict[int, float]:
        scores: dict[int, float] = {}
        total = len(self.tools)
        for word, weight in self._expanded(query_words):
            postings = self._postings[word]
            idf = math.log(1 + (total - len(postings) + 0.5) / (len(postings) + 0.5))
            for doc, count in postings:
                norm = _K1 * (1 - _B + _B * self._lengths[doc] / self._average)
                scores[doc] = scores.get(doc, 0.0) + weight * idf * count * (_K1 + 1) / (
                    count + norm
                )
        return scores

    def _expanded(self, query_words: list[str]) -> Iterator[tuple[str, float]]:
        """Each query word once; a word no tool has stands for the words it begins."""
        for word in dict.fromkeys(query_words):
            if word in self._postings:
                yield word, 1.0
            elif len(word) >= _MIN_PREFIX:
                for known in self._postings:
                    if known.startswith(word):
                        yield known, _PREFIX_WEIGHT


def _weighted_words(tool: AnyTool) -> dict[str, float]:
    counts: dict[str, float] = {}
    weighted = [(name_parts(tool.name), _NAME_WEIGHT), (words(tool.description or ""), 1.0)]
    for name, description in _parameters(tool.input_schema()):
        weighted += [(words(name), _PARAMETER_WEIGHT), (words(description), 1.0)]
    for found, weight in weighted:
        for word in found:
            counts[word] = counts.get(word, 0.0) + weight
    return counts


_DESCRIBED = frozenset({"properties", "items"})
"""Where a tool's parameters are: its properties, nested objects' and arrays' items."""


def _parameters(schema: Mapping[str, Any], depth: int = 0) -> Iterator[tuple[str, str]]:
    """Each property's name and description, nested objects and arrays' items included."""
    if depth > 3:
        return
    for at, sub in subschemas(schema, keywords=_DESCRIBED):
        if not isinstance(sub, Mapping):
            continue
        if at.keyword == "properties":
            description = sub.get("description")
            yield str(at.key), description if isinstance(description, str) else ""
        yield from _parameters(sub, depth + 1)
