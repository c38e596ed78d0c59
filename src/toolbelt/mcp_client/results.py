"""A remote ``tools/call`` result as our ``ToolOutput``: the reverse of ``mcp.results``.

Text stays text and images stay images. The other MCP blocks become text the model can use:
an embedded text resource is shown with its URI, a binary one (and audio, which no provider
reads back from a tool) is described by its type and size, a resource link by its URI and
name. ``structuredContent`` is kept as the structured result (an object as it is, any other
JSON value under ``value``).

The model sees at most ``cap`` characters — as much as a bash command's output unless
``MAX_MCP_OUTPUT_TOKENS`` or the entry's ``maxOutputTokens`` says otherwise
(``config.output_cap``): past it the text goes through ``shell.output.OutputBuffer`` (head,
tail, and the whole of it in a private spill file the note names), so a chatty server cannot
fill the context; and at most ``image_cap.MAX_IMAGES`` images of ``MAX_IMAGE_BYTES`` in all,
the others saved in the spill directory and described.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import mcp_types as types

from toolbelt.core.content import ContentBlock, ImageBlock, TextBlock, ToolOutput
from toolbelt.core.wording import counted
from toolbelt.mcp_client.image_cap import capped_images
from toolbelt.shell.output import DEFAULT_CAP, OutputBuffer, spill_dir

__all__ = ["output_from_result"]


def output_from_result(
    result: types.CallToolResult, *, session_id: str, call_id: str, cap: int = DEFAULT_CAP
) -> ToolOutput:
    """Our output for ``result``; text past ``cap`` characters is cut and spilled per session
    and call."""
    blocks: list[ContentBlock] = []
    for block in result.content:
        blocks.append(_block(block))
    blocks = capped_images(blocks, spill_dir(session_id) / f"mcp-{_safe(call_id)}-images")
    blocks = _capped(blocks, session_id, call_id, cap)
    structured = _structured(result.structured_content)
    if not blocks and structured is None:
        blocks = [TextBlock("(the tool returned no content)")]
    return ToolOutput(tuple(blocks), structured, result.is_error)


def _block(block: types.ContentBlock) -> ContentBlock:
    if isinstance(block, types.TextContent):
        return TextBlock(block.text)
    if isinstance(block, types.ImageContent):
        return ImageBlock(block.data, block.mime_type)
    if isinstance(block, types.AudioContent):
        return TextBlock(f"[audio: {block.mime_type}, {_decoded_size(block.data)}, not shown]")
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return TextBlock(f"[resource {resource.uri}]\n{resource.text}")
        kind = resource.mime_type or "binary"
        return TextBlock(
            f"[resource {resource.uri}: {kind}, {_decoded_size(resource.blob)}, not shown]"
        )
    if isinstance(block, types.ResourceLink):
        about = f" — {block.description}" if block.description else ""
        return TextBlock(f"[resource link {block.uri} ({block.name}){about}]")
    return TextBlock(f"[{getattr(block, 'type', 'unknown')} content, not shown]")


def _decoded_size(data: str) -> str:
    try:
        return counted(len(base64.b64decode(data, validate=False)), "byte")
    except ValueError:
        return "unreadable base64"


def _capped(
    blocks: list[ContentBlock], session_id: str, call_id: str, cap: int
) -> list[ContentBlock]:
    """The blocks, with their text held to ``cap`` characters."""
    total = sum(len(block.text) for block in blocks if isinstance(block, TextBlock))
    if total <= cap:
        return blocks
    path = spill_dir(session_id) / f"mcp-{_safe(call_id)}.txt"
    buffer = OutputBuffer(path, cap=cap)
    for block in blocks:
        if isinstance(block, TextBlock):
            buffer.feed(block.text.encode("utf-8", "replace") + b"\n")
    buffer.finish()
    images = [block for block in blocks if isinstance(block, ImageBlock)]
    return [TextBlock(buffer.text()), *images]


def _safe(call_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in call_id)[:80] or "call"


def _structured(value: Any) -> Mapping[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, dict):
        return value
    return {"value": value}
