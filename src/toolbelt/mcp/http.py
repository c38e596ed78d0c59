"""MCP over streamable HTTP (the 2025-11-25 session era and the stateless 2026-07-28 era).

``POST /mcp`` carries one JSON-RPC message. ``initialize`` opens a session (a toolbelt
``Session`` with its own shell, tracker and jobs) whose id comes back in ``Mcp-Session-Id``;
later requests name it. 2026-07-28 requests carry no session and share the process's (see
``http_sessions``). A ``tools/call`` is answered as a server-sent-events stream that carries
the call's progress notifications and permission questions (elicitation) before the result;
other requests are answered with plain JSON; notifications and the client's answers get 202.
``GET /mcp`` is the session's stream for messages not tied to a request; ``DELETE`` ends the
session and every process it started.

Safety (``http_guard``): Host, Origin, Content-Type and a bearer token are checked before a
body is read; bodies are capped in size and time, headers in time (``http_protocol``).
``/livez`` and ``/readyz`` report health, ``/metrics`` the calls in Prometheus' text format
(``http_metrics``; behind the token like ``/mcp``). A call carrying an idempotency key (the
``Idempotency-Key`` header or its ``_meta``) runs once however often it is retried
(``idempotency``). ``--idle-exit`` and ``--max-lifetime`` stop the server by itself
(``lifetime``). On SIGTERM (``Stopping``) both answer 503 at once and
new requests are refused while the calls in flight finish, the port still open so a health
check sees the stop rather than a refused connection; then uvicorn closes the port and every
session is closed.
"""

from __future__ import annotations

import functools
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

from toolbelt.core.context import SessionConfig
from toolbelt.core.registry import Toolset
from toolbelt.core.strict_json import strict_loads
from toolbelt.mcp.allocator import LARGE_BODY, give_back
from toolbelt.mcp.envelope import InvalidMessage, check_message, encode_message
from toolbelt.mcp.http_guard import Guard
from toolbelt.mcp.http_sessions import Busy, HttpSession, Limits, SessionTable
from toolbelt.mcp.idempotency import META_IDEMPOTENCY_KEY, IdempotentCalls, idempotency_key
from toolbelt.mcp.lifetime import Activity, watch_lifetime
from toolbelt.mcp.server import (
    META_VERSION,
    MODERN_VERSIONS,
    McpServer,
    Outbox,
    id_in_use_reply,
    internal_error_reply,
)
from toolbelt.runtime import Runtime, RuntimeOptions

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from toolbelt.mcp_client.shared import SharedServers
    from toolbelt.sandbox.sandbox import SandboxSettings

__all__ = ["HttpOptions", "Stopping", "build_app"]

SESSION_HEADER = "mcp-session-id"
UNKNOWN_SESSION = (
    "Unknown Mcp-Session-Id: the session expired or was deleted, and what it held (its shell, "
    "todo list, read files and jobs) is gone; initialize a new session."
)
KEEPALIVE = 1.0
QUICK_ANSWER = 0.02
"""A call answered this fast (no progress, no question first) gets a plain JSON response,
which costs the client far less than an event stream; any other call streams."""
GENERAL_BUFFER = 256
"""Messages held for a session's GET stream; past them (a client that stopped reading) the
newest are dropped rather than held without bound."""


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
    remote: bool = False
    limits: Limits = field(default_factory=Limits)
    toolset: Callable[[], Toolset] | None = None
    """Makes the toolset each session serves (None: the built-ins); the session opens it when
    it starts and closes it when it ends (``core.shared_toolset`` for one object for all)."""
    sandbox: SandboxSettings | None = None
    """The OS sandbox every session's commands run in (None: the default, ``auto``)."""
    token_source: Path | None = None
    """The file the token is read from, named to a client that sent none or a wrong one."""
    idle_exit: float | None = None
    """Stop once no MCP request came for this many seconds (None: never)."""
    max_lifetime: float | None = None
    """Stop once the server has served this many seconds (None: never)."""


@asynccontextmanager
async def _mcp_servers(options: HttpOptions, shared: list[SharedServers]) -> AsyncIterator[None]:
    """Open the workspace's configured MCP servers once for every session (``shared``)."""
    if options.toolset is not None:
        yield
        return
    from toolbelt.mcp_client.shared import SharedServers, configured_servers
    from toolbelt.tools import builtin_toolset

    taken = frozenset(builtin_toolset().names())
    servers = configured_servers(
        options.root, trusted=options.trusted, taken=taken, sandbox=options.sandbox
    )
    if servers is None:
        yield
        return
    async with servers:
        await servers.list_tools()
        shared.append(SharedServers(servers))
        try:
            yield
        finally:
            shared.clear()


