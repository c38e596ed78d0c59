"""uvicorn's HTTP/1.1 protocol with a deadline for request headers.

uvicorn waits forever for a request's headers: a client that connects and sends one byte a
minute (or nothing at all) holds a connection and its memory as long as it likes, before any
check — the bearer token included — can run. Here a connection that has no request in
progress must deliver complete headers within ``head_timeout`` seconds of connecting or of
its previous response, or it is closed. (The body's deadline is the application's: it reads
the body under a timeout.)
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["with_head_timeout"]


def with_head_timeout(seconds: float) -> type[H11Protocol]:
    """An ``H11Protocol`` class that closes connections slow to send request headers."""

    class HeadTimeoutProtocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            self._head_timer = self.loop.call_later(seconds, self._head_late)

        def _head_late(self) -> None:
            self._head_timer = None
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and not self.transport.is_closing():
                self.transport.close()

    return HeadTimeoutProtocol
