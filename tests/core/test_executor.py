"""The executor's contract: one result per call, in order, through the whole lifecycle."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from tests.core.fakes import (
    BrokenTool,
    NoteInput,
    ReaderTool,
    SlowTool,
    Trace,
    WriterTool,
)
from toolbelt.config.factory import build_policy
from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import Session, SessionConfig, ToolContext
from toolbelt.core.events import CallState, Event, EventBus, ProgressEvent, StateEvent
from toolbelt.core.executor import Executor, ToolCall
from toolbelt.core.hooks import HookCall, PreToolUseResult, ToolHooks
from toolbelt.core.permission import Answer, Approval
from toolbelt.core.registry import ToolRegistry
from toolbelt.core.tool import Tool
from toolbelt.testing import NeverAnswers, ScriptedRequester

pytestmark = pytest.mark.anyio


def make_executor(tmp_path: Any, *tools: Tool[Any], **kwargs: Any) -> tuple[Executor, list[Event]]:
    session = Session(tmp_path, config=kwargs.pop("config", SessionConfig()))
    kwargs.setdefault("policy", build_policy(session))
    executor = Executor(ToolRegistry(tools), session, **kwargs)
    seen: list[Event] = []
    executor.events.subscribe(seen.append)
    return executor, seen


def pid_alive(pid: int) -> bool:
    """True while /proc has the process and it is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def states(events: list[Event], call_id: str) -> list[str]:
    return [e.state.value for e in events if isinstance(e, StateEvent) and e.call_id == call_id]


async def test_a_subscriber_gets_only_the_kinds_it_names(tmp_path: Any) -> None:
    class Reporting(ReaderTool):
        async def run(self, args: NoteInput, ctx: ToolContext) -> ToolOutput:
            ctx.progress("halfway", fraction=0.5)
            return await super().run(args, ctx)

    executor, everything = make_executor(tmp_path, Reporting(Trace()))
    progress: list[Event] = []
    unsubscribe = executor.events.subscribe(progress.append, kinds=(ProgressEvent,))
    await executor.run([ToolCall("p1", "reader", '{"label": "a"}')])
    assert [(type(e).__name__, getattr(e, "message", "")) for e in progress] == [
        ("ProgressEvent", "halfway")
    ]
    assert states(everything, "p1") == ["pending", "executing", "success"]
    unsubscribe()
    assert executor.events.wants(StateEvent)  # the catch-all subscriber is still there


def test_the_bus_says_which_kinds_anyone_takes() -> None:
    bus = EventBus()
    assert not bus.wants(StateEvent)
    unsubscribe = bus.subscribe(lambda event: None, kinds=(ProgressEvent,))
    assert bus.wants(ProgressEvent)
    assert not bus.wants(StateEvent)
    unsubscribe()
    assert not bus.wants(ProgressEvent)
    bus.subscribe(lambda event: None)
    assert bus.wants(StateEvent)
    assert bus.wants(ProgressEvent)


async def test_successful_read_goes_pending_executing_success(tmp_path: Any) -> None:
    executor, events = make_executor(tmp_path, ReaderTool(Trace()))
    [result] = await executor.run([ToolCall("c1", "reader", '{"label": "a"}')])
    assert result.state is CallState.SUCCESS
    assert result.text == "read a"
    assert result.output.structured == {"label": "a"}
    assert result.arguments == {"label": "a", "count": 1}
    assert states(events, "c1") == ["pending", "executing", "success"]
    stamps = [e.at for e in events if isinstance(e, StateEvent)]
    assert stamps == sorted(stamps)
    assert result.ended_at >= result.started_at


async def test_write_asks_then_runs_when_approved(tmp_path: Any) -> None:
    requester = ScriptedRequester(Answer(Approval.ONCE))
    executor, events = make_executor(tmp_path, WriterTool(Trace()), requester=requester)
    [result] = await executor.run([ToolCall("w", "writer", {"label": "f.txt"})])
    assert result.state is CallState.SUCCESS
    assert requester.prompts == [("writer", "write f.txt changes files.")]
    assert states(events, "w") == ["pending", "permission_required", "executing", "success"]


async def test_denied_write_reports_the_users_reason(tmp_path: Any) -> None:
    requester = ScriptedRequester(Answer(Approval.DENY, "Not now: the build is running."))
    executor, events = make_executor(tmp_path, WriterTool(Trace()), requester=requester)
    [result] = await executor.run([ToolCall("w", "writer", {"label": "f.txt"})])
    assert result.error_kind == "permission_denied"
    assert result.text == "Not now: the build is running."
    assert states(events, "w") == ["pending", "permission_required", "error"]


