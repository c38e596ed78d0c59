"""Pieces every family's rendering shares: tool definitions as JSON, results as text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.framing import neutralise, neutralise_values
from toolbelt.providers.schema import neutral_schema

__all__ = [
    "dumps",
    "function_definition",
    "result_text",
    "tool_description",
    "tool_schema",
    "tools_json_lines",
]


def dumps(value: Any, *, indent: int | None = None) -> str:
    """JSON the way chat templates write it (``tojson``): UTF-8 kept, ``", "`` separators."""
    return json.dumps(value, ensure_ascii=False, indent=indent)


def function_definition(tool: Tool[Any]) -> dict[str, Any]:
    """The OpenAI-style function object most open-model templates print in the prompt."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool_description(tool),
            "parameters": tool_schema(tool),
        },
    }


def tool_description(tool: Tool[Any]) -> str:
    """A tool's description as the prompt shows it: an MCP server wrote it, so its framing
    markers are neutralised."""
    return neutralise(tool.description)


def tool_schema(tool: Tool[Any]) -> dict[str, Any]:
    """A tool's parameter schema as the prompt shows it, its texts neutralised (the values the
    model sends back are restored)."""
    schema: dict[str, Any] = neutralise_values(neutral_schema(tool))
    return schema


def tools_json_lines(tools: Sequence[Tool[Any]]) -> str:
    """One function definition per line (Hermes, GLM)."""
    return "\n".join(dumps(function_definition(tool)) for tool in tools)


def result_text(result: ToolCallResult) -> str:
    """What the model reads for one result; images travel beside the text, not in it."""
    text = result.text
    if result.is_error and not text.lower().startswith("error"):
        return f"Error: {text}"
    return text
