"""The MCP server: toolbelt's registry served over JSON-RPC, with the policy enforced here.

It speaks the initialize handshake (protocol revisions 2024-11-05 … 2025-11-25) without the
MCP SDK — which costs over a second to import — so a client is answered in a few tens of
milliseconds. Every ``tools/call`` goes through the connection's runtime, as in the library and
the CLI: validation, hooks, the permission policy (asking the user through MCP elicitation when
the client supports it), progress notifications, cancellation that kills what the call started.
State — read tracker, shell, todo list, background jobs — lives in one ``Session`` per
connection; closing the connection closes it and ends every process it started.

Read-only calls run concurrently; any other call waits until it can run alone (the
executor's readers–writer gate), so two clients' edits never interleave.
"""

from __future__ import annotations

import json
import time
from typing import Any, Protocol

from anyio.streams.memory import MemoryObjectSendStream

from toolbelt.core.events import Event, ProgressEvent
from toolbelt.core.executor import ToolCall
from toolbelt.core.permission import PermissionRequester
from toolbelt.core.user import UserChannel
from toolbelt.mcp.call_tasks import CallSpawner
from toolbelt.mcp.client_requests import ClientRequests
from toolbelt.mcp.envelope import INVALID_REQUEST, error_reply, internal_error_reply
from toolbelt.mcp.eras import in_era, is_modern
from toolbelt.mcp.idempotency import IdempotentCalls, KeyRefused, idempotency_key
from toolbelt.mcp.inflight import InFlightCall, call_fingerprint
from toolbelt.mcp.notifications import list_changed_message, log_message, progress_message
from toolbelt.mcp.plain_methods import (
    MethodError,
    agreed_version,
    checked_log_level,
    discover_result,
    initialize_result,
    tools_list_result,
)
from toolbelt.mcp.request_states import RequestStates
from toolbelt.mcp.requester import ElicitationRequester
from toolbelt.mcp.revisions import (
    META_CAPABILITIES,
    META_LOG_LEVEL,
    META_VERSION,
    MODERN_VERSIONS,
    SUPPORTED_VERSIONS,
)
from toolbelt.mcp.user_channel import ElicitationUser
from toolbelt.providers.mcp_results import call_result
from toolbelt.runtime import Runtime
from toolbelt.toolsearch.listing import loaded_more, searchable

__all__ = [
    "META_VERSION",
    "MODERN_VERSIONS",
    "SUPPORTED_VERSIONS",
    "UNKNOWN_TOOL",
    "McpServer",
    "OpenRuntime",
    "Outbox",
    "Outgoing",
    "call_id_of",
    "id_in_use_reply",
    "internal_error_reply",
]


Outgoing = tuple[dict[str, Any], Any]
"""A message and the id of the client request it belongs to (None: not tied to a request).
stdio ignores the second part; HTTP uses it to pick the response stream."""
Outbox = MemoryObjectSendStream[Outgoing]

UNKNOWN_TOOL = "(unknown)"
"""What a call of a tool the server does not serve is counted under (``/metrics``)."""


def call_id_of(request_id: Any) -> str:
    """The executor's id for the call a request starts, distinct for ids JSON-RPC tells apart:
    ``1`` is ``mcp-1`` and ``"1"`` is ``mcp-"1"`` (the id as JSON writes it)."""
    if type(request_id) is int:  # most clients' ids: JSON writes an int as str() does, faster
        return f"mcp-{request_id}"
    return f"mcp-{json.dumps(request_id)}"


class OpenRuntime(Protocol):
    """Builds the runtime of one connection, asking the person through the connection:
    ``functools.partial(Runtime, root, mode=...)`` is one."""

    def __call__(self, *, requester: PermissionRequester, user: UserChannel) -> Runtime:
        """The runtime, its permission prompts and tools' questions sent to the client."""
        ...


class CallObserver(Protocol):
    """Told of every tools/call (the HTTP door's ``/metrics``)."""

    def started(self) -> None:
        """A call arrived."""

    def finished(self, tool: str, state: str, seconds: float) -> None:
        """A call was answered in ``state`` (``cancelled``: it got no answer)."""


