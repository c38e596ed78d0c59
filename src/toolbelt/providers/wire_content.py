"""Content blocks (text and images) as each provider carries them: written once.

A user message, a tool result and an MCP ``tools/call`` answer all send the same blocks; only
the shape of an image differs (Anthropic's base64 ``source``, OpenAI's data URL, MCP's
``data`` + ``mimeType``), and OpenAI Responses names its text parts ``input_text``. Gemini's
parts are built in ``providers.gemini``: it sends bytes, not blocks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from toolbelt.core.content import ContentBlock, ImageBlock, TextBlock

__all__ = ["BlockForm", "wire_content"]

BlockForm = Literal["anthropic", "openai", "openai-responses", "mcp"]


def wire_content(blocks: Iterable[ContentBlock], form: BlockForm) -> list[dict[str, Any]]:
    """``blocks`` in ``form``, in order."""
    return [
        _text(block, form) if isinstance(block, TextBlock) else _image(block, form)
        for block in blocks
    ]


def _text(block: TextBlock, form: BlockForm) -> dict[str, Any]:
    return {"type": "input_text" if form == "openai-responses" else "text", "text": block.text}


def _image(block: ImageBlock, form: BlockForm) -> dict[str, Any]:
    data_url = f"data:{block.mime_type};base64,{block.data}"
    match form:
        case "anthropic":
            source = {"type": "base64", "media_type": block.mime_type, "data": block.data}
            return {"type": "image", "source": source}
        case "openai":
            return {"type": "image_url", "image_url": {"url": data_url}}
        case "openai-responses":
            return {"type": "input_image", "image_url": data_url}
        case "mcp":
            return {"type": "image", "data": block.data, "mimeType": block.mime_type}
