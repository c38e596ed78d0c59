"""What a tool hands back: model-facing content blocks plus structured data for UIs.

A tool's result has two audiences. The model reads ``content`` (text blocks, optionally image
blocks); a UI, a log or an MCP client that wants fields reads ``structured``. Keeping both in one
value lets every door (library, CLI, MCP) render the same call without re-running anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["ContentBlock", "ImageBlock", "TextBlock", "ToolOutput"]


@dataclass(frozen=True, slots=True)
class TextBlock:
    """Plain text the model reads."""

    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ImageBlock:
    """An image the model can look at, base64-encoded, with its MIME type (image/png, ...)."""

    data: str
    mime_type: str
    type: Literal["image"] = "image"


ContentBlock = TextBlock | ImageBlock


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """The outcome of ``Tool.run``: content for the model, structured data for UIs.

    ``is_error`` marks a result the model must treat as a failure even though the tool ran
    (a command that exited non-zero); failures that stop a tool early are raised as
    ``ToolError`` instead.
    """

    content: tuple[ContentBlock, ...]
    structured: Mapping[str, Any] | None = None
    is_error: bool = False

    @classmethod
    def text(
        cls, text: str, structured: Mapping[str, Any] | None = None, *, is_error: bool = False
    ) -> ToolOutput:
        """Build the common case: one text block, optional structured data."""
        return cls((TextBlock(text),), structured, is_error)

    @property
    def text_content(self) -> str:
        """All text blocks joined, images noted by type: what a text-only channel shows."""
        parts: list[str] = []
        for block in self.content:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            else:
                parts.append(f"[image: {block.mime_type}]")
        return "\n".join(parts)
