"""``tool_search`` run through the runtime's executor, as the agent loop and MCP clients run it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.toolsearch.fake_catalog import FakeServerTool, fake_tools, searchable_toolset
from toolbelt.config.settings import Settings
from toolbelt.core.executor import ToolCall, ToolCallResult
from toolbelt.core.registry import CombinedToolset, ToolRegistry
from toolbelt.runtime import Runtime
from toolbelt.tools import builtin_toolset
from toolbelt.toolsearch import ToolSearchToolset, offered_tools, session_state

pytestmark = pytest.mark.anyio
BUILTINS = builtin_toolset().names()


async def search(runtime: Runtime, **arguments: object) -> ToolCallResult:
    return await runtime.run_one(ToolCall("c1", "tool_search", json.dumps(arguments)))


def offered(runtime: Runtime) -> list[str]:
    state = session_state(runtime.session)
    return [tool.name for tool in offered_tools(runtime.toolset.tools(), state)]


async def test_found_tools_come_with_their_schemas_and_are_offered_from_the_next_turn(
    tmp_path: Path,
) -> None:
    async with Runtime(tmp_path, toolset=searchable_toolset(), settings=Settings()) as runtime:
        assert offered(runtime) == [*BUILTINS, "tool_search"]
        result = await search(runtime, query="delete_refund", limit=2)
        assert not result.is_error
        lines = result.text.splitlines()
        assert lines[0] == "Loaded 1 tool for 'delete_refund'; call it by name from now on."
        assert lines[2] == "## mcp__stripe__delete_refund (server: stripe)"
        assert lines[3] == "Delete a refund from the Stripe account; this cannot be undone."
        assert json.loads(lines[4].removeprefix("Parameters: ")) == {
            "type": "object",
            "properties": {
                "refund_id": {"type": "string", "description": "The id of the refund."},
                "scope": {"type": "string", "description": "Which Stripe account to work in."},
            },
            "required": ["refund_id"],
            "additionalProperties": False,
        }
        found = [entry["name"] for entry in result.output.structured["tools"]]  # type: ignore[index]
        assert offered(runtime) == [*BUILTINS, "tool_search", *found]
        again = await search(runtime, query="MCP__STRIPE__DELETE_REFUND")
        assert again.output.structured["newly_loaded"] == []  # type: ignore[index]
        assert offered(runtime) == [*BUILTINS, "tool_search", *found]
        more = await search(runtime, query="refund", limit=3)
        assert more.text.startswith("Loaded 3 tools for 'refund'")
        newly = more.output.structured["newly_loaded"]  # type: ignore[index]
        assert len(newly) == 2
        assert offered(runtime) == [*BUILTINS, "tool_search", *found, *newly]


async def test_select_loads_exact_names_and_explains_what_it_could_not(tmp_path: Path) -> None:
    async with Runtime(tmp_path, toolset=searchable_toolset(), settings=Settings()) as runtime:
        query = "select:mcp__github__get_issue, read_file, create_issue, get_pod, nope"
        result = await search(runtime, query=query)
        assert not result.is_error
        assert result.text.splitlines()[:4] == [
            f"Loaded 2 tools for {query!r}; call them by name from now on.",
            "`read_file` is always available; call it directly.",
            "`create_issue` names 5 tools (mcp__github__create_issue, mcp__gitlab__create_issue, "
            "mcp__jira__create_issue, mcp__linear__create_issue, mcp__sentry__create_issue); "
            "select one by its full name.",
            "No tool is named `nope`; search with words from its description instead.",
        ]
        assert offered(runtime)[-2:] == ["mcp__github__get_issue", "mcp__kubernetes__get_pod"]
        scoped = await search(runtime, query="select:create_issue", server="jira")
        assert scoped.output.structured["newly_loaded"] == ["mcp__jira__create_issue"]  # type: ignore[index]


async def test_searches_that_find_nothing_say_what_to_do_instead(tmp_path: Path) -> None:
    async with Runtime(tmp_path, toolset=searchable_toolset(), settings=Settings()) as runtime:
        nothing = await search(runtime, query="teleport")
        assert nothing.is_error
        assert nothing.text.startswith(
            "No tool matches 'teleport'; try other words, a server (github, gitlab, jira, "
        )
        assert nothing.text.endswith(", zendesk) or `select:<exact name>`.")
        unknown = await search(runtime, query="issue", server="bitbucket")
        assert unknown.text.startswith(
            "No MCP server is named 'bitbucket'; use one of github, gitlab, jira,"
        )
        assert unknown.text.endswith("zendesk, or leave `server` out.")
        empty = await search(runtime, query="select: ,")
        assert empty.text == (
            "`select:` needs tool names after it, like `select:mcp__github__create_issue`."
        )
        too_many = await search(runtime, query="issue", limit=21)
        assert too_many.is_error
        assert "`limit`" in too_many.text
        assert offered(runtime) == [*BUILTINS, "tool_search"]


async def test_a_deferred_tool_called_by_its_exact_name_runs_without_a_search(
    tmp_path: Path,
) -> None:
    async with Runtime(tmp_path, toolset=searchable_toolset(), settings=Settings()) as runtime:
        call = ToolCall("c2", "mcp__stripe__get_refund", '{"refund_id": "re_1"}')
        result = await runtime.run_one(call)
        assert (result.is_error, result.text) == (
            False,
            "mcp__stripe__get_refund called with [('refund_id', 're_1')]",
        )
        bad = await runtime.run_one(ToolCall("c3", "mcp__stripe__get_refund", '{"id": "re_1"}'))
        assert bad.is_error
        assert bad.text.startswith("Invalid arguments for `mcp__stripe__get_refund`")


async def test_the_description_names_each_server_and_its_tool_count(tmp_path: Path) -> None:
    toolset = searchable_toolset()
    tool = toolset.get("tool_search")
    assert tool is not None
    toolset.tools()
    assert tool.description.endswith(
        "\n\nServers: github (25 tools), gitlab (25 tools), jira (25 tools), slack (25 tools), "
        "linear (25 tools), notion (25 tools), postgres (25 tools), sentry (25 tools), "
        "stripe (25 tools), figma (25 tools), gdrive (25 tools), calendar (25 tools), "
        "aws (25 tools), kubernetes (25 tools), docker (25 tools), datadog (25 tools), "
        "pagerduty (25 tools), confluence (25 tools), salesforce (25 tools), zendesk (25 tools)."
    )


async def test_with_no_mcp_tools_there_is_nothing_to_search(tmp_path: Path) -> None:
    toolset = ToolSearchToolset(builtin_toolset())
    async with Runtime(tmp_path, toolset=toolset, settings=Settings()) as runtime:
        assert offered(runtime) == list(BUILTINS)  # nothing deferred: tool_search is not offered
        result = await search(runtime, query="anything")
        assert (result.is_error, result.text) == (
            True,
            "No MCP server's tools are connected, so there is nothing to search; "
            "carry on with the tools you have.",
        )


async def test_a_server_listing_a_new_tool_is_searchable_at_once(tmp_path: Path) -> None:
    servers = ToolRegistry(fake_tools()[:40])
    toolset = ToolSearchToolset(CombinedToolset(builtin_toolset(), servers))
    async with Runtime(tmp_path, toolset=toolset, settings=Settings()) as runtime:
        before = await search(runtime, query="teleport")
        assert before.is_error
        schema = {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}
        servers.register(
            FakeServerTool("mcp__space__teleport", description="Beam up.", input_schema=schema)
        )
        after = await search(runtime, query="teleport")
        assert after.text.splitlines()[2] == "## mcp__space__teleport (server: space)"
        tool = toolset.get("tool_search")
        assert tool is not None
        assert tool.description.endswith("github (25 tools), gitlab (15 tools), space (1 tool).")
