"""Deferred tools in the providers' native forms, and the proxy form everywhere else.

- Anthropic Messages: every deferred tool is sent with ``defer_loading: true`` (the API keeps
  it out of the prompt until a search returns a ``tool_reference`` to it). The search is the
  API's own BM25 tool (``search="provider"``: ``tool_search_tool_bm25_20251119``), or
  toolbelt's ``tool_search`` (``search="toolbelt"``: exact names first) whose result
  ``anthropic_tool_search_result`` turns into ``tool_reference`` blocks.
- OpenAI Responses: deferred function tools carry ``defer_loading: true`` beside a
  ``{"type": "tool_search"}`` tool run by OpenAI (``search="provider"``); or the tool search
  is ``execution: "client"`` with toolbelt's schema (``search="toolbelt"``): the model's
  ``tool_search_call`` item runs ``tool_search`` and ``openai_tool_search_output`` answers it
  with the found tools' definitions. Shapes from the openai 3.51 SDK's types
  (``ToolSearchToolParam``, ``FunctionToolParam.defer_loading``,
  ``ResponseToolSearchOutputItemParam``).
- Chat Completions, Gemini, MCP and text formats have no native form: they get the proxy form,
  ``offered_tools`` (``tool_search`` returns schemas; tools are called by name or through
  ``call_mcp_tool``).

In every form the order is stable: the offered tools in ``offered_tools`` order, then the
search tool, then the deferred tools in catalog order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from toolbelt.core.errors import UsageError
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.registry import AnyTool
from toolbelt.providers.formats import (
    Provider,
    anthropic_tool,
    anthropic_tool_result,
    openai_responses_tool,
    tool_definitions,
)
from toolbelt.providers.schema import neutral_schema
from toolbelt.toolsearch.deferral import (
    TOOL_SEARCH,
    ToolSearchState,
    defers,
    is_deferrable,
    offered_tools,
)

__all__ = [
    "ANTHROPIC_TOOL_SEARCH",
    "OPENAI_TOOL_SEARCH",
    "SearchSide",
    "anthropic_tool_search_result",
    "deferred_tool_definitions",
    "openai_tool_search_output",
]

SearchSide = Literal["provider", "toolbelt"]
ANTHROPIC_TOOL_SEARCH = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
OPENAI_TOOL_SEARCH = {"type": "tool_search"}


def deferred_tool_definitions(
    all_tools: Iterable[AnyTool],
    state: ToolSearchState,
    provider: Provider,
    *,
    search: SearchSide = "provider",
    strict: bool = False,
) -> list[dict[str, Any]]:
    """The ``tools`` of a request to ``provider``, with deferral in its native form if it has
    one (Anthropic, OpenAI Responses), else in the proxy form (``offered_tools``)."""
    tools = tuple(all_tools)
    native = provider in ("anthropic", "openai-responses")
    if not native or not defers(tools, state):
        return tool_definitions(offered_tools(tools, state), provider, strict=strict)
    ours = next((tool for tool in tools if tool.name == TOOL_SEARCH), None)
    if search == "toolbelt" and ours is None:
        raise UsageError(
            "search='toolbelt' needs the `tool_search` tool; wrap the toolset in "
            "`ToolSearchToolset(toolset)`, or use search='provider'."
        )
    own = [tool for tool in tools if tool is not ours and not is_deferrable(tool)]
    deferred = [tool for tool in tools if is_deferrable(tool)]
    if provider == "anthropic":
        return _anthropic(own, ours if search == "toolbelt" else None, deferred)
    return _responses(own, ours if search == "toolbelt" else None, deferred, strict)


def _anthropic(
    own: list[AnyTool], ours: AnyTool | None, deferred: list[AnyTool]
) -> list[dict[str, Any]]:
    definitions = [anthropic_tool(tool) for tool in own]
    # the cache breakpoint ends the part every request shares; deferred tools stay outside it
    search: dict[str, Any] = (
        anthropic_tool(ours) if ours is not None else dict(ANTHROPIC_TOOL_SEARCH)
    )
    search["cache_control"] = {"type": "ephemeral"}
    definitions.append(search)
    definitions += [{**anthropic_tool(tool), "defer_loading": True} for tool in deferred]
    return definitions


def _responses(
    own: list[AnyTool], ours: AnyTool | None, deferred: list[AnyTool], strict: bool
) -> list[dict[str, Any]]:
    definitions = [openai_responses_tool(tool, strict=strict) for tool in own]
    if ours is None:
        definitions.append(dict(OPENAI_TOOL_SEARCH))
        definitions += [
            {**openai_responses_tool(tool, strict=strict), "defer_loading": True}
            for tool in deferred
        ]
    else:  # the client's search hands the found definitions over itself
        definitions.append(
            {
                "type": "tool_search",
                "execution": "client",
                "description": ours.description,
                "parameters": neutral_schema(ours),
            }
        )
    return definitions


def anthropic_tool_search_result(result: ToolCallResult) -> dict[str, Any]:
    """The ``tool_result`` of toolbelt's ``tool_search`` under Anthropic's native deferral:
    one ``tool_reference`` per tool found (the API loads their definitions); errors stay text."""
    names = _found(result)
    if names is None:
        return anthropic_tool_result(result)
    references = [{"type": "tool_reference", "tool_name": name} for name in names]
    return {"type": "tool_result", "tool_use_id": result.call_id, "content": references}


def openai_tool_search_output(
    result: ToolCallResult, tools: Iterable[AnyTool], *, strict: bool = False
) -> dict[str, Any]:
    """The ``tool_search_output`` input item answering a client-executed ``tool_search_call``:
    the found tools' definitions (``tools`` is the catalog they are taken from)."""
    names = _found(result) or []
    by_name = {tool.name: tool for tool in tools}
    found = [
        openai_responses_tool(by_name[name], strict=strict) for name in names if name in by_name
    ]
    return {
        "type": "tool_search_output",
        "call_id": result.call_id,
        "execution": "client",
        "status": "completed",
        "tools": found,
    }


def _found(result: ToolCallResult) -> list[str] | None:
    """The names ``tool_search`` found, or None for an error (whose text the model reads)."""
    structured = result.output.structured
    if result.is_error or structured is None:
        return None
    return [str(entry["name"]) for entry in structured.get("tools", ())]
