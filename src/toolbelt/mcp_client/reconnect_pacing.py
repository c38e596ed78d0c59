"""How soon the HTTP client may open another event stream to the same server: never in a loop.

The SDK's streamable HTTP client reopens a server's event stream (the session's GET stream,
or a call's stream resumed with ``Last-Event-ID``) after the delay the server's ``retry:``
field names. A server that says ``retry: 0`` and ends every stream at once made it reconnect
about 300 times a second for the whole session (issue #32). So toolbelt's HTTP client paces
every GET itself, whatever ``retry:`` says: the first goes at once; each later one waits for
``FLOOR`` seconds after the previous stream ended, doubling (up to ``CEILING``) for every
stream in a row that ended within ``STABLE`` seconds of opening. A stream that lasted longer
starts the count again.
"""

from __future__ import annotations

import anyio

__all__ = ["CEILING", "FLOOR", "STABLE", "ReconnectPacing"]

FLOOR = 1.0
CEILING = 30.0
STABLE = 30.0


class ReconnectPacing:
    """The GET streams of one HTTP client: when the last ended, and how many ended early."""

    def __init__(self) -> None:
        self._opened = 0
        self._short = 0
        self._ended_at: float | None = None
        self.waits: list[float] = []
        """Every wait imposed so far, in seconds (what a test or a log can show)."""

    async def before_opening(self) -> None:
        """Wait, if need be, before opening a stream; then count it opened."""
        if self._opened and self._ended_at is not None:
            wait = min(CEILING, FLOOR * 2 ** min(self._short, 8))
            left = wait - (anyio.current_time() - self._ended_at)
            if left > 0:
                self.waits.append(left)
                await anyio.sleep(left)
        self._opened += 1

    def ended(self, opened_at: float) -> None:
        """A stream opened at ``opened_at`` (``anyio.current_time()``) ended now."""
        now = anyio.current_time()
        self._short = self._short + 1 if now - opened_at < STABLE else 0
        self._ended_at = now
