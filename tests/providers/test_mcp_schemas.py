"""Input schemas as real MCP servers write them, and what each provider is sent.

One tool whose schema a provider rejects makes every request to it fail (400), and a schema
rewritten wrongly makes the tool unusable. Each schema below is a shape met in the wild (an
array without ``items``, a free-form ``metadata`` object, an untyped value, ``oneOf``, a
``$ref`` loop, a ``required`` key never listed...). For each, the exact output is pinned where
it matters, and every provider's form is checked against that provider's documented rules,
written out as checkers: OpenAI (every array has ``items``; strict mode: every object closed
and every value typed), Anthropic (an object at the top, no ``$ref``), Gemini (only its
``Schema`` keywords, every node typed, no empty ``properties``, string-only ``enum``...).
"""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types as gemini_types

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import InvalidInputError, UsageError
from toolbelt.core.schema import neutral_form
from toolbelt.core.schema_tool import SchemaArguments, SchemaTool
from toolbelt.providers.formats import (
    anthropic_tool,
    gemini_function_declaration,
    openai_chat_tool,
    openai_responses_tool,
)
from toolbelt.providers.gemini_schema import GEMINI_KEYWORDS, gemini_schema

NASTY: dict[str, dict[str, Any]] = {
    "array_without_items": {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "description": "Tags to add."},
            "matrix": {"type": "array", "items": {"type": "array"}},
            "either": {"anyOf": [{"type": "array"}, {"type": "string"}]},
        },
        "required": ["tags"],
    },
    "free_form_objects": {
        "type": "object",
        "properties": {
            "meta": {"type": "object", "description": "Any metadata."},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
            "options": {
                "type": "object",
                "properties": {"verbose": {"type": "boolean"}},
                "additionalProperties": True,
            },
            "closed": {"type": "object", "properties": {"a": {"type": "string"}}},
        },
    },
    "untyped_values": {
        "type": "object",
        "properties": {
            "value": {"description": "The value to store."},
            "kind": {"const": "note"},
            "level": {"enum": [1, 2, 3]},
            "mode": {"enum": ["a", "b", None]},
            "name": {"minLength": 1},
            "shape": {"properties": {"x": {"type": "number"}}},
        },
        "required": ["value", "ghost"],
    },
    "type_lists_and_unions": {
        "type": "object",
        "properties": {
            "limit": {"type": ["integer", "null"], "default": None},
            "id": {"type": ["string", "integer"], "description": "Name or number."},
            "target": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"id": {"type": "string"}},
                        "required": ["id"],
                    },
                    {"type": "object", "properties": {"slug": {"type": "string"}}},
                ]
            },
            "merged": {
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "integer"}}},
                ]
            },
        },
    },
    "formats_and_bounds": {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "day": {"type": "string", "format": "date"},
            "url": {"type": "string", "format": "uri", "pattern": "^https?://"},
            "count": {"type": "integer", "format": "int64", "exclusiveMinimum": 0},
            "ratio": {"type": "number", "multipleOf": 0.5, "maximum": 1},
            "ids": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        },
    },
    "recursive_refs": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"root": {"$ref": "#/definitions/Node"}},
        "definitions": {
            "Node": {
                "type": "object",
                "title": "Node",
                "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}},
                },
                "required": ["label"],
            }
        },
    },
    "data_that_looks_like_schema": {
        "type": "object",
        "properties": {
            "title": {"type": "string", "title": "Title"},
            "doc": {
                "type": "object",
                "default": {"title": "Untitled", "type": "object"},
                "properties": {"title": {"type": "string"}},
            },
        },
    },
    "boolean_subschemas": {
        "type": "object",
        "properties": {"anything": True, "never": False, "list": {"type": "array", "items": True}},
    },
    "unknown_ref": {
        "type": "object",
        "properties": {"spec": {"$ref": "https://example.invalid/spec.json"}},
    },
    "top_level_alternatives": {
        "type": "object",
        "anyOf": [
            {
                "type": "object",
                "properties": {"content": {"type": "string"}, "name": {"type": "string"}},
                "required": ["content"],
            },
            {
                "type": "object",
                "properties": {"source_url": {"type": "string", "format": "uri"}},
                "required": ["source_url"],
            },
        ],
    },
    "top_level_rules": {
        "type": "object",
        "properties": {
            "project": {"type": "string"},
            "paths": {"type": "array", "items": {"type": "string"}},
            "scopes": {"type": "array"},
            "mode": {"enum": ["fast", "full"]},
            "depth": {"type": "integer"},
        },
        "required": ["project"],
        "oneOf": [{"required": ["paths"]}, {"required": ["scopes"]}],
        "allOf": [
            {
                "if": {"properties": {"mode": {"const": "fast"}}},
                "then": {"properties": {"depth": {"maximum": 2}}},
            }
        ],
    },
    "top_level_parts": {
        "type": "object",
        "allOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}},
        ],
    },
    "no_arguments": {"type": "object", "properties": {}},
    "any_object": {"type": "object"},
}


