"""Toolsets: unique names, stable order, composition with seed 004's knobs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.fakes import BrokenTool, ReaderTool, SlowTool, Trace, WriterTool
from toolbelt.core.errors import UsageError
from toolbelt.core.registry import CombinedToolset, ToolRegistry
from toolbelt.core.tool import Tool
from toolbelt.tools import build_toolset, builtin_toolset


class InteractiveTool(SlowTool):
    name = "ask_person"
    programmatic = False


def registry() -> ToolRegistry:
    trace = Trace()
    return ToolRegistry([ReaderTool(trace), WriterTool(trace), InteractiveTool(), BrokenTool()])


def test_listing_order_is_registration_order() -> None:
    assert registry().names() == ("reader", "writer", "ask_person", "broken")


def test_duplicate_names_are_refused_with_a_fix() -> None:
    tools = registry()
    with pytest.raises(UsageError, match="A tool named 'reader' is already registered"):
        tools.register(ReaderTool(Trace()))


@pytest.mark.parametrize(
    "name", ["read-file", "ReadFile9", "readFile", "9lives", "_x", "a" * 65, ""]
)
def test_bad_names_are_refused(name: str) -> None:
    class Bad(ReaderTool):
        pass

    Bad.name = name
    with pytest.raises(UsageError) as refused:
        ToolRegistry([Bad(Trace())])
    assert str(refused.value) == (
        f"Tool name {name!r} must be snake_case ASCII: lowercase letters, digits and "
        "underscores, starting with a letter, at most 64 characters (like 'read_file')."
    )


@pytest.mark.parametrize("name", ["read_file", "mcp__github__create_issue", "x9", "a" * 64])
def test_snake_case_names_are_accepted(name: str) -> None:
    class Good(ReaderTool):
        pass

    Good.name = name
    assert ToolRegistry([Good(Trace())]).names() == (name,)


def test_lookup_and_membership() -> None:
    tools = registry()
    assert isinstance(tools.get("writer"), WriterTool)
    assert tools.get("missing") is None
    assert "reader" in tools
    assert "missing" not in tools
    assert len(tools) == 4


def test_without_unknown_name_is_a_mistake() -> None:
    with pytest.raises(UsageError, match=r"Cannot disable unknown tools \['raeder'\]"):
        registry().without("raeder")


def test_programmatic_preset_drops_interactive_tools() -> None:
    assert registry().programmatic().names() == ("reader", "writer", "broken")


def test_build_toolset_applies_base_then_disabled_then_extra() -> None:
    extra: list[Tool[Any]] = [InteractiveTool()]
    toolset = build_toolset(
        tools=registry().without("ask_person"),
        programmatic=True,
        disabled=["broken"],
        extra=extra,
    )
    assert toolset.names() == ("reader", "writer", "ask_person")


def test_default_base_is_every_builtin() -> None:
    everything = build_toolset().names()
    assert everything == builtin_toolset().names()
    assert {"think", "todo_read", "todo_write", "read_file", "edit_file"} <= set(everything)
    assert build_toolset(disabled=["think"]).names() == tuple(n for n in everything if n != "think")


def test_combining_toolsets_that_share_a_name_is_refused() -> None:
    with pytest.raises(UsageError, match="Two toolsets both provide 'reader'"):
        CombinedToolset(registry(), ToolRegistry([ReaderTool(Trace())]))


def test_filtered_and_readonly_views() -> None:
    tools = registry()
    assert tools.readonly().names() == ("reader", "ask_person", "broken")
    assert tools.filtered(lambda t: t.name.startswith("w")).names() == ("writer",)


class _ServerDown(ToolRegistry):
    """A toolset whose ``mcp__down__…`` tools are missing for a reason, as a failed MCP
    server's are."""

    def why_missing(self, name: str) -> str | None:
        return (
            "The MCP server `down` could not be started."
            if name.startswith("mcp__down__")
            else None
        )


def _wrappers(inner: ToolRegistry) -> list[Any]:
    from typing import cast

    from toolbelt.checkpoints.session import Checkpoints
    from toolbelt.checkpoints.toolset import CheckpointToolset
    from toolbelt.core.shared_toolset import SharedToolset
    from toolbelt.toolsearch.tool import ToolSearchToolset

    return [
        inner.filtered(lambda tool: True),
        inner.without("reader"),
        inner.programmatic(),
        CheckpointToolset(inner, cast(Checkpoints, None)),
        ToolSearchToolset(inner),
        SharedToolset(inner).lease(),
        CombinedToolset(ToolRegistry([]), inner),
    ]


def test_every_wrapper_says_why_a_tool_is_missing() -> None:
    """What the wrapped toolset knows of a missing tool reaches the model through every
    wrapper, so a failed server is named rather than "There is no tool named …"."""
    trace = Trace()
    for wrapper in _wrappers(_ServerDown([ReaderTool(trace), WriterTool(trace)])):
        assert wrapper.why_missing("mcp__down__x") == (
            "The MCP server `down` could not be started."
        ), type(wrapper).__name__
        assert wrapper.why_missing("nothing") is None
