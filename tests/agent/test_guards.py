"""The loop's guards: malformed calls are answered and bounded, and a result that would
overflow the model's context is cut with a note saying how to ask for less."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.scripts import call, open_runtime, reply
from toolbelt.agent import Agent
from toolbelt.agent.context_guard import MIN_RESULT_CHARS, fit_results, tool_tokens
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.agent.transcript import Transcript
from toolbelt.core.content import ToolOutput
from toolbelt.core.events import CallState, StateEvent
from toolbelt.core.executor import ToolCallResult
from toolbelt.providers.model import (
    AssistantMessage,
    InvalidToolCall,
    ModelRequest,
    ToolResultsMessage,
    Usage,
)
from toolbelt.providers.schema import neutral_schema
from toolbelt.tools import builtin_toolset

pytestmark = pytest.mark.anyio

PROBLEM = (
    "The arguments of edit_file are not valid JSON (unterminated string at character 31); "
    'send one JSON object such as {"path": "a.py", "old_string": "x", "new_string": "y"}.'
)


def bad(call_id: str) -> InvalidToolCall:
    return InvalidToolCall(call_id, "edit_file", '{"path": "a.py", "old_string": "x', PROBLEM)


def answers(request: ModelRequest) -> ToolResultsMessage:
    last = request.messages[-1]
    assert isinstance(last, ToolResultsMessage)
    return last


async def test_a_malformed_call_is_answered_with_its_problem_and_the_model_corrects(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    model = ScriptedModel(
        [
            reply("", bad("b1")),
            reply("", call("ok", "read_file", path="a.py")),
            reply("Read it."),
        ]
    )
    async with open_runtime(tmp_path) as runtime:
        states: list[StateEvent] = []
        runtime.events.subscribe(lambda e: states.append(e) if isinstance(e, StateEvent) else None)
        result = await Agent(model, runtime).run("read a.py")
    [answer] = answers(model.requests[1]).results
    assert (answer.call_id, answer.state, answer.error_kind) == (
        "b1",
        CallState.ERROR,
        "invalid_input",
    )
    assert answer.text == PROBLEM
    assert [(s.call_id, s.state) for s in states if s.call_id == "b1"] == [("b1", CallState.ERROR)]
    assert result.stop == "end_turn" and result.text == "Read it."


async def test_consecutive_malformed_turns_are_bounded(tmp_path: Path) -> None:
    model = ScriptedModel([reply("", bad(f"b{i}")) for i in range(10)])
    async with open_runtime(tmp_path) as runtime:
        result = await Agent(model, runtime, max_malformed_turns=3).run("edit a.py")
    assert result.stop == "malformed_calls"
    assert len(model.requests) == 3
    last = result.messages[-1]
    assert isinstance(last, ToolResultsMessage) and last.results[0].call_id == "b2"


async def test_a_good_turn_resets_the_malformed_count(tmp_path: Path) -> None:
    script = [
        reply("", bad("b0")),
        reply("", bad("b1")),
        reply("", call("t", "think", thought="x")),
    ]
    script += [reply("", bad("b2")), reply("", bad("b3")), reply("done")]
    model = ScriptedModel(script)
    async with open_runtime(tmp_path) as runtime:
        result = await Agent(model, runtime, max_malformed_turns=3).run("go")
    assert result.stop == "end_turn" and len(model.requests) == 6


async def test_a_result_that_would_overflow_the_context_is_cut_with_a_note(
    tmp_path: Path,
) -> None:
    lines = [f"line {i:05d} " + "x" * 60 for i in range(3000)]  # ~200 KB, ~50k tokens
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "small.txt").write_text("small and whole\n")
    model = ScriptedModel(
        [
            reply(
                "",
                call("big", "bash", command="cat big.txt"),
                call("small", "read_file", path="small.txt"),
            ),
            reply("ok"),
        ],
        context_window=10_000,  # the built-in tools take about 4,500 of it
    )
    async with open_runtime(tmp_path, mode="bypass") as runtime:
        agent = Agent(model, runtime, max_tokens=1_000, system="Be brief.")
        result = await agent.run("show big.txt")
    big, small = answers(model.requests[1]).results
    assert "small and whole" in small.text
    assert big.text.startswith("line 00000 ")
    assert "omitted: the whole result would overflow the model's remaining context" in big.text
    assert "read_file with offset and limit, grep for what you need" in big.text
    assert len(big.text.encode()) < (10_000 - 4_500 - 1_000) * 4
    assert result.stop == "end_turn"


def test_fair_shares_keep_small_results_whole() -> None:
    def result(call_id: str, text: str) -> ToolCallResult:
        return ToolCallResult(call_id, "t", CallState.SUCCESS, ToolOutput.text(text))

    small, big = result("s", "s" * 100), result("b", "b" * 100_000)
    fitted = fit_results([small, big], room_tokens=5_000)  # 20,000 bytes of room
    assert fitted[0] is small
    text = fitted[1].text
    assert text.startswith("b" * (19_900 // 2)) and text.endswith("b" * (19_900 // 2))
    assert f"[... {100_000 - 19_900:,} characters omitted" in text
    assert fit_results([small, big], room_tokens=30_000) == (small, big)
    # a full context still leaves every cut result a readable start and the note
    starved = fit_results([result("q", "q" * 100_000)], room_tokens=-100)[0].text
    assert starved.count("q") == MIN_RESULT_CHARS
    assert "overflow the model's context, which this conversation has already filled" in starved
    assert "about" not in starved  # no made-up figure for a context already over


def test_a_result_smaller_than_its_floor_is_never_cut_into_a_copy_of_itself() -> None:
    def result(call_id: str, text: str) -> ToolCallResult:
        return ToolCallResult(call_id, "t", CallState.SUCCESS, ToolOutput.text(text))

    short = result("s", "Thought noted.")
    dense = result("d", "語" * 1_500)  # 4,500 bytes over the room, 1,500 characters
    assert fit_results([short], room_tokens=-7_500_000) == (short,)
    assert fit_results([dense, short], room_tokens=100) == (dense, short)


async def test_a_call_whose_own_arguments_overflow_the_context_gets_its_result_whole(
    tmp_path: Path,
) -> None:
    model = ScriptedModel(
        [reply("", call("t", "think", thought="x" * 200_000)), reply("ok")],
        context_window=10_000,  # the arguments alone are ~50,000 tokens
    )
    async with open_runtime(tmp_path) as runtime:
        result = await Agent(model, runtime, max_tokens=1_000, system="Be brief.").run("go")
    (answer,) = answers(model.requests[1]).results
    assert answer.state is CallState.SUCCESS
    assert "omitted" not in answer.text and "x" * 100 not in answer.text
    assert result.stop == "end_turn"


def test_the_provider_count_corrects_a_low_estimate() -> None:
    transcript = Transcript()
    transcript.add_prompt("x" * 400)  # 100 tokens by the estimate
    assert transcript.tokens() == 100
    transcript.append(AssistantMessage("y" * 40))  # 10 more
    transcript.report(Usage(input_tokens=900, output_tokens=50, cache_read_tokens=50))
    assert transcript.tokens() == 1_000  # what the provider counted wins
    transcript.append(AssistantMessage("z" * 80))  # 20 more, estimated on top of the count
    assert transcript.tokens() == 1_020
    low = Transcript()
    low.add_prompt("x" * 4_000)
    low.report(Usage(input_tokens=10))
    assert low.tokens() == 1_000  # a count below the estimate is not trusted


def test_a_tool_estimate_follows_its_description() -> None:
    """``tool_search`` rewrites its description when the catalog changes; the room left for
    results must shrink with it, not keep the first description's size."""
    tool = builtin_toolset().get("think")
    assert tool is not None
    schema = json.dumps(neutral_schema(tool))
    tool.description = "d" * 400
    assert tool_tokens(tool) == -(-len(f"think{'d' * 400}{schema}".encode()) // 4)
    tool.description = "d" * 4_000
    assert tool_tokens(tool) == -(-len(f"think{'d' * 4_000}{schema}".encode()) // 4)