class Remote(SchemaTool):
    """A remote tool: only its schema matters here."""

    def __init__(self, name: str, schema: dict[str, Any]) -> None:
        super().__init__(name, description=f"The {name} tool.", input_schema=schema)

    async def run(self, args: SchemaArguments, ctx: ToolContext) -> ToolOutput:
        raise NotImplementedError


def nodes(schema: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every schema node under ``schema`` (JSON Schema or Gemini's), with its path."""
    if not isinstance(schema, dict):
        return []
    found = [(path, schema)]
    for key in ("items", "additionalProperties", "not"):
        found += nodes(schema.get(key), f"{path}.{key}")
    for key in ("properties", "patternProperties"):
        for name, sub in (schema.get(key) or {}).items():
            found += nodes(sub, f"{path}.{key}[{name}]")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key) or []):
            found += nodes(sub, f"{path}.{key}[{i}]")
    return found


def json_schema_problems(schema: dict[str, Any]) -> list[str]:
    """OpenAI's and Anthropic's rules for a (non-strict) tool schema."""
    problems = []
    if schema.get("type") != "object":
        problems.append("the top level is not an object")
    problems += [f"top level has {k}" for k in ("anyOf", "oneOf", "allOf", "not") if k in schema]
    for path, node in nodes(schema):
        kinds = node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
        if "array" in kinds and not isinstance(node.get("items"), dict):
            problems.append(f"{path}: array schema missing items")
        if "$ref" in node or "$defs" in node or "definitions" in node:
            problems.append(f"{path}: has a reference")
        if "title" in node:
            problems.append(f"{path}: has a title")
    return problems


def strict_problems(schema: dict[str, Any]) -> list[str]:
    """OpenAI strict mode: every object closed with every key required, every value typed."""
    problems = json_schema_problems(schema)
    for path, node in nodes(schema):
        if not ({"type", "anyOf", "enum", "const"} & set(node)):
            problems.append(f"{path}: no type")
        if "object" in str(node.get("type")):
            if node.get("additionalProperties") is not False:
                problems.append(f"{path}: additionalProperties is not false")
            if node.get("required") != list(node.get("properties", {})):
                problems.append(f"{path}: not every property is required")
        if {"oneOf", "allOf", "not", "patternProperties"} & set(node):
            problems.append(f"{path}: a keyword strict mode does not support")
        if node.get("format", "date") not in STRICT_FORMATS:
            problems.append(f"{path}: format {node['format']!r} is not one strict mode lists")
    return problems


STRICT_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
}
GEMINI_TYPES = {"STRING", "INTEGER", "NUMBER", "BOOLEAN", "ARRAY", "OBJECT"}
GEMINI_FORMATS = {
    "STRING": {"date-time", "enum"},
    "INTEGER": {"int32", "int64"},
    "NUMBER": {"float", "double"},
}


