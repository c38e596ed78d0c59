"""Turn a run that reports events through a callback into an async iterator of them.

The loop calls ``emit`` synchronously — from the model's stream and from the executor's event
bus, which fires inside tool calls — so the run goes in a task of its own and the events
cross over an unbounded memory stream (a run produces a bounded number of them). A failure of
the run is raised to the consumer as itself, after the events before it.

The run's task is a plain asyncio task, not a child of a task group held open across the
generator's ``yield``: a cancel scope that spans a ``yield`` belongs to whichever task resumes
the generator, so closing the iterator early (``break``, ``aclosing``, garbage collection)
would cancel the consumer instead of the run. Closing the iterator cancels the run and waits,
shielded, until it has unwound — its tools' processes ended, every call answered.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TypeVar

import anyio

__all__ = ["iterate_events"]

E = TypeVar("E")


async def iterate_events(
    run: Callable[[Callable[[E], None]], Awaitable[object]],
) -> AsyncGenerator[E, None]:
    """Yield what ``run(emit)`` emits, as it emits it; closing early cancels the run."""
    send, receive = anyio.create_memory_object_stream[E](math.inf)
    failure: list[Exception] = []

    def emit(event: E) -> None:
        try:
            send.send_nowait(event)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return  # the consumer left; the run is being cancelled

    async def drive() -> None:
        with send:
            try:
                await run(emit)
            except Exception as exc:
                failure.append(exc)

    task = asyncio.get_running_loop().create_task(drive())
    try:
        with receive:
            async for event in receive:
                yield event
    finally:
        task.cancel()  # a no-op when the run has ended
        with anyio.CancelScope(shield=True):
            await asyncio.wait({task})
    if failure:
        raise failure[0]
