"""Deferred tools in Anthropic's and OpenAI Responses' native forms, checked against the
installed SDKs' own request types, and the proxy form for every other provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import ToolParam, ToolResultBlockParam, ToolSearchToolBm25_20251119Param
from openai.types.responses import FunctionToolParam, ToolSearchToolParam
from openai.types.responses.response_input_item_param import ResponseInputItemParam
from openai.types.responses.response_tool_search_output_item_param_param import (
    ResponseToolSearchOutputItemParamParam,
)
from pydantic import TypeAdapter

from tests.toolsearch.fake_catalog import searchable_toolset
from toolbelt.config.settings import Settings
from toolbelt.core.errors import UsageError
from toolbelt.core.executor import ToolCall
from toolbelt.providers.deferred import (
    anthropic_tool_search_result,
    deferred_tool_definitions,
    openai_tool_search_output,
)
from toolbelt.providers.formats import tool_definitions
from toolbelt.runtime import Runtime
from toolbelt.tools import builtin_toolset
from toolbelt.toolsearch import DeferralSettings, ToolSearchState, offered_tools

BUILTINS = list(builtin_toolset().names())
TOOLSET = searchable_toolset()
MCP = [tool.name for tool in TOOLSET.tools() if tool.name.startswith("mcp__")]


def declared(typed_dict: Any, value: dict[str, Any]) -> None:
    """Every key is one the SDK type declares, and the value validates against it."""
    keys = typed_dict.__required_keys__ | typed_dict.__optional_keys__
    assert set(value) <= keys, set(value) - keys
    TypeAdapter(typed_dict).validate_python(value)


def test_anthropic_defers_with_defer_loading_and_its_own_bm25_search() -> None:
    definitions = deferred_tool_definitions(TOOLSET.tools(), ToolSearchState(), "anthropic")
    names = [d["name"] for d in definitions]
    assert names == [*BUILTINS, "tool_search_tool_bm25", *MCP]
    search = definitions[len(BUILTINS)]
    assert search == {
        "type": "tool_search_tool_bm25_20251119",
        "name": "tool_search_tool_bm25",
        "cache_control": {"type": "ephemeral"},
    }
    declared(ToolSearchToolBm25_20251119Param, search)
    for definition in definitions[: len(BUILTINS)]:
        assert "defer_loading" not in definition and "cache_control" not in definition
        declared(ToolParam, definition)
    for definition in definitions[len(BUILTINS) + 1 :]:
        assert definition["defer_loading"] is True
        declared(ToolParam, definition)


@pytest.mark.anyio
async def test_anthropic_with_our_search_answers_with_tool_references(tmp_path: Path) -> None:
    definitions = deferred_tool_definitions(
        TOOLSET.tools(), ToolSearchState(), "anthropic", search="toolbelt"
    )
    assert [d["name"] for d in definitions[len(BUILTINS) : len(BUILTINS) + 2]] == [
        "tool_search",
        MCP[0],
    ]
    assert definitions[len(BUILTINS)]["cache_control"] == {"type": "ephemeral"}
    declared(ToolParam, definitions[len(BUILTINS)])

    async with Runtime(tmp_path, toolset=searchable_toolset(), settings=Settings()) as rt:
        args = json.dumps({"query": "select:mcp__jira__get_issue,mcp__slack__list_channels"})
        found = await rt.run_one(ToolCall("toolu_1", "tool_search", args))
        block = anthropic_tool_search_result(found)
        assert block == {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [
                {"type": "tool_reference", "tool_name": "mcp__jira__get_issue"},
                {"type": "tool_reference", "tool_name": "mcp__slack__list_channels"},
            ],
        }
        declared(ToolResultBlockParam, block)
        missing = await rt.run_one(ToolCall("toolu_2", "tool_search", '{"query": "qqqq"}'))
        error = anthropic_tool_search_result(missing)
        assert error["is_error"] is True
        assert error["content"][0]["text"].startswith("No tool matches 'qqqq'")


def test_openai_responses_defers_behind_its_hosted_tool_search() -> None:
    definitions = deferred_tool_definitions(TOOLSET.tools(), ToolSearchState(), "openai-responses")
    assert definitions[len(BUILTINS)] == {"type": "tool_search"}
    declared(ToolSearchToolParam, definitions[len(BUILTINS)])
    deferred = definitions[len(BUILTINS) + 1 :]
    assert [d["name"] for d in deferred] == MCP
    for definition in deferred:
        assert definition["defer_loading"] is True
        declared(FunctionToolParam, definition)


@pytest.mark.anyio
async def test_openai_responses_with_a_client_search_returns_definitions(tmp_path: Path) -> None:
    definitions = deferred_tool_definitions(
        TOOLSET.tools(), ToolSearchState(), "openai-responses", search="toolbelt", strict=True
    )
    assert len(definitions) == len(BUILTINS) + 1  # the search hands the rest over itself
    search = definitions[-1]
    assert (search["type"], search["execution"]) == ("tool_search", "client")
    assert search["parameters"]["required"] == ["query"]
    declared(ToolSearchToolParam, search)

    async with Runtime(tmp_path, toolset=searchable_toolset(), settings=Settings()) as rt:
        args = json.dumps({"query": "mcp__docker__list_volumes"})
        found = await rt.run_one(ToolCall("call_9", "tool_search", args))
        item = openai_tool_search_output(found, rt.toolset.tools(), strict=True)
        assert [tool["name"] for tool in item["tools"]] == ["mcp__docker__list_volumes"]
        assert (item["type"], item["call_id"], item["execution"]) == (
            "tool_search_output",
            "call_9",
            "client",
        )
        declared(ResponseToolSearchOutputItemParamParam, item)
        TypeAdapter(ResponseInputItemParam).validate_python(item)


@pytest.mark.parametrize("provider", ["openai", "gemini", "mcp"])
def test_providers_without_a_native_form_get_the_proxy_form(provider: Any) -> None:
    state = ToolSearchState()
    definitions = deferred_tool_definitions(TOOLSET.tools(), state, provider)
    assert definitions == tool_definitions(offered_tools(TOOLSET.tools(), state), provider)
    assert len(definitions) == len(BUILTINS) + 1


def test_below_the_threshold_every_provider_gets_every_tool_plainly() -> None:
    state = ToolSearchState(DeferralSettings(mode="never"))
    for provider in ("anthropic", "openai-responses"):
        definitions = deferred_tool_definitions(TOOLSET.tools(), state, provider)
        assert len(definitions) == len(BUILTINS) + len(MCP)
        assert not any("defer_loading" in d for d in definitions)


def test_our_search_without_tool_search_in_the_toolset_is_refused() -> None:
    bare = [tool for tool in TOOLSET.tools() if tool.name != "tool_search"]
    with pytest.raises(UsageError) as caught:
        deferred_tool_definitions(bare, ToolSearchState(), "anthropic", search="toolbelt")
    assert str(caught.value) == (
        "search='toolbelt' needs the `tool_search` tool; wrap the toolset in "
        "`ToolSearchToolset(toolset)`, or use search='provider'."
    )
    # the provider's own search needs nothing of ours
    definitions = deferred_tool_definitions(bare, ToolSearchState(), "anthropic")
    assert definitions[len(BUILTINS)]["name"] == "tool_search_tool_bm25"
