"""One readers–writer gate for every call the executor runs, whichever batch or door it is.

Read-only calls share the gate and run together; any other call holds it alone, so mutating
calls never overlap anything — within a batch, across batches, across MCP requests (Codex does
the same with one ``RwLock``). Waiters are served first come, first served: a reader that
arrives after a waiting writer waits behind it, so writers are not starved. Entering a free
gate does not yield to the event loop, so the common case costs nothing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio

__all__ = ["ReadWriteGate"]


@dataclass(slots=True)
class _Waiter:
    shared: bool
    granted: bool = False
    event: anyio.Event = field(default_factory=anyio.Event)


class ReadWriteGate:
    """Many shared holders or one exclusive holder, granted in arrival order."""

    def __init__(self) -> None:
        self._readers = 0
        self._writer = False
        self._queue: deque[_Waiter] = deque()

    @asynccontextmanager
    async def hold(self, *, shared: bool) -> AsyncIterator[None]:
        """Hold the gate (shared or alone) for the body of the ``async with``."""
        await self.acquire(shared=shared)
        try:
            yield
        finally:
            self.release(shared=shared)

    @property
    def idle(self) -> bool:
        """Nobody holds the gate and nobody waits for it."""
        return not (self._readers or self._writer or self._queue)

    async def acquire(self, *, shared: bool) -> None:
        """Wait for the gate; pair with ``release`` in a ``finally`` (``hold`` does both; the
        executor calls these directly, which saves a context manager on every call)."""
        if not self._queue and self._free_for(shared):
            self._enter(shared)
            return
        waiter = _Waiter(shared)
        self._queue.append(waiter)
        try:
            await waiter.event.wait()
        except BaseException:
            if waiter.granted:  # granted while being cancelled: hand it on
                self.release(shared=shared)
            else:
                self._queue.remove(waiter)
                self._wake()
            raise

    def _free_for(self, shared: bool) -> bool:
        return not self._writer and (shared or not self._readers)

    def _enter(self, shared: bool) -> None:
        if shared:
            self._readers += 1
        else:
            self._writer = True

    def release(self, *, shared: bool) -> None:
        """Give back what ``acquire`` granted."""
        if shared:
            self._readers -= 1
        else:
            self._writer = False
        self._wake()

    def _wake(self) -> None:
        """Grant the gate to the waiters at the head of the queue that can have it now."""
        while self._queue and self._free_for(self._queue[0].shared):
            waiter = self._queue.popleft()
            self._enter(waiter.shared)
            waiter.granted = True
            waiter.event.set()
            if not waiter.shared:
                return
