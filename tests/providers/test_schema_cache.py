"""Tool schemas are built once per tool object, yet every request gets definitions of its own:
editing one cannot leak into the next, a changed description shows at once, and a tool that
was replaced (an MCP server's ``list_changed``) is neither served stale nor kept alive."""

from __future__ import annotations

import gc
import json
import weakref
from typing import Any

import pytest
from pydantic import BaseModel, Field

from toolbelt.core.content import ToolOutput
from toolbelt.core.schema import JsonSchema
from toolbelt.core.schema_tool import SchemaArguments, SchemaTool
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.providers.formats import Provider, mcp_tool, tool_definitions
from toolbelt.providers.schema import neutral_schema, tool_schema

PROVIDERS: list[Provider] = ["anthropic", "openai", "openai-responses", "gemini", "mcp"]


class CountInput(ToolInput):
    path: str = Field(description="File to count.")
    limit: int = Field(default=10, ge=1, description="At most this many.")


class CountOutput(BaseModel):
    lines: int


class CountTool(Tool[CountInput]):
    """A tool that counts how often its schemas are built."""

    name = "count_lines"
    title = "Count lines"
    description = "Counts lines."
    input_model = CountInput
    output_model = CountOutput
    example = {"path": "a.py"}
    readonly = True

    def __init__(self) -> None:
        self.built = 0

    def input_schema(self) -> JsonSchema:
        self.built += 1
        return super().input_schema()

    async def run(self, args: CountInput, ctx: Any) -> ToolOutput:
        raise NotImplementedError


def schema_of(definition: dict[str, Any], provider: Provider) -> dict[str, Any]:
    match provider:
        case "anthropic":
            return definition["input_schema"]  # type: ignore[no-any-return]
        case "openai":
            return definition["function"]["parameters"]  # type: ignore[no-any-return]
        case "mcp":
            return definition["inputSchema"]  # type: ignore[no-any-return]
        case _:
            return definition["parameters"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_editing_a_definition_does_not_change_the_next(provider: Provider, strict: bool) -> None:
    tool = CountTool()
    first = tool_definitions([tool], provider, strict=strict)[0]
    pristine = json.dumps(first)
    schema = schema_of(first, provider)
    schema["properties"]["path"]["description"] = "edited"
    schema["properties"]["injected"] = {"type": "string"}
    schema.setdefault("required", []).append("injected")
    if provider == "mcp":
        first["outputSchema"]["properties"].clear()

    second = tool_definitions([tool], provider, strict=strict)[0]
    assert json.dumps(second) == pristine
    assert tool_definitions([tool], provider, strict=strict)[0] is not second


def test_editing_a_neutral_schema_does_not_change_the_next() -> None:
    tool = CountTool()
    schema = neutral_schema(tool)
    schema["properties"]["limit"]["default"] = 99
    assert neutral_schema(tool)["properties"]["limit"]["default"] == 10


def test_each_schema_form_is_built_once_per_tool() -> None:
    tool = CountTool()
    for _ in range(3):
        for provider in PROVIDERS:
            tool_definitions([tool], provider)
        tool_definitions([tool], "openai", strict=True)
    assert tool.built == 3  # neutral, strict, gemini: once each, whatever the requests
    other = CountTool()
    tool_definitions([other], "anthropic")
    assert other.built == 1  # another object of the same class has schemas of its own


def test_a_changed_description_is_sent_at_once() -> None:
    tool = CountTool()
    tool_definitions([tool], "anthropic")
    tool.description = "Counts lines; now also words."
    for provider in PROVIDERS:
        definition = tool_definitions([tool], provider)[0]
        described = definition["function"] if provider == "openai" else definition
        assert described["description"] == "Counts lines; now also words."


class RemoteTool(SchemaTool):
    async def run(self, args: SchemaArguments, ctx: Any) -> ToolOutput:
        raise NotImplementedError


def test_a_replaced_tool_brings_its_own_schema_and_the_old_one_is_let_go() -> None:
    """As after an MCP server's ``list_changed``: same name, new object, new schema."""
    old = RemoteTool(
        "mcp__s__lookup",
        description="Looks up.",
        input_schema={"type": "object", "properties": {"id": {"type": "integer"}}},
    )
    assert list(tool_schema(old, "gemini")["properties"]) == ["id"]
    gone = weakref.ref(old)
    new = RemoteTool(
        "mcp__s__lookup",
        description="Looks up.",
        input_schema={"type": "object", "properties": {"key": {"type": "string"}}},
    )
    del old
    gc.collect()
    assert gone() is None
    assert list(tool_schema(new, "gemini")["properties"]) == ["key"]
    assert list(mcp_tool(new)["inputSchema"]["properties"]) == ["key"]


class UnhashableTool(CountTool):
    """A tool class that defines equality by value, so its objects cannot key a dict."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnhashableTool)

    __hash__ = None  # type: ignore[assignment]


def test_a_tool_that_cannot_be_cached_is_built_every_time() -> None:
    tool = UnhashableTool()
    first = tool_definitions([tool], "openai")[0]
    second = tool_definitions([tool], "openai")[0]
    assert first == second
    assert first["function"]["parameters"]["properties"]["limit"]["default"] == 10
    assert tool.built == 2
