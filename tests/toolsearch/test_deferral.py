"""Which tools a request offers: the threshold, the stable order, the settings, tokens saved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.toolsearch.fake_catalog import FakeServerTool, fake_tools, searchable_toolset
from toolbelt.config.settings import load_settings
from toolbelt.core.errors import SettingsError, UsageError
from toolbelt.core.registry import CombinedToolset, ToolRegistry
from toolbelt.tools import builtin_toolset
from toolbelt.toolsearch import (
    DeferralSettings,
    ToolSearchState,
    ToolSearchToolset,
    defers,
    estimated_tokens,
    is_deferrable,
    offered_tools,
)
from toolbelt.toolsearch.terms import server_of

BUILTINS = builtin_toolset().names()


def catalog(count: int) -> ToolSearchToolset:
    return ToolSearchToolset(CombinedToolset(builtin_toolset(), ToolRegistry(fake_tools()[:count])))


def offered(toolset: ToolSearchToolset, state: ToolSearchState) -> list[str]:
    return [tool.name for tool in offered_tools(toolset.tools(), state)]


def test_up_to_30_mcp_tools_are_all_offered_and_tool_search_is_not() -> None:
    toolset = catalog(30)
    names = offered(toolset, ToolSearchState())
    assert names == [*BUILTINS, *(t.name for t in fake_tools()[:30])]


def test_past_30_mcp_tools_only_our_tools_and_tool_search_are_offered() -> None:
    toolset = catalog(31)
    assert offered(toolset, ToolSearchState()) == [*BUILTINS, "tool_search"]
    # every tool stays callable by name through the toolset the executor runs
    assert toolset.get("mcp__gitlab__create_issue") is not None
    assert len(toolset.tools()) == len(BUILTINS) + 31 + 1


def test_a_few_large_schemas_past_the_context_share_are_deferred_too() -> None:
    toolset = catalog(10)
    cost = sum(estimated_tokens(t) for t in toolset.tools() if t.name.startswith("mcp__"))
    assert not defers(toolset.tools(), ToolSearchState(context_window=cost * 10))
    assert defers(toolset.tools(), ToolSearchState(context_window=cost * 10 - 10))
    assert not defers(toolset.tools(), ToolSearchState(context_window=None))
    tighter = DeferralSettings(context_share=0.5)
    assert defers(toolset.tools(), ToolSearchState(tighter, context_window=cost * 2 - 2))


def test_modes_and_count_setting() -> None:
    few, many = catalog(1).tools(), catalog(500).tools()
    assert defers(few, ToolSearchState(DeferralSettings(mode="always")))
    assert not defers(many, ToolSearchState(DeferralSettings(mode="never")))
    assert defers(catalog(6).tools(), ToolSearchState(DeferralSettings(max_tools=5)))
    assert not defers(catalog(5).tools(), ToolSearchState(DeferralSettings(max_tools=5)))
    only_ours = builtin_toolset().tools()
    assert not defers(only_ours, ToolSearchState(DeferralSettings(mode="always")))


def test_loaded_tools_are_appended_in_load_order_so_the_prefix_never_changes() -> None:
    toolset = searchable_toolset()
    state = ToolSearchState()
    before = offered(toolset, state)
    state.load(["mcp__slack__create_message", "mcp__aws__get_secret"])
    after_one = offered(toolset, state)
    assert state.load(["mcp__aws__get_secret", "mcp__jira__get_issue"]) == ["mcp__jira__get_issue"]
    after_two = offered(toolset, state)
    assert after_one == [*before, "mcp__slack__create_message", "mcp__aws__get_secret"]
    assert after_two == [*after_one, "mcp__jira__get_issue"]
    assert offered(toolset, state) == after_two  # the same list, request after request


def test_a_loaded_tool_its_server_no_longer_lists_is_left_out() -> None:
    state = ToolSearchState(DeferralSettings(mode="always"))
    state.load(["mcp__github__get_issue", "mcp__gone__tool"])
    assert offered(catalog(1), state) == [*BUILTINS, "tool_search"]
    assert offered(catalog(10), state)[-1] == "mcp__github__get_issue"


def test_deferral_without_tool_search_is_refused_with_the_fix() -> None:
    tools = CombinedToolset(builtin_toolset(), ToolRegistry(fake_tools()[:40])).tools()
    with pytest.raises(UsageError) as caught:
        offered_tools(tools, ToolSearchState())
    assert str(caught.value) == (
        "Tool search is on but the toolset has no `tool_search` tool; wrap it in "
        "`ToolSearchToolset(toolset)`, or set `toolSearch.mode` to `never`."
    )


def test_with_500_tools_a_request_carries_the_builtins_and_tool_search_alone() -> None:
    """Deferral removes the MCP tools' definitions (58,000 tokens of the fake catalog) from
    every request; what is left is the built-in tools and ``tool_search``."""
    toolset = searchable_toolset()
    everything = sum(estimated_tokens(t) for t in toolset.tools() if t.name != "tool_search")
    offered = offered_tools(toolset.tools(), ToolSearchState())
    assert [t.name for t in offered] == [*BUILTINS, "tool_search"]
    builtins = sum(estimated_tokens(t) for t in builtin_toolset().tools())
    deferred = sum(estimated_tokens(t) for t in offered)
    assert everything - builtins > 50_000
    assert deferred - builtins < 1_000  # tool_search's own definition
    # the estimate is the Anthropic-format JSON size over 4 bytes per token
    read_file = builtin_toolset().get("read_file")
    assert read_file is not None
    from toolbelt.providers.formats import anthropic_tool

    size = len(json.dumps(anthropic_tool(read_file), separators=(",", ":")).encode())
    assert estimated_tokens(read_file) == -(-size // 4)


def test_settings_files_configure_deferral(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "work"
    (home / ".config" / "toolbelt").mkdir(parents=True)
    (root / ".toolbelt").mkdir(parents=True)
    user = {"toolSearch": {"mode": "always", "maxTools": 10}}
    (home / ".config" / "toolbelt" / "settings.json").write_text(json.dumps(user))
    project = {"toolSearch": {"contextShare": 0.25, "form": "proxy", "search": "provider"}}
    (root / ".toolbelt" / "settings.json").write_text(json.dumps(project))
    for trusted in (True, False):  # it decides what is shown, never what may run
        settings = load_settings(root, home=home, trusted=trusted)
        assert DeferralSettings.from_settings(settings) == DeferralSettings(
            "always", 10, 0.25, "proxy", "provider"
        )
        assert settings.ignored == []
    assert DeferralSettings.from_settings(load_settings(tmp_path, home=tmp_path)) == (
        DeferralSettings("auto", 30, 0.10, "native", "toolbelt")
    )


def test_a_bad_tool_search_setting_names_the_file_and_key(tmp_path: Path) -> None:
    (tmp_path / ".toolbelt").mkdir()
    path = tmp_path / ".toolbelt" / "settings.json"
    path.write_text('{"toolSearch": {"mode": "sometimes"}}')
    with pytest.raises(SettingsError) as caught:
        load_settings(tmp_path, home=tmp_path, trusted=True)
    assert str(path) in str(caught.value)
    assert "toolSearch.mode" in str(caught.value)


@pytest.mark.parametrize(
    ("name", "deferrable"),
    [
        ("mcp__github__create_issue", True),
        ("mcp__my_server__do_it", True),
        ("mcp__a__", True),
        ("mcp____tool", False),  # no server name
        ("mcp__server", False),  # no tool part
        ("mcp_x__y", False),
        ("read_file", False),
        ("call_mcp_tool", False),
    ],
)
def test_only_server_tools_named_mcp_server_tool_are_deferrable(
    name: str, deferrable: bool
) -> None:
    tool = FakeServerTool(name, description="d", input_schema={"type": "object"})
    assert is_deferrable(tool) is deferrable
    assert (server_of(name) is not None) is deferrable
