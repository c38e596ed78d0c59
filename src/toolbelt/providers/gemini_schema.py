"""Gemini's schema dialect: the OpenAPI 3.0 subset its ``functionDeclarations`` accept.

Gemini rejects ``additionalProperties``, ``$ref``/``$defs``, ``const`` and most JSON Schema
keywords, names types in upper case, and marks optional values with ``nullable: true`` rather
than a ``null`` type. Anything dropped that the model should still know (a default) moves into
the description.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["gemini_schema"]

_TYPES = {
    "string": "STRING",
    "integer": "INTEGER",
    "number": "NUMBER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}
_KEEP = {
    "format",
    "description",
    "enum",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
}


def gemini_schema(node: dict[str, Any]) -> dict[str, Any]:
    """Convert a neutral (inlined) JSON schema node to Gemini's dialect."""
    out: dict[str, Any] = {}
    options = node.get("anyOf")
    if isinstance(options, list):
        non_null = [o for o in options if o.get("type") != "null"]
        nullable = len(non_null) < len(options)
        if len(non_null) == 1:
            merged = {**non_null[0], **{k: v for k, v in node.items() if k != "anyOf"}}
            out = gemini_schema(merged)
        else:
            out["anyOf"] = [gemini_schema(o) for o in non_null]
            out.update({k: v for k, v in node.items() if k in _KEEP})
        if nullable:
            out["nullable"] = True
        return out
    kind = node.get("type")
    if isinstance(kind, list):
        non_null_types = [t for t in kind if t != "null"]
        if "null" in kind:
            out["nullable"] = True
        kind = non_null_types[0] if non_null_types else "string"
    if "const" in node:
        out["enum"] = [node["const"]]
        kind = kind or _type_of(node["const"])
    if kind in _TYPES:
        out["type"] = _TYPES[kind]
    for key in _KEEP:
        if key in node:
            out[key] = node[key]
    if isinstance(node.get("properties"), dict):
        out["properties"] = {k: gemini_schema(v) for k, v in node["properties"].items()}
        out["propertyOrdering"] = list(node["properties"])
    if node.get("required"):
        out["required"] = list(node["required"])
    if isinstance(node.get("items"), dict):
        out["items"] = gemini_schema(node["items"])
    if "default" in node:
        note = f"Default: {json.dumps(node['default'])}"
        out["description"] = f"{out.get('description', '')} ({note})".strip()
    return out


def _type_of(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"
