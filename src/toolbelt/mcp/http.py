"""MCP over streamable HTTP (the 2025-11-25 session era), on starlette and uvicorn.

``POST /mcp`` carries one JSON-RPC message. ``initialize`` opens a session (a toolbelt
``Session`` with its own shell, tracker and jobs) whose id comes back in ``Mcp-Session-Id``;
later requests name it. A ``tools/call`` is answered as a server-sent-events stream that
carries the call's progress notifications and permission questions (elicitation) before the
result; other requests are answered with plain JSON; notifications and the client's answers
get 202. ``GET /mcp`` is the session's stream for messages not tied to a request; ``DELETE``
ends the session and every process it started.

Safety: it binds 127.0.0.1 unless told otherwise; any other address needs ``allow_remote``
and a bearer token (from a file or the environment, never the command line; the variable is
removed from the environment of commands the tools run). The Host header must name the
server and a browser Origin must be local (DNS-rebinding protection). ``/livez`` and
``/readyz`` report health; on SIGTERM uvicorn stops accepting, in-flight calls finish, then
every session is closed.
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from toolbelt.core.context import Session
from toolbelt.core.strict_json import strict_loads
from toolbelt.mcp.server import META_VERSION, MODERN_VERSIONS, McpServer, Outgoing
from toolbelt.shell.sandbox import SandboxSettings

if TYPE_CHECKING:
    from starlette.responses import JSONResponse

__all__ = ["HttpOptions", "build_app"]

SESSION_HEADER = "mcp-session-id"
KEEPALIVE = 1.0
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


@dataclass(frozen=True)
class HttpOptions:
    """How the HTTP server runs."""

    root: Path
    mode: str | None
    host: str
    port: int
    add_dirs: tuple[str, ...] = ()
    token: str | None = None
    trusted: bool | None = None
    """True: the workspace's settings apply in full (``--trust-workspace``); None: as stored."""
    sandbox: SandboxSettings | None = None
    """The OS sandbox every session's commands run in (None: the default, ``auto``)."""


@dataclass
class _HttpSession:
    server: McpServer
    outbox: MemoryObjectReceiveStream[Outgoing]
    channels: dict[str, MemoryObjectSendStream[dict[str, Any]]] = field(default_factory=dict)
    general: MemoryObjectSendStream[dict[str, Any]] | None = None


class _State:
    def __init__(self, options: HttpOptions) -> None:
        self.options = options
        self.sessions: dict[str, _HttpSession] = {}
        self.stateless: _HttpSession | None = None
        """The 2026-07-28 era has no sessions: its state lives with the server process."""
        self.group: anyio.abc.TaskGroup | None = None
        self.ready = False

    def open_session(self, session_id: str | None = None) -> _HttpSession:
        core = Session(self.options.root, add_dirs=self.options.add_dirs, session_id=session_id)
        sandbox = self.options.sandbox
        if sandbox is not None:
            core.resource(SandboxSettings, lambda: sandbox)
        send, receive = anyio.create_memory_object_stream[Outgoing](math.inf)
        server = McpServer(core, send, mode=self.options.mode, trusted=self.options.trusted)
        opened = _HttpSession(server, receive)
        assert self.group is not None
        self.group.start_soon(_route, opened)
        return opened


