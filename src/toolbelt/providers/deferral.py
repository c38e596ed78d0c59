"""Which tools a request offers: everything, or the built-ins, ``tool_search`` and what it loaded.

A few hundred MCP tools' schemas would fill a large share of every request (users' second most
common MCP complaint: claude-code#18494, openai/codex#9266), and a model chooses worse among
that many (Anthropic measured tool-choice accuracy 49% → 74% with search). So above a
threshold — more than ``max_tools`` deferrable tools (MCP tools, ``mcp__<server>__<tool>``),
or their definitions past ``context_share`` of the model's context window — deferrable tools
are not offered: ``tool_search`` finds them and loads them, and a loaded tool is offered on
every later request of the session.

Where the provider has a native form of deferral (Anthropic Messages, OpenAI Responses) and
``toolSearch.form`` is ``native`` (the default), ``natively_deferred`` names the tools the
client sends in that form (``providers.deferred``) instead: the provider keeps them out of the
prompt, and its search (``toolSearch.search: "provider"``) or toolbelt's loads them.

The order is stable so prompt caches hold: toolbelt's own tools in catalog order, then
``tool_search``, then the loaded tools in the order they were loaded — loading a tool only
appends to the list. The state lives in the session (``session_state``), so what was loaded
survives a compacted transcript, and every subagent with its own session starts empty.

A deferred tool that was never loaded is still in the executor's toolset: a call to it by its
exact name runs (through the same validation, policy and hooks as any call) — a model that
knows the name needs no search, and ``call_mcp_tool`` reaches it anyway.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from toolbelt.core.context import Session
from toolbelt.core.errors import UsageError
from toolbelt.core.registry import AnyTool
from toolbelt.core.rule_identity import MCP_PREFIX
from toolbelt.providers.formats import anthropic_tool
from toolbelt.providers.model import ToolSearchSide
from toolbelt.providers.tool_search_name import TOOL_SEARCH

if TYPE_CHECKING:
    from toolbelt.config.settings import Settings

__all__ = [
    "TOOL_SEARCH",
    "DeferralSettings",
    "ToolSearchState",
    "defers",
    "estimated_tokens",
    "is_deferrable",
    "natively_deferred",
    "offered_tools",
    "session_state",
]

ToolSearchMode = Literal["auto", "always", "never"]
ToolSearchForm = Literal["native", "proxy"]
_BYTES_PER_TOKEN = 4
_token_cache: weakref.WeakKeyDictionary[AnyTool, int] = weakref.WeakKeyDictionary()


@dataclass(frozen=True, slots=True)
class DeferralSettings:
    """When to defer: settings key ``toolSearch`` (``mode``, ``maxTools``, ``contextShare``)."""

    mode: ToolSearchMode = "auto"
    """``auto``: above a threshold; ``always``: whenever there is a deferrable tool; ``never``."""
    max_tools: int = 30
    """Defer when there are more deferrable tools than this."""
    context_share: float = 0.10
    """...or when their definitions take more than this share of the context window."""
    form: ToolSearchForm = "native"
    """``native``: the provider's own deferral where it has one; ``proxy``: always the
    ``tool_search`` + ``call_mcp_tool`` form (for a server that speaks a provider's wire
    format without its tool search)."""
    search: ToolSearchSide = "toolbelt"
    """In the native form, whose search finds deferred tools: toolbelt's ``tool_search``
    (exact names first, ``select:``), or the provider's own."""

    @classmethod
    def from_settings(cls, settings: Settings) -> DeferralSettings:
        """The ``toolSearch`` section of the merged settings files (defaults where unset)."""
        default = cls()
        return cls(
            settings.tool_search_mode or default.mode,
            settings.tool_search_max_tools
            if settings.tool_search_max_tools is not None
            else default.max_tools,
            settings.tool_search_context_share
            if settings.tool_search_context_share is not None
            else default.context_share,
            settings.tool_search_form or default.form,
            settings.tool_search_search or default.search,
        )


