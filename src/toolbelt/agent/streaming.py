"""Turn a run that reports events through a callback into an async iterator of them.

The loop calls ``emit`` synchronously — from the model's stream and from the executor's event
bus, which fires inside tool calls — so the run goes in a task of its own and the events
cross over an unbounded memory stream (a run produces a bounded number of them). A failure of
the run is raised to the consumer as itself after the events before it, not wrapped in an
exception group; a consumer that leaves early cancels the run.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import anyio

__all__ = ["iterate_events"]

E = TypeVar("E")


async def iterate_events(
    run: Callable[[Callable[[E], None]], Awaitable[object]],
) -> AsyncIterator[E]:
    """Yield what ``run(emit)`` emits, as it emits it."""
    send, receive = anyio.create_memory_object_stream[E](math.inf)
    failure: list[Exception] = []

    def emit(event: E) -> None:
        try:
            send.send_nowait(event)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return  # the consumer left; the run is being cancelled

    async def drive() -> None:
        async with send:
            try:
                await run(emit)
            except Exception as exc:
                failure.append(exc)

    async with anyio.create_task_group() as group:
        group.start_soon(drive)
        async with receive:
            async for event in receive:
                yield event
    if failure:
        raise failure[0]
