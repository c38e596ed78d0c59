"""Cancellation is scoped to the batches in flight when ``cancel()`` is called, and one
readers–writer gate orders calls across batches (and MCP requests)."""

from __future__ import annotations

from functools import partial
from typing import Any

import anyio
import pytest

from tests.core.fakes import ReaderTool, SlowTool, Trace, WriterTool
from tests.core.test_executor import make_executor
from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCall, ToolCallResult
from toolbelt.core.requesters import AutoApprove

pytestmark = pytest.mark.anyio


async def test_a_run_started_right_after_cancel_does_not_revive_the_cancelled_batch(
    tmp_path: Any,
) -> None:
    slow, trace = SlowTool(), Trace()
    executor, _ = make_executor(tmp_path, slow, WriterTool(trace), requester=AutoApprove())
    first: list[ToolCallResult] = []
    async with anyio.create_task_group() as group:

        async def run_first() -> None:
            first.extend(
                await executor.run(
                    [
                        ToolCall("s", "slow", {"label": "x"}),
                        ToolCall("w1", "writer", {"label": "a"}),
                    ]
                )
            )

        group.start_soon(run_first)
        await slow.started.wait()
        executor.cancel()
        [second] = await executor.run([ToolCall("w2", "writer", {"label": "b"})])
    assert [r.state for r in first] == [CallState.ABORTED, CallState.ABORTED]
    assert first[1].text == "Aborted before it started: the batch was cancelled."
    assert (second.state, second.text) == (CallState.SUCCESS, "wrote b")
    assert trace.events == ["start b", "end b"]  # the cancelled batch's writer never ran


async def test_writers_from_two_batches_never_overlap_each_other_or_readers(
    tmp_path: Any,
) -> None:
    trace = Trace()
    executor, _ = make_executor(
        tmp_path, ReaderTool(trace), WriterTool(trace), requester=AutoApprove()
    )
    async with anyio.create_task_group() as group:
        for label in ("a", "b", "c"):
            group.start_soon(executor.run, [ToolCall(label, "writer", {"label": label})])
            group.start_soon(
                executor.run, [ToolCall("r" + label, "reader", {"label": "r" + label})]
            )
    active: set[str] = set()
    for event in trace.events:
        verb, label = event.split(" ")
        if verb == "end":
            active.remove(label)
            continue
        active.add(label)
        writers = active & {"a", "b", "c"}
        assert not writers or len(active) == 1, f"{sorted(active)} overlap"
    assert len(trace.events) == 12


async def test_the_gate_serves_waiters_in_order_and_forgets_a_cancelled_one() -> None:
    from toolbelt.core.gate import ReadWriteGate

    gate = ReadWriteGate()
    order: list[str] = []
    await gate.acquire(shared=True)  # a reader holds the gate

    async def take(name: str, *, shared: bool) -> None:
        await gate.acquire(shared=shared)
        order.append(name)
        gate.release(shared=shared)

    async with anyio.create_task_group() as group:
        group.start_soon(partial(take, "writer", shared=False))
        await anyio.wait_all_tasks_blocked()
        group.start_soon(partial(take, "late reader", shared=True))  # must wait behind the writer
        await anyio.wait_all_tasks_blocked()
        with anyio.CancelScope() as abandoned:
            abandoned.cancel()
            await gate.acquire(shared=False)  # cancelled while queued: leaves the queue
        assert order == []
        gate.release(shared=True)
    assert order == ["writer", "late reader"]
    assert gate.idle