async def test_denied_without_reason_tells_the_model_not_to_retry(tmp_path: Any) -> None:
    executor, _ = make_executor(
        tmp_path, WriterTool(Trace()), requester=ScriptedRequester(Answer(Approval.DENY))
    )
    [result] = await executor.run([ToolCall("w", "writer", {"label": "f"})])
    assert result.text == (
        "The user denied this call. Do not retry the same call; ask the user how to proceed."
    )


async def test_unanswered_prompt_times_out_as_deny(tmp_path: Any) -> None:
    executor, _ = make_executor(
        tmp_path, WriterTool(Trace()), requester=NeverAnswers(), permission_timeout=0.05
    )
    [result] = await executor.run([ToolCall("w", "writer", {"label": "f"})])
    assert result.error_kind == "permission_denied"
    assert "No answer to the permission prompt within 0.05 s" in result.text


async def test_unknown_tool_lists_the_known_ones(tmp_path: Any) -> None:
    executor, events = make_executor(tmp_path, ReaderTool(Trace()), WriterTool(Trace()))
    [result] = await executor.run([ToolCall("x", "raeder", {})])
    assert result.error_kind == "unknown_tool"
    assert result.text == (
        "There is no tool named `raeder`. Call one of the available tools: reader, writer."
    )
    assert states(events, "x") == ["pending", "error"]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"lable": "a"},
            "Invalid arguments for `reader`: `label` is required; `lable` is not a parameter "
            'of `reader` (known: `label`, `count`). A correct call looks like: {"label": "a"}',
        ),
        (
            {"label": "a", "count": "many"},
            "Invalid arguments for `reader`: `count`: Input should be a valid integer, unable "
            'to parse string as an integer (got "many"). A correct call looks like: '
            '{"label": "a"}',
        ),
        (
            '{"label": "a",}',
            "The arguments for `reader` are not valid JSON (Expecting property name enclosed in"
            ' double quotes at character 14). A correct call looks like: {"label": "a"}',
        ),
        (
            "[1, 2]",
            "The arguments for `reader` must be a JSON object, not list. A correct call looks "
            'like: {"label": "a"}',
        ),
    ],
)
async def test_invalid_input_names_the_field_and_shows_an_example(
    tmp_path: Any, arguments: Any, expected: str
) -> None:
    executor, _ = make_executor(tmp_path, ReaderTool(Trace()))
    [result] = await executor.run([ToolCall("x", "reader", arguments)])
    assert result.error_kind == "invalid_input"
    assert result.text == expected


async def test_an_error_about_a_flood_of_bad_arguments_stays_short(tmp_path: Any) -> None:
    executor, _ = make_executor(tmp_path, ReaderTool(Trace()))
    flood = {"label": "a", **{"k" * 5000 + str(i): 1 for i in range(30)}}
    [result] = await executor.run([ToolCall("x", "reader", flood)])
    assert result.error_kind == "invalid_input"
    assert len(result.text) < 2000
    assert result.text.count("is not a parameter of `reader`") == 10
    assert "; and 20 more problems." in result.text
    assert f"`{'k' * 79}…`" in result.text
    duplicate = '{"label": "a", "label": "b"}'
    [twice] = await executor.run([ToolCall("y", "reader", duplicate)])
    assert twice.text.startswith(
        "The arguments for `reader` are refused: the key 'label' appears twice in one object."
    )


@pytest.mark.parametrize(
    "arguments",
    [
        '{"label": "a", "count": null}',  # OpenAI strict mode sends null for optionals
        json.dumps(json.dumps({"label": "a"})),  # double-encoded JSON
        {"label": "a", "count": None},
    ],
)
async def test_lenient_shapes_models_really_send_are_accepted(
    tmp_path: Any, arguments: Any
) -> None:
    executor, _ = make_executor(tmp_path, ReaderTool(Trace()))
    [result] = await executor.run([ToolCall("x", "reader", arguments)])
    assert result.state is CallState.SUCCESS
    assert result.arguments == {"label": "a", "count": 1}


async def test_results_keep_the_models_order(tmp_path: Any) -> None:
    trace = Trace()
    executor, _ = make_executor(
        tmp_path,
        ReaderTool(trace),
        WriterTool(trace),
        requester=ScriptedRequester(*[Answer(Approval.ONCE)] * 2),
    )
    calls = [
        ToolCall("1", "reader", {"label": "r1"}),
        ToolCall("2", "nope", {}),
        ToolCall("3", "writer", {"label": "w1"}),
        ToolCall("4", "reader", {"bad": 1}),
        ToolCall("5", "writer", {"label": "w2"}),
    ]
    results = await executor.run(calls)
    assert [r.call_id for r in results] == ["1", "2", "3", "4", "5"]
    assert [r.state.value for r in results] == ["success", "error", "success", "error", "success"]


