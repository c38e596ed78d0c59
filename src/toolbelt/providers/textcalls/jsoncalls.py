"""Calls written as JSON objects ``{"name": ..., "arguments": {...}}`` (Hermes/Qwen, Mistral,
Llama), read leniently the way models actually write them.

Accepted beside the clean form: a Markdown fence around the JSON, text after it, a Python
dict (single quotes, ``True``), ``"parameters"`` instead of ``"arguments"``, arguments sent as
a JSON string (decoded once, never twice), and the ``{"type": "function", "function": ...}``
wrapper. Anything else is a ``BadCall`` whose sentence names the problem and the right shape.
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolbelt.providers.textcalls.coerce import load_lenient
from toolbelt.providers.textcalls.family import BadCall, Call, Item

__all__ = ["call_from_object", "json_values", "load_json", "name_from_json"]

_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?\s*```$", re.DOTALL)
_NAME = re.compile(r'"name"\s*:\s*"([^"\\]*)"')
_DECODER = json.JSONDecoder()


def load_json(text: str, shape: str) -> Any:
    """The JSON value ``text`` holds, or a ``BadCall`` saying why it is not one."""
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text:
        return BadCall("", f"The tool call is empty; write it in this shape: {shape}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        problem = f"{error.msg} at line {error.lineno} column {error.colno}"
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start >= 0:
        try:
            return _DECODER.raw_decode(text, start)[0]  # prose or a stray tag after the JSON
        except ValueError:
            pass
    try:
        return load_lenient(text)
    except ValueError:
        pass
    return BadCall(
        name_from_json(text),
        f"The tool call is not valid JSON ({problem}); write it in this shape: {shape}",
    )


def call_from_object(value: Any, shape: str) -> Item:
    """A ``Call`` from one decoded call object, or a ``BadCall`` naming what is missing."""
    if isinstance(value, BadCall):
        return value
    if not isinstance(value, dict):
        kind = type(value).__name__
        return BadCall("", f"The tool call must be a JSON object, not a {kind}; use: {shape}")
    if value.get("type") == "function" and isinstance(value.get("function"), dict):
        value = value["function"]
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return BadCall("", f'The tool call has no "name" string; write it in this shape: {shape}')
    if "arguments" in value and "parameters" in value:
        return BadCall(
            name, f'The call to {name} has both "arguments" and "parameters"; use one: {shape}'
        )
    arguments = value.get("arguments", value.get("parameters"))
    if arguments is None or arguments == "":
        arguments = {}
    if isinstance(arguments, str):
        try:
            arguments = load_lenient(arguments)
        except ValueError:
            arguments = None
    if not isinstance(arguments, dict):
        return BadCall(
            name, f"The arguments of {name} must be a JSON object of parameters; use: {shape}"
        )
    call_id = value.get("id")
    return Call(name, arguments, id=call_id if isinstance(call_id, str) else None)


def name_from_json(text: str) -> str:
    """The tool name in a call that does not parse (or was cut off), when it got that far."""
    match = _NAME.search(text)
    return match.group(1) if match else ""


def json_values(text: str) -> list[Any]:
    """The JSON values of ``text`` when it is only JSON values one after another, else []."""
    values, index = [], 0
    while index < len(text):
        try:
            value, index = _DECODER.raw_decode(text, index)
        except ValueError:
            return []
        values.append(value)
        while index < len(text) and text[index].isspace():
            index += 1
    return values
