"""Tool results on the MCP wire: content blocks, and a structured result that holds the payload.

MCP clients hand the model ``structuredContent`` instead of the content blocks whenever it is
there: pydantic-ai always does when every block is text (and for every error), openai-agents
does with ``use_structured_content=True``, and fastmcp's ``.data`` is built from it. So the
structured result carries what the model must read — the same text as the content blocks, in
``text`` — beside the tool's fields (path, exit code, line range...), and each tool's
``outputSchema`` declares that field.

An error result has no structured result: its payload is the message, which is text. Clients
check no error result against the output schema; openai-agents and fastmcp read an error's
content blocks anyway, and pydantic-ai, which prefers the structured result even for errors,
wraps it in a JSON string of its own, so the model would read the message escaped twice.

The content blocks stay plain text rather than the JSON of the structured result: clients that
read the blocks (most desktop apps) show them to the model as they are, and a file's lines or a
command's output read better unescaped.
"""

from __future__ import annotations

from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.core.wire_json import plain
from toolbelt.providers.wire_content import wire_content

__all__ = ["TEXT_FIELD", "call_result", "output_schema"]

TEXT_FIELD = "text"
"""The structured result's field that holds what the model reads."""

_TEXT_SCHEMA = {
    "type": "string",
    "description": "What the model reads: the same text as the result's content blocks.",
}


def output_schema(structured: dict[str, Any]) -> dict[str, Any]:
    """The schema of the tool's structured output as an MCP ``outputSchema``, with the
    required ``text`` field (the model-facing text) added."""
    schema = dict(structured)
    schema["properties"] = {TEXT_FIELD: _TEXT_SCHEMA, **schema.get("properties", {})}
    schema["required"] = [TEXT_FIELD, *schema.get("required", [])]
    return schema


def call_result(result: ToolCallResult) -> dict[str, Any]:
    """The ``tools/call`` result for ``result``: content blocks plus the structured result."""
    reply: dict[str, Any] = {
        "content": wire_content(result.output.content, "mcp"),
        "isError": result.is_error,
        "resultType": "complete",
    }
    structured = result.output.structured
    if structured is not None and not result.is_error:
        fields = plain(dict(structured))  # the text needs no copy: a str is JSON as it is
        reply["structuredContent"] = {TEXT_FIELD: result.output.text_content, **fields}
    return reply
