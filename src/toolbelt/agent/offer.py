"""Which tools one turn offers the model — the one place that decides it.

Every tool, unless a large MCP catalog is deferred behind ``tool_search``
(``toolbelt.providers.deferral``): then the built-ins, ``tool_search`` and the tools a search
has loaded, in a stable order (the proxy form every client can send), plus — for the clients
with a native form of deferral (Anthropic Messages, OpenAI Responses) — the deferred catalog
they send marked ``defer_loading`` or hand over through their own search items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolbelt.core.tool import Tool
from toolbelt.providers.deferral import (
    DeferralSettings,
    natively_deferred,
    offered_tools,
    session_state,
)
from toolbelt.providers.model import ModelClient, ToolSearchSide
from toolbelt.runtime import Runtime

__all__ = ["TurnOffer", "turn_offer"]


@dataclass(frozen=True, slots=True)
class TurnOffer:
    """The tools of one request (``ModelRequest.tools``, ``deferred_tools``, ``tool_search``)."""

    tools: tuple[Tool[Any], ...]
    deferred: tuple[Tool[Any], ...] = ()
    search: ToolSearchSide = "toolbelt"


def turn_offer(runtime: Runtime, model: ModelClient) -> TurnOffer:
    """What the next request to ``model`` offers from ``runtime``'s toolset; the deferral
    state (settings, context window, loaded tools) lives in the runtime's session."""
    state = session_state(
        runtime.session,
        DeferralSettings.from_settings(runtime.settings),
        context_window=model.context_window,
    )
    catalog = runtime.toolset.tools()
    return TurnOffer(
        offered_tools(catalog, state), natively_deferred(catalog, state), state.settings.search
    )
