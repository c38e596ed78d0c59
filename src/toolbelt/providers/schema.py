"""The neutral JSON schema of a tool (``Tool.input_schema``) and its strict variants.

Every provider format starts here. The neutral schema (``core.schema``) has its ``$ref``s
inlined, no titles, every object that lists its keys closed and every map open, so the model is
told up front what the validator will enforce. OpenAI's strict form is built from it where
strict mode can express it (``strict_tool_schema``), Gemini's subset by ``gemini_schema``.

Building a schema costs milliseconds (pydantic rebuilds it, ``SchemaTool`` deep-copies it), and
every request lists every tool, so each form is built once per tool object (``per_tool``) and
each caller gets a fresh copy. A tool's input schema is fixed for the object's life: built-in
tools take it from a class-level model, ``SchemaTool`` from its constructor, and an MCP
server's ``list_changed`` builds new ``McpTool`` objects. Names and descriptions are not cached
here: they may change on the same object (``tool_search`` describes its current catalog).
"""

from __future__ import annotations

import copy
import json
import weakref
from collections.abc import Callable
from typing import Any, Literal, cast

from toolbelt.core.schema import JsonSchema
from toolbelt.core.schema_visit import Position, map_subschemas
from toolbelt.core.tool import Tool
from toolbelt.providers.gemini_schema import gemini_schema

__all__ = [
    "SchemaForm",
    "neutral_schema",
    "per_tool",
    "strict_expressible",
    "strict_schema",
    "strict_tool_schema",
    "tool_schema",
]

SchemaForm = Literal["neutral", "strict", "gemini"]
"""The input schema as sent: neutral (Anthropic, OpenAI, MCP), OpenAI strict, Gemini's."""

# Keyed by the tool object itself (Tool defines no __eq__, so by identity), weakly: an entry
# goes with its tool, e.g. the McpTools an MCP server's list_changed replaced. A weak map rather
# than an attribute on the tool keeps this cache out of every Tool subclass's namespace. Values
# are JSON text: json.loads hands each caller its own tree in C, faster than copy.deepcopy.
_FORMS: weakref.WeakKeyDictionary[Tool[Any], dict[str, str]] = weakref.WeakKeyDictionary()


# Keywords OpenAI's strict mode accepts beside structure; anything else is moved into prose.
_STRICT_KEEP = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "description",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
}


_STRICT_NESTED = frozenset({"properties", "items", "anyOf"})
"""Where strict mode nests schemas; what sits under other keywords is dropped into prose."""


# The string formats OpenAI's structured outputs document for strict mode.
_STRICT_FORMATS = {
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


def per_tool(tool: Tool[Any], key: str, build: Callable[[], Any]) -> Any:
    """``build()`` for ``tool``, computed once per tool object and ``key``; every call returns a
    fresh copy, so a caller that edits what it got cannot change what the next one gets.

    ``build`` must depend only on what is fixed for the tool object (its schemas) and return a
    JSON value.
    """
    try:
        forms = _FORMS.get(tool)
        if forms is None:
            forms = _FORMS[tool] = {}
    except TypeError:  # a tool that cannot be weakly referenced or hashed: built every time
        return build()
    text = forms.get(key)
    if text is None:
        text = forms[key] = json.dumps(build())
    return json.loads(text)


def tool_schema(tool: Tool[Any], form: SchemaForm) -> JsonSchema:
    """The tool's input schema in ``form`` (a fresh copy, built once per tool)."""
    convert = _CONVERSIONS[form]
    return cast(JsonSchema, per_tool(tool, form, lambda: convert(tool.input_schema())))


def neutral_schema(tool: Tool[Any]) -> JsonSchema:
    """The tool's input schema in the neutral form (``core.schema``); a fresh copy, built once
    per tool."""
    return tool_schema(tool, "neutral")


def strict_tool_schema(tool: Tool[Any]) -> JsonSchema | None:
    """The tool's OpenAI strict-mode schema, or None when strict mode cannot express it.

    Strict mode wants every object closed and every value typed, so a map (``metadata``,
    ``call_mcp_tool``'s ``arguments``) or a value of any type has no strict form: forcing one
    would tell the model the map must be empty. Such a tool is sent with ``strict: false``
    and its neutral schema; OpenAI takes ``strict`` per function, so the others stay strict.
    """
    built = per_tool(
        tool, "strict-expressible", lambda: strict_expressible(tool_schema(tool, "strict"))
    )
    return tool_schema(tool, "strict") if built else None


def strict_expressible(schema: Any) -> bool:
    """Whether ``schema`` (a strict-form node) is inside what OpenAI's strict mode accepts:
    every object closed with its properties listed, every value typed."""
    if not isinstance(schema, dict):
        return False
    options = schema.get("anyOf")
    if isinstance(options, list):
        return all(strict_expressible(option) for option in options)
    if "type" not in schema and "enum" not in schema and "const" not in schema:
        return False
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "object" in kinds:
        properties = schema.get("properties")
        if not isinstance(properties, dict) or schema.get("additionalProperties") is not False:
            return False
        if not all(strict_expressible(sub) for sub in properties.values()):
            return False
    return "array" not in kinds or strict_expressible(schema.get("items"))


def strict_schema(schema: JsonSchema) -> JsonSchema:
    """OpenAI strict-mode form: every property required, optional ones nullable, no defaults.

    Defaults and unsupported constraints are not lost: they are appended to the property's
    description, so the model still knows that ``limit`` defaults to 2000.
    """
    return _strictify(copy.deepcopy(schema))


def _strictify(node: JsonSchema) -> JsonSchema:
    is_object = node.get("type") == "object" and isinstance(node.get("properties"), dict)
    required = set(node.get("required", [])) if is_object else set()

    def visit(sub: Any, at: Position) -> Any:
        if at.keyword == "properties":
            if not is_object:
                return sub
            strict = _strictify(sub)
            return strict if at.key in required else _nullable(strict)
        tuple_item = at.keyword == "items" and at.key is not None  # strict mode has no tuples
        return _strictify(sub) if isinstance(sub, dict) and not tuple_item else sub

    node = map_subschemas(node, visit, keywords=_STRICT_NESTED)
    if is_object:
        node["required"] = list(node["properties"])
        # an object the neutral form left open (a map with listed keys) stays open, and
        # ``strict_tool_schema`` then sends the tool without strict mode
        node.setdefault("additionalProperties", False)
    dropped = [k for k in node if k not in _STRICT_KEEP or _unsupported_format(k, node[k])]
    notes = [f"{key}: {json.dumps(node[key])}" for key in dropped if key != "default"]
    if "default" in node:
        notes.insert(0, f"Default: {json.dumps(node['default'])}")
    for key in dropped:
        del node[key]
    if notes:
        description = node.get("description", "")
        node["description"] = f"{description} ({'; '.join(notes)})".strip()
    return node


def _unsupported_format(key: str, value: Any) -> bool:
    """A ``format`` strict mode does not list (``uri``, ``int64``...): told, not sent."""
    return key == "format" and value not in _STRICT_FORMATS


def _nullable(prop: JsonSchema) -> JsonSchema:
    options = prop.get("anyOf")
    if isinstance(options, list) and any(o.get("type") == "null" for o in options):
        return prop
    description = prop.pop("description", None)
    wrapped: JsonSchema = {"anyOf": [prop, {"type": "null"}]}
    if description:
        wrapped["description"] = description
    return wrapped


_CONVERSIONS: dict[SchemaForm, Callable[[JsonSchema], JsonSchema]] = {
    "neutral": lambda schema: schema,
    "strict": strict_schema,
    "gemini": gemini_schema,
}
