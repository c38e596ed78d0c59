"""One refresh at a time, however often a server asks for it.

A server's ``notifications/tools/list_changed`` means "list again". Each used to start its own
``tools/list``: 2,000 notifications sent 2,001 listings, which the server answered one by one
while the call that was running waited behind them (issue #32: 32 s for a call, 17 s for the
next). A refresh that is already running cannot see a change announced after it began, so one
more must follow it — but only one: every notification that arrives meanwhile is answered by
that same next refresh. So at most one refresh is in flight and one pending.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from anyio.abc import TaskGroup

__all__ = ["Coalesced"]


class Coalesced:
    """Runs ``work`` on request: at most one run in flight, and one more after it when
    requests arrived while it ran."""

    def __init__(self, work: Callable[[], Awaitable[None]]) -> None:
        self._work = work
        self._running = False
        self._again = False
        self.runs = 0
        """How many times ``work`` was started."""

    def request(self, group: TaskGroup) -> None:
        """Ask for a run, in ``group``; folded into the pending one if a run is in flight."""
        if self._running:
            self._again = True
            return
        self._running = True
        group.start_soon(self._run)

    async def _run(self) -> None:
        try:
            while True:
                self._again = False
                self.runs += 1
                await self._work()
                if not self._again:
                    return
        finally:
            self._running = False
