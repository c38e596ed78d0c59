"""A tool's input schema in its neutral form: self-contained, closed, without titles.

Every provider format starts from it, and a tool defined by a JSON Schema alone is validated
against it, so what the model is told is exactly what the validator enforces. The neutral
form inlines ``$ref``s (several providers reject ``$defs``), drops titles (they repeat the
property names and cost tokens), and sets ``additionalProperties: false`` on every object.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

__all__ = ["JsonSchema", "model_schema", "neutral_form"]

JsonSchema = dict[str, Any]


def model_schema(model: type[BaseModel]) -> JsonSchema:
    """The neutral schema of a pydantic input model."""
    return neutral_form(model.model_json_schema())


def neutral_form(schema: JsonSchema) -> JsonSchema:
    """``schema`` (an object schema, possibly with ``$defs``) in the neutral form."""
    raw = dict(schema)
    defs = raw.pop("$defs", None) or raw.pop("definitions", None) or {}
    raw.pop("$schema", None)
    neutral: JsonSchema = _clean(_inline(raw, defs))
    neutral.setdefault("properties", {})
    neutral["type"] = "object"
    neutral["additionalProperties"] = False
    return neutral


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
            target = _inline(defs[ref.rpartition("/")[2]], defs)
            extra = {k: _inline(v, defs) for k, v in node.items() if k != "$ref"}
            return {**target, **extra}
        return {key: _inline(value, defs) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    return node


def _clean(node: Any) -> Any:
    """Drop titles, close objects, and collapse single-member ``allOf`` wrappers."""
    if isinstance(node, list):
        return [_clean(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: JsonSchema = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _clean(prop) for name, prop in value.items()}
        else:
            out[key] = _clean(value)
    all_of = out.pop("allOf", None)
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        out = {**all_of[0], **out}
    elif all_of is not None:
        out["allOf"] = all_of
    if out.get("type") == "object" and _closable(out):
        out["additionalProperties"] = False
    return out


def _closable(node: JsonSchema) -> bool:
    """An object is closed unless it is a map: its extra keys are described, not forbidden."""
    return (
        not isinstance(node.get("additionalProperties"), dict) and "patternProperties" not in node
    )
