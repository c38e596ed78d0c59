"""Requests the server sends to the client (elicitation), each waiting for its reply.

The server numbers its own requests, sends them through the connection's outbox and parks the
caller until the client's response arrives, the client's deadline passes, or the client's
input ends — after which nothing can answer, so every waiting request and every later one
gets ``{}`` at once instead of hanging until its timeout.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio

__all__ = ["ClientRequests"]

Send = Callable[[dict[str, Any]], Awaitable[None]]


class ClientRequests:
    """The server's requests to one client that still wait for a reply, by their id."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._replies: dict[int, tuple[anyio.Event, list[dict[str, Any]]]] = {}
        self._next_id = 0
        self._input_ended = False

    async def request(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float,  # noqa: ASYNC109 - the client's deadline to answer, not the caller's
    ) -> dict[str, Any]:
        """Send a request to the client and wait for its result (``{}`` on error or timeout).

        Once the client's input has ended nothing can answer, so the result is ``{}`` at once.
        """
        if self._input_ended:
            return {}
        self._next_id += 1
        request_id = self._next_id
        arrived = anyio.Event()
        box: list[dict[str, Any]] = []
        self._replies[request_id] = (arrived, box)
        try:
            await self._send(
                {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            )
            with anyio.move_on_after(timeout):
                await arrived.wait()
        finally:
            self._replies.pop(request_id, None)
        return box[0].get("result", {}) if box else {}

    def deliver(self, message: dict[str, Any]) -> None:
        """A response from the client: wake the request it answers (an unknown id is dropped)."""
        pending = self._replies.get(message.get("id"))  # type: ignore[arg-type]
        if pending is not None:
            pending[1].append(message)
            pending[0].set()

    def end_of_input(self) -> None:
        """The client sends nothing more: requests waiting for its answer get none, now."""
        self._input_ended = True
        for arrived, _ in self._replies.values():
            arrived.set()