def gemini_problems(declaration: dict[str, Any]) -> list[str]:
    """Gemini's rules for ``functionDeclarations[].parameters`` (the OpenAPI subset)."""
    parameters = declaration.get("parameters")
    if parameters is None:
        return []
    problems = [] if parameters.get("type") == "OBJECT" else ["parameters are not an OBJECT"]
    for path, node in nodes(parameters):
        problems += [f"{path}: unknown name {k!r}" for k in set(node) - GEMINI_KEYWORDS]
        kind = node.get("type")
        if kind not in GEMINI_TYPES and "anyOf" not in node:
            problems.append(f"{path}: type {kind!r} is not one of Gemini's")
        if kind == "ARRAY" and "items" not in node:
            problems.append(f"{path}.items: missing field")
        if "properties" in node and not node["properties"]:
            problems.append(f"{path}.properties: should be non-empty for OBJECT type")
        if not set(node.get("required", [])) <= set(node.get("properties", {})):
            problems.append(f"{path}.required: property is not defined")
        if "enum" in node and (
            kind != "STRING" or not all(isinstance(v, str) for v in node["enum"])
        ):
            problems.append(f"{path}.enum: values must be strings of a STRING")
        if "format" in node and node["format"] not in GEMINI_FORMATS.get(kind, set()):
            problems.append(f"{path}.format: {node['format']!r} is not supported")
    return problems


@pytest.mark.parametrize("name", list(NASTY))
def test_every_provider_form_follows_the_providers_rules(name: str) -> None:
    tool = Remote(name, NASTY[name])
    assert json_schema_problems(anthropic_tool(tool)["input_schema"]) == []
    assert json_schema_problems(openai_chat_tool(tool)["function"]["parameters"]) == []
    strict = openai_responses_tool(tool, strict=True)
    if strict["strict"]:
        assert strict_problems(strict["parameters"]) == []
    else:  # sent without strict mode: the neutral schema, as for non-strict requests
        assert strict["parameters"] == tool.input_schema()
    declaration = gemini_function_declaration(tool)
    assert gemini_problems(declaration) == []
    gemini_types.FunctionDeclaration.model_validate(declaration)  # the SDK forbids extra keys


@pytest.mark.parametrize("name", list(NASTY))
def test_every_tool_is_callable_with_its_own_example(name: str) -> None:
    tool = Remote(name, NASTY[name])
    assert tool.validate(tool.example).values() == tool.example


def test_arrays_without_items_get_an_items_schema_that_accepts_anything() -> None:
    neutral = neutral_form(NASTY["array_without_items"])
    assert neutral["properties"] == {
        "tags": {"type": "array", "description": "Tags to add.", "items": {}},
        "matrix": {"type": "array", "items": {"type": "array", "items": {}}},
        "either": {"anyOf": [{"type": "array", "items": {}}, {"type": "string"}]},
    }
    anything = {"type": "STRING", "description": "(any value)"}
    assert gemini_schema(neutral)["properties"] == {
        "tags": {"type": "ARRAY", "description": "Tags to add.", "items": anything},
        "matrix": {"type": "ARRAY", "items": {"type": "ARRAY", "items": anything}},
        "either": {"anyOf": [{"type": "ARRAY", "items": anything}, {"type": "STRING"}]},
    }
    tool = Remote("t", NASTY["array_without_items"])
    assert tool.validate({"tags": ["a", 1, {"b": 2}]}).values() == {"tags": ["a", 1, {"b": 2}]}