class _BodyError(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status


class Stopping:
    """The server's stop, shared by the application and the uvicorn server running it: once
    ``began``, health checks answer 503 and new requests are refused; ``drain`` returns when
    no call is in flight."""

    def __init__(self) -> None:
        self.began = False
        self.inflight: Callable[[], int] = lambda: 0
        """Calls in flight (set by ``build_app``)."""
        self.stop: Callable[[], None] = lambda: None
        """Asks the server running the application to stop, as SIGTERM does (set by it)."""

    async def drain(self, *, forced: Callable[[], bool], poll: float = 0.05) -> None:
        """Mark the stop, then wait for the calls in flight to finish (or ``forced()``: a
        second Ctrl-C)."""
        self.began = True
        # polled, as uvicorn waits for its own tasks: both conditions are plain values (a
        # signal handler sets uvicorn's flag)
        while self.inflight() and not forced():  # noqa: ASYNC110
            await anyio.sleep(poll)


def build_app(options: HttpOptions, stopping: Stopping | None = None) -> Any:
    """The ASGI application (starlette), imported only when HTTP is asked for; ``stopping``
    is how the server running it says it began to stop."""
    from starlette.applications import Starlette
    from starlette.background import BackgroundTask
    from starlette.responses import PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Route

    from toolbelt.mcp.http_metrics import CONTENT_TYPE, ServerMetrics

    guard = Guard(
        options.host, options.port, options.token, options.remote, token_source=options.token_source
    )
    limits = options.limits
    tables: list[SessionTable] = []

    shared: list[SharedServers] = []  # the configured MCP servers, opened by the lifespan
    metrics = ServerMetrics(lambda: tables[0].count if tables else 0)
    idempotent = IdempotentCalls()
    activity = Activity()

    async def open_server(outbox: Outbox, *, stateless: bool) -> McpServer:
        open_runtime = functools.partial(
            Runtime,
            options.root,
            toolset=options.toolset() if options.toolset is not None else None,
            mode=options.mode,
            add_dirs=options.add_dirs,
            trusted=options.trusted,
            options=RuntimeOptions(
                # a stateless request cannot be tied to the next: no job could be reached again
                config=SessionConfig(background_jobs=not stateless),
                sandbox=options.sandbox,
                mcp_servers=shared[0] if shared else None,
            ),
        )
        server = McpServer(
            open_runtime, outbox, stateless=stateless, observer=metrics, idempotent=idempotent
        )
        await server.runtime.open()  # closed with the session (``McpServer.aclose``)
        return server

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with _mcp_servers(options, shared), anyio.create_task_group() as group:
            table = SessionTable(open_server, limits, group)
            tables.append(table)
            group.start_soon(table.expire_idle)
            activity.seen()  # idle from now on, not from before the workspace's servers opened
            group.start_soon(
                functools.partial(
                    watch_lifetime,
                    activity,
                    lambda: table.inflight,
                    lambda: stopper.stop(),
                    idle_exit=options.idle_exit,
                    max_lifetime=options.max_lifetime,
                )
            )
            try:
                yield
            finally:
                tables.clear()
                await table.close_all()
                group.cancel_scope.cancel()

    def refuse(request: Request) -> Response | None:
        refused = guard.refusal(request.method, request.headers)
        if refused is None:
            return None
        status, text = refused
        challenge = guard.challenge(request.headers) if status == 401 else None
        headers = {"WWW-Authenticate": challenge} if challenge else None
        return PlainTextResponse(text, status, headers=headers)

    stopping = stopping if stopping is not None else Stopping()
    stopper = stopping
    stopping.inflight = lambda: tables[0].inflight if tables else 0

    async def livez(request: Request) -> Response:
        up = bool(tables) and not stopping.began
        return PlainTextResponse("ok" if up else "stopping", 200 if up else 503)

    async def readyz(request: Request) -> Response:
        ready = bool(tables) and not stopping.began
        return PlainTextResponse("ready" if ready else "stopping", 200 if ready else 503)

    async def metrics_text(request: Request) -> Response:
        refused = refuse(request)
        if refused is not None:
            return refused
        return Response(metrics.text(), 200, media_type=CONTENT_TYPE)

    async def mcp_post(request: Request) -> Response:
        refused = refuse(request)
        if refused is not None:
            return refused
        if not tables or stopping.began:
            return _error_response(None, -32000, "The server is stopping.", 503)
        activity.seen()
        received = _Received()
        response = await _answer_post(request, tables[0], received)
        if received.size >= LARGE_BODY:  # its memory is free once answered: give it back
            response.background = BackgroundTask(give_back)
        return response

    async def _answer_post(request: Request, table: SessionTable, received: _Received) -> Response:
        try:
            body = await _read_body(request, limits, received)
            message = check_message(strict_loads(body))
            del body
        except _BodyError as exc:
            return _error_response(None, -32600, str(exc), exc.status)
        except InvalidMessage as exc:  # checked before any handler runs: nothing else happens
            return _json(exc.reply, 200 if exc.reply["id"] is not None else 400)
        except ValueError as exc:  # bad JSON, a duplicate key, 1e999, a lone surrogate...
            return _error_response(None, -32700, f"Parse error: {exc}", 400)
        method, request_id = message.get("method"), message.get("id")
        try:
            if method == "initialize":
                return await _initialize(table, message)
            named = request.headers.get(SESSION_HEADER)
            session = table.sessions.get(named) if named is not None else None
            if named is not None and session is None:  # expired or deleted: never stateless
                return _error_response(request_id, -32001, UNKNOWN_SESSION, 404)
            if session is None and _modern(request, message):
                session = await table.stateless()
            if session is None:
                return _error_response(
                    request_id, -32001, "Unknown or missing Mcp-Session-Id; initialize first.", 404
                )
            return await _dispatch(request, table, session, message)
        except Busy as exc:  # a JSON-RPC error the client shows, not an HTTP failure it retries
            return _error_response(request_id, -32000, str(exc), 200)
        except Exception as exc:  # this request fails, not the server
            return _json(internal_error_reply(request_id, method, exc), 500)

    async def _dispatch(
        request: Request, table: SessionTable, session: HttpSession, message: dict[str, Any]
    ) -> Response:
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") or {}
        session.last_active = time.monotonic()
        if method == "notifications/cancelled":  # the client's id, translated to the call's key
            key = session.key_of(params.get("requestId"))
            if key is not None:
                table.cancel(session, key)
            return Response(status_code=202)
        if method is None or request_id is None:  # a response to our request, or a notification
            await session.server.handle(message, table.group)
            return Response(status_code=202)
        if method != "tools/call":
            return _json(session.server.answer(request_id, method, params))
        header_key = request.headers.get("idempotency-key")
        if header_key and idempotency_key(params) is None:
            meta = {**(params.get("_meta") or {}), META_IDEMPOTENCY_KEY: header_key}
            params = {**params, "_meta": meta}
        if session.key_of(request_id) is not None:  # cancelling by it would name two calls
            return _json(id_in_use_reply(request_id))
        key, receive = table.begin(session, request_id)
        table.group.start_soon(session.server.tools_call, key, params)
        first = await _quick_message(receive) if _takes_json(request) else None
        if first is not None and _answers(first, key):  # done at once: a plain JSON answer
            table.end(session, key)
            return _json({**first, "id": request_id})
        # a keyed call outlives its connection: its answer is kept for the client's retry
        keep_running = idempotency_key(params) is not None
        stream = _sse(receive, key, session, table, first, keep_running=keep_running)
        return StreamingResponse(stream, media_type="text/event-stream")

    async def _initialize(table: SessionTable, message: dict[str, Any]) -> Response:
        session_id = secrets.token_hex(16)
        http_session = await table.open(session_id)
        server = http_session.server
        reply = server.answer(message.get("id"), "initialize", message.get("params") or {})
        return _json(reply, headers={"Mcp-Session-Id": session_id})

    async def mcp_get(request: Request) -> Response:
        refused = refuse(request)
        if refused is not None:
            return refused
        session = (
            tables[0].sessions.get(request.headers.get(SESSION_HEADER, "")) if tables else None
        )
        if session is None:
            return PlainTextResponse("Unknown or missing Mcp-Session-Id", status_code=404)
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](GENERAL_BUFFER)
        if session.general is not None:
            session.general.close()  # one stream per session: the newest replaces the last
        session.general = send
        return StreamingResponse(_sse(receive, None, session, None), media_type="text/event-stream")

    async def mcp_delete(request: Request) -> Response:
        refused = refuse(request)
        if refused is not None:
            return refused
        closed = tables and await tables[0].close(request.headers.get(SESSION_HEADER, ""))
        if not closed:
            return PlainTextResponse("Unknown or missing Mcp-Session-Id", status_code=404)
        return Response(status_code=204, background=BackgroundTask(give_back))

    app = Starlette(
        routes=[
            Route("/mcp", mcp_post, methods=["POST"]),
            Route("/mcp", mcp_get, methods=["GET"]),
            Route("/mcp", mcp_delete, methods=["DELETE"]),
            Route("/livez", livez),
            Route("/readyz", readyz),
            Route("/metrics", metrics_text),
        ],
        lifespan=lifespan,
    )
    # starlette would answer ``/mcp/`` with a redirect built from the request's own Host
    # header, before any check: every answer but 404 goes through a route's guard
    app.router.redirect_slashes = False
    return app


