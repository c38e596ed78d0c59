"""Bounds on what a server says about its tools, before any of it reaches a model or a screen.

A tool's description, title and schema are the server's words, sent to the model with every
request: a 2 MB description costs 2 MB on every turn, and a schema nested 300 levels deep
breaks the parsers on the way. So a description is cut at 2,048 characters (Claude Code's cap
for MCP tool descriptions), a title at 200, every ``description`` and ``title`` inside the
schema at 512 — each cut visibly, with a note — and a tool whose schema is larger than 100,000
characters or nested deeper than 64 levels, or whose name is longer than the 128 characters
MCP allows, is left out with a reason (``unusable``), while the server's other tools stay.
"""

from __future__ import annotations

import json
from typing import Any

from toolbelt.core.errors import UnusableToolError

__all__ = [
    "MAX_DEPTH",
    "MAX_DESCRIPTION",
    "MAX_NAME",
    "MAX_SCHEMA_CHARS",
    "MAX_SCHEMA_TEXT",
    "MAX_TITLE",
    "UnusableToolError",
    "capped",
    "capped_schema",
    "depth",
    "unusable",
]

MAX_DESCRIPTION = 2048
MAX_TITLE = 200
MAX_SCHEMA_TEXT = 512
MAX_SCHEMA_CHARS = 100_000
MAX_DEPTH = 64
MAX_NAME = 128
"""The longest tool name the MCP specification allows (it is shown in messages and prompts)."""


def capped(text: str, limit: int) -> str:
    """``text`` cut at ``limit`` characters, with a note saying so when it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (cut by toolbelt: {len(text) - limit:,} more characters)"


def depth(value: Any, *, stop: int = MAX_DEPTH + 1) -> int:
    """How deeply ``value`` nests (a scalar is 0), counting no further than ``stop``; without
    recursion, so a hostile value cannot exhaust the stack."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, level = pending.pop()
        deepest = max(deepest, level)
        if deepest >= stop:
            return deepest
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        pending.extend((child, level + 1) for child in children)
    return deepest


def unusable(schema: Any, name: str = "") -> str | None:
    """Why a tool with this name and input schema is left out, or None when it can be used."""
    if len(name) > MAX_NAME:
        return f"its name has {len(name):,} characters, more than the {MAX_NAME} MCP allows"
    levels = depth(schema)
    if levels > MAX_DEPTH:
        return f"its input schema nests more than {MAX_DEPTH} levels deep"
    size = len(json.dumps(schema, ensure_ascii=False))
    if size > MAX_SCHEMA_CHARS:
        return (
            f"its input schema has {size:,} characters, more than the {MAX_SCHEMA_CHARS:,} allowed"
        )
    return None


def capped_schema(schema: Any) -> Any:
    """``schema`` with every ``description`` and ``title`` text cut at ``MAX_SCHEMA_TEXT``
    (a property *named* ``description`` is a schema, not a text, and is walked into)."""
    if isinstance(schema, list):
        return [capped_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: capped(value, MAX_SCHEMA_TEXT)
        if key in ("description", "title") and isinstance(value, str)
        else capped_schema(value)
        for key, value in schema.items()
    }
