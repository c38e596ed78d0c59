"""The agent loop against a scripted model and a real runtime on a temporary workspace."""

from __future__ import annotations

import base64
from pathlib import Path

import anyio
import pytest

from tests.agent.scripts import call, open_runtime, reply
from toolbelt.agent import Agent, AgentFinished, ModelPricing, ModelTurn, ToolResults
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.core.content import ImageBlock, TextBlock, ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.events import CallState, StateEvent
from toolbelt.core.permission import Answer, Approval
from toolbelt.core.registry import ToolRegistry
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.providers.model import (
    AssistantMessage,
    ModelRequest,
    ProviderError,
    TextDelta,
    ToolCallStarted,
    ToolResultsMessage,
    Usage,
    UserMessage,
)
from toolbelt.testing import ScriptedRequester

pytestmark = pytest.mark.anyio

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def results_of(request: ModelRequest) -> ToolResultsMessage:
    last = request.messages[-1]
    assert isinstance(last, ToolResultsMessage)
    return last


async def test_parallel_reads_then_an_answer(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    model = ScriptedModel(
        [
            reply(
                "Reading both.",
                call("1", "read_file", path="a.txt"),
                call("2", "read_file", path="b.txt"),
                call("3", "glob", pattern="*.txt"),
            ),
            reply("a says alpha, b says beta."),
        ]
    )
    async with open_runtime(tmp_path) as runtime:
        result = await Agent(model, runtime).run("What do a.txt and b.txt say?")
    assert result.text == "a says alpha, b says beta."
    assert result.stop == "end_turn"
    answers = results_of(model.requests[1]).results
    assert [r.call_id for r in answers] == ["1", "2", "3"]
    assert [r.state for r in answers] == [CallState.SUCCESS] * 3
    assert "alpha" in answers[0].text and "beta" in answers[1].text
    assert sorted(answers[2].text.splitlines()) == ["a.txt", "b.txt"]
    assert [type(m).__name__ for m in result.messages] == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultsMessage",
        "AssistantMessage",
    ]


async def test_read_only_calls_of_a_turn_run_at_the_same_time(tmp_path: Path) -> None:
    """Three calls that each wait until all three have started can only end if they overlap
    (run one after the other, the first would wait forever and fail_after would end it)."""
    tool = RendezvousTool(3)
    model = ScriptedModel([reply("", *(call(str(i), "rendezvous") for i in range(3))), reply("")])
    async with open_runtime(tmp_path, toolset=ToolRegistry([tool])) as runtime:
        with anyio.fail_after(10):
            await Agent(model, runtime).run("meet")
    assert [r.text for r in results_of(model.requests[1]).results] == ["met 3"] * 3


class RendezvousInput(ToolInput):
    pass


class RendezvousTool(Tool[RendezvousInput]):
    """A read-only tool whose calls wait for each other."""

    name = "rendezvous"
    title = "Rendezvous"
    description = "Waits until the others arrive."
    input_model = RendezvousInput
    example: dict[str, object] = {}
    readonly = True

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.arrived = 0
        self.everyone = anyio.Event()

    async def run(self, args: RendezvousInput, ctx: ToolContext) -> ToolOutput:
        self.arrived += 1
        if self.arrived == self.expected:
            self.everyone.set()
        await self.everyone.wait()
        return ToolOutput.text(f"met {self.arrived}")


async def test_an_error_result_reaches_the_model(tmp_path: Path) -> None:
    model = ScriptedModel(
        [reply("", call("e", "read_file", path="missing.txt")), reply("It does not exist.")]
    )
    async with open_runtime(tmp_path) as runtime:
        result = await Agent(model, runtime).run("read missing.txt")
    [answer] = results_of(model.requests[1]).results
    assert answer.state is CallState.ERROR and answer.is_error
    assert "missing.txt" in answer.text
    assert result.text == "It does not exist."


async def test_an_image_result_is_in_the_next_request(tmp_path: Path) -> None:
    (tmp_path / "dot.png").write_bytes(PNG)
    model = ScriptedModel([reply("", call("i", "read_file", path="dot.png")), reply("a dot")])
    async with open_runtime(tmp_path) as runtime:
        await Agent(model, runtime).run("look at dot.png")
    [answer] = results_of(model.requests[1]).results
    images = [b for b in answer.output.content if isinstance(b, ImageBlock)]
    assert [(i.mime_type, base64.b64decode(i.data)) for i in images] == [("image/png", PNG)]


async def test_a_refused_permission_is_answered_and_nothing_is_written(tmp_path: Path) -> None:
    requester = ScriptedRequester(Answer(Approval.DENY, "Not that file."))
    model = ScriptedModel(
        [reply("", call("w", "write_file", path="new.txt", content="x")), reply("Understood.")]
    )
    async with open_runtime(tmp_path, requester=requester) as runtime:
        result = await Agent(model, runtime).run("write new.txt")
    [answer] = results_of(model.requests[1]).results
    assert answer.error_kind == "permission_denied"
    assert answer.text == "Not that file."
    assert len(requester.asked) == 1
    assert not (tmp_path / "new.txt").exists()
    assert result.stop == "end_turn"