@dataclass
class _Received:
    size: int = 0
    """Bytes of the request body read so far."""


async def _read_body(request: Request, limits: Limits, received: _Received) -> bytearray:
    """The request body, at most ``limits.max_body`` bytes within ``limits.request_timeout``,
    read into one buffer (not a list of chunks joined at the end: twice the body at once)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.max_body:
        raise _BodyError(413, f"The request body is over {limits.max_body} bytes.")
    body = bytearray()
    with anyio.move_on_after(limits.request_timeout) as scope:
        async for chunk in request.stream():
            received.size += len(chunk)
            if received.size > limits.max_body:
                raise _BodyError(413, f"The request body is over {limits.max_body} bytes.")
            body += chunk
    if scope.cancelled_caught:
        raise _BodyError(408, f"The request body took over {limits.request_timeout:g} s.")
    return body


def _takes_json(request: Request) -> bool:
    """Whether the client accepts a plain JSON answer to a tool call (every MCP client must)."""
    accept = request.headers.get("accept", "")
    return "application/json" in accept or "*/*" in accept


async def _quick_message(
    receive: MemoryObjectReceiveStream[dict[str, Any]],
) -> dict[str, Any] | None:
    """The call's first message if it comes within ``QUICK_ANSWER`` seconds, else None."""
    with anyio.move_on_after(QUICK_ANSWER):
        try:
            return await receive.receive()
        except anyio.EndOfStream:  # the session ended at once; the stream says so
            return None
    return None


