"""Pieces every family's rendering shares: tool definitions as JSON, results as text."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.framing import neutralise, neutralise_values
from toolbelt.providers.model import ModelToolCall
from toolbelt.providers.schema import neutral_schema

__all__ = [
    "dumps",
    "function_definition",
    "result_text",
    "tool_description",
    "tool_schema",
    "tools_in_xml_tags",
    "written_calls",
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


def tools_in_xml_tags(tools: Sequence[Tool[Any]]) -> str:
    """The opening of the tools section Hermes' template writes and GLM's copies word for
    word: the definitions one per line inside ``<tools></tools>``; each family then says in
    its own words how a call is written."""
    lines = "\n".join(dumps(function_definition(tool)) for tool in tools)
    return (
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n"
        f"<tools>\n{lines}\n</tools>\n\n"
    )


def written_calls(
    calls: Sequence[ModelToolCall],
    argument: Callable[[str, Any], str],
    call: Callable[[str, str], str],
) -> list[str]:
    """Each call as a family's template writes it: ``call(name, arguments)``, where
    ``arguments`` is every argument written by ``argument(key, value)``, in order."""
    return [
        call(made.name, "".join(argument(key, value) for key, value in made.arguments.items()))
        for made in calls
    ]


def result_text(result: ToolCallResult) -> str:
    """What the model reads for one result; images travel beside the text, not in it."""
    text = result.text
    if result.is_error and not text.lower().startswith("error"):
        return f"Error: {text}"
    return text
