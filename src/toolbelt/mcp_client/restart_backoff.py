"""How long to wait before starting a failed MCP server again.

A server that cannot start, or exits, is started again on its next use; one that fails every
time must not be relaunched in a tight loop by every call the model makes. The wait doubles
with each failure in a row (0.5 s up to 30 s), counts from the last failure, and a call that
succeeds resets it.
"""

from __future__ import annotations

import anyio

__all__ = ["FIRST_WAIT", "LONGEST_WAIT", "RestartBackoff"]

FIRST_WAIT = 0.5
LONGEST_WAIT = 30.0


class RestartBackoff:
    """The failures in a row of one server, and when the last one happened."""

    def __init__(self) -> None:
        self._failures = 0
        self._failed_at = 0.0

    def failed(self) -> None:
        """The server could not start, or went away."""
        self._failures += 1
        self._failed_at = anyio.current_time()

    def succeeded(self) -> None:
        """A call went through: the next failure waits the shortest time again."""
        self._failures = 0

    async def wait(self) -> None:
        """Sleep out what is left of the wait since the last failure (nothing after none)."""
        wait = self._delay() - (anyio.current_time() - self._failed_at)
        if self._failures and wait > 0:
            await anyio.sleep(wait)

    def _delay(self) -> float:
        return float(min(LONGEST_WAIT, FIRST_WAIT * 2 ** max(self._failures - 1, 0)))
