"""What a model finally reads from `toolbelt mcp`, through the MCP clients agents are built with.

Each client decides for itself whether the model gets the content blocks or the structured
result; these tests run a scripted model through pydantic-ai, openai-agents and fastmcp (and the
official SDK client in both wire eras) against the real server on stdio, and check that the
file's lines and the command's output reach the model, errors included.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.toolbelt_cli import TOOLBELT_ARGS

pytestmark = pytest.mark.anyio

FILE = "alpha line\nbeta line\n"
LINES = "1\talpha line\n2\tbeta line"


def server_args(root: Path) -> list[str]:
    return [*TOOLBELT_ARGS, "mcp", "--root", str(root), "--mode", "bypass"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text(FILE)
    return tmp_path


async def test_pydantic_ai_model_reads_the_file_and_the_command_output(workspace: Path) -> None:
    from fastmcp.client import Client
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    calls = [
        ToolCallPart("read_file", {"path": "notes.txt"}, tool_call_id="read"),
        ToolCallPart("bash", {"command": "echo hi"}, tool_call_id="echo"),
        ToolCallPart("bash", {"command": "echo oops >&2; exit 3"}, tool_call_id="fail"),
        ToolCallPart("read_file", {"path": "missing.txt"}, tool_call_id="missing"),
    ]
    seen: list[Any] = []

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        seen.extend(p for p in last.parts if isinstance(p, ToolReturnPart))
        step = sum(isinstance(m, ModelResponse) for m in messages)
        return ModelResponse(parts=[calls[step]] if step < len(calls) else [TextPart("done")])

    transport = StdioTransport(sys.executable, server_args(workspace), keep_alive=False)
    toolset = MCPToolset(Client(transport))
    agent = Agent(FunctionModel(script), toolsets=[toolset])
    async with agent:
        run = await agent.run("read notes.txt, then say hi")
    assert run.output == "done"
    # what the model reads is the JSON of the structured result, payload in `text`
    read, echo, fail, missing = [json.loads(part.model_response_str()) for part in seen]
    assert read["text"] == LINES
    assert echo["text"] == "hi"
    # errors: pydantic-ai asks the model to retry, showing it the message once, unescaped
    assert [part.outcome for part in seen] == ["success", "success", "retried", "retried"]
    assert fail == {"error": "Exit code 3\noops"}
    assert missing["error"].startswith("missing.txt does not exist. Check the name")


async def test_openai_agents_model_reads_the_structured_payload(workspace: Path) -> None:
    from agents import Agent, RunConfig, Runner
    from agents.items import ModelResponse
    from agents.mcp import MCPServerStdio
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    calls = [
        ("read_file", {"path": "notes.txt"}),
        ("bash", {"command": "echo hi"}),
        ("bash", {"command": "echo oops >&2; exit 3"}),
    ]
    outputs: list[Any] = []

    class ScriptedModel(Model):
        """Calls the tools in order, then answers; keeps the tool outputs in its last input."""

        async def get_response(
            self,
            system_instructions: str | None,
            input: str | list[Any],
            *args: Any,
            **kwargs: Any,
        ) -> ModelResponse:
            given = [i for i in input if isinstance(i, dict)] if isinstance(input, list) else []
            outputs[:] = [i["output"] for i in given if i.get("type") == "function_call_output"]
            step = sum(1 for i in given if i.get("type") == "function_call")
            if step < len(calls):
                name, arguments = calls[step]
                item: Any = ResponseFunctionToolCall(
                    type="function_call",
                    call_id=f"call-{step}",
                    name=name,
                    arguments=json.dumps(arguments),
                )
            else:
                text = ResponseOutputText(type="output_text", text="done", annotations=[])
                item = ResponseOutputMessage(
                    type="message", id="m", role="assistant", status="completed", content=[text]
                )
            return ModelResponse(output=[item], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            raise NotImplementedError("the test runs without streaming")

    params = {"command": sys.executable, "args": server_args(workspace), "cwd": str(workspace)}
    async with MCPServerStdio(params, use_structured_content=True) as server:  # type: ignore[arg-type]
        agent = Agent(name="reader", model=ScriptedModel(), mcp_servers=[server])
        offline = RunConfig(tracing_disabled=True)
        result = await Runner.run(agent, "read notes.txt", run_config=offline)
    assert result.final_output == "done"
    read, echo, fail = outputs
    assert json.loads(read)["text"] == LINES
    assert json.loads(echo)["text"] == "hi"
    # an error result: openai-agents hands the model its content blocks
    assert fail == [{"type": "input_text", "text": "Exit code 3\noops"}]


async def test_fastmcp_data_holds_the_payload(workspace: Path) -> None:
    from fastmcp.client import Client
    from fastmcp.client.transports import StdioTransport
    from fastmcp.exceptions import ToolError

    transport = StdioTransport(sys.executable, server_args(workspace), keep_alive=False)
    async with Client(transport) as client:
        read = await client.call_tool("read_file", {"path": "notes.txt"})
        echo = await client.call_tool("bash", {"command": "echo hi"})
        with pytest.raises(ToolError, match="missing does not exist"):
            await client.call_tool("read_file", {"path": "missing"})
    assert (read.data.text, read.data.path, read.data.total_lines) == (LINES, "notes.txt", 2)
    assert (echo.data.text, echo.data.exit_code) == ("hi", 0)


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_sdk_client_structured_content_in_both_eras(workspace: Path, era: str) -> None:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=server_args(workspace))
    mode = "legacy" if era == "2025-11-25" else "auto"
    async with Client(params, mode=mode) as client:
        read = await client.call_tool("read_file", {"path": "notes.txt"})
        fail = await client.call_tool("bash", {"command": "echo oops >&2; exit 3"})
        refused = await client.call_tool("read_file", {"path": "missing"})
    assert read.structured_content is not None
    assert read.structured_content["text"] == LINES
    assert read.structured_content["path"] == "notes.txt"
    # an error's payload is its message: content only, no structured result
    assert (fail.is_error, fail.structured_content) == (True, None)
    assert fail.content[0].text == "Exit code 3\noops"  # type: ignore[union-attr]
    assert (refused.is_error, refused.structured_content) == (True, None)
    assert refused.content[0].text.startswith("missing does not exist.")  # type: ignore[union-attr]
