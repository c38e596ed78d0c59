"""Provider schemas and results, checked against the official SDKs' own types.

The SDK request types are TypedDicts: validating with pydantic drops keys they do not define,
so each check round-trips the value and requires it to come back unchanged — an unknown key
or a wrong type fails the test. Gemini's and MCP's types are pydantic models.
"""

from __future__ import annotations

import base64
from typing import Any, Literal

import anthropic.types as anthropic_types
import mcp.types as mcp_types
import pytest
from google.genai import types as gemini_types
from openai.types.chat import ChatCompletionToolMessageParam, ChatCompletionToolParam
from openai.types.responses import FunctionToolParam
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from toolbelt.core.content import ImageBlock, TextBlock, ToolOutput
from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.providers.calls import (
    calls_from_anthropic,
    calls_from_gemini,
    calls_from_openai_chat,
    calls_from_openai_responses,
)
from toolbelt.providers.formats import (
    anthropic_tool,
    anthropic_tool_result,
    gemini_function_declaration,
    gemini_function_response,
    mcp_tool,
    openai_chat_tool,
    openai_chat_tool_message,
    openai_responses_output,
    openai_responses_tool,
    tool_definitions,
)
from toolbelt.tools import builtin_toolset


class Edit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    old: str = Field(description="Text to find.")
    new: str = Field(description="Replacement.")


class RichInput(ToolInput):
    path: str = Field(description="File to work on.")
    limit: int = Field(default=2000, ge=1, description="Lines to read.")
    mode: Literal["fast", "careful"] = Field(default="fast", description="How.")
    note: str | None = Field(default=None, description="Optional note.")
    edits: list[Edit] = Field(default_factory=list, description="Edits to apply.")


class RichTool(Tool[RichInput]):
    name = "rich_tool"
    title = "Rich tool"
    description = "Exercises every schema feature."
    input_model = RichInput
    example = {"path": "a.py"}
    readonly = True

    async def run(self, args: RichInput, ctx: Any) -> ToolOutput:
        raise NotImplementedError


TOOLS: list[Tool[Any]] = [*builtin_toolset(), RichTool()]
IDS = [tool.name for tool in TOOLS]


def round_trips(adapter_type: Any, value: dict[str, Any]) -> None:
    adapter = TypeAdapter(adapter_type)
    assert adapter.dump_python(adapter.validate_python(value), mode="json") == value


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_anthropic_tool_matches_sdk_type(tool: Tool[Any]) -> None:
    round_trips(anthropic_types.ToolParam, anthropic_tool(tool, cache_control=True))


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
@pytest.mark.parametrize("strict", [False, True])
def test_openai_tools_match_sdk_types(tool: Tool[Any], *, strict: bool) -> None:
    round_trips(ChatCompletionToolParam, openai_chat_tool(tool, strict=strict))
    round_trips(FunctionToolParam, openai_responses_tool(tool, strict=strict))


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_gemini_declaration_validates_with_forbidding_sdk_model(tool: Tool[Any]) -> None:
    declaration = gemini_function_declaration(tool)
    gemini_types.FunctionDeclaration.model_validate(declaration)
    assert "additionalProperties" not in str(declaration)
    assert "$ref" not in str(declaration)
    assert "$defs" not in str(declaration)


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_mcp_tool_validates(tool: Tool[Any]) -> None:
    definition = mcp_tool(tool)
    parsed = mcp_types.Tool.model_validate(definition)
    assert parsed.annotations is not None
    assert parsed.annotations.read_only_hint is tool.readonly


def test_neutral_schema_is_closed_and_inlined() -> None:
    schema = anthropic_tool(RichTool())["input_schema"]
    assert schema == {
        "type": "object",
        "additionalProperties": False,
        "required": ["path"],
        "properties": {
            "path": {"type": "string", "description": "File to work on."},
            "limit": {
                "type": "integer",
                "default": 2000,
                "minimum": 1,
                "description": "Lines to read.",
            },
            "mode": {
                "type": "string",
                "enum": ["fast", "careful"],
                "default": "fast",
                "description": "How.",
            },
            "note": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "default": None,
                "description": "Optional note.",
            },
            "edits": {
                "type": "array",
                "description": "Edits to apply.",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["old", "new"],
                    "properties": {
                        "old": {"type": "string", "description": "Text to find."},
                        "new": {"type": "string", "description": "Replacement."},
                    },
                },
            },
        },
    }


