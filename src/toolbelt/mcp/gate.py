"""A readers–writer gate for concurrent MCP requests.

Read-only calls share the gate and run together; any other call holds it alone, so the
executor's rule — mutating calls never overlap anything — also holds across requests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

__all__ = ["ReadWriteGate"]


class ReadWriteGate:
    """Many shared holders or one exclusive holder; writers are not starved by readers."""

    def __init__(self) -> None:
        self._condition = anyio.Condition()
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    @asynccontextmanager
    async def hold(self, *, shared: bool) -> AsyncIterator[None]:
        async with self._condition:
            if shared:
                while self._writer or self._writers_waiting:
                    await self._condition.wait()
                self._readers += 1
            else:
                self._writers_waiting += 1
                try:
                    while self._writer or self._readers:
                        await self._condition.wait()
                finally:
                    self._writers_waiting -= 1
                self._writer = True
        try:
            yield
        finally:
            with anyio.CancelScope(shield=True):
                async with self._condition:
                    if shared:
                        self._readers -= 1
                    else:
                        self._writer = False
                    self._condition.notify_all()
