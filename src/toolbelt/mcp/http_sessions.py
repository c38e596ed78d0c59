"""The HTTP door's sessions and in-flight requests, and the limits that keep them bounded.

JSON-RPC ids are unique per client, not per server, so the server never sees them: every
``tools/call`` the door receives gets a server-wide key (``r<n>``) under which it runs,
reports progress and is cancelled, and one ``InFlight`` record per key holds the stream its
answer goes to and the id the client chose, which the answer carries again on the way out.
Two clients using the same id — as every fresh client does — can no longer see, answer or
cancel each other's calls. A 2025-11-25 client names its calls by its own ids within its
session; stateless clients share one session and have no identity, so a
``notifications/cancelled`` there names nothing (``key_of``): such a call is cancelled only by
closing its own request's stream, which no other client can do. A cancelled call's stream
ends at once (``cancel``), so it neither holds a ``max_inflight`` slot nor keeps its session
from expiring while nothing runs.

A 2025-11-25 session (``initialize``) has its own toolbelt ``Session``: shell, read tracker,
todo list and background jobs. 2026-07-28 requests carry no session, so they share one
toolbelt ``Session`` for the process (one workspace, one shell, one read tracker, one todo
list), but not background jobs: nothing ties a later request to the client that started a
job, so they would be visible to every client and end with nobody; such a client is told to
run the command in the foreground.

Limits: at most ``max_sessions`` sessions and ``max_inflight`` calls in flight (past them a
request gets a JSON-RPC error at once, never a wait), and a session nobody used for
``idle_timeout`` seconds is closed with everything it started.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from toolbelt.mcp.allocator import give_back
from toolbelt.mcp.server import McpServer, Outbox, Outgoing

__all__ = ["Busy", "HttpSession", "InFlight", "Limits", "SessionTable"]

Channel = MemoryObjectSendStream[dict[str, Any]]


@dataclass(frozen=True)
class Limits:
    """How much the HTTP door holds at once, and for how long."""

    max_sessions: int = 100
    max_inflight: int = 256
    idle_timeout: float = 30 * 60.0
    """Seconds without a request after which a session (and every process it started) ends."""
    max_body: int = 16 * 1024 * 1024
    request_timeout: float = 10.0
    """Seconds a client has to send a request's headers, and then its body."""


class Busy(Exception):
    """A limit is reached; the message says which and what to do."""


@dataclass
class InFlight:
    """One tools/call the door received: where its messages go and the id its client chose."""

    client_id: Any
    channel: Channel


@dataclass
class HttpSession:
    """A toolbelt session served over HTTP (a 2025-11-25 session, or the shared stateless one)."""

    server: McpServer
    outbox: MemoryObjectReceiveStream[Outgoing]
    inflight: dict[str, InFlight] = field(default_factory=dict)
    general: Channel | None = None
    last_active: float = field(default_factory=time.monotonic)
    router: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    """Scope of the task that routes the server's messages; cancelled when the session ends."""
    shared: bool = False
    """The stateless session every 2026-07-28 request shares (its clients have no identity)."""

    def key_of(self, client_id: Any) -> str | None:
        """The server key of this session's call that its client knows as ``client_id``;
        always None in the shared session, where every client's ids start at 1."""
        if self.shared:
            return None
        for key, call in self.inflight.items():
            if call.client_id == client_id:
                return key
        return None


class OpenServer(Protocol):
    """Builds the server of a new session, its runtime opened (its toolset too); a stateless
    one (every 2026-07-28 request) has no background jobs."""

    def __call__(self, outbox: Outbox, *, stateless: bool) -> Awaitable[McpServer]:
        """The server, its messages sent to ``outbox``."""


