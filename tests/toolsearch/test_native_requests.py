"""Native tool search on the wire: what the agent loop sends through the official SDKs.

A runtime with the built-ins and 500 MCP tools behind tool search drives a fake Anthropic or
OpenAI Responses endpoint on 127.0.0.1 (``tests.support.fake_provider``); the tests read the
request bodies the SDKs really sent: deferred tools marked ``defer_loading`` (or held back for
a client-executed search), ``tool_search`` answered by ``tool_reference`` blocks or a
``tool_search_output`` item, the provider's own search items replayed verbatim, and a tools
list that stays the same from request to request so the prompt cache holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pytest

from tests.support.fake_provider import FakeProvider
from tests.toolsearch.fake_catalog import fake_tools, searchable_toolset
from toolbelt.agent import Agent
from toolbelt.config.settings import Settings
from toolbelt.runtime import Runtime
from toolbelt.sandbox.sandbox import SandboxSettings

pytestmark = pytest.mark.anyio

WANTED = "mcp__jira__create_issue"
DEFERRED = {tool.name for tool in fake_tools()}


def runtime_on(
    root: Path,
    *,
    form: Literal["native", "proxy"] | None = None,
    search: Literal["toolbelt", "provider"] | None = None,
) -> Runtime:
    """The built-ins and 500 MCP tools (which answer with their arguments), nobody asked."""
    settings = Settings(tool_search_form=form, tool_search_search=search)
    runtime = Runtime(root, mode="bypass", settings=settings, toolset=searchable_toolset())
    runtime.use_sandbox(SandboxSettings(mode="off"))
    return runtime


async def run_agent(
    fake: FakeProvider, spec: str, runtime: Runtime, prompt: str = "file a ticket"
) -> str:
    url = fake.openai_url if spec.startswith("openai") else fake.url
    async with Agent(spec, runtime, base_url=url, api_key="k") as agent:
        result = await agent.run(prompt)
    return result.text


def names(tools: list[dict[str, Any]]) -> list[str]:
    return [tool["name"] if "name" in tool else tool["type"] for tool in tools]


def deferred_part(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [tool for tool in tools if tool.get("defer_loading")]


async def test_anthropic_defers_the_catalog_and_answers_a_search_with_references(
    tmp_path: Path,
) -> None:
    script = [
        {"calls": [{"name": "tool_search", "arguments": {"query": WANTED}, "id": "toolu_s"}]},
        {"calls": [{"name": WANTED, "arguments": {"title": "Crash"}, "id": "toolu_c"}]},
        {"text": "Filed."},
    ]
    with FakeProvider(script) as fake:
        async with runtime_on(tmp_path) as runtime:
            text = await run_agent(fake, "anthropic:claude-sonnet-4-6", runtime)
    assert text == "Filed."
    first, second, third = (request.body for request in fake.requests)
    tools = first["tools"]
    search_at = names(tools).index("tool_search")
    assert tools[search_at]["cache_control"] == {"type": "ephemeral"}
    assert {tool["name"] for tool in deferred_part(tools)} == DEFERRED
    assert names(deferred_part(tools)) == names(tools)[search_at + 1 :]  # all after the search
    assert not any(name.startswith("mcp__") for name in names(tools)[:search_at])
    assert second["tools"] == tools and third["tools"] == tools  # loading changes no tool
    search_result = second["messages"][-1]["content"][0]
    assert search_result == {
        "type": "tool_result",
        "tool_use_id": "toolu_s",
        "content": [{"type": "tool_reference", "tool_name": WANTED}],
    }
    ran = third["messages"][-1]["content"][0]
    assert ran["tool_use_id"] == "toolu_c" and ran["is_error"] is False
    assert f"{WANTED} called with [('title', 'Crash')]" in ran["content"][0]["text"]


async def test_anthropic_search_that_finds_nothing_answers_in_words(tmp_path: Path) -> None:
    script = [
        {"calls": [{"name": "tool_search", "arguments": {"query": "zzqx"}, "id": "toolu_s"}]},
        {"text": "Nothing."},
    ]
    with FakeProvider(script) as fake:
        async with runtime_on(tmp_path) as runtime:
            await run_agent(fake, "anthropic:claude-sonnet-4-6", runtime)
    answer = fake.requests[1].body["messages"][-1]["content"][0]
    assert answer["content"][0]["type"] == "text"
    assert "zzqx" in answer["content"][0]["text"]


async def test_anthropic_with_its_own_search_replays_the_server_blocks(tmp_path: Path) -> None:
    server_call = {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "tool_search_tool_bm25",
        "input": {"query": "create jira issue"},
    }
    server_result = {
        "type": "tool_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": WANTED}],
        },
    }
    script = [
        {
            "provider_items": [server_call, server_result],
            "calls": [{"name": WANTED, "arguments": {"title": "Crash"}, "id": "toolu_c"}],
        },
        {"text": "Filed."},
    ]
    with FakeProvider(script) as fake:
        async with runtime_on(tmp_path, search="provider") as runtime:
            await run_agent(fake, "anthropic:claude-sonnet-4-6", runtime)
    first, second = (request.body for request in fake.requests)
    assert "tool_search" not in names(first["tools"])  # toolbelt's search is not offered
    bm25 = {
        "type": "tool_search_tool_bm25_20251119",
        "name": "tool_search_tool_bm25",
        "cache_control": {"type": "ephemeral"},
    }
    assert bm25 in first["tools"]
    assert len(deferred_part(first["tools"])) == len(DEFERRED)
    replayed = second["messages"][-2]["content"]
    assert [block["type"] for block in replayed] == [
        "server_tool_use",
        "tool_search_tool_result",
        "tool_use",
    ]
    assert replayed[0]["input"] == {"query": "create jira issue"}  # streamed, then parsed
    assert replayed[1]["content"]["tool_references"] == [
        {"type": "tool_reference", "tool_name": WANTED}
    ]
    assert replayed[2]["input"] == {"title": "Crash"}


async def test_responses_runs_a_client_search_and_hands_over_the_found_definitions(
    tmp_path: Path,
) -> None:
    search_call = {
        "type": "tool_search_call",
        "id": "ts_1",
        "call_id": "call_search",
        "execution": "client",
        "status": "completed",
        "arguments": {"query": WANTED},
    }
    script = [
        {"provider_items": [search_call]},
        {"calls": [{"name": WANTED, "arguments": {"title": "Crash"}, "id": "call_c"}]},
        {"text": "Filed."},
    ]
    with FakeProvider(script) as fake:
        async with runtime_on(tmp_path) as runtime:
            text = await run_agent(fake, "openai-responses:gpt-5.4", runtime)
    assert text == "Filed."
    first, second, third = (request.body for request in fake.requests)
    tools = first["tools"]
    assert not any(name.startswith("mcp__") for name in names(tools))
    search = next(tool for tool in tools if tool["type"] == "tool_search")
    assert search["execution"] == "client"
    assert search["parameters"]["required"] == ["query"]
    assert second["tools"] == tools and third["tools"] == tools
    call_item, output_item = second["input"][-2:]
    assert call_item == {
        "type": "tool_search_call",
        "call_id": "call_search",
        "arguments": {"query": WANTED},
        "execution": "client",
        "status": "completed",
    }
    assert output_item["type"] == "tool_search_output"
    assert output_item["call_id"] == "call_search"
    assert [tool["name"] for tool in output_item["tools"]] == [WANTED]
    assert output_item["tools"][0]["parameters"]["required"] == ["title"]
    ran = third["input"][-1]
    assert ran["type"] == "function_call_output" and ran["call_id"] == "call_c"
    assert f"{WANTED} called with [('title', 'Crash')]" in ran["output"]


async def test_responses_with_its_own_search_replays_its_items_before_the_calls(
    tmp_path: Path,
) -> None:
    found = {
        "type": "function",
        "name": WANTED,
        "parameters": {"type": "object", "properties": {}},
        "strict": False,
        "defer_loading": True,
    }
    hosted = [
        {
            "type": "tool_search_call",
            "id": "ts_1",
            "execution": "server",
            "status": "completed",
            "arguments": {"query": "jira issue"},
        },
        {
            "type": "tool_search_output",
            "id": "tso_1",
            "execution": "server",
            "status": "completed",
            "tools": [found],
        },
    ]
    script = [
        {
            "provider_items": hosted,
            "calls": [{"name": WANTED, "arguments": {"title": "Crash"}, "id": "call_c"}],
        },
        {"text": "Filed."},
    ]
    with FakeProvider(script) as fake:
        async with runtime_on(tmp_path, search="provider") as runtime:
            await run_agent(fake, "openai-responses:gpt-5.4", runtime)
    first, second = (request.body for request in fake.requests)
    assert {"type": "tool_search"} in first["tools"]
    assert {tool["name"] for tool in deferred_part(first["tools"])} == DEFERRED
    kinds = [item.get("type") for item in second["input"]]
    assert kinds[-4:] == [
        "tool_search_call",
        "tool_search_output",
        "function_call",
        "function_call_output",
    ]
    assert second["input"][-4]["arguments"] == {"query": "jira issue"}
    assert second["input"][-3]["tools"][0]["name"] == WANTED


async def test_the_proxy_form_is_kept_where_the_setting_asks_for_it(tmp_path: Path) -> None:
    script = [
        {"calls": [{"name": "tool_search", "arguments": {"query": WANTED}, "id": "toolu_s"}]},
        {"text": "Found it."},
    ]
    with FakeProvider(script) as fake:
        async with runtime_on(tmp_path, form="proxy") as runtime:
            await run_agent(fake, "anthropic:claude-sonnet-4-6", runtime)
    first, second = (request.body for request in fake.requests)
    assert not deferred_part(first["tools"])
    assert names(first["tools"])[-1] == "tool_search"
    assert names(second["tools"])[-1] == WANTED  # loaded: offered from the next request on
    answer = second["messages"][-1]["content"][0]["content"][0]
    assert answer["type"] == "text" and '"required":["title"]' in answer["text"]


async def test_chat_completions_gets_the_proxy_form(tmp_path: Path) -> None:
    with FakeProvider([{"text": "Hello."}]) as fake:
        async with runtime_on(tmp_path) as runtime:
            await run_agent(fake, "openai:gpt-5", runtime)
    tools = fake.requests[0].body["tools"]
    listed = [tool["function"]["name"] for tool in tools]
    assert listed[-1] == "tool_search"
    assert not any(name.startswith("mcp__") for name in listed)
    assert not any("defer_loading" in tool for tool in tools)


async def test_a_paused_server_search_is_resumed_by_asking_again(tmp_path: Path) -> None:
    """Anthropic pauses a long turn of its own tools (``pause_turn``); the loop sends the
    transcript again, ending with the paused turn as it came, and the model goes on."""
    server_call = {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "tool_search_tool_bm25",
        "input": {"query": "jira"},
    }
    script = [
        {"provider_items": [server_call], "stop": "pause_turn"},
        {"text": "Resumed and done."},
    ]
    with FakeProvider(script) as fake:
        async with runtime_on(tmp_path, search="provider") as runtime:
            text = await run_agent(fake, "anthropic:claude-sonnet-4-6", runtime)
    assert text == "Resumed and done."
    assert len(fake.requests) == 2
    paused = fake.requests[1].body["messages"][-1]
    assert paused == {"role": "assistant", "content": [server_call]}
