"""SIGTERM and SIGHUP end a CLI run the way Ctrl-C does: cancelled, cleaned up, then exit.

``timeout``, ``docker stop``, systemd and CI runners send SIGTERM; a closed terminal sends
SIGHUP. Their default action kills toolbelt on the spot, so no ``finally`` runs: the command a
bash call is running, what it started with ``setsid`` or ``nohup``, and the MCP servers' trees
would be left to the watchdog at best. Ctrl-C already takes the clean path — asyncio's runner
cancels the main task, every call ends ``aborted`` with its processes swept, every server is
closed, and ``KeyboardInterrupt`` comes out of ``anyio.run``. While ``Termination`` is active,
SIGTERM and SIGHUP are handed to that same SIGINT handler, and ``exit_status`` then reports
the signal that came (128 + its number: 143 for SIGTERM, 129 for SIGHUP, 130 for Ctrl-C), as
a shell reports a process killed by it.
"""

from __future__ import annotations

import signal
from types import FrameType, TracebackType
from typing import Any

__all__ = ["Termination"]

_HANDLED = (signal.SIGTERM, signal.SIGHUP)


class Termination:
    """A context in which SIGTERM and SIGHUP act as Ctrl-C; the previous handlers come back
    on exit. Use it around ``anyio.run`` in the main thread."""

    def __init__(self) -> None:
        self.received: int | None = None
        """The signal that asked the run to stop (None: none did, or only Ctrl-C)."""
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Termination:
        for sig in _HANDLED:
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.received is None:
            self.received = signum
        interrupt = signal.getsignal(signal.SIGINT)
        if callable(interrupt):  # asyncio's runner: cancel the main task, then raise
            interrupt(signal.SIGINT, frame)
        else:  # Ctrl-C is ignored or left to the default: stop here all the same
            raise KeyboardInterrupt

    @property
    def reason(self) -> str:
        """What stopped the run, for its last line on standard error."""
        if self.received is None:
            return "interrupted"
        return f"stopped by {signal.Signals(self.received).name}"

    @property
    def exit_status(self) -> int:
        """The exit status for a run stopped by a signal: 128 + the signal's number."""
        return 128 + (self.received or signal.SIGINT)
