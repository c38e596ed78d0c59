"""``ToolInput``: the base of every built-in tool's input model (pydantic, ``extra="forbid"``).

Apart from ``core.tool`` so that the ``Tool`` base class, and everything that only handles
tools, loads without pydantic: ``toolbelt mcp`` answers ``initialize`` before any tool's
module, and so pydantic, is loaded. ``core.tool`` still exports it (``from toolbelt.core.tool
import ToolInput``), loading this module on first use.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["ToolInput"]


class ToolInput(BaseModel):
    """Base of every tool's input model: unknown fields are an error, strings keep whitespace."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False, defer_build=True)
