"""Tool definitions and tool results in each provider's wire format.

One neutral schema (``providers.schema``) becomes: Anthropic Messages ``tools``, OpenAI Chat
Completions ``tools`` (optionally ``strict``), OpenAI Responses ``tools``, Gemini
``functionDeclarations`` and MCP ``tools/list`` entries. A ``ToolCallResult`` becomes the
matching result message: Anthropic ``tool_result`` (with ``is_error``), an OpenAI ``role:
tool`` message, a Responses ``function_call_output``, a Gemini ``functionResponse``.

These functions build plain dicts and import no provider SDK. The schemas in them are built
once per tool (``providers.schema``); a definition is assembled around a fresh copy on each
call, with the tool's current name and description, so a request costs only the assembly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from toolbelt.core.content import ImageBlock, TextBlock
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.schema import JsonSchema
from toolbelt.core.tool import Tool
from toolbelt.providers.mcp_results import output_schema
from toolbelt.providers.schema import neutral_schema, per_tool, strict_tool_schema, tool_schema
from toolbelt.providers.wire_content import wire_content

__all__ = [
    "GEMINI_SYNTHETIC_ID_PREFIX",
    "Provider",
    "anthropic_tool",
    "anthropic_tool_result",
    "gemini_function_declaration",
    "gemini_function_response",
    "mcp_tool",
    "openai_chat_tool",
    "openai_chat_tool_message",
    "openai_responses_output",
    "openai_responses_tool",
    "tool_definitions",
]

Provider = Literal["anthropic", "openai", "openai-responses", "gemini", "mcp"]
GEMINI_SYNTHETIC_ID_PREFIX = "gemini-call-"
"""Ids toolbelt invents for Gemini calls that came without one; never sent back to Gemini."""


def anthropic_tool(tool: Tool[Any], *, cache_control: bool = False) -> dict[str, Any]:
    """Anthropic Messages tool; ``cache_control`` marks the end of a cacheable tools prefix."""
    definition: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": neutral_schema(tool),
    }
    if cache_control:
        definition["cache_control"] = {"type": "ephemeral"}
    return definition


def openai_chat_tool(tool: Tool[Any], *, strict: bool = False) -> dict[str, Any]:
    """OpenAI Chat Completions function tool; ``strict`` uses the strict-mode schema where
    strict mode can express the tool's (``strict_tool_schema``)."""
    parameters, strict = _openai_parameters(tool, strict=strict)
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": parameters,
            "strict": strict,
        },
    }


def openai_responses_tool(tool: Tool[Any], *, strict: bool = False) -> dict[str, Any]:
    """OpenAI Responses function tool: flat, with ``strict`` always present."""
    parameters, strict = _openai_parameters(tool, strict=strict)
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": parameters,
        "strict": strict,
    }


def _openai_parameters(tool: Tool[Any], *, strict: bool) -> tuple[JsonSchema, bool]:
    if strict:
        schema = strict_tool_schema(tool)
        if schema is not None:
            return schema, True
    return neutral_schema(tool), False


def gemini_function_declaration(tool: Tool[Any]) -> dict[str, Any]:
    """Gemini function declaration with an OpenAPI-subset ``parameters`` schema, or — for a
    tool with a map or a value of any type (``call_mcp_tool``'s ``arguments``, an MCP tool's
    ``metadata``), which that subset cannot say — its neutral JSON Schema as
    ``parametersJsonSchema``: in the subset a map is an object Gemini fills with nothing.

    A tool without properties is declared without ``parameters``: Gemini rejects an OBJECT
    whose ``properties`` are empty ("should be non-empty for OBJECT type")."""
    declaration: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if strict_tool_schema(tool) is None and neutral_schema(tool).get("properties"):
        declaration["parametersJsonSchema"] = neutral_schema(tool)
        return declaration
    parameters = tool_schema(tool, "gemini")
    if parameters.get("properties"):
        declaration["parameters"] = parameters
    return declaration


