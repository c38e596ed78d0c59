"""Tool search for large catalogs: defer other MCP servers' tools, find and load them on demand.

- ``ToolSearchToolset(toolset)``: the toolset a runtime runs, plus ``tool_search`` over its
  MCP tools (``mcp__<server>__<tool>``); every tool stays callable by name.
- ``offered_tools(all_tools, state)``: what the next request offers — everything, or, above the
  threshold, toolbelt's own tools, ``tool_search`` and what it loaded (stable order).
- ``session_state(session, settings, context_window=...)``: the session's ``ToolSearchState``
  (settings, context window, loaded tools), shared by the loop and the tool.
- ``ToolIndex``: exact names first, then BM25; ``providers.deferred`` has the native forms.

The names load on first use (``toolbelt.toolsearch.listing``, which ``toolbelt mcp`` imports
before it answers ``initialize``, must not bring the index and the deferral machinery along).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolbelt.core.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from toolbelt.providers.deferral import (
        TOOL_SEARCH,
        DeferralSettings,
        ToolSearchState,
        defers,
        estimated_tokens,
        is_deferrable,
        offered_tools,
        session_state,
    )
    from toolbelt.toolsearch.index import Match, ToolIndex
    from toolbelt.toolsearch.tool import ToolSearchTool, ToolSearchToolset

__all__ = [
    "TOOL_SEARCH",
    "DeferralSettings",
    "Match",
    "ToolIndex",
    "ToolSearchState",
    "ToolSearchTool",
    "ToolSearchToolset",
    "defers",
    "estimated_tokens",
    "is_deferrable",
    "offered_tools",
    "session_state",
]

_EXPORTS = {
    **dict.fromkeys(
        (
            "TOOL_SEARCH",
            "DeferralSettings",
            "ToolSearchState",
            "defers",
            "estimated_tokens",
            "is_deferrable",
            "offered_tools",
            "session_state",
        ),
        "toolbelt.providers.deferral",
    ),
    "Match": "toolbelt.toolsearch.index",
    "ToolIndex": "toolbelt.toolsearch.index",
    "ToolSearchTool": "toolbelt.toolsearch.tool",
    "ToolSearchToolset": "toolbelt.toolsearch.tool",
}
"""Each public name → the module it is defined in."""


__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