def test_maps_stay_open_and_objects_that_list_their_keys_are_closed() -> None:
    neutral = neutral_form(NASTY["free_form_objects"])
    assert neutral == {
        "type": "object",
        "properties": {
            "meta": {"type": "object", "description": "Any metadata."},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
            "options": {
                "type": "object",
                "properties": {"verbose": {"type": "boolean"}},
                "additionalProperties": True,
            },
            "closed": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    }
    assert gemini_schema(neutral)["properties"] == {
        "meta": {"type": "OBJECT", "description": "Any metadata. (an object with any keys)"},
        "headers": {
            "type": "OBJECT",
            "description": '(an object with any keys, each value {"type": "string"})',
        },
        "options": {
            "type": "OBJECT",
            "properties": {"verbose": {"type": "BOOLEAN"}},
            "propertyOrdering": ["verbose"],
            "description": "(other keys allowed)",
        },
        "closed": {
            "type": "OBJECT",
            "properties": {"a": {"type": "STRING"}},
            "propertyOrdering": ["a"],
        },
    }


def test_untyped_values_get_a_gemini_type_from_their_shape() -> None:
    gemini = gemini_schema(neutral_form(NASTY["untyped_values"]))
    assert gemini["properties"] == {
        "value": {"type": "STRING", "description": "The value to store. (any value)"},
        "kind": {"type": "STRING", "enum": ["note"]},
        "level": {"type": "INTEGER", "description": "(one of 1, 2, 3)"},
        "mode": {"type": "STRING", "nullable": True, "enum": ["a", "b"]},
        "name": {"type": "STRING", "minLength": 1},
        "shape": {
            "type": "OBJECT",
            "properties": {"x": {"type": "NUMBER"}},
            "propertyOrdering": ["x"],
        },
        "ghost": {"type": "STRING", "description": "(any value)"},
    }
    assert gemini["required"] == ["value", "ghost"]


def test_a_required_key_the_schema_never_lists_stays_callable() -> None:
    tool = Remote("t", NASTY["untyped_values"])
    assert tool.input_schema()["properties"]["ghost"] == {}
    assert tool.validate({"value": 1, "ghost": "x"}).values() == {"value": 1, "ghost": "x"}


def test_unions_type_lists_and_formats_in_gemini_s_subset() -> None:
    gemini = gemini_schema(neutral_form(NASTY["type_lists_and_unions"]))["properties"]
    assert gemini["limit"] == {
        "type": "INTEGER",
        "description": "(Default: null)",
        "nullable": True,
    }
    assert gemini["id"] == {
        "anyOf": [{"type": "STRING"}, {"type": "INTEGER"}],
        "description": "Name or number.",
    }
    assert [option["required"] for option in gemini["target"]["anyOf"] if "required" in option] == [
        ["id"]
    ]
    assert gemini["merged"] == {
        "type": "OBJECT",
        "properties": {"a": {"type": "STRING"}, "b": {"type": "INTEGER"}},
        "propertyOrdering": ["a", "b"],
        "required": ["a"],
    }
    formats = gemini_schema(neutral_form(NASTY["formats_and_bounds"]))["properties"]
    assert formats == {
        "when": {"type": "STRING", "format": "date-time"},
        "day": {"type": "STRING", "description": "(format: date)"},
        "url": {"type": "STRING", "pattern": "^https?://", "description": "(format: uri)"},
        "count": {"type": "INTEGER", "format": "int64", "description": "(exclusiveMinimum: 0)"},
        "ratio": {"type": "NUMBER", "maximum": 1, "description": "(multipleOf: 0.5)"},
        "ids": {"type": "ARRAY", "items": {"type": "STRING"}, "description": "(uniqueItems: true)"},
    }


def test_a_ref_loop_is_cut_at_its_second_turn_and_defaults_stay_data() -> None:
    assert neutral_form(NASTY["recursive_refs"])["properties"]["root"] == {
        "type": "object",
        "properties": {
            "label": {"type": "string"},
            "children": {
                "type": "array",
                "items": {"description": "Same shape as `Node` (nested)."},
            },
        },
        "required": ["label"],
        "additionalProperties": False,
    }
    data = neutral_form(NASTY["data_that_looks_like_schema"])["properties"]
    assert data["title"] == {"type": "string"}  # a property named title is kept, its title not
    assert data["doc"]["default"] == {"title": "Untitled", "type": "object"}


def test_tools_without_listed_keys_are_declared_to_gemini_without_parameters() -> None:
    for name in ("no_arguments", "any_object"):
        declaration = gemini_function_declaration(Remote(name, NASTY[name]))
        assert declaration == {"name": name, "description": f"The {name} tool."}
    assert neutral_form(NASTY["any_object"]) == {
        "type": "object",
        "properties": {},
        "additionalProperties": True,
    }
    assert Remote("a", NASTY["any_object"]).validate({"x": 1}).values() == {"x": 1}


def test_strict_mode_is_kept_for_tools_it_can_express() -> None:
    strictable = openai_chat_tool(Remote("f", NASTY["formats_and_bounds"]), strict=True)
    assert strictable["function"]["strict"] is True
    assert strict_problems(strictable["function"]["parameters"]) == []
    properties = strictable["function"]["parameters"]["properties"]
    assert properties["url"] == {
        "anyOf": [{"type": "string", "pattern": "^https?://"}, {"type": "null"}],
        "description": '(format: "uri")',
    }
    assert properties["day"]["anyOf"][0] == {"type": "string", "format": "date"}
    for name in ("free_form_objects", "any_object", "untyped_values"):
        assert (
            openai_chat_tool(Remote(name, NASTY[name]), strict=True)["function"]["strict"] is False
        )


def test_the_neutral_form_is_stable_when_applied_again() -> None:
    for schema in NASTY.values():
        once = neutral_form(schema)
        assert neutral_form(once) == once


def test_top_level_alternatives_are_listed_together_and_still_enforced() -> None:
    tool = Remote("attach", NASTY["top_level_alternatives"])
    assert tool.input_schema() == {
        "type": "object",
        "properties": {
            "content": {"type": "string"},
            "name": {"type": "string"},
            "source_url": {"type": "string", "format": "uri"},
        },
        "additionalProperties": False,
        "description": "The arguments take at least one of these forms: with `content`; "
        "with `source_url`.",
    }
    assert tool.example == {"content": "text"}
    with pytest.raises(InvalidInputError) as refused:
        tool.validate({"name": "a.txt"})
    assert str(refused.value) == (
        "Invalid arguments for `attach`: `arguments` matches none of its forms (with `content`; "
        'with `source_url`). A correct call looks like: {"content": "text"}'
    )


def test_top_level_rules_are_told_in_the_description_and_enforced() -> None:
    tool = Remote("index", NASTY["top_level_rules"])
    schema = tool.input_schema()
    assert set(schema) == {"type", "properties", "required", "additionalProperties", "description"}
    assert schema["required"] == ["project"]
    assert schema["description"] == (
        "The arguments take exactly one of these forms: with `paths`; with `scopes`. "
        'If the arguments match {"properties": {"mode": {"const": "fast"}}}, they must match '
        '{"properties": {"depth": {"maximum": 2}}}.'
    )
    assert tool.example == {"project": "text", "paths": []}
    assert tool.validate({"project": "p", "scopes": [], "mode": "full", "depth": 5})
    for wrong, why in [
        ({"project": "p", "paths": [], "scopes": []}, "`arguments` matches more than one of"),
        ({"project": "p", "paths": [], "mode": "fast", "depth": 5}, "`depth`: 5 is greater"),
    ]:
        with pytest.raises(InvalidInputError) as refused:
            tool.validate(wrong)
        assert why in str(refused.value)


def test_top_level_parts_are_merged_without_a_rule_to_tell() -> None:
    tool = Remote("parts", NASTY["top_level_parts"])
    assert tool.input_schema() == {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "additionalProperties": True,  # as written: neither part closes the object
        "required": ["a"],
    }
    assert tool.validate({"a": "x", "b": 1}).values() == {"a": "x", "b": 1}
    with pytest.raises(InvalidInputError, match="`b`: should be of type integer"):
        tool.validate({"a": "x", "b": "one"})


def test_gemini_merges_alternatives_beside_an_object_s_own_keys() -> None:
    query = {
        "type": "object",
        "properties": {
            "kind": {"type": "string"},
            "a": {"type": "string"},
            "b": {"type": "string"},
        },
        "required": ["kind"],
        "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
    }
    wrapped = neutral_form({"type": "object", "properties": {"q": query}})
    assert gemini_schema(wrapped)["properties"]["q"] == {
        "type": "OBJECT",
        "description": "The fields take exactly one of these forms: with `a`; with `b`.",
        "properties": {
            "kind": {"type": "STRING"},
            "a": {"type": "STRING"},
            "b": {"type": "STRING"},
        },
        "propertyOrdering": ["kind", "a", "b"],
        "required": ["kind"],
    }


def test_references_that_would_expand_exponentially_are_refused_clearly() -> None:
    # each level refers to the next twice: 2**30 nodes once inlined
    defs = {
        f"L{i}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/L{i + 1}"}, "b": {"$ref": f"#/$defs/L{i + 1}"}},
        }
        for i in range(30)
    }
    defs["L30"] = {"type": "string"}
    schema = {"type": "object", "properties": {"root": {"$ref": "#/$defs/L0"}}, "$defs": defs}
    with pytest.raises(UsageError) as refused:
        Remote("bomb", schema)
    assert str(refused.value) == (
        "The input schema of `bomb` cannot be used: its input schema expands to more than "
        "20,000 nodes once its `$ref`s are inlined."
    )