async def test_consecutive_readonly_calls_overlap(tmp_path: Any) -> None:
    trace = Trace(expected=4)  # each reader waits until all four have started
    executor, _ = make_executor(tmp_path, ReaderTool(trace))
    results = await executor.run([ToolCall(str(i), "reader", {"label": str(i)}) for i in range(4)])
    assert all(r.state is CallState.SUCCESS for r in results)
    assert trace.max_active == 4


async def test_concurrency_is_capped_by_config(tmp_path: Any) -> None:
    trace = Trace()
    executor, _ = make_executor(
        tmp_path, ReaderTool(trace), config=SessionConfig(max_concurrency=3)
    )
    await executor.run([ToolCall(str(i), "reader", {"label": str(i)}) for i in range(12)])
    assert trace.max_active == 3


async def test_mutating_calls_run_alone_and_in_order(tmp_path: Any) -> None:
    trace = Trace()
    executor, _ = make_executor(
        tmp_path,
        ReaderTool(trace),
        WriterTool(trace),
        requester=ScriptedRequester(*[Answer(Approval.ONCE)] * 3),
    )
    calls = [
        ToolCall("1", "reader", {"label": "r1"}),
        ToolCall("2", "reader", {"label": "r2"}),
        ToolCall("3", "writer", {"label": "w1"}),
        ToolCall("4", "writer", {"label": "w2"}),
        ToolCall("5", "reader", {"label": "r3"}),
    ]
    await executor.run(calls)
    events = trace.events
    # the two readers of the first segment both start before either ends (they overlap) ...
    assert events[:2] == ["start r1", "start r2"]
    # ... and every writer runs with nothing else in flight, in the model's order
    assert events[4:] == ["start w1", "end w1", "start w2", "end w2", "start r3", "end r3"]


async def test_cancel_aborts_running_and_pending_calls_and_cleans_up(tmp_path: Any) -> None:
    slow = SlowTool()
    trace = Trace()
    executor, events = make_executor(tmp_path, slow, WriterTool(trace))
    calls = [ToolCall("s", "slow", {"label": "x"}), ToolCall("w", "writer", {"label": "y"})]
    async with anyio.create_task_group() as group:
        outcome: list[Any] = []

        async def run() -> None:
            outcome.extend(await executor.run(calls))

        group.start_soon(run)
        await slow.started.wait()
        executor.cancel()
    slow_result, writer_result = outcome
    assert slow_result.state is CallState.ABORTED
    assert slow_result.text.startswith("Aborted after ")
    assert slow_result.text.endswith(" s: the call was cancelled.")
    assert slow.cleaned_up
    assert writer_result.state is CallState.ABORTED
    assert writer_result.text == "Aborted before it started: the batch was cancelled."
    assert trace.events == []
    assert states(events, "s") == ["pending", "executing", "aborted"]


class SleeperInput(NoteInput):
    """Same fields; a distinct model for the subprocess tool."""


class SubprocessTool(Tool[SleeperInput]):
    """Starts a real child process and kills it when cancelled."""

    name = "sleeper"
    title = "Sleeper"
    description = "Runs sleep."
    input_model = SleeperInput
    example = {"label": "a"}
    readonly = True

    def __init__(self) -> None:
        self.pid = 0
        self.started = anyio.Event()

    async def run(self, args: SleeperInput, ctx: ToolContext) -> ToolOutput:
        process = await anyio.open_process(["sleep", "60"])
        self.pid = process.pid
        try:
            self.started.set()
            await process.wait()
        finally:
            with anyio.CancelScope(shield=True):
                process.kill()
                await process.wait()
        return ToolOutput.text("done")


async def test_cancelled_call_leaves_no_process_running(tmp_path: Any) -> None:
    tool = SubprocessTool()
    executor, _ = make_executor(tmp_path, tool)
    async with anyio.create_task_group() as group:
        outcome: list[Any] = []

        async def run() -> None:
            outcome.extend(await executor.run([ToolCall("p", "sleeper", {"label": "x"})]))

        group.start_soon(run)
        await tool.started.wait()
        assert pid_alive(tool.pid)
        executor.cancel()
    assert outcome[0].state is CallState.ABORTED
    assert not pid_alive(tool.pid)


async def test_failures_become_results_and_the_batch_goes_on(tmp_path: Any) -> None:
    executor, _ = make_executor(tmp_path, BrokenTool(), ReaderTool(Trace()))
    results = await executor.run(
        [
            ToolCall("1", "broken", {"label": "tool"}),
            ToolCall("2", "broken", {"label": "bug"}),
            ToolCall("3", "broken", {"label": "result"}),
            ToolCall("4", "reader", {"label": "ok"}),
        ]
    )
    assert [(r.state.value, r.error_kind) for r in results] == [
        ("error", "tool_error"),
        ("error", "internal_error"),
        ("error", "tool_error"),
        ("success", None),
    ]
    assert results[0].text == "The thing is missing; create it first."
    assert results[1].text == (
        "`broken` failed unexpectedly (ValueError: boom). This is a bug in the tool, not in "
        "your call; try another approach."
    )
    assert results[2].output.structured == {"exit_code": 3}


