"""The MCP server: toolbelt's registry served over JSON-RPC, with the policy enforced here.

It speaks the initialize handshake (protocol revisions 2024-11-05 … 2025-11-25) without the
MCP SDK — which costs over a second to import — so a client is answered in a few tens of
milliseconds. Every ``tools/call`` goes through the same executor as the library and the CLI:
validation, hooks, the permission policy (asking the user through MCP elicitation when the
client supports it), progress notifications, cancellation that kills what the call started.
State — read tracker, shell, todo list, background jobs — lives in one ``Session`` per
connection; closing the connection closes it and ends every process it started.

Read-only calls run concurrently; any other call waits until it can run alone (the
executor's readers–writer gate), so two clients' edits never interleave.
"""

from __future__ import annotations

import json
import secrets
import sys
import traceback
from typing import Any

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectSendStream

from toolbelt.core.events import Event, ProgressEvent
from toolbelt.core.executor import ToolCall
from toolbelt.mcp.envelope import error_reply
from toolbelt.mcp.requester import ElicitationRequester
from toolbelt.mcp.results import call_result
from toolbelt.mcp.user_channel import ElicitationUser
from toolbelt.providers.formats import mcp_tool
from toolbelt.runtime import Runtime

__all__ = ["SUPPORTED_VERSIONS", "McpServer", "internal_error_reply"]

SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
MODERN_VERSIONS = ("2026-07-28",)
"""The stateless era: no initialize; each request carries its version and the client's
capabilities in ``_meta``; the server asks the user with an ``input_required`` result."""
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

Outgoing = tuple[dict[str, Any], Any]
"""A message and the id of the client request it belongs to (None: not tied to a request).
stdio ignores the second part; HTTP uses it to pick the response stream."""
Outbox = MemoryObjectSendStream[Outgoing]