async def _sse(
    receive: MemoryObjectReceiveStream[dict[str, Any]],
    key: str | None,
    session: HttpSession,
    table: SessionTable | None,
    first: dict[str, Any] | None = None,
    *,
    keep_running: bool = False,
) -> AsyncIterator[bytes]:
    """Server-sent events until the call ``key`` is answered (forever for the GET stream).

    The answer goes out under the id the client chose. If the client closes the stream
    first, the call is cancelled (the 2026-07-28 wire has no cancel notification over HTTP:
    closing the stream is the signal) and its processes end — unless ``keep_running`` (a call
    with an idempotency key, whose answer waits for the client's retry). A comment goes out
    every second while the call is silent: writing to a closed connection is how a departed
    client is noticed.
    """
    answered = False
    call = session.inflight.get(key) if key is not None else None
    try:
        yield b": open\n\n"  # sends the headers now, so the client sees the call start
        async with receive:
            while True:
                message, first = first, None
                if message is None:
                    with anyio.move_on_after(KEEPALIVE):
                        message = await receive.receive()
                if message is None:
                    yield b": keepalive\n\n"
                    continue
                if call is not None and _answers(message, key):
                    message = {**message, "id": call.client_id}
                    answered = True
                yield b"event: message\ndata: " + encode_message(message) + b"\n\n"
                if answered:
                    return
    except anyio.EndOfStream:
        return
    finally:
        if key is not None and table is not None:
            table.end(session, key)
            if not answered and not keep_running:
                session.server.cancel(key)


def _answers(message: dict[str, Any], key: Any) -> bool:
    """Whether ``message`` is the response to the call running under ``key``."""
    return message.get("id") == key and "method" not in message


def _modern(request: Any, message: dict[str, Any]) -> bool:
    """A 2026-07-28 request: by its version header, or by the version in ``_meta``."""
    if request.headers.get("mcp-protocol-version") in MODERN_VERSIONS:
        return True
    meta = (message.get("params") or {}).get("_meta") or {}
    return meta.get(META_VERSION) in MODERN_VERSIONS or message.get("method") == "server/discover"


def _error_response(request_id: Any, code: int, text: str, status: int) -> Response:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}
    return _json(body, status)


def _json(
    body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """A JSON response whose body is always strict JSON (``envelope.encode_message``)."""
    from starlette.responses import Response

    return Response(encode_message(body), status, headers, media_type="application/json")