def _objects(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            found.append(node)
        for value in node.values():
            found.extend(_objects(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_objects(value))
    return found


def test_strict_mode_requires_everything_and_makes_optionals_nullable() -> None:
    params = openai_chat_tool(RichTool(), strict=True)["function"]["parameters"]
    for obj in _objects(params):
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])
    props = params["properties"]
    assert props["path"] == {"type": "string", "description": "File to work on."}
    assert props["limit"] == {
        "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
        "description": "Lines to read. (Default: 2000)",
    }
    assert props["note"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert "default" not in str(params)


def test_gemini_schema_uses_openapi_types_and_nullable() -> None:
    params = gemini_function_declaration(RichTool())["parameters"]
    assert params["type"] == "OBJECT"
    assert params["properties"]["note"] == {
        "type": "STRING",
        "nullable": True,
        "description": "Optional note. (Default: null)",
    }
    assert params["properties"]["edits"]["items"]["type"] == "OBJECT"


def test_only_the_last_anthropic_tool_carries_cache_control() -> None:
    definitions = tool_definitions(TOOLS, "anthropic")
    assert [("cache_control" in d) for d in definitions] == [False] * (len(TOOLS) - 1) + [True]


def test_listing_order_is_stable() -> None:
    first = tool_definitions(builtin_toolset(), "openai")
    second = tool_definitions(builtin_toolset(), "openai")
    assert first == second
    assert [d["function"]["name"] for d in first] == list(builtin_toolset().names())


PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()


def result(*, error: bool, image: bool = False) -> ToolCallResult:
    blocks: tuple[Any, ...] = (TextBlock("18C, sunny"),)
    if image:
        blocks += (ImageBlock(PNG, "image/png"),)
    state = CallState.ERROR if error else CallState.SUCCESS
    return ToolCallResult("call_1", "weather", state, ToolOutput(blocks, None, error))


@pytest.mark.parametrize("error", [False, True])
def test_anthropic_tool_result(*, error: bool) -> None:
    block = anthropic_tool_result(result(error=error, image=True))
    round_trips(anthropic_types.ToolResultBlockParam, block)
    assert block["is_error"] is error
    assert block["content"][1]["source"]["media_type"] == "image/png"


@pytest.mark.parametrize("error", [False, True])
def test_openai_results(*, error: bool) -> None:
    message = openai_chat_tool_message(result(error=error))
    round_trips(ChatCompletionToolMessageParam, message)
    assert message["content"] == ("Error: 18C, sunny" if error else "18C, sunny")
    round_trips(FunctionCallOutput, openai_responses_output(result(error=error)))
    with_image = openai_responses_output(result(error=error, image=True))
    round_trips(FunctionCallOutput, with_image)
    assert with_image["output"][1]["image_url"] == f"data:image/png;base64,{PNG}"


@pytest.mark.parametrize("error", [False, True])
def test_gemini_function_response(*, error: bool) -> None:
    part = gemini_function_response(result(error=error))
    parsed = gemini_types.Part.model_validate(part)
    assert parsed.function_response is not None
    assert parsed.function_response.id == "call_1"
    assert parsed.function_response.response == {("error" if error else "output"): "18C, sunny"}


def test_calls_are_read_from_each_provider_response() -> None:
    message = anthropic_types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "think", "input": {"thought": "a"}},
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    [call] = calls_from_anthropic(message.content)
    assert (call.id, call.name, call.arguments) == ("toolu_1", "think", {"thought": "a"})

    chat = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "think", "arguments": "{}"}}
        ],
    }
    [call] = calls_from_openai_chat(chat)
    assert (call.id, call.name, call.arguments) == ("call_1", "think", "{}")

    output = [
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_9",
            "name": "think",
            "arguments": "{}",
        }
    ]
    [call] = calls_from_openai_responses(output)
    assert (call.id, call.name) == ("call_9", "think")

    parts = [{"text": "hm"}, {"functionCall": {"name": "todo_write", "args": {"n": 3.0, "x": 1.5}}}]
    [call] = calls_from_gemini(parts)
    assert call.id == "gemini-call-1"
    assert call.arguments == {"n": 3, "x": 1.5}
    synthetic = ToolCallResult(call.id, "todo_write", CallState.SUCCESS, ToolOutput.text("ok"))
    assert "id" not in gemini_function_response(synthetic)["functionResponse"]