async def test_metrics_count_outcomes_per_tool(tmp_path: Any) -> None:
    executor, _ = make_executor(tmp_path, BrokenTool(), ReaderTool(Trace()))
    await executor.run(
        [
            ToolCall("1", "reader", {"label": "a"}),
            ToolCall("2", "reader", {"label": "b"}),
            ToolCall("3", "broken", {"label": "tool"}),
            ToolCall("4", "reader", {}),
        ]
    )
    summary = executor.metrics.summary()
    assert summary["reader"]["calls"] == 3
    assert summary["reader"]["outcomes"] == {"invalid_input": 1, "success": 2}
    assert summary["broken"]["outcomes"] == {"tool_error": 1}


async def test_closed_session_refuses_calls(tmp_path: Any) -> None:
    executor, _ = make_executor(tmp_path, ReaderTool(Trace()))
    await executor.session.aclose()
    [result] = await executor.run([ToolCall("1", "reader", {"label": "a"})])
    assert result.error_kind == "internal_error"
    assert "The session is closed" in result.text


class RecordingHooks(ToolHooks):
    def __init__(self, verdict: PreToolUseResult) -> None:
        self.verdict = verdict
        self.seen: list[HookCall] = []

    async def pre_tool_use(self, call: HookCall) -> PreToolUseResult:
        self.seen.append(call)
        return self.verdict


async def test_hook_deny_blocks_even_an_allowed_read(tmp_path: Any) -> None:
    hooks = RecordingHooks(PreToolUseResult("deny", "Reads of r are blocked by policy."))
    executor, _ = make_executor(tmp_path, ReaderTool(Trace()), hooks=hooks)
    [result] = await executor.run([ToolCall("1", "reader", {"label": "r"})])
    assert (result.error_kind, result.text) == (
        "permission_denied",
        "Reads of r are blocked by policy.",
    )
    assert hooks.seen[0].arguments == {"label": "r", "count": 1}


async def test_hook_allow_skips_an_ordinary_prompt(tmp_path: Any) -> None:
    requester = ScriptedRequester()
    hooks = RecordingHooks(PreToolUseResult("allow"))
    executor, _ = make_executor(tmp_path, WriterTool(Trace()), hooks=hooks, requester=requester)
    [result] = await executor.run([ToolCall("1", "writer", {"label": "w"})])
    assert result.state is CallState.SUCCESS
    assert requester.prompts == []


async def test_hook_ask_forces_a_prompt_for_a_read(tmp_path: Any) -> None:
    requester = ScriptedRequester(Answer(Approval.DENY))
    hooks = RecordingHooks(PreToolUseResult("ask", "Check this read."))
    executor, _ = make_executor(tmp_path, ReaderTool(Trace()), hooks=hooks, requester=requester)
    [result] = await executor.run([ToolCall("1", "reader", {"label": "r"})])
    assert requester.prompts == [("reader", "Check this read.")]
    assert result.error_kind == "permission_denied"


async def test_hook_can_rewrite_input_and_add_context(tmp_path: Any) -> None:
    hooks = RecordingHooks(
        PreToolUseResult(updated_input={"label": "rewritten"}, additional_context="Note: ok.")
    )
    executor, _ = make_executor(tmp_path, ReaderTool(Trace()), hooks=hooks)
    [result] = await executor.run([ToolCall("1", "reader", {"label": "orig"})])
    assert result.text == "read rewritten\nNote: ok."


class OutsideReader(ReaderTool):
    name = "outside_reader"

    async def access(self, args: NoteInput, ctx: ToolContext) -> Access:
        return Access(AccessKind.READ, paths=(ctx.root.parent / args.label,))


async def test_default_policy_allows_reads_inside_and_asks_outside(tmp_path: Any) -> None:
    requester = ScriptedRequester(Answer(Approval.DENY))
    root = tmp_path / "w"
    root.mkdir()
    executor, _ = make_executor(
        root, ReaderTool(Trace()), OutsideReader(Trace()), requester=requester
    )
    inside, outside = await executor.run(
        [
            ToolCall("1", "reader", {"label": "a"}),
            ToolCall("2", "outside_reader", {"label": "w-evil"}),
        ]
    )
    assert inside.state is CallState.SUCCESS
    assert outside.error_kind == "permission_denied"
    assert requester.prompts == [
        ("outside_reader", "`outside_reader` reads outside the workspace.")
    ]
