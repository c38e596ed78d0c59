"""Tool search for large catalogs: defer other MCP servers' tools, find and load them on demand.

- ``ToolSearchToolset(toolset)``: the toolset a runtime runs, plus ``tool_search`` over its
  MCP tools (``mcp__<server>__<tool>``); every tool stays callable by name.
- ``offered_tools(all_tools, state)``: what the next request offers — everything, or, above the
  threshold, toolbelt's own tools, ``tool_search`` and what it loaded (stable order).
- ``session_state(session, settings, context_window=...)``: the session's ``ToolSearchState``
  (settings, context window, loaded tools), shared by the loop and the tool.
- ``ToolIndex``: exact names first, then BM25; ``providers.deferred`` has the native forms.
"""

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