class McpServer:
    """One MCP connection: its session, executor and in-flight requests."""

    def __init__(self, runtime: Runtime, outbox: Outbox) -> None:
        self.runtime = runtime
        self.session = runtime.session
        self._outbox = outbox
        self._notice = runtime.notice
        """Said to the client as a warning once it is initialized (stderr is rarely seen)."""
        self.toolset = runtime.toolset
        self.client_capabilities: dict[str, Any] = {}
        self.protocol_version = ""
        """The revision agreed at ``initialize`` (the 2026-07-28 era has none: per request)."""
        self.requester = ElicitationRequester(self, mode=runtime.mode)
        runtime.use_requester(self.requester)
        runtime.executor.user = ElicitationUser(self)
        self.executor = runtime.executor
        self._calls: dict[Any, anyio.CancelScope] = {}
        self._progress: dict[str, Any] = {}
        self._replies: dict[int, tuple[anyio.Event, list[dict[str, Any]]]] = {}
        self._next_id = 0
        self._input_ended = False
        self._log_level = "warning"
        self._notice_told = False
        """Whether a 2026-07-28 request has carried the untrusted-workspace notice."""
        self.executor.events.subscribe(self._on_event)
        self._sent_progress: dict[str, int] = {}
        self._modern: dict[str, dict[str, Any]] = {}
        self._answers: dict[str, tuple[str, dict[str, Any]]] = {}
        self._states: dict[str, tuple[str, str, str]] = {}
        self._input_needed: dict[str, tuple[str, str, dict[str, Any]]] = {}
        self._raw_calls: dict[str, tuple[str, str]] = {}

    # -- dispatch ------------------------------------------------------------------------

    async def handle(self, message: dict[str, Any], group: anyio.abc.TaskGroup) -> None:
        """Route one incoming message; requests that may take long run in their own task.

        ``message`` has passed ``envelope.check_message``. A handler that fails anyway answers
        its request with an internal error: it never ends the task group, which would end
        every other request and session with it.
        """
        try:
            await self._handle(message, group)
        except Exception as exc:  # one request fails, the server goes on
            await self._internal_error(message.get("id"), message.get("method"), exc)

    async def _handle(self, message: dict[str, Any], group: anyio.abc.TaskGroup) -> None:
        method = message.get("method")
        if method is None:
            self._deliver_reply(message)
            return
        request_id = message.get("id")
        params = message.get("params") or {}
        if method == "tools/call" and request_id is not None:
            group.start_soon(self.tools_call, request_id, params)
            return
        if method == "notifications/cancelled":
            scope = self._calls.get(params.get("requestId"))
            if scope is not None:
                scope.cancel()
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
        except _MethodError as exc:
            return {"jsonrpc": "2.0", "id": request_id, "error": exc.error}
        except Exception as exc:  # one request fails, the server goes on
            return internal_error_reply(request_id, method, exc)
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def _immediate(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            self.client_capabilities = params.get("capabilities") or {}
            asked = params.get("protocolVersion")
            version = asked if asked in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[0]
            self.protocol_version = version
            return {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}, "logging": {}},
                "serverInfo": {"name": "toolbelt", "title": "toolbelt", "version": _version()},
                "instructions": self._instructions(),
            }
        if method == "server/discover":
            return {
                "supportedVersions": list(MODERN_VERSIONS),
                "capabilities": {"tools": {"listChanged": False}, "logging": {}},
                "instructions": self._instructions(),
                "resultType": "complete",
                "ttlMs": 0,
                "cacheScope": "private",
                "_meta": {META_SERVER_INFO: {"name": "toolbelt", "version": _version()}},
            }
        if method == "ping":
            return {"resultType": "complete"}
        if method == "tools/list":
            # resultType, ttlMs and cacheScope are required on the 2026-07-28 wire, ignored before
            tools = [mcp_tool(tool) for tool in self.toolset]
            return {"tools": tools, "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
        if method == "logging/setLevel":
            level = params.get("level")
            if level not in LOG_LEVELS:
                raise _MethodError(-32602, f"Unknown log level {level!r}; use one of {LOG_LEVELS}.")
            self._log_level = level
            return {}
        raise _MethodError(-32601, f"Method not found: {method}")

    def _instructions(self) -> str:
        return (
            f"Coding tools for the workspace {self.session.root}: read, search, edit files and "
            "run commands."
        )

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

    async def _internal_error(self, request_id: Any, method: Any, exc: Exception) -> None:
        reply = internal_error_reply(request_id, method, exc)
        if request_id is not None:
            await self._send(reply, request_id)

    async def _tools_call(self, request_id: Any, params: dict[str, Any]) -> None:
        name = str(params.get("name", ""))
        arguments = params.get("arguments") or {}
        call_id = f"mcp-{request_id}"
        token = (params.get("_meta") or {}).get("progressToken")
        if token is not None:
            self._progress[call_id] = token
        meta = params.get("_meta") or {}
        if meta.get(META_VERSION) in MODERN_VERSIONS:
            self._modern[call_id] = meta.get(META_CAPABILITIES) or {}
            self._raw_calls[call_id] = (name, json.dumps(arguments, sort_keys=True))
            self._take_input_responses(call_id, name, arguments, params)
        # 2026-07-28: a request opts in to log messages, about itself, by a level in its _meta
        modern = call_id in self._modern
        log_level = meta.get(META_LOG_LEVEL) if modern else self._log_level
        if modern and self._notice and not self._notice_told:  # no initialized to hang it on
            self._notice_told = await self._log("warning", self._notice, log_level, request_id)
        with anyio.CancelScope() as scope:
            self._calls[request_id] = scope
            try:  # the executor's gate keeps mutating calls apart across requests
                result = await self.executor.run_one(ToolCall(call_id, name, arguments))
            finally:
                self._calls.pop(request_id, None)
                self._progress.pop(call_id, None)
                self._sent_progress.pop(call_id, None)
                self._modern.pop(call_id, None)
                self._answers.pop(call_id, None)
                self._raw_calls.pop(call_id, None)
        if scope.cancelled_caught:
            self._input_needed.pop(call_id, None)
            return  # a cancelled request gets no response
        needed = self._input_needed.pop(call_id, None)
        if needed is not None:  # the 2026-07-28 way to ask: the client retries with the answer
            token, key, elicitation = needed
            requests = {key: {"method": "elicitation/create", "params": elicitation}}
            asking = {
                "resultType": "input_required",
                "inputRequests": requests,
                "requestState": token,
            }
            await self._send({"jsonrpc": "2.0", "id": request_id, "result": asking}, request_id)
            return
        if result.is_error:
            text = f"{name}: {result.error_kind}: {result.text[:200]}"
            await self._log("info", text, log_level, request_id)
        reply = {"jsonrpc": "2.0", "id": request_id, "result": call_result(result)}
        await self._send(reply, request_id)

    def _take_input_responses(
        self, call_id: str, name: str, arguments: Any, params: dict[str, Any]
    ) -> None:
        """A retry after ``input_required``: keep the user's answer for whoever asked it (the
        permission prompt, or a tool's question), under the key it was asked with."""
        token = params.get("requestState")
        pending = self._states.pop(token, None) if isinstance(token, str) else None
        if pending is None:
            return
        tool, args_text, key = pending
        if (tool, json.dumps(arguments, sort_keys=True)) != (name, args_text):
            return  # the state belongs to another call: ask again
        answer = (params.get("inputResponses") or {}).get(key)
        if isinstance(answer, dict):
            self._answers[call_id] = (key, answer)

    def modern_call(self, call_id: str) -> dict[str, Any] | None:
        """The client's capabilities when ``call_id`` came in the 2026-07-28 era, else None."""
        return self._modern.get(call_id)

    def take_answer(self, call_id: str, key: str = "permission") -> dict[str, Any] | None:
        """The elicitation answer a retried call carried for ``key``, if any."""
        kept = self._answers.get(call_id)
        if kept is None or kept[0] != key:
            return None
        del self._answers[call_id]
        return kept[1]

    def need_input(
        self, call_id: str, elicitation: dict[str, Any], key: str = "permission"
    ) -> None:
        """Record that this call must be answered with ``input_required``.

        The retry is recognised by an opaque token bound to the call as the client sent it
        (tool name and raw arguments), so an answer can never approve a different call.
        """
        token = secrets.token_urlsafe(16)
        name, args_text = self._raw_calls[call_id]
        self._states[token] = (name, args_text, key)
        self._input_needed[call_id] = (token, key, elicitation)

    def _on_event(self, event: Event) -> None:
        if not isinstance(event, ProgressEvent):
            return
        token = self._progress.get(event.call_id)
        if token is None:
            return
        count = self._sent_progress.get(event.call_id, 0) + 1
        self._sent_progress[event.call_id] = count
        params: dict[str, Any] = {
            "progressToken": token,
            "progress": count,
            "message": event.message,
        }
        if event.fraction is not None:
            params.update(progress=event.fraction, total=1.0)
        message = {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}
        # the outbox is unbounded and keeps the order: progress precedes the response
        self._outbox.send_nowait((message, _request_of(event.call_id)))

    async def _send(self, message: dict[str, Any], route: Any = None) -> None:
        await self._outbox.send((message, route))

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

    def _deliver_reply(self, message: dict[str, Any]) -> None:
        pending = self._replies.get(message.get("id"))  # type: ignore[arg-type]
        if pending is not None:
            pending[1].append(message)
            pending[0].set()

    def end_of_input(self) -> None:
        """The client sends nothing more: requests waiting for its answer get none, now."""
        self._input_ended = True
        for arrived, _ in self._replies.values():
            arrived.set()

    async def log(self, level: str, text: str) -> None:
        """Send a log message when its level is at or above the client's chosen level."""
        await self._log(level, text, self._log_level, None)

    async def _log(self, level: str, text: str, threshold: Any, route: Any) -> bool:
        """Send a log message, on ``route``'s stream, if ``threshold`` (a level the client
        chose; None: it asked for no logs) lets it through; True when it was sent."""
        if threshold not in LOG_LEVELS or LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):
            return False
        params = {"level": level, "logger": "toolbelt", "data": text}
        message = {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
        await self._send(message, route)
        return True

    def cancel(self, request_id: Any) -> None:
        """Cancel a running call (its response stream was closed, or the client said so)."""
        scope = self._calls.get(request_id)
        if scope is not None:
            scope.cancel()

    @property
    def busy(self) -> bool:
        """True while a tool call is in flight."""
        return bool(self._calls)

    async def aclose(self) -> None:
        """Cancel what runs and end every process the session started."""
        for scope in list(self._calls.values()):
            scope.cancel()
        await self.runtime.aclose()


def _request_of(call_id: str) -> Any:
    """The client's request id behind an executor call id (``mcp-<id>``)."""
    return call_id.removeprefix("mcp-")


def internal_error_reply(request_id: Any, method: Any, exc: Exception) -> dict[str, Any]:
    """The JSON-RPC internal error for a request whose handler failed; the traceback goes to
    stderr, for whoever runs the server, and the client is told the request alone failed."""
    print(f"toolbelt mcp: {method} (id {request_id!r}) failed:", file=sys.stderr)
    traceback.print_exception(exc, file=sys.stderr)
    text = f"Internal error in {method}: {type(exc).__name__}; the request was not carried out."
    return error_reply(request_id, -32603, text)


class _MethodError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.error = {"code": code, "message": message}


def _version() -> str:
    from importlib.metadata import version

    return version("toolbelt")