def mcp_tool(tool: Tool[Any]) -> dict[str, Any]:
    """MCP ``tools/list`` entry, with annotations and an output schema when the tool has one.

    The output schema is the tool's output model plus the ``text`` field that carries what the
    model reads (see ``toolbelt.providers.mcp_results``).
    """
    definition: dict[str, Any] = {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "inputSchema": neutral_schema(tool),
        "annotations": {
            "title": tool.title,
            **tool.hints.mcp_annotations(),
        },
    }
    structured = per_tool(tool, "mcp-output", lambda: _mcp_output_schema(tool))
    if structured is not None:
        definition["outputSchema"] = structured
    return definition


def _mcp_output_schema(tool: Tool[Any]) -> dict[str, Any] | None:
    structured = tool.output_schema()
    return None if structured is None else output_schema(structured)


def tool_definitions(
    tools: Iterable[Tool[Any]], provider: Provider, *, strict: bool = False
) -> list[dict[str, Any]]:
    """Every tool in ``provider``'s format, in the toolset's stable order.

    For Anthropic the last tool carries ``cache_control`` so the whole tool list is cached.
    For Gemini the result is the list of declarations (wrap it in
    ``{"functionDeclarations": [...]}``).
    """
    listed = list(tools)
    match provider:
        case "anthropic":
            return [
                anthropic_tool(t, cache_control=i == len(listed) - 1) for i, t in enumerate(listed)
            ]
        case "openai":
            return [openai_chat_tool(t, strict=strict) for t in listed]
        case "openai-responses":
            return [openai_responses_tool(t, strict=strict) for t in listed]
        case "gemini":
            return [gemini_function_declaration(t) for t in listed]
        case "mcp":
            return [mcp_tool(t) for t in listed]


def anthropic_tool_result(result: ToolCallResult) -> dict[str, Any]:
    """A ``tool_result`` block for the next user message."""
    return {
        "type": "tool_result",
        "tool_use_id": result.call_id,
        "content": wire_content(result.output.content, "anthropic"),
        "is_error": result.is_error,
    }


def openai_chat_tool_message(
    result: ToolCallResult, *, images_follow: bool = False
) -> dict[str, Any]:
    """A ``role: tool`` message; Chat Completions tool messages carry text only.

    ``images_follow``: the caller sends the result's images in a message of their own after
    the tool messages, and the text says so instead of calling them omitted.
    """
    text = _plain_text(result, images_follow=images_follow)
    return {
        "role": "tool",
        "tool_call_id": result.call_id,
        "content": _error_prefixed(result, text),
    }


def openai_responses_output(result: ToolCallResult) -> dict[str, Any]:
    """A ``function_call_output`` input item; images travel as data URLs."""
    if not any(isinstance(b, ImageBlock) for b in result.output.content):
        output: str | list[dict[str, Any]] = _error_prefixed(result, result.text)
    else:
        output = wire_content(result.output.content, "openai-responses")
    return {"type": "function_call_output", "call_id": result.call_id, "output": output}


def gemini_function_response(
    result: ToolCallResult, *, images_follow: bool = False
) -> dict[str, Any]:
    """A ``functionResponse`` part: ``{"output": ...}``, or ``{"error": ...}`` on failure.

    ``images_follow``: the caller sends the result's images as parts after the responses.
    """
    key = "error" if result.is_error else "output"
    text = _plain_text(result, images_follow=images_follow)
    response: dict[str, Any] = {"name": result.tool, "response": {key: text}}
    if not result.call_id.startswith(GEMINI_SYNTHETIC_ID_PREFIX):
        response["id"] = result.call_id
    return {"functionResponse": response}


def _plain_text(result: ToolCallResult, *, images_follow: bool = False) -> str:
    parts = []
    for block in result.output.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif images_follow:
            parts.append(f"[{block.mime_type} image: attached after the tool results]")
        else:
            parts.append(f"[{block.mime_type} image omitted: this channel carries text only]")
    return "\n".join(parts)


def _error_prefixed(result: ToolCallResult, text: str) -> str:
    """Formats without an ``is_error`` flag get the failure stated in the text itself."""
    return f"Error: {text}" if result.is_error and not text.startswith("Error") else text
