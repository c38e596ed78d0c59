"""Gemini's schema dialect: the OpenAPI 3.0 subset its ``functionDeclarations`` accept.

Gemini answers 400 for the whole request when one tool's ``parameters`` leave its subset, so
every node is brought inside it:

- Every node has a known upper-case ``type``. An untyped node gets one from its shape
  (``properties`` -> OBJECT, ``items`` -> ARRAY, ``enum``/``const`` -> from the values,
  ``minLength``/``pattern`` -> STRING, ``minimum`` -> NUMBER). A node that accepts any value
  (``{}``, a ``$ref`` cycle cut by the neutral form) has no equivalent: it becomes STRING, the
  type that can carry any value written out, with "(any value)" in its description; the
  validator checks the neutral form, which accepts the string.
- Only the subset's keywords are sent. ``additionalProperties`` is not among them: a map is an
  OBJECT without ``properties`` (never an empty ``properties``, which Gemini rejects), its value
  schema noted in the description; Gemini tends to fill such an object with nothing, a limit of
  its ``parameters`` form. ``oneOf`` becomes ``anyOf``, ``allOf`` is merged into one node, a
  ``type`` list becomes ``nullable`` plus ``anyOf`` over its types, ``const`` a one-value
  ``enum``. ``enum`` holds strings only, so other values move into the description.
  ``format`` is kept where Gemini accepts it (``date-time``/``enum`` for STRING, ``int32``/
  ``int64``, ``float``/``double``), otherwise noted in the description.
- ``required`` names only listed properties (Gemini refuses the others).

Anything dropped that the model should still know (a default, a bound, a format, the value
schema of a map) moves into the description, as OpenAI's strict form does.
"""

from __future__ import annotations

import json
from typing import Any

from toolbelt.core.schema import json_type, lifted

__all__ = ["GEMINI_KEYWORDS", "gemini_schema"]