def build_app(options: HttpOptions) -> Any:
    """The ASGI application (starlette), imported only when HTTP is asked for."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Route

    state = _State(options)

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            state.group, state.ready = group, True
            try:
                yield
            finally:
                state.ready = False
                with anyio.CancelScope(shield=True):
                    everything = list(state.sessions.values())
                    everything += [state.stateless] if state.stateless else []
                    for session in everything:
                        await session.server.aclose()
                    state.sessions.clear()
                group.cancel_scope.cancel()

    def refuse(request: Request) -> Response | None:
        host = (request.headers.get("host") or "").lower()
        if not _host_allowed(host, options):
            return PlainTextResponse("Host not allowed", status_code=403)
        origin = request.headers.get("origin")
        if origin and not _origin_allowed(origin, options):
            return PlainTextResponse("Origin not allowed", status_code=403)
        if options.token is not None:
            given = request.headers.get("authorization", "")
            if not secrets.compare_digest(given.encode(), f"Bearer {options.token}".encode()):
                return PlainTextResponse("Missing or wrong bearer token", status_code=401)
        return None

    async def livez(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def readyz(request: Request) -> Response:
        return PlainTextResponse(
            "ready" if state.ready else "stopping", 200 if state.ready else 503
        )

    async def mcp_post(request: Request) -> Response:
        refused = refuse(request)
        if refused is not None:
            return refused
        try:
            message = strict_loads(await request.body())
        except ValueError:  # bad JSON, a duplicate key, NaN, nesting deep enough to crash
            return _error_response(None, -32700, "Parse error", 400)
        if not isinstance(message, dict):
            return _error_response(None, -32600, "Send one JSON-RPC message per request.", 400)
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            return await _initialize(message)
        session = state.sessions.get(request.headers.get(SESSION_HEADER, ""))
        if session is None and _modern(request, message):
            state.stateless = state.stateless or state.open_session()
            session = state.stateless
        if session is None:
            return _error_response(
                request_id, -32001, "Unknown or missing Mcp-Session-Id; initialize first.", 404
            )
        if method is None or request_id is None:  # a response to our request, or a notification
            assert state.group is not None
            await session.server.handle(message, state.group)
            return Response(status_code=202)
        params = message.get("params") or {}
        if method != "tools/call":
            return JSONResponse(session.server.answer(request_id, method, params))
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](math.inf)
        session.channels[str(request_id)] = send
        assert state.group is not None
        state.group.start_soon(session.server.tools_call, request_id, params)
        return StreamingResponse(_sse(receive, request_id, session), media_type="text/event-stream")

    async def _initialize(message: dict[str, Any]) -> Response:
        session_id = secrets.token_hex(16)
        http_session = state.open_session(session_id)
        state.sessions[session_id] = http_session
        server = http_session.server
        reply = server.answer(message.get("id"), "initialize", message.get("params") or {})
        return JSONResponse(reply, headers={"Mcp-Session-Id": session_id})

    async def mcp_get(request: Request) -> Response:
        refused = refuse(request)
        if refused is not None:
            return refused
        session = state.sessions.get(request.headers.get(SESSION_HEADER, ""))
        if session is None:
            return PlainTextResponse("Unknown or missing Mcp-Session-Id", status_code=404)
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](math.inf)
        session.general = send
        return StreamingResponse(_sse(receive, None, session), media_type="text/event-stream")

    async def mcp_delete(request: Request) -> Response:
        refused = refuse(request)
        if refused is not None:
            return refused
        session = state.sessions.pop(request.headers.get(SESSION_HEADER, ""), None)
        if session is None:
            return PlainTextResponse("Unknown or missing Mcp-Session-Id", status_code=404)
        await session.server.aclose()
        if session.general is not None:
            await session.general.aclose()
        return Response(status_code=204)

    return Starlette(
        routes=[
            Route("/mcp", mcp_post, methods=["POST"]),
            Route("/mcp", mcp_get, methods=["GET"]),
            Route("/mcp", mcp_delete, methods=["DELETE"]),
            Route("/livez", livez),
            Route("/readyz", readyz),
        ],
        lifespan=lifespan,
    )


async def _route(session: _HttpSession) -> None:
    """Deliver each outgoing message to the stream of the request it belongs to."""
    async for message, route in session.outbox:
        channel = session.channels.get(str(route)) if route is not None else None
        target = channel or session.general
        if target is not None:
            try:
                target.send_nowait(message)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                continue


async def _sse(
    receive: MemoryObjectReceiveStream[dict[str, Any]], request_id: Any, session: _HttpSession
) -> AsyncIterator[bytes]:
    """Server-sent events until the response to ``request_id`` has been sent.

    If the client closes the stream first, the call is cancelled (the 2026-07-28 wire has no
    cancel notification over HTTP: closing the stream is the signal) and its processes end.
    A comment goes out every second while the call is silent: writing to a closed connection
    is how a departed client is noticed.
    """
    answered = False
    try:
        yield b": open\n\n"  # sends the headers now, so the client sees the call start
        async with receive:
            while True:
                message = None
                with anyio.move_on_after(KEEPALIVE):
                    message = await receive.receive()
                if message is None:
                    yield b": keepalive\n\n"
                    continue
                yield b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n"
                if _answers(message, request_id):
                    answered = True
                    return
    except anyio.EndOfStream:
        return
    finally:
        if request_id is not None:
            session.channels.pop(str(request_id), None)
            if not answered:
                session.server.cancel(request_id)


def _answers(message: dict[str, Any], request_id: Any) -> bool:
    """Whether ``message`` is the response to ``request_id``."""
    return request_id is not None and message.get("id") == request_id and "method" not in message


def _modern(request: Any, message: dict[str, Any]) -> bool:
    """A 2026-07-28 request: by its version header, or by the version in ``_meta``."""
    if request.headers.get("mcp-protocol-version") in MODERN_VERSIONS:
        return True
    meta = (message.get("params") or {}).get("_meta") or {}
    return meta.get(META_VERSION) in MODERN_VERSIONS or message.get("method") == "server/discover"


def _host_allowed(host: str, options: HttpOptions) -> bool:
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if options.host not in LOCAL_HOSTS and options.token is not None:
        return True  # a remote bind is protected by the token; any Host may reach it
    return name in LOCAL_HOSTS or name == options.host


def _origin_allowed(origin: str, options: HttpOptions) -> bool:
    host = (urlsplit(origin).hostname or "").lower()
    return host in LOCAL_HOSTS or host == options.host


def _error_response(request_id: Any, code: int, text: str, status: int) -> JSONResponse:
    from starlette.responses import JSONResponse

    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}
    return JSONResponse(body, status_code=status)
