"""Deferred tools in the providers' native forms, and the proxy form everywhere else.

A request that defers (``ModelRequest.deferred_tools``, set by the agent loop when tool search
is on and ``toolSearch.form`` is ``native``) is sent, by a client that has a native form:

- Anthropic Messages: every deferred tool with ``defer_loading: true`` (the API keeps it out
  of the prompt until a search returns a ``tool_reference`` to it), after the search tool that
  ends the cached prefix. The search is toolbelt's ``tool_search`` (``tool_search="toolbelt"``,
  the default: exact names first, ``select:``), whose results ``anthropic_tool_search_result``
  turns into ``tool_reference`` blocks; or the API's own BM25 tool
  (``"provider"``: ``tool_search_tool_bm25_20251119``), whose blocks are replayed verbatim.
- OpenAI Responses: with toolbelt's search, ``{"type": "tool_search", "execution": "client"}``
  with ``tool_search``'s schema and no deferred tool at all: the model's ``tool_search_call``
  item runs ``tool_search``, and ``openai_tool_search_output`` answers it with the found tools'
  definitions, which the model may call from then on. With the provider's search, the deferred
  function tools carry ``defer_loading: true`` beside a hosted ``{"type": "tool_search"}``.
  Shapes from the openai 3.51 SDK's types (``ToolSearchToolParam``,
  ``FunctionToolParam.defer_loading``, ``ResponseToolSearchCall``,
  ``ResponseToolSearchOutputItemParam``).
- Chat Completions, Gemini, MCP and text formats have no native form: ``tools`` (the offered
  tools: toolbelt's own, ``tool_search`` and what it loaded) is the proxy form, where
  ``tool_search`` returns schemas and tools are called by name or through ``call_mcp_tool``.

The native forms keep the tools list identical from request to request (what a search loads
is carried by the transcript, not by the list), so the prompt cache holds: the offered tools
that are not deferred in ``offered_tools`` order, then the search tool, then the deferred
tools in catalog order.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from typing import Any

from toolbelt.core.errors import UsageError
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.registry import AnyTool
from toolbelt.providers.deferral import (
    TOOL_SEARCH,
    ToolSearchState,
    defers,
    is_deferrable,
    offered_tools,
)
from toolbelt.providers.formats import (
    Provider,
    anthropic_tool,
    anthropic_tool_result,
    openai_responses_tool,
    tool_definitions,
)
from toolbelt.providers.model import ModelRequest, ModelToolCall, ToolSearchSide
from toolbelt.providers.schema import neutral_schema

__all__ = [
    "ANTHROPIC_TOOL_SEARCH",
    "OPENAI_TOOL_SEARCH",
    "SearchSide",
    "anthropic_tool_search_result",
    "deferred_tool_definitions",
    "native_search_by_toolbelt",
    "native_tool_definitions",
    "openai_tool_search_call",
    "openai_tool_search_output",
    "request_tool_definitions",
]

SearchSide = ToolSearchSide
NATIVE: frozenset[Provider] = frozenset({"anthropic", "openai-responses"})
ANTHROPIC_TOOL_SEARCH = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
OPENAI_TOOL_SEARCH = {"type": "tool_search"}


def request_tool_definitions(
    request: ModelRequest, provider: Provider, *, strict: bool = False
) -> list[dict[str, Any]]:
    """The ``tools`` a client sends for ``request``: the native form of deferral when the
    request defers and ``provider`` has one, else ``request.tools`` as they are."""
    if not request.deferred_tools or provider not in NATIVE:
        return tool_definitions(request.tools, provider, strict=strict)
    return native_tool_definitions(
        request.tools,
        request.deferred_tools,
        provider,
        search=request.tool_search,
        strict=strict,
    )


def native_search_by_toolbelt(request: ModelRequest) -> frozenset[str]:
    """The deferred tools' names when ``request`` defers natively with toolbelt's search (its
    ``tool_search`` results then travel as references or definitions), else empty."""
    if request.tool_search != "toolbelt":
        return frozenset()
    return frozenset(tool.name for tool in request.deferred_tools)


def native_tool_definitions(
    offered: Sequence[AnyTool],
    deferred: Sequence[AnyTool],
    provider: Provider,
    *,
    search: SearchSide = "toolbelt",
    strict: bool = False,
) -> list[dict[str, Any]]:
    """``offered`` (which holds ``tool_search``) and ``deferred`` in ``provider``'s native form
    of deferral (Anthropic or OpenAI Responses); a deferred tool that was loaded is sent as
    deferred, since the transcript carries what loaded it."""
    ours = next((tool for tool in offered if tool.name == TOOL_SEARCH), None)
    if search == "toolbelt" and ours is None:
        raise UsageError(
            "search='toolbelt' needs the `tool_search` tool; wrap the toolset in "
            "`ToolSearchToolset(toolset)`, or use search='provider'."
        )
    held_back = {tool.name for tool in deferred}
    own = [tool for tool in offered if tool is not ours and tool.name not in held_back]
    searcher = ours if search == "toolbelt" else None
    if provider == "anthropic":
        return _anthropic(own, searcher, list(deferred))
    return _responses(own, searcher, list(deferred), strict)


def deferred_tool_definitions(
    all_tools: Iterable[AnyTool],
    state: ToolSearchState,
    provider: Provider,
    *,
    search: SearchSide = "provider",
    strict: bool = False,
) -> list[dict[str, Any]]:
    """The ``tools`` of a request to ``provider`` carrying the whole catalog ``all_tools``,
    with deferral in its native form if it has one (Anthropic, OpenAI Responses), else in the
    proxy form (``offered_tools``)."""
    tools = tuple(all_tools)
    if provider not in NATIVE or not defers(tools, state):
        return tool_definitions(offered_tools(tools, state), provider, strict=strict)
    deferred = [tool for tool in tools if is_deferrable(tool)]
    own = [tool for tool in tools if not is_deferrable(tool)]  # with tool_search, if there
    return native_tool_definitions(own, deferred, provider, search=search, strict=strict)


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


def anthropic_tool_search_result(
    result: ToolCallResult, deferred: Container[str] | None = None
) -> dict[str, Any]:
    """The ``tool_result`` of toolbelt's ``tool_search`` under Anthropic's native deferral:
    one ``tool_reference`` per tool found among ``deferred`` (the API loads their
    definitions; a reference to a tool the request does not carry would be refused). An
    error, or a search that found nothing, stays text: the model reads why."""
    names = [name for name in _found(result) or () if deferred is None or name in deferred]
    if not names:
        return anthropic_tool_result(result)
    references = [{"type": "tool_reference", "tool_name": name} for name in names]
    return {"type": "tool_result", "tool_use_id": result.call_id, "content": references}


def openai_tool_search_call(call: ModelToolCall) -> dict[str, Any]:
    """The ``tool_search_call`` input item replaying the model's client-executed search."""
    return {
        "type": "tool_search_call",
        "call_id": call.id,
        "arguments": dict(call.arguments),
        "execution": "client",
        "status": "completed",
    }


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
