"""Cancelling a run: the transcript stays well formed (every call answered) and nothing the
run started is left running."""

from __future__ import annotations

import os
from contextlib import aclosing
from pathlib import Path

import anyio
import pytest

from tests.agent.scripts import call, open_runtime, reply
from tests.support.processes import live_pids
from tests.support.waiting import wait_until_async
from toolbelt.agent import Agent
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.core.content import TextBlock
from toolbelt.core.events import CallState, StateEvent
from toolbelt.providers.model import (
    AssistantMessage,
    ModelRequest,
    ToolResultsMessage,
    UserMessage,
)

pytestmark = pytest.mark.anyio

TAG = str(os.getpid())
"""Our sleep carries this run's pid, so another test run's processes are never counted."""


def sleeps_running() -> list[int]:
    """Pids of live (not zombie) ``sleep 100<TAG>`` processes."""
    return live_pids(f"sleep 100{TAG}")


async def until_sleeping() -> None:
    await wait_until_async(sleeps_running, "the command to start")


async def test_cancel_mid_tool_aborts_the_call_and_kills_its_process(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            reply(
                "Running it.",
                call("s", "bash", command=f"sleep 100{TAG}"),
                call("t", "think", thought="after"),
            ),
            reply("Cancelled, as you asked."),
        ]
    )
    async with open_runtime(tmp_path, mode="bypass") as runtime:
        agent = Agent(model, runtime)
        async with anyio.create_task_group() as group:

            async def cancel_once_running() -> None:
                await until_sleeping()
                agent.cancel()

            group.start_soon(cancel_once_running)
            result = await agent.run("sleep")
        assert sleeps_running() == []
        assert result.stop == "cancelled"
        assert len(model.requests) == 1  # the model is not asked again after a cancel
        answers = result.messages[-1]
        assert isinstance(answers, ToolResultsMessage)
        assert [(r.call_id, r.state) for r in answers.results] == [
            ("s", CallState.ABORTED),
            ("t", CallState.ABORTED),
        ]
        assert answers.results[1].text == "Aborted before it started: the batch was cancelled."
        # the next run goes on from the well-formed transcript
        follow_up = await agent.run("never mind")
    assert follow_up.text == "Cancelled, as you asked."
    assert isinstance(model.requests[1].messages[-2], ToolResultsMessage)
    assert model.requests[1].messages[-1] == UserMessage((TextBlock("never mind"),))


async def test_cancelling_the_task_mid_tool_still_answers_every_call(tmp_path: Path) -> None:
    model = ScriptedModel([reply("", call("s", "bash", command=f"sleep 100{TAG}"))])
    async with open_runtime(tmp_path, mode="bypass") as runtime:
        agent = Agent(model, runtime)
        async with anyio.create_task_group() as group:

            async def run() -> None:
                await agent.run("sleep")

            group.start_soon(run)
            await until_sleeping()
            group.cancel_scope.cancel()
        assert sleeps_running() == []
    answers = agent.messages[-1]
    assert isinstance(answers, ToolResultsMessage)
    assert [(r.call_id, r.state) for r in answers.results] == [("s", CallState.ABORTED)]


async def test_cancel_while_the_model_streams_keeps_what_it_said(tmp_path: Path) -> None:
    streaming = anyio.Event()

    async def hang(request: ModelRequest) -> AssistantMessage:
        streaming.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    model = ScriptedModel([hang, reply("Fresh start.")])
    async with open_runtime(tmp_path) as runtime:
        agent = Agent(model, runtime)
        async with anyio.create_task_group() as group:

            async def cancel_when_streaming() -> None:
                await streaming.wait()
                agent.cancel()

            group.start_soon(cancel_when_streaming)
            cancelled = await agent.run("first")
        again = await agent.run("second")
    assert cancelled.stop == "cancelled" and cancelled.text == ""
    assert again.text == "Fresh start."
    # nothing was said, so the unanswered prompt and the next one are one user turn
    assert model.requests[1].messages == (UserMessage((TextBlock("first"), TextBlock("second"))),)


async def test_leaving_the_stream_early_cancels_the_run(tmp_path: Path) -> None:
    model = ScriptedModel([reply("", call("s", "bash", command=f"sleep 100{TAG}"))])
    async with open_runtime(tmp_path, mode="bypass") as runtime:
        agent = Agent(model, runtime)
        async with aclosing(agent.stream("sleep")) as events:
            async for event in events:
                if isinstance(event, StateEvent) and event.state is CallState.EXECUTING:
                    await until_sleeping()
                    break
        assert sleeps_running() == []
    answers = agent.messages[-1]
    assert isinstance(answers, ToolResultsMessage)
    assert [(r.call_id, r.state) for r in answers.results] == [("s", CallState.ABORTED)]
