"""A tool defined only by a JSON Schema: it registers, validates like a built-in, and every
provider format (and MCP) lists the schema it is validated against."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolbelt import Executor, SchemaArguments, SchemaTool, Session, ToolCall, ToolRegistry
from toolbelt.config.factory import build_policy
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import UsageError
from toolbelt.providers.formats import tool_definitions
from toolbelt.providers.gemini_schema import gemini_schema
from toolbelt.providers.schema import strict_schema

pytestmark = pytest.mark.anyio

GREET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "GreetArguments",
    "properties": {
        "name": {"type": "string", "description": "Who to greet."},
        "times": {"type": "integer", "minimum": 1, "default": 1},
        "tone": {"enum": ["warm", "dry"]},
    },
    "required": ["name"],
}
CLOSED = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Who to greet."},
        "times": {"type": "integer", "minimum": 1, "default": 1},
        "tone": {"enum": ["warm", "dry"]},
    },
    "required": ["name"],
    "additionalProperties": False,
}


class GreetTool(SchemaTool):
    def __init__(self) -> None:
        super().__init__(
            "greet", description="Greet someone.", input_schema=GREET_SCHEMA, readonly=True
        )

    async def run(self, args: SchemaArguments, ctx: ToolContext) -> ToolOutput:
        values = args.values()
        return ToolOutput.text(" ".join(["hello " + values["name"]] * values.get("times", 1)))


async def greet(tmp_path: Path, arguments: Any) -> tuple[bool, str]:
    async with Session(tmp_path) as session:
        executor = Executor(ToolRegistry([GreetTool()]), session, policy=build_policy(session))
        [result] = await executor.run([ToolCall("1", "greet", arguments)])
    return result.is_error, result.text


async def test_valid_arguments_reach_run(tmp_path: Path) -> None:
    assert await greet(tmp_path, '{"name": "ada", "times": 2}') == (False, "hello ada hello ada")


async def test_null_for_an_optional_field_means_not_given(tmp_path: Path) -> None:
    assert await greet(tmp_path, {"name": "ada", "times": None}) == (False, "hello ada")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"nmae": "ada"},
            "Invalid arguments for `greet`: `name` is required; `nmae` is not a parameter of "
            "`greet` (known: `name`, `times`, `tone`). A correct call looks like: "
            '{"name": "text"}',
        ),
        (
            {"name": 5, "times": 0},
            "Invalid arguments for `greet`: `name`: should be of type string (got 5); "
            '`times`: 0 is less than the minimum of 1. A correct call looks like: {"name": "text"}',
        ),
        (
            {"name": "ada", "tone": "loud"},
            'Invalid arguments for `greet`: `tone`: should be one of "warm", "dry" (got "loud"). '
            'A correct call looks like: {"name": "text"}',
        ),
    ],
)
async def test_bad_arguments_are_refused_as_instructively_as_for_built_ins(
    tmp_path: Path, arguments: Any, expected: str
) -> None:
    assert await greet(tmp_path, arguments) == (True, expected)


def test_the_schema_is_closed_and_every_provider_lists_it() -> None:
    tool = GreetTool()
    assert tool.input_schema() == CLOSED
    [anthropic] = tool_definitions([tool], "anthropic")
    assert anthropic["input_schema"] == CLOSED
    [openai] = tool_definitions([tool], "openai", strict=True)
    assert openai["function"]["parameters"] == strict_schema(CLOSED)
    assert openai["function"]["parameters"]["required"] == ["name", "times", "tone"]
    [responses] = tool_definitions([tool], "openai-responses")
    assert responses["parameters"] == CLOSED
    [gemini] = tool_definitions([tool], "gemini")
    assert gemini["parameters"] == gemini_schema(CLOSED)
    assert gemini["parameters"]["properties"]["name"] == {
        "type": "STRING",
        "description": "Who to greet.",
    }
    [mcp] = tool_definitions([tool], "mcp")
    assert (mcp["inputSchema"], mcp["annotations"]["readOnlyHint"]) == (CLOSED, True)
    assert mcp["title"] == "Greet"
    json.dumps([anthropic, openai, responses, gemini, mcp])  # plain JSON all the way


def test_a_map_valued_property_stays_open() -> None:
    schema = {
        "type": "object",
        "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}},
    }
    tool = _plain(schema)
    assert tool.input_schema()["properties"]["env"]["additionalProperties"] == {"type": "string"}
    assert tool.validate({"env": {"A": "1"}}).values() == {"env": {"A": "1"}}


def test_a_broken_schema_or_a_wrong_example_is_refused_when_the_tool_is_made() -> None:
    with pytest.raises(UsageError, match="The input schema of `bad` is not valid"):
        _plain({"type": "object", "properties": {"x": {"type": "strnig"}}})
    with pytest.raises(UsageError) as caught:
        _plain({"type": "object", "properties": {"x": {"type": "string"}}}, example={"y": 1})
    assert str(caught.value) == (
        "The example for `bad` does not satisfy its schema (`y` is not a parameter of `bad` "
        "(known: `x`)); pass an `example` that does."
    )


def _plain(schema: dict[str, Any], example: dict[str, Any] | None = None) -> SchemaTool:
    class Plain(SchemaTool):
        async def run(self, args: SchemaArguments, ctx: ToolContext) -> ToolOutput:
            return ToolOutput.text("ok")

    return Plain("bad", description="d", input_schema=schema, example=example)