class SessionTable:
    """Every session of the server, the in-flight calls, and the limits on both."""

    def __init__(
        self,
        open_server: OpenServer,
        limits: Limits,
        group: anyio.abc.TaskGroup,
    ) -> None:
        self._open_server = open_server
        """Builds the server of a new session (``OpenServer``)."""
        self.limits = limits
        self.group = group
        self.sessions: dict[str, HttpSession] = {}
        self._stateless: HttpSession | None = None
        self._stateless_lock = anyio.Lock()
        self._opening = 0
        self._stopping = False
        self._keys = itertools.count(1)

    async def open(self, session_id: str) -> HttpSession:
        """A new 2025-11-25 session; ``Busy`` when there are too many."""
        if len(self.sessions) + self._opening >= self.limits.max_sessions:
            raise Busy(
                f"The server already has {self.limits.max_sessions} sessions; end one "
                "(DELETE /mcp) or retry once an idle one has expired."
            )
        self._opening += 1  # counted while its toolset opens, so the limit holds meanwhile
        try:
            opened = await self._new(shared=False)
        finally:
            self._opening -= 1
        self.sessions[session_id] = opened
        return opened

    async def stateless(self) -> HttpSession:
        """The session every 2026-07-28 request shares (opened by the first of them)."""
        async with self._stateless_lock:
            if self._stateless is None:
                self._stateless = await self._new(shared=True)
        return self._stateless

    async def _new(self, *, shared: bool) -> HttpSession:
        # The toolbelt session's id is random: nothing visible (spill directories, hook
        # input) is derived from the Mcp-Session-Id the client holds.
        send, receive = anyio.create_memory_object_stream[Outgoing](math.inf)
        server = await self._open_server(send, stateless=shared)
        if self._stopping:  # the server began stopping while this one's toolset opened
            with anyio.CancelScope(shield=True):
                await server.aclose()
            raise Busy("The server is stopping.")
        if shared:
            server.requester.session_approvals = False  # no client identity to remember it for
        opened = HttpSession(server, receive, shared=shared)
        self.group.start_soon(_route, opened)
        return opened

    def begin(self, session: HttpSession, client_id: Any) -> tuple[str, Any]:
        """Register one tools/call: its server key and the stream its messages arrive on."""
        if self.inflight >= self.limits.max_inflight:
            raise Busy(
                f"The server is already running {self.limits.max_inflight} calls; retry when "
                "one has finished."
            )
        key = f"r{next(self._keys)}"
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](math.inf)
        session.inflight[key] = InFlight(client_id, send)
        session.last_active = time.monotonic()
        return key, receive

    def end(self, session: HttpSession, key: str) -> None:
        """Forget a call whose stream has ended."""
        session.inflight.pop(key, None)
        session.last_active = time.monotonic()

    def cancel(self, session: HttpSession, key: str) -> None:
        """Cancel a call and end its stream now: it gets no answer (the client cancelled it),
        and its slot is free at once, while its processes are still being ended."""
        session.server.cancel(key)
        call = session.inflight.pop(key, None)
        if call is not None:
            call.channel.close()
        session.last_active = time.monotonic()

    @property
    def count(self) -> int:
        """Sessions open now (the shared stateless one included)."""
        return len(self.sessions) + (1 if self._stateless else 0)

    @property
    def inflight(self) -> int:
        """Calls in flight across every session."""
        every = list(self.sessions.values())
        every += [self._stateless] if self._stateless else []
        return sum(len(s.inflight) for s in every)

    async def close(self, session_id: str) -> bool:
        """End one session and everything it started; False if there was no such session."""
        session = self.sessions.pop(session_id, None)
        if session is None:
            return False
        await _close(session)
        return True

    async def close_all(self) -> None:
        """End every session (the server is stopping); a session still opening ends as soon
        as it has opened."""
        self._stopping = True
        every = list(self.sessions.values())
        every += [self._stateless] if self._stateless else []
        self.sessions.clear()
        self._stateless = None
        for session in every:
            await _close(session)

    async def expire_idle(self) -> None:
        """Forever: close sessions nobody used for ``idle_timeout`` seconds."""
        period = max(0.05, min(30.0, self.limits.idle_timeout / 4))
        while True:
            await anyio.sleep(period)
            deadline = time.monotonic() - self.limits.idle_timeout
            expired = [
                session_id
                for session_id, session in self.sessions.items()
                if not session.inflight and session.last_active < deadline
            ]
            for session_id in expired:
                await self.close(session_id)
            if expired:  # what they held is free: give it back to the system
                await give_back()


async def _close(session: HttpSession) -> None:
    with anyio.CancelScope(shield=True):
        await session.server.aclose()
        for call in session.inflight.values():
            call.channel.close()  # its stream ends: a cancelled call gets no answer
        if session.general is not None:
            session.general.close()
        session.router.cancel()


async def _route(session: HttpSession) -> None:
    """Deliver each outgoing message to the stream of the call it belongs to."""
    with session.router:
        async for message, route in session.outbox:
            if route is None:
                target = session.general
            else:  # a call's message; dropped once its stream has ended (it was cancelled)
                call = session.inflight.get(str(route))
                target = call.channel if call is not None else None
            if target is not None:
                try:
                    target.send_nowait(message)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.WouldBlock):
                    continue  # the stream is gone, or its client stopped reading
