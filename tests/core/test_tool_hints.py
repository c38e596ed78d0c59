"""A tool's behaviour hints, declared as one value or flag by flag, reach MCP's annotations.

Users' tools written before ``ToolHints`` (``readonly = True`` as a class attribute, an explicit
``input_model``) keep working; a ``Tool[SomeInput]`` subclass need not name its input model twice.
"""

from __future__ import annotations

import mcp.types as mcp_types
import pytest

import toolbelt
from toolbelt.core.errors import InvalidInputError
from toolbelt.providers.formats import mcp_tool


class LookupInput(toolbelt.ToolInput):
    key: str


class Lookup(toolbelt.Tool[LookupInput]):
    name = "lookup"
    title = "Look up"
    description = "Look a key up."
    example = {"key": "a"}
    hints = toolbelt.ToolHints.READ_ONLY

    async def run(self, args: LookupInput, ctx: toolbelt.ToolContext) -> toolbelt.ToolOutput:
        return toolbelt.ToolOutput.text(args.key)


class FlagByFlag(Lookup):
    """Declares its hints the older way, over a read-only parent, and names its input model."""

    name = "flag_by_flag"
    input_model = LookupInput
    readonly = False
    destructive = False
    open_world = True


class StillFlagByFlag(FlagByFlag):
    name = "still_flag_by_flag"
    idempotent = False


def annotations(tool: toolbelt.Tool[LookupInput]) -> dict[str, object]:
    listed = mcp_types.Tool.model_validate(mcp_tool(tool))
    assert listed.annotations is not None
    return listed.annotations.model_dump(exclude_none=True, exclude={"title"})


def test_a_read_only_tool_says_so_to_an_mcp_client_and_validates_with_its_parameter() -> None:
    tool = Lookup()
    assert annotations(tool) == {
        "read_only_hint": True,
        "destructive_hint": False,
        "idempotent_hint": True,
        "open_world_hint": False,
    }
    assert tool.readonly and tool.idempotent and not tool.destructive
    assert tool.validate({"key": "b"}) == LookupInput(key="b")
    with pytest.raises(InvalidInputError, match="key"):
        tool.validate({"other": 1})


def test_hints_set_flag_by_flag_are_kept_and_inherited() -> None:
    assert FlagByFlag().hints == toolbelt.ToolHints(
        destructive=False, idempotent=True, open_world=True
    )
    assert annotations(FlagByFlag()) == {
        "read_only_hint": False,
        "destructive_hint": False,
        "idempotent_hint": True,
        "open_world_hint": True,
    }
    child = StillFlagByFlag()
    assert child.hints == toolbelt.ToolHints(destructive=False, idempotent=False, open_world=True)
    assert (child.readonly, child.destructive, child.idempotent, child.open_world) == (
        False,
        False,
        False,
        True,
    )
    assert Lookup().hints == toolbelt.ToolHints.READ_ONLY  # a subclass's flags stay its own


def test_hints_another_server_leaves_out_read_as_mcp_defaults() -> None:
    assert toolbelt.ToolHints.from_mcp(mcp_types.ToolAnnotations()) == toolbelt.ToolHints(
        open_world=True
    )
    said = mcp_types.ToolAnnotations(readOnlyHint=True, openWorldHint=False)
    assert toolbelt.ToolHints.from_mcp(said) == toolbelt.ToolHints(readonly=True)