_TYPES = {
    "string": "STRING",
    "integer": "INTEGER",
    "number": "NUMBER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}
GEMINI_KEYWORDS = frozenset(
    {
        "type",
        "format",
        "description",
        "nullable",
        "enum",
        "minItems",
        "maxItems",
        "properties",
        "propertyOrdering",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "anyOf",
        "items",
    }
)
"""Every keyword ``gemini_schema`` may send: the Gemini API's ``Schema`` fields it uses."""

_BY_TYPE = {
    "STRING": ("minLength", "maxLength", "pattern"),
    "INTEGER": ("minimum", "maximum"),
    "NUMBER": ("minimum", "maximum"),
    "ARRAY": ("minItems", "maxItems"),
    "OBJECT": ("minProperties", "maxProperties"),
    "BOOLEAN": (),
}
_FORMATS = {
    "STRING": {"date-time", "enum"},
    "INTEGER": {"int32", "int64"},
    "NUMBER": {"float", "double"},
}
# Keywords with meaning for the model that Gemini has no field for: noted in the description.
_NOTED = ("exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems")


def gemini_schema(node: Any) -> dict[str, Any]:
    """Convert a neutral (inlined) JSON schema node to Gemini's dialect."""
    if not isinstance(node, dict):
        return _anything({})
    node = _merged_all_of(node)
    if node.get("properties") and ("anyOf" in node or "oneOf" in node):
        # alternatives beside the object's own keys: one object, the rule told in words
        node = lifted(node, subject="The fields")
    options = node.get("anyOf", node.get("oneOf"))
    kinds = node.get("type")
    if isinstance(options, list):
        rest = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf")}
        return _union([o if isinstance(o, dict) else {} for o in options], rest)
    if isinstance(kinds, list):
        rest = {k: v for k, v in node.items() if k != "type"}
        return _union([{"type": kind} for kind in kinds], rest, split_types=True)
    return _single(node)


def _union(
    options: list[dict[str, Any]], rest: dict[str, Any], *, split_types: bool = False
) -> dict[str, Any]:
    """``anyOf``/``oneOf``/a type list: ``null`` becomes ``nullable``, one option is merged.

    ``split_types``: the options are the types of a ``type`` list, and every other keyword of
    the node (``rest``) applies to each of them."""
    non_null = [o for o in options if o.get("type") != "null"]
    shared = {k: v for k, v in rest.items() if k not in ("description", "default")}
    if len(non_null) == 1:
        merged = {**rest, **non_null[0]} if split_types else {**non_null[0], **rest}
        out = gemini_schema(merged)
    elif not non_null:
        out = _single({**rest, "type": "string"})
        out["description"] = _noted(out.get("description"), ["always null"])
    else:
        variants = [{**shared, **o} for o in non_null] if split_types else non_null
        out = {"anyOf": [gemini_schema(v) for v in variants]}
        if isinstance(rest.get("description"), str):
            out["description"] = rest["description"]
        if "default" in rest:
            out["description"] = _noted(
                out.get("description"), [f"Default: {json.dumps(rest['default'])}"]
            )
    if len(non_null) < len(options):
        out["nullable"] = True
    return out


def _single(node: dict[str, Any]) -> dict[str, Any]:
    notes: list[str] = []
    values = node.get("enum")
    if "const" in node:
        values = [node["const"]]
    kind = _TYPES.get(node["type"]) if isinstance(node.get("type"), str) else _inferred(node)
    if kind is None:
        return _anything(node)
    out: dict[str, Any] = {"type": kind}
    if isinstance(node.get("description"), str):
        out["description"] = node["description"]
    if isinstance(values, list):
        if None in values:
            out["nullable"] = True
            values = [v for v in values if v is not None]
        if values and all(isinstance(v, str) for v in values) and kind == "STRING":
            out["enum"] = values
        elif values:
            notes.append("one of " + ", ".join(json.dumps(v) for v in values))
    fmt = node.get("format")
    if isinstance(fmt, str):
        if fmt in _FORMATS.get(kind, ()):
            out["format"] = fmt
        else:
            notes.append(f"format: {fmt}")
    for key in _BY_TYPE.get(kind, ()):
        if key in node:
            out[key] = node[key]
    if kind == "OBJECT":
        notes.extend(_object(node, out))
    if kind == "ARRAY":
        out["items"] = gemini_schema(node.get("items", {}))
    for key in _NOTED:
        if key in node:
            notes.append(f"{key}: {json.dumps(node[key])}")
    if "default" in node:
        notes.insert(0, f"Default: {json.dumps(node['default'])}")
    if notes:
        out["description"] = _noted(out.get("description"), notes)
    return out


def _object(node: dict[str, Any], out: dict[str, Any]) -> list[str]:
    """Properties and ``required`` into ``out``; what a map allows, as notes."""
    properties = node.get("properties")
    if isinstance(properties, dict) and properties:
        out["properties"] = {name: gemini_schema(sub) for name, sub in properties.items()}
        out["propertyOrdering"] = list(properties)
        required = [r for r in node.get("required", ()) if r in properties]
        if required:
            out["required"] = required
    extra = node.get("additionalProperties", not properties)
    if extra is False:
        return []
    keys = "other keys allowed" if properties else "an object with any keys"
    if isinstance(extra, dict) and extra:
        return [f"{keys}, each value {json.dumps(extra)}"]
    return [keys]


def _inferred(node: dict[str, Any]) -> str | None:
    """The type an untyped node's keywords imply, or None when it accepts anything."""
    if any(k in node for k in ("properties", "additionalProperties", "required")):
        return "OBJECT"
    if any(k in node for k in ("items", "prefixItems", "minItems", "maxItems")):
        return "ARRAY"
    values = node.get("enum", [node["const"]] if "const" in node else None)
    if isinstance(values, list):
        kinds = {json_type(v).upper() for v in values if v is not None}
        return kinds.pop() if len(kinds) == 1 else None
    if any(k in node for k in ("minLength", "maxLength", "pattern", "format")):
        return "STRING"
    if any(k in node for k in ("minimum", "maximum", "exclusiveMinimum", "multipleOf")):
        return "NUMBER"
    return None


def _anything(node: dict[str, Any]) -> dict[str, Any]:
    description = node.get("description") if isinstance(node.get("description"), str) else None
    notes = ["any value"]
    if "default" in node:
        notes.insert(0, f"Default: {json.dumps(node['default'])}")
    return {"type": "STRING", "description": _noted(description, notes)}


def _merged_all_of(node: dict[str, Any]) -> dict[str, Any]:
    """``allOf`` members merged into one node: properties and ``required`` joined."""
    members = node.get("allOf")
    if not isinstance(members, list):
        return node
    merged: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    parent = {k: v for k, v in node.items() if k != "allOf"}
    for member in [*members, parent]:
        if not isinstance(member, dict):
            continue
        member = _merged_all_of(member)
        for key, value in member.items():
            if key == "properties" and isinstance(value, dict):
                # a key the parent lists with any value ({}) is described by its member
                properties.update(
                    (n, sub) for n, sub in value.items() if sub != {} or n not in properties
                )
            elif key == "required" and isinstance(value, list):
                required.extend(r for r in value if r not in required)
            else:
                merged[key] = value
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged


def _noted(description: str | None, notes: list[str]) -> str:
    """``description`` followed by what Gemini's subset cannot say, in parentheses."""
    text = f"({'; '.join(notes)})"
    return f"{description} {text}" if description else text