@dataclass
class ToolSearchState:
    """One session's deferral: its settings, the model's context window, the loaded tools."""

    settings: DeferralSettings = field(default_factory=DeferralSettings)
    context_window: int | None = None
    """Tokens the model takes (``ModelClient.context_window``); None: judge by count alone."""
    loaded: dict[str, None] = field(default_factory=dict)
    """Names ``tool_search`` loaded, in the order it loaded them (a dict is an ordered set)."""

    def load(self, names: Iterable[str]) -> list[str]:
        """Mark ``names`` loaded; the ones that were not loaded before, in order."""
        fresh = [name for name in dict.fromkeys(names) if name not in self.loaded]
        self.loaded.update(dict.fromkeys(fresh))
        return fresh


def session_state(
    session: Session,
    settings: DeferralSettings | None = None,
    *,
    context_window: int | None = None,
) -> ToolSearchState:
    """The session's ``ToolSearchState``, created on first use; given values replace its own."""
    state = session.resource(ToolSearchState)
    if settings is not None:
        state.settings = settings
    if context_window is not None:
        state.context_window = context_window
    return state


def is_deferrable(tool: AnyTool) -> bool:
    """Whether ``tool`` may be deferred: another MCP server's tool, ``mcp__<server>__<tool>``."""
    # ``server_of(name) is not None``, without building strings: asked for every tool per request
    return tool.name.find("__", len(MCP_PREFIX) + 1) > 0 and tool.name.startswith(MCP_PREFIX)


def estimated_tokens(tool: AnyTool) -> int:
    """Tokens ``tool``'s definition costs in a request, estimated as its Anthropic-format JSON
    size over 4 bytes per token (remembered per tool object)."""
    cached = _token_cache.get(tool)
    if cached is None:
        size = len(json.dumps(anthropic_tool(tool), separators=(",", ":")).encode())
        cached = _token_cache[tool] = -(-size // _BYTES_PER_TOKEN)
    return cached


def defers(tools: Sequence[AnyTool], state: ToolSearchState) -> bool:
    """Whether the deferrable tools among ``tools`` are held back from requests."""
    return _defers([tool for tool in tools if is_deferrable(tool)], state)


def offered_tools(all_tools: Iterable[AnyTool], state: ToolSearchState) -> tuple[AnyTool, ...]:
    """The tools to offer with the next request, in a stable order (see the module's doc).

    Without deferral that is every tool but ``tool_search``. With it, ``all_tools`` must hold
    ``tool_search`` (``ToolSearchToolset`` adds it), else the deferred tools could not be found.
    The loop calls it once per request, so it sorts the tools in one pass.
    """
    tools = tuple(all_tools)
    search: AnyTool | None = None
    own: list[AnyTool] = []
    deferred: dict[str, AnyTool] = {}
    for tool in tools:
        if tool.name == TOOL_SEARCH:
            search = tool
        elif is_deferrable(tool):
            deferred[tool.name] = tool
        else:
            own.append(tool)
    if not _defers(list(deferred.values()), state):
        return tuple(tool for tool in tools if tool is not search)
    if search is None:
        raise UsageError(
            "Tool search is on but the toolset has no `tool_search` tool; wrap it in "
            "`ToolSearchToolset(toolset)`, or set `toolSearch.mode` to `never`."
        )
    loaded = [deferred[name] for name in state.loaded if name in deferred]
    return (*own, search, *loaded)


def natively_deferred(all_tools: Iterable[AnyTool], state: ToolSearchState) -> tuple[AnyTool, ...]:
    """The tools a client with a native form of deferral sends as deferred (every deferrable
    tool, loaded or not, in catalog order), or none: deferral is off, or the form is proxy."""
    if state.settings.form != "native":
        return ()
    deferrable = [tool for tool in all_tools if is_deferrable(tool)]
    return tuple(deferrable) if _defers(deferrable, state) else ()


def _defers(deferrable: list[AnyTool], state: ToolSearchState) -> bool:
    settings = state.settings
    if not deferrable or settings.mode == "never":
        return False
    if settings.mode == "always" or len(deferrable) > settings.max_tools:
        return True
    if state.context_window is None:
        return False
    budget = settings.context_share * state.context_window
    return sum(estimated_tokens(tool) for tool in deferrable) > budget
