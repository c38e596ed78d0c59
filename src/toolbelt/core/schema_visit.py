"""Where a JSON Schema holds other schemas, and one walk over them.

JSON Schema nests schemas under three kinds of keyword: one schema (``items``, ``not``,
``additionalProperties``…), a map of names to schemas (``properties``, ``$defs``…) and a list
of schemas (``anyOf``, ``prefixItems``…). Everything else — ``default``, ``enum``, ``const``,
``examples``, a vendor's ``x-…`` keyword — is data, even when it holds a key named ``type`` or
``title``. Code that rewrites or reads every subschema asks here where they are, instead of
keeping its own keyword table: ``subschemas`` lists them with their ``Position`` (the keyword,
and the name or index inside it), ``map_subschemas`` rebuilds a node with each one replaced.

Who walks with it: the neutral form (``core.schema``), OpenAI's strict form
(``providers.schema``) and the search index's parameter words (``toolsearch.index``). Who keeps
a walk of its own, because what it follows depends on the node's type or on a value, not on
where a subschema sits: Gemini's dialect (``providers.gemini_schema``: merges ``allOf``, splits
type lists), strict mode's expressibility check, the TypeScript rendering of the harmony text
format, argument coercion (walks a value beside its schema), the example call in an error
message (builds a value), and the bounds on another server's schema (``mcp_client.metadata``:
caps every text and counts every level of the JSON, schema position or not).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["LIST", "MAP", "OMIT", "ONE", "Position", "map_subschemas", "subschemas"]

ONE: Final = frozenset(
    {
        "items",
        "additionalProperties",
        "unevaluatedProperties",
        "additionalItems",
        "unevaluatedItems",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
    }
)
"""Keywords whose value is one schema (``items`` may also be a list: draft 4's tuple form)."""
MAP: Final = frozenset(
    {"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
)
"""Keywords whose value maps names to schemas."""
LIST: Final = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
"""Keywords whose value is a list of schemas."""


@dataclass(frozen=True, slots=True)
class Position:
    """Where a subschema sits in its parent: the keyword, and the property name (a map) or
    index (a list) inside it; ``key`` is None for a keyword that holds one schema."""

    keyword: str
    key: str | int | None = None


class _Omit:
    def __repr__(self) -> str:
        return "OMIT"


OMIT: Final = _Omit()
"""What a ``map_subschemas`` visitor returns to leave a map entry or list item out."""


def subschemas(
    node: Mapping[str, Any], *, keywords: frozenset[str] | None = None
) -> Iterator[tuple[Position, Any]]:
    """Every schema directly inside ``node`` (only under ``keywords`` when given), in the
    order ``node`` lists them."""
    for keyword, value in node.items():
        if keywords is not None and keyword not in keywords:
            continue
        if keyword in MAP and isinstance(value, Mapping):
            for name, sub in value.items():
                yield Position(keyword, name), sub
        elif (keyword in LIST or keyword in ONE) and isinstance(value, list):
            for index, sub in enumerate(value):
                yield Position(keyword, index), sub
        elif keyword in ONE:
            yield Position(keyword), value


def map_subschemas(
    node: Mapping[str, Any],
    visit: Callable[[Any, Position], Any],
    *,
    keywords: frozenset[str] | None = None,
) -> dict[str, Any]:
    """A copy of ``node`` whose subschemas (only under ``keywords`` when given) are replaced
    by ``visit(subschema, position)``; a subschema it answers ``OMIT`` for is left out.
    Every other keyword's value is kept as it is."""
    out: dict[str, Any] = {}
    for keyword, value in node.items():
        if keywords is not None and keyword not in keywords:
            out[keyword] = value
        elif keyword in MAP and isinstance(value, Mapping):
            visited = ((name, visit(sub, Position(keyword, name))) for name, sub in value.items())
            out[keyword] = {name: sub for name, sub in visited if sub is not OMIT}
        elif (keyword in LIST or keyword in ONE) and isinstance(value, list):
            visited_items = (visit(sub, Position(keyword, i)) for i, sub in enumerate(value))
            out[keyword] = [sub for sub in visited_items if sub is not OMIT]
        elif keyword in ONE:
            visited_one = visit(value, Position(keyword))
            if visited_one is not OMIT:
                out[keyword] = visited_one
        else:
            out[keyword] = value
    return out
