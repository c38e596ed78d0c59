"""Turn a text call's argument values into what the tool's JSON schema asks for.

XML-ish formats (Qwen3-Coder, GLM, DeepSeek V3.2) deliver every value as text, and models
writing JSON often quote numbers and booleans (``"5"``, ``"false"``) or send an object as a
JSON string. Coercion is driven by the schema and only by the schema: a value whose schema
allows a string is never touched (``"false"`` stays a string there), a value that does not
parse as the wanted type stays as it was so the validator names the problem to the model.
Python literals (``True``, ``None``, single-quoted dicts) are accepted because the official
Qwen3-Coder template renders history that way and models echo it.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from toolbelt.core.schema import JsonSchema, json_type

__all__ = ["coerce_arguments", "coerce_value", "load_lenient"]

_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_NULLS = {"null", "None", "none", "NULL"}
_MISSING = object()


def load_lenient(text: str) -> Any:
    """JSON, else a Python literal (``{'a': True}``); raises ``ValueError`` when neither."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as error:
        raise ValueError(str(error)) from None


def coerce_arguments(
    arguments: Mapping[str, Any], schema: JsonSchema | None, *, raw_text: bool = False
) -> dict[str, Any]:
    """``arguments`` with each value coerced by its property schema (unknown keys untouched).

    ``raw_text`` says every value arrived as text (XML-ish formats): then ``null``/``None``
    also become null where the schema allows null and the value is not a plain string.
    """
    properties = (schema or {}).get("properties") or {}
    return {
        key: coerce_value(value, properties.get(key), raw_text=raw_text)
        for key, value in arguments.items()
    }


def coerce_value(value: Any, schema: JsonSchema | None, *, raw_text: bool = False) -> Any:
    """One value coerced by its schema; ``schema`` None (an unknown key) leaves it alone."""
    if schema is None or (isinstance(value, str) and schema.get("type") == "string"):
        return value
    types = _types(schema)
    if isinstance(value, str):
        value = _from_text(value, types, schema, raw_text=raw_text)
    if isinstance(value, dict) and "object" in types:
        object_schema = _option(schema, "object")
        return coerce_arguments(value, object_schema) if object_schema else value
    if isinstance(value, list) and "array" in types:
        items = (_option(schema, "array") or {}).get("items")
        if isinstance(items, dict):
            return [coerce_value(item, items) for item in value]
    return value


def _from_text(text: str, types: set[str], schema: JsonSchema, *, raw_text: bool) -> Any:
    stripped = text.strip()
    if "null" in types and stripped in _NULLS and (raw_text or "string" not in types):
        return None
    if "string" in types or not types:
        # A string is acceptable: only a union (string | integer ...) may prefer another type,
        # and only when the text is exactly that type's JSON.
        if types - {"string", "null"} and stripped and stripped[0] in "[{0123456789-tf":
            parsed = _parse(stripped, types - {"string", "null"})
            if parsed is not _MISSING:
                return parsed
        return text
    parsed = _parse(stripped, types)
    return text if parsed is _MISSING else parsed


def _parse(text: str, types: set[str]) -> Any:
    if "boolean" in types and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if "integer" in types and _INTEGER.fullmatch(text):
        return int(text)
    if "number" in types and _NUMBER.fullmatch(text):
        number = float(text)
        written_whole = "." not in text and "e" not in text.lower()
        return int(number) if number.is_integer() and written_whole else number
    if types & {"object", "array"} and text[:1] in "[{":
        try:
            loaded = load_lenient(text)
        except ValueError:
            return _MISSING
        if (isinstance(loaded, dict) and "object" in types) or (
            isinstance(loaded, list) and "array" in types
        ):
            return loaded
    return _MISSING


def _types(schema: JsonSchema) -> set[str]:
    """Every JSON type the schema admits, through ``type`` lists, ``anyOf`` and ``oneOf``."""
    kinds: set[str] = set()
    declared = schema.get("type")
    if isinstance(declared, str):
        kinds.add(declared)
    elif isinstance(declared, list):
        kinds.update(t for t in declared if isinstance(t, str))
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            if isinstance(option, dict):
                kinds |= _types(option)
    if not kinds and "enum" in schema:
        kinds = {json_type(v) for v in schema["enum"]}
    if not kinds and "const" in schema:
        kinds = {json_type(schema["const"])}
    if "number" in kinds:
        kinds.add("integer")
    return kinds


def _option(schema: JsonSchema, kind: str) -> JsonSchema | None:
    """The member of a union (or the schema itself) that describes values of ``kind``."""
    if schema.get("type") == kind or (
        isinstance(schema.get("type"), list) and kind in schema["type"]
    ):
        return schema
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            if isinstance(option, dict) and kind in _types(option):
                return _option(option, kind)
    return None
