"""A free-form object parameter (a map) takes any key through the real executor, while an
object that lists its keys still refuses unknown ones; ``call_mcp_tool`` tells every provider
that ``arguments`` carries keys; and the provider forms are still built once per tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolbelt import Executor, SchemaArguments, SchemaTool, Session, ToolCall, ToolRegistry
from toolbelt.config.factory import build_policy
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.schema import JsonSchema
from toolbelt.mcp_client.toolset import McpToolset
from toolbelt.providers.formats import tool_definitions

pytestmark = pytest.mark.anyio

TAG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "meta": {"type": "object", "description": "Free-form metadata."},
        "where": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    "required": ["id"],
}


class TagTool(SchemaTool):
    """Echoes the arguments it was given; counts how often its schema is read."""

    def __init__(self) -> None:
        super().__init__("tag", description="Tag an item.", input_schema=TAG_SCHEMA, readonly=True)
        self.schema_reads = 0

    def input_schema(self) -> JsonSchema:
        self.schema_reads += 1
        return super().input_schema()

    async def run(self, args: SchemaArguments, ctx: ToolContext) -> ToolOutput:
        return ToolOutput.text(repr(sorted(args.values().items())))


async def call(tmp_path: Path, arguments: dict[str, Any]) -> tuple[bool, str]:
    async with Session(tmp_path) as session:
        executor = Executor(ToolRegistry([TagTool()]), session, policy=build_policy(session))
        [result] = await executor.run([ToolCall("1", "tag", arguments)])
    return result.is_error, result.text


async def test_a_free_form_object_takes_any_key(tmp_path: Path) -> None:
    sent = {"id": "x", "meta": {"a": 1, "nested": {"b": [True]}}}
    assert await call(tmp_path, sent) == (
        False,
        "[('id', 'x'), ('meta', {'a': 1, 'nested': {'b': [True]}})]",
    )


async def test_an_object_that_lists_its_keys_still_refuses_others(tmp_path: Path) -> None:
    is_error, text = await call(tmp_path, {"id": "x", "where": {"path": "a", "line": 3}})
    assert is_error
    assert text.startswith("Invalid arguments for `tag`: `where.line` is not a parameter of `tag`")


def test_every_provider_is_told_the_map_is_open() -> None:
    tool = TagTool()
    meta = {"type": "object", "description": "Free-form metadata."}
    [anthropic] = tool_definitions([tool], "anthropic")
    assert anthropic["input_schema"]["properties"]["meta"] == meta
    [chat] = tool_definitions([tool], "openai", strict=True)
    assert (chat["function"]["strict"], chat["function"]["parameters"]["properties"]["meta"]) == (
        False,
        meta,
    )
    [gemini] = tool_definitions([tool], "gemini")  # its subset has no map: JSON Schema then
    assert "parameters" not in gemini
    assert gemini["parametersJsonSchema"]["properties"]["meta"] == meta


def test_call_mcp_tool_advertises_arguments_that_carry_keys() -> None:
    tool = McpToolset([]).call_tool
    arguments = tool.input_schema()["properties"]["arguments"]
    assert arguments == {
        "type": "object",
        "additionalProperties": True,
        "description": "The tool's arguments, as its input schema describes.",
    }
    call = {"server": "github", "tool": "search_issues", "arguments": {"query": "crash"}}
    assert tool.validate(call).arguments == {"query": "crash"}
    [responses] = tool_definitions([tool], "openai-responses", strict=True)
    assert responses["strict"] is False
    assert responses["parameters"]["properties"]["arguments"] == arguments
    [mcp] = tool_definitions([tool], "mcp")
    assert mcp["inputSchema"]["properties"]["arguments"]["additionalProperties"] is True


def test_every_form_is_built_once_per_tool() -> None:
    tool = TagTool()
    for _ in range(3):
        for provider in ("anthropic", "openai", "openai-responses", "gemini", "mcp"):
            tool_definitions([tool], provider, strict=True)  # type: ignore[arg-type]
    # neutral and strict (with its check), once each; gemini takes the neutral form (a map)
    assert tool.schema_reads == 2
