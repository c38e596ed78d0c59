"""Every exception a public call raises on purpose is a ``ToolbeltError``, exported, in the
tree drawn in ``core.errors``; those that were a ``ValueError`` still are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolbelt
from toolbelt.config.files import load_json_config
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.strict_json import strict_loads
from toolbelt.mcp_client.tools import McpTool


def test_the_tree_is_the_one_drawn() -> None:
    parents = {
        "ConfigFileError": ("SettingsError", "ValueError"),
        "SettingsError": ("UsageError",),
        "DataError": ("ToolbeltError", "ValueError"),
        "StrictJsonError": ("DataError",),
        "UnusableToolError": ("DataError",),
        "AgentError": ("ToolbeltError",),
        "ProviderError": ("AgentError",),
        "CondenseError": ("AgentError",),
    }
    for name, bases in parents.items():
        error = getattr(toolbelt, name)
        assert name in toolbelt.__all__
        assert tuple(base.__name__ for base in error.__bases__) == bases
        assert issubclass(error, toolbelt.ToolbeltError)
    drawn = toolbelt.ToolbeltError.__module__
    tree = __import__(drawn, fromlist=["_"]).__doc__
    assert all(f"── {name}" in tree for name in parents)


def test_a_public_agent_with_an_unknown_provider_raises_a_toolbelt_error(tmp_path: Path) -> None:
    runtime = toolbelt.Runtime(tmp_path, toolset=toolbelt.ToolRegistry())
    with pytest.raises(toolbelt.AgentError) as caught:
        toolbelt.Agent("nowhere:model", runtime)
    assert isinstance(caught.value, toolbelt.ProviderError)
    assert caught.value.kind == "bad_request"


def test_refused_json_is_a_data_error_and_still_a_value_error() -> None:
    with pytest.raises(ValueError, match="the key 'a' appears twice in one object") as caught:
        strict_loads('{"a": 1, "a": 2}')
    assert isinstance(caught.value, toolbelt.StrictJsonError)
    assert isinstance(caught.value, toolbelt.DataError)


def test_an_unusable_configuration_file_is_a_settings_error(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").mkdir()
    with pytest.raises(toolbelt.SettingsError, match="not a regular file") as caught:
        load_json_config(tmp_path / "mcp.json")
    assert isinstance(caught.value, toolbelt.ConfigFileError)
    assert isinstance(caught.value, ValueError)


def test_a_remote_tool_that_cannot_be_offered_is_a_data_error() -> None:
    deep: dict[str, object] = {"type": "string"}
    for _ in range(70):
        deep = {"type": "object", "properties": {"x": deep}}
    from mcp import types

    remote = types.Tool(name="deep", inputSchema=json.loads(json.dumps(deep)))
    with pytest.raises(toolbelt.UnusableToolError, match="nests more than 64 levels deep"):
        McpTool("mcp__s__deep", "s", remote, call=_never_called)


async def _never_called(name: str, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    raise AssertionError("the tool was never usable")
