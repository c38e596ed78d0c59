"""The one walk over a JSON Schema's subschemas: every schema position, never a data value."""

from __future__ import annotations

from typing import Any

from toolbelt.core.schema_visit import OMIT, Position, map_subschemas, subschemas

SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "Search",
    "properties": {
        "query": {"type": "string", "title": "Query"},
        "filters": {"type": "array", "items": {"type": "string"}},
        "never": False,
    },
    "default": {"properties": {"not": "a schema"}, "items": "data"},
    "anyOf": [{"required": ["query"]}, {"required": ["filters"]}],
    "additionalProperties": False,
    "x-vendor": {"items": {"type": "string"}},
    "$defs": {"Node": {"type": "object"}},
    "prefixItems": [{"type": "integer"}],
    "items": [{"type": "boolean"}],
}


def test_subschemas_lists_every_schema_position_in_order_and_no_data() -> None:
    assert [at for at, _ in subschemas(SCHEMA)] == [
        Position("properties", "query"),
        Position("properties", "filters"),
        Position("properties", "never"),
        Position("anyOf", 0),
        Position("anyOf", 1),
        Position("additionalProperties"),
        Position("$defs", "Node"),
        Position("prefixItems", 0),
        Position("items", 0),
    ]
    assert [at for at, _ in subschemas(SCHEMA, keywords=frozenset({"anyOf"}))] == [
        Position("anyOf", 0),
        Position("anyOf", 1),
    ]


def test_map_subschemas_rebuilds_the_positions_and_keeps_the_rest() -> None:
    def visit(sub: Any, at: Position) -> Any:
        if sub is False:
            return OMIT
        return {"at": at.keyword, "key": at.key}

    rebuilt = map_subschemas(SCHEMA, visit, keywords=frozenset({"properties", "items", "not"}))
    assert rebuilt == {
        **SCHEMA,
        "properties": {
            "query": {"at": "properties", "key": "query"},
            "filters": {"at": "properties", "key": "filters"},
        },
        "items": [{"at": "items", "key": 0}],
    }
    assert list(rebuilt) == list(SCHEMA)
    assert SCHEMA["properties"]["never"] is False  # the input is left as it was


def test_a_one_schema_keyword_answered_omit_is_left_out() -> None:
    assert map_subschemas({"type": "array", "items": {}}, lambda sub, at: OMIT) == {"type": "array"}
