"""What ``toolbelt mcp`` lists: the hook between tool search and our own MCP server.

A client that connects to ``toolbelt mcp`` reads ``tools/list`` and offers its model what it
got. When the runtime's toolset has ``tool_search`` (it was wrapped in ``ToolSearchToolset``),
the list is what ``offered_tools`` offers for the connection's session under the settings'
``toolSearch`` section — toolbelt's own tools, ``call_mcp_tool``, ``tool_search`` and what it
loaded — rather than hundreds of server tools. Every tool stays callable by name, and the
server tells the client when a search loaded more (``notifications/tools/list_changed``).
The server does not know its client's model, so only the tool count (``maxTools``) and the
mode decide there; the share of the context window needs the window, which the loop has.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolbelt.core.registry import AnyTool, Toolset
from toolbelt.providers.tool_search_name import TOOL_SEARCH

if TYPE_CHECKING:  # the deferral machinery loads with the first listing, not before initialize
    from toolbelt.config.settings import Settings
    from toolbelt.core.context import Session
    from toolbelt.core.executor import ToolCallResult

__all__ = ["listed_tools", "loaded_more", "searchable"]


def searchable(toolset: Toolset) -> bool:
    """Whether ``toolset`` has tool search (so its listing can change during a session)."""
    return toolset.get(TOOL_SEARCH) is not None


def listed_tools(toolset: Toolset, session: Session, settings: Settings) -> tuple[AnyTool, ...]:
    """The tools to list for ``session``: all of them, or what ``offered_tools`` offers."""
    if not searchable(toolset):
        return toolset.tools()
    from toolbelt.providers.deferral import DeferralSettings, offered_tools, session_state

    state = session_state(session, DeferralSettings.from_settings(settings))
    return offered_tools(toolset.tools(), state)


def loaded_more(result: ToolCallResult) -> bool:
    """Whether ``result`` is a ``tool_search`` that loaded tools the session had not loaded."""
    structured = result.output.structured
    return (
        result.tool == TOOL_SEARCH
        and not result.is_error
        and structured is not None
        and bool(structured.get("newly_loaded"))
    )
