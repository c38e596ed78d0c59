"""The neutral JSON schema of a tool (``Tool.input_schema``) and its strict variants.

Every provider format starts here. The neutral schema (``core.schema``) has its ``$ref``s
inlined, no titles, and ``additionalProperties: false`` on every object, so the model is told
up front what the validator will enforce.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from toolbelt.core.schema import JsonSchema
from toolbelt.core.tool import Tool

__all__ = ["neutral_schema", "strict_schema"]


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


def neutral_schema(tool: Tool[Any]) -> JsonSchema:
    """The tool's input schema, self-contained and closed (``additionalProperties: false``)."""
    return tool.input_schema()


def strict_schema(schema: JsonSchema) -> JsonSchema:
    """OpenAI strict-mode form: every property required, optional ones nullable, no defaults.

    Defaults and unsupported constraints are not lost: they are appended to the property's
    description, so the model still knows that ``limit`` defaults to 2000.
    """
    return _strictify(copy.deepcopy(schema))


def _strictify(node: JsonSchema) -> JsonSchema:
    if node.get("type") == "object" and isinstance(node.get("properties"), dict):
        required = set(node.get("required", []))
        props: dict[str, JsonSchema] = {}
        for name, prop in node["properties"].items():
            prop = _strictify(prop)
            if name not in required:
                prop = _nullable(prop)
            props[name] = prop
        node["properties"] = props
        node["required"] = list(props)
        node["additionalProperties"] = False
    if isinstance(node.get("items"), dict):
        node["items"] = _strictify(node["items"])
    if isinstance(node.get("anyOf"), list):
        node["anyOf"] = [_strictify(option) for option in node["anyOf"]]
    notes = [
        f"{key}: {json.dumps(value)}"
        for key, value in node.items()
        if key not in _STRICT_KEEP and key != "default"
    ]
    if "default" in node:
        notes.insert(0, f"Default: {json.dumps(node['default'])}")
    for key in [k for k in node if k not in _STRICT_KEEP]:
        del node[key]
    if notes:
        description = node.get("description", "")
        node["description"] = f"{description} ({'; '.join(notes)})".strip()
    return node


def _nullable(prop: JsonSchema) -> JsonSchema:
    options = prop.get("anyOf")
    if isinstance(options, list) and any(o.get("type") == "null" for o in options):
        return prop
    description = prop.pop("description", None)
    wrapped: JsonSchema = {"anyOf": [prop, {"type": "null"}]}
    if description:
        wrapped["description"] = description
    return wrapped
