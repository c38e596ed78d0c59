"""A legacy SSE server's unreadable message fails the request it answers, at once.

Over the older SSE transport every answer arrives on one event stream. When an event cannot be
read — JSON nested past the parser's depth, bytes that are not UTF-8, a shape that is no
JSON-RPC message — the SDK logs a traceback and passes the error on to the session, which only
logs it: the call it answered waited out its whole timeout (300 s by default) and then said
nothing of the cause (issue #32). Over streamable HTTP the same message fails its request at
once, because each request has its own stream.

``guarded`` sits between the SSE transport and the session: an unreadable event whose request
id can still be read (from the parsed object, or the first characters of the raw text) becomes
that request's JSON-RPC error, naming the cause in one line; one whose id cannot be read goes
on as before (the session's message handler sees it).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError
from pydantic import ValidationError

__all__ = ["PARSE_ERROR", "UNREADABLE", "guarded", "unreadable_cause"]

PARSE_ERROR = -32700
UNREADABLE = "it sent a message toolbelt cannot read"
_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")')


def unreadable_cause(exc: BaseException) -> str:
    """What made a message unreadable, in one line: for a message that parsed but is no
    JSON-RPC message, the problem of the kind it claims to be (a ``result`` makes it a
    response)."""
    if not isinstance(exc, ValidationError):
        first = (str(exc).strip().splitlines() or [""])[0]
        return f"{type(exc).__name__}: {first}"[:300]
    errors = exc.errors()
    if not errors:
        return str(exc).replace("\n", " ")[:300]
    claimed = _claimed_kind(errors[0].get("input"))
    chosen = next((e for e in errors if e["loc"][:1] == (claimed,)), errors[0])
    where = ".".join(str(part) for part in chosen["loc"][1:]) if claimed else ""
    text = f"`{where}`: {chosen['msg']}" if where else chosen["msg"]
    return " ".join(text.split())[:300]


def _claimed_kind(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return None
    if "method" in raw:
        return "JSONRPCRequest" if "id" in raw else "JSONRPCNotification"
    return "JSONRPCError" if "error" in raw else "JSONRPCResponse"


def _request_id(exc: BaseException) -> int | str | None:
    """The id of the message that could not be read, when it can still be seen."""
    if not isinstance(exc, ValidationError):
        return None
    for error in exc.errors():
        raw: Any = error.get("input")
        if isinstance(raw, dict):
            found = raw.get("id")
            if isinstance(found, int | str) and not isinstance(found, bool):
                return found
        elif isinstance(raw, str | bytes):
            text = raw[:400].decode("utf-8", "replace") if isinstance(raw, bytes) else raw[:400]
            match = _ID.search(text)
            if match is not None:
                value = match.group(1)
                return int(value) if not value.startswith('"') else value[1:-1]
    return None


def _as_error(exc: BaseException) -> SessionMessage | BaseException:
    request_id = _request_id(exc)
    if request_id is None:
        return exc
    text = f"{UNREADABLE} ({unreadable_cause(exc)})"
    error = ErrorData(code=PARSE_ERROR, message=text)
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


@asynccontextmanager
async def guarded(transport: AbstractAsyncContextManager[Any]) -> AsyncIterator[Any]:
    """``transport`` (the SDK's ``sse_client``) with unreadable events turned into errors."""
    async with transport as (read, write):
        send, receive = anyio.create_memory_object_stream[SessionMessage | BaseException](0)

        async def pump() -> None:
            async with send:
                async for item in read:
                    await send.send(_as_error(item) if isinstance(item, BaseException) else item)

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            try:
                yield receive, write
            finally:
                group.cancel_scope.cancel()