async def test_the_conversation_continues_across_runs(tmp_path: Path) -> None:
    model = ScriptedModel([reply("Hello."), reply("You said hi.")])
    async with open_runtime(tmp_path) as runtime:
        agent = Agent(model, runtime)
        await agent.run("hi")
        second = await agent.run("what did I say?")
    seen = model.requests[1].messages
    assert seen == (
        UserMessage((TextBlock("hi"),)),
        AssistantMessage("Hello."),
        UserMessage((TextBlock("what did I say?"),)),
    )
    assert second.text == "You said hi."
    assert len(second.turns) == 1  # a run's turns are its own; messages are the whole story
    assert len(second.messages) == 4


async def test_max_turns_stops_a_model_that_keeps_calling(tmp_path: Path) -> None:
    model = ScriptedModel(
        [reply(f"step {i}", call(str(i), "think", thought=f"t{i}")) for i in range(5)]
    )
    async with open_runtime(tmp_path) as runtime:
        result = await Agent(model, runtime, max_turns=2).run("think forever")
    assert result.stop == "max_turns"
    assert len(model.requests) == 2
    assert result.text == "step 1"
    assert isinstance(result.messages[-1], ToolResultsMessage)


async def test_usage_and_cost_are_counted_per_turn(tmp_path: Path) -> None:
    model = ScriptedModel(
        [reply("", call("t", "think", thought="x")), reply("done")],
        usage=Usage(input_tokens=1000, output_tokens=200, cache_read_tokens=500),
    )
    pricing = ModelPricing(input=3.0, output=15.0, cache_read=0.3)
    async with open_runtime(tmp_path) as runtime:
        priced = await Agent(model, runtime, pricing=pricing).run("go")
        unpriced = await Agent(ScriptedModel([reply("ok")]), runtime).run("go")
    one_turn = (1000 * 3.0 + 200 * 15.0 + 500 * 0.3) / 1_000_000
    assert [t.cost for t in priced.turns] == [one_turn, one_turn]
    assert priced.cost == 2 * one_turn
    assert priced.usage == Usage(2000, 400, 1000, 0)
    assert [(t.stop_reason, t.tool_calls) for t in priced.turns] == [
        ("tool_use", 1),
        ("end_turn", 0),
    ]
    assert unpriced.cost is None
    assert unpriced.usage == Usage(100, 10)


async def test_a_known_model_is_priced_at_its_list_price(tmp_path: Path) -> None:
    model = ScriptedModel(
        [reply("hi")],
        usage=Usage(input_tokens=1_000_000, output_tokens=100_000),
        model="anthropic:claude-sonnet-4-5-20250929",
    )
    async with open_runtime(tmp_path) as runtime:
        result = await Agent(model, runtime).run("hi")
    assert result.cost == 3.0 + 1.5  # $3 / M input, $15 / M output


async def test_events_arrive_in_order(tmp_path: Path) -> None:
    model = ScriptedModel([reply("Thinking.", call("t", "think", thought="x")), reply("Done.")])
    async with open_runtime(tmp_path) as runtime:
        events = [event async for event in Agent(model, runtime).stream("go")]
    story = [
        f"{type(e).__name__}:{e.state.value}" if isinstance(e, StateEvent) else type(e).__name__
        for e in events
    ]
    assert story == [
        "TextDelta",
        "ToolCallStarted",
        "ModelTurn",
        "StateEvent:pending",
        "StateEvent:executing",
        "StateEvent:success",
        "ToolResults",
        "TextDelta",
        "ModelTurn",
        "AgentFinished",
    ]
    assert events[0] == TextDelta("Thinking.")
    assert events[1] == ToolCallStarted("t", "think")
    turn = events[2]
    assert isinstance(turn, ModelTurn) and turn.usage == Usage(100, 10)
    results = events[6]
    assert isinstance(results, ToolResults) and results.results[0].call_id == "t"
    finished = events[-1]
    assert isinstance(finished, AgentFinished) and finished.result.text == "Done."


async def test_a_provider_error_reaches_the_caller_of_stream_and_run(tmp_path: Path) -> None:
    def fail(request: ModelRequest) -> AssistantMessage:
        raise ProviderError("Set ANTHROPIC_API_KEY.", kind="auth", status=401)

    async with open_runtime(tmp_path) as runtime:
        with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
            await Agent(ScriptedModel([fail]), runtime).run("go")
        agent = Agent(ScriptedModel([fail, reply("back")]), runtime)
        with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
            async for _ in agent.stream("first"):
                pass
        result = await agent.run("second")
    # the unanswered prompt and the next one form one user turn
    assert result.messages[0] == UserMessage((TextBlock("first"), TextBlock("second")))
    assert result.text == "back"
