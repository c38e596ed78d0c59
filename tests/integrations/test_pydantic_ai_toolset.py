"""toolbelt's tools in a pydantic-ai agent, in-process: a scripted model (pydantic-ai's
FunctionModel) reads a file and writes another; the write asks, so the run ends with a
deferred approval, and the file appears only after the application approves it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import toolbelt
from toolbelt.integrations.pydantic_ai import ToolbeltToolset

pytestmark = pytest.mark.anyio


def _returns(messages: list[ModelMessage]) -> dict[str, Any]:
    return {
        part.tool_call_id: part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }


def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Read notes.txt and write out.txt; once both answered, say what came back."""
    returns = _returns(messages)
    if not returns:
        return ModelResponse(
            parts=[
                ToolCallPart("read_file", {"path": "notes.txt"}, tool_call_id="r1"),
                ToolCallPart(
                    "write_file", {"path": "out.txt", "content": "hello\n"}, tool_call_id="w1"
                ),
            ]
        )
    return ModelResponse(parts=[TextPart(f"write said: {returns.get('w1')}")])


def _agent(tmp_path: Path) -> tuple[Agent[None, str | DeferredToolRequests], ToolbeltToolset]:
    runtime = toolbelt.Runtime(tmp_path, mode="default")
    toolset = ToolbeltToolset(runtime)
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(scripted),
        toolsets=[toolset],
        output_type=[str, DeferredToolRequests],  # type: ignore[arg-type]
    )
    return agent, toolset


async def test_a_call_the_policy_asks_about_runs_once_approved(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the note\n")
    agent, toolset = _agent(tmp_path)
    async with agent:  # one conversation, one runtime: its session spans both runs
        first = await agent.run("copy the note")
        assert isinstance(first.output, DeferredToolRequests)
        assert [call.tool_call_id for call in first.output.approvals] == ["w1"]
        assert "out.txt" in first.output.metadata["w1"]["reason"]  # the policy's own words
        assert "the note" in str(_returns(first.all_messages())["r1"])  # the read ran at once
        assert not (tmp_path / "out.txt").exists()  # nothing written before the approval

        second = await agent.run(
            message_history=first.all_messages(),
            deferred_tool_results=DeferredToolResults(approvals={"w1": True}),
        )
        assert toolset.runtime.state is toolbelt.RuntimeState.OPENED
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    assert isinstance(second.output, str)
    assert second.output.startswith("write said: ")
    assert toolset.runtime.state is toolbelt.RuntimeState.CLOSED  # the toolset opened it


async def test_a_denied_approval_never_reaches_the_tool(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the note\n")
    agent, _ = _agent(tmp_path)
    async with agent:
        first = await agent.run("copy the note")
        assert isinstance(first.output, DeferredToolRequests)
        second = await agent.run(
            message_history=first.all_messages(),
            deferred_tool_results=DeferredToolResults(approvals={"w1": False}),
        )
    assert not (tmp_path / "out.txt").exists()
    assert isinstance(second.output, str)
    assert "denied" in second.output.lower()


async def test_the_agent_sees_toolbelts_tools_with_their_schemas(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    def look(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.update({tool.name: tool for tool in info.function_tools})
        return ModelResponse(parts=[TextPart("ok")])

    toolset = ToolbeltToolset(toolbelt.Runtime(tmp_path))
    agent = Agent(FunctionModel(look), toolsets=[toolset])
    await agent.run("list")
    assert set(seen) == set(toolbelt.builtin_toolset().names())
    assert seen["read_file"].parameters_json_schema["required"] == ["path"]
    assert seen["bash"].sequential and not seen["read_file"].sequential