class McpServer:
    """One MCP connection: its runtime and in-flight requests.

    The connection is how the person is reached — permission prompts and a tool's questions
    become elicitation requests to the client — so the server builds its runtime with its own
    requester and user channel (``open_runtime``), and runs every call through it."""

    def __init__(
        self,
        open_runtime: OpenRuntime,
        outbox: Outbox,
        *,
        stateless: bool = False,
        observer: CallObserver | None = None,
        idempotent: IdempotentCalls | None = None,
    ) -> None:
        self._outbox = outbox
        self.stateless = stateless
        """Every request is of the 2026-07-28 era (the HTTP door's shared stateless server)."""
        self._observer = observer
        self._idempotent = idempotent
        """Keyed calls' answers, shared by the server's sessions (None: keys are ignored)."""
        self.client_capabilities: dict[str, Any] = {}
        self.protocol_version = ""
        """The revision agreed at ``initialize`` (the 2026-07-28 era has none: per request)."""
        self._inflight: dict[str, InFlightCall] = {}
        """Every tools/call running, by the runtime's call id (``call_id_of``)."""
        self._ids_in_use: set[str] = set()
        """The call ids of the tools/call requests received and not yet answered (stdio): a
        request reusing one is refused, so no call loses its record (and its cancellation)."""
        self._calls_cancelled = False
        """Set by ``cancel_calls``: a call that starts afterwards is cancelled at once."""
        self._client_requests = ClientRequests(self._send)
        """What the server asked the client (elicitation) and waits for."""
        self.requester = ElicitationRequester(self)
        self.runtime = open_runtime(requester=self.requester, user=ElicitationUser(self))
        self.session = self.runtime.session
        self._notice = self.runtime.notice
        """Said to the client as a warning once it is initialized (stderr is rarely seen)."""
        self.toolset = self.runtime.toolset
        self._list_changes = searchable(self.toolset)
        """Whether the tool list grows as tool_search loads tools (``tools.listChanged``)."""
        self._log_level = "warning"
        self._notice_told = False
        """Whether a 2026-07-28 request has carried the untrusted-workspace notice."""
        self.runtime.events.subscribe(self._on_event, kinds=(ProgressEvent,))
        self._states = RequestStates()
        """2026-07-28: the ``requestState`` tokens handed out (outlive the request)."""

    async def start(self) -> None:
        """Open the runtime and list its tools (the configured MCP servers start) before the
        first request is read; ``aclose`` closes it. The built-ins alone are not listed here:
        listing them would only import every tool's module before ``initialize`` is answered,
        and ``tools/list`` or a call loads them anyway (``BuiltinToolset``)."""
        await self.runtime.open()
        if not self.runtime.builtins_only:
            await self.toolset.list_tools()

    # -- dispatch ------------------------------------------------------------------------

    async def handle(self, message: dict[str, Any], group: CallSpawner) -> None:
        """Route one incoming message; requests that may take long run in their own task.

        ``message`` has passed ``envelope.check_message``. A handler that fails anyway answers
        its request with an internal error: it never ends the task group, which would end
        every other request and session with it.
        """
        try:
            await self._handle(message, group)
        except Exception as exc:  # one request fails, the server goes on
            await self._internal_error(message.get("id"), message.get("method"), exc)

    async def _handle(self, message: dict[str, Any], group: CallSpawner) -> None:
        method = message.get("method")
        if method is None:
            self._client_requests.deliver(message)
            return
        request_id = message.get("id")
        params = message.get("params") or {}
        if method == "tools/call" and request_id is not None:
            call_id = call_id_of(request_id)
            if call_id in self._ids_in_use:
                await self._send(id_in_use_reply(request_id), request_id)
                return
            self._ids_in_use.add(call_id)
            group.start_soon(self._tools_call_once, call_id, request_id, params)
            return
        if method == "notifications/cancelled":
            self.cancel(params.get("requestId"))
            return
        if method == "notifications/initialized" and self._notice:
            await self.log("warning", self._notice)
        if request_id is None:  # other notifications: initialized, roots changes...
            return
        await self._send(self.answer(request_id, method, params), request_id)

    def answer(self, request_id: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The response to a request that needs no tool call (initialize, list, ping...)."""
        try:
            result = self._immediate(method, params)
        except MethodError as exc:
            return {"jsonrpc": "2.0", "id": request_id, "error": exc.error}
        except Exception as exc:  # one request fails, the server goes on
            return internal_error_reply(request_id, method, exc)
        modern = is_modern(method, params, stateless=self.stateless)
        return {"jsonrpc": "2.0", "id": request_id, "result": in_era(result, modern=modern)}

    def _immediate(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            self.client_capabilities = params.get("capabilities") or {}
            self.protocol_version = agreed_version(params.get("protocolVersion"))
            return initialize_result(self.protocol_version, self._list_changes, self.session.root)
        if method == "server/discover":
            return discover_result(self._list_changes, self.session.root)
        if method == "ping":
            return {"resultType": "complete"}
        if method == "tools/list":
            return tools_list_result(self.toolset, self.session, self.runtime.settings)
        if method == "logging/setLevel":
            self._log_level = checked_log_level(params.get("level"))
            return {}
        raise MethodError(-32601, f"Method not found: {method}")

    # -- tool calls ----------------------------------------------------------------------

    async def tools_call(self, request_id: Any, params: dict[str, Any]) -> None:
        """Run one tools/call; its progress and its response go to the outbox.

        It runs in the connection's (HTTP: the server's) task group, so an exception escaping
        it would end every call of every session: it becomes this request's internal error.
        """
        try:
            await self._tools_call(request_id, params)
        except Exception as exc:  # one request fails, the server goes on
            await self._internal_error(request_id, "tools/call", exc)

    async def _tools_call_once(self, call_id: str, request_id: Any, params: dict[str, Any]) -> None:
        """``tools_call``, its id in use until it is answered."""
        try:
            await self.tools_call(request_id, params)
        finally:
            self._ids_in_use.discard(call_id)

    async def _internal_error(self, request_id: Any, method: Any, exc: Exception) -> None:
        reply = internal_error_reply(request_id, method, exc)
        if request_id is not None:
            await self._send(reply, request_id)

    async def _tools_call(self, request_id: Any, params: dict[str, Any]) -> None:
        if self._observer is None:
            await self._keyed_call(request_id, params)
            return
        started, state = time.monotonic(), ["cancelled"]
        self._observer.started()
        try:
            await self._keyed_call(request_id, params, state)
        finally:
            self._observer.finished(self._metric_name(params), state[0], time.monotonic() - started)

    def _metric_name(self, params: dict[str, Any]) -> str:
        """The tool a call is counted under: its name when this server serves such a tool,
        else ``UNKNOWN_TOOL`` — a client's made-up names never become metric series (each
        name would add a counter and a histogram to every scrape, without end)."""
        name = params.get("name")
        known = isinstance(name, str) and self.toolset.get(name) is not None
        return name if known and isinstance(name, str) else UNKNOWN_TOOL

    async def _keyed_call(
        self, request_id: Any, params: dict[str, Any], state: list[str] | None = None
    ) -> None:
        """A call with its idempotency key (if any) released when it ends without an answer
        for a retry (cancelled, asking by retry, failed): the retry then runs anew."""
        key = idempotency_key(params) if self._idempotent is not None else None
        if key is None:
            await self._observed_call(request_id, params, None, state)
            return
        assert self._idempotent is not None
        claim = [False]
        try:
            await self._observed_call(request_id, params, key, state, claim)
        finally:
            if claim[0]:
                self._idempotent.abandon(key)  # a no-op once the answer was given

    async def _observed_call(
        self,
        request_id: Any,
        params: dict[str, Any],
        key: str | None,
        state: list[str] | None = None,
        claim: list[bool] | None = None,
    ) -> None:
        name = str(params.get("name", ""))
        arguments = params.get("arguments") or {}
        meta = params.get("_meta") or {}
        call = InFlightCall(
            request_id, call_id_of(request_id), progress_token=meta.get("progressToken")
        )
        if meta.get(META_VERSION) in MODERN_VERSIONS:
            call.modern = meta.get(META_CAPABILITIES) or {}
            call.fingerprint = call_fingerprint(name, arguments)
            self._states.take_input_responses(call, params)
        # 2026-07-28: a request opts in to log messages, about itself, by a level in its _meta
        log_level = meta.get(META_LOG_LEVEL) if call.modern is not None else self._log_level
        if call.modern is not None and self._notice and not self._notice_told:
            # no initialized to hang the notice on: the first request that admits it carries it
            self._notice_told = await self._log("warning", self._notice, log_level, request_id)
        replayed: dict[str, Any] | None = None
        self._inflight[call.call_id] = call
        if self._calls_cancelled:
            call.scope.cancel()
        try:  # the executor's gate keeps mutating calls apart across requests
            with call.scope:
                if key is not None:
                    replayed = await self._first_answer(key, call_fingerprint(name, arguments))
                    if claim is not None:
                        claim[0] = replayed is None
                if replayed is None:
                    result = await self.runtime.run_one(ToolCall(call.call_id, name, arguments))
        except KeyRefused as exc:
            error = {"code": -32602, "message": str(exc)}
            await self._send({"jsonrpc": "2.0", "id": request_id, "error": error}, request_id)
            return
        finally:
            self._inflight.pop(call.call_id, None)
        if call.scope.cancelled_caught:
            return  # a cancelled request gets no response
        modern = call.modern is not None or self.stateless
        if replayed is not None:  # a retry: the first run's answer, under this request's id
            if state is not None:
                state[0] = "replayed"
            result_now = in_era(replayed, modern=modern)
            await self._send({"jsonrpc": "2.0", "id": request_id, "result": result_now}, request_id)
            return
        if state is not None:
            state[0] = result.state.value
        if call.input_request is not None:  # the 2026-07-28 way to ask: the client retries
            await self._send(self._states.input_required(call), request_id)
            return
        if result.is_error:
            text = f"{name}: {result.error_kind}: {result.text[:200]}"
            await self._log("info", text, log_level, request_id)
        if self._list_changes and loaded_more(result):  # the client lists the loaded tools
            await self._send(list_changed_message(), request_id)
        answer = call_result(result)  # kept in the modern form: a retry may be of either era
        if claim is not None and claim[0]:
            assert self._idempotent is not None
            assert key is not None
            self._idempotent.finish(key, answer)
        reply = {"jsonrpc": "2.0", "id": request_id, "result": in_era(answer, modern=modern)}
        await self._send(reply, request_id)

    async def _first_answer(self, key: str, fingerprint: tuple[str, str]) -> dict[str, Any] | None:
        """The answer of the call first run under ``key``, waiting while it runs; None when
        this call is the one to run (the key is now claimed for it). ``KeyRefused`` when the key
        named another call or cannot be kept."""
        assert self._idempotent is not None
        while True:
            first = self._idempotent.claim(key, fingerprint)
            if first is None:
                return None
            await first.done.wait()
            if first.result is not None:
                return first.result
            # the first run was cancelled: claim the key again and run it here

    def inflight(self, call_id: str) -> InFlightCall | None:
        """The record of the running call the executor knows as ``call_id``, if any."""
        return self._inflight.get(call_id)

    def _on_event(self, event: Event) -> None:
        assert isinstance(event, ProgressEvent)  # the only kind subscribed to
        call = self._inflight.get(event.call_id)
        if call is None or call.progress_token is None:
            return
        # the outbox is unbounded and keeps the order: progress precedes the response
        self._outbox.send_nowait((progress_message(call, event), call.route))

    async def _send(self, message: dict[str, Any], route: Any = None) -> None:
        # the outbox is unbounded (both doors make it so): queue without yielding to the loop
        self._outbox.send_nowait((message, route))

    # -- requests to the client (elicitation) -------------------------------------------

    async def request(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float,  # noqa: ASYNC109 - the client's deadline to answer, not the caller's
        route: Any = None,
    ) -> dict[str, Any]:
        """Send a request to the client and wait for its result (``{}`` on error or timeout).

        Once the client's input has ended nothing can answer, so the result is ``{}`` at once.
        """
        return await self._client_requests.request(method, params, timeout=timeout)

    def end_of_input(self) -> None:
        """The client sends nothing more: requests waiting for its answer get none, now."""
        self._client_requests.end_of_input()

    async def log(self, level: str, text: str) -> None:
        """Send a log message when its level is at or above the client's chosen level."""
        await self._log(level, text, self._log_level, None)

    async def _log(self, level: str, text: str, threshold: Any, route: Any) -> bool:
        """Send a log message, on ``route``'s stream, if ``threshold`` (a level the client
        chose; None: it asked for no logs) lets it through; True when it was sent."""
        message = log_message(level, text, threshold)
        if message is None:
            return False
        await self._send(message, route)
        return True

    def cancel(self, request_id: Any) -> None:
        """Cancel a running call (its response stream was closed, or the client said so)."""
        call = self._inflight.get(call_id_of(request_id))
        if call is not None and call.request_id == request_id:
            call.scope.cancel()

    @property
    def busy(self) -> bool:
        """True while a tool call is in flight."""
        return bool(self._inflight)

    def cancel_calls(self) -> None:
        """Cancel every call running and every call that starts from now on (the connection
        ends): each through its own scope, so what a tool cleans up, shielded, it finishes."""
        self._calls_cancelled = True
        for call in list(self._inflight.values()):
            call.scope.cancel()

    async def aclose(self) -> None:
        """Cancel what runs and end every process the session started."""
        self.cancel_calls()
        await self.runtime.aclose()


def id_in_use_reply(request_id: Any) -> dict[str, Any]:
    """The error for a tools/call whose id names a call still running: it does not run."""
    text = (
        f"Invalid Request: the id {json.dumps(request_id)} is in use by a call still running; "
        "send each request with a fresh id."
    )
    return error_reply(request_id, INVALID_REQUEST, text)
