"""The name of the tool that searches a deferred catalogue, apart from the deferral machinery:
a door asks whether its toolset has one (``toolbelt mcp``, before it answers ``initialize``)
without loading ``deferral`` and the provider formats behind it."""

from __future__ import annotations

__all__ = ["TOOL_SEARCH"]

TOOL_SEARCH = "tool_search"
