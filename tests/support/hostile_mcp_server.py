"""An MCP server on 127.0.0.1 that attacks its client, for the MCP client's tests (issue #32).

``python hostile_mcp_server.py PORT BEHAVIOUR [N]`` serves streamable HTTP (2025-11-25, with
a session id) at ``/mcp`` and the legacy SSE transport at ``/sse`` + ``/messages``, written
out by hand so that it can send what no SDK server would. Every behaviour keeps an ``echo``
tool that answers at once; ``GET /stats`` reports what the client did (requests counted per
method, answers to the server's own requests and the most in flight at once, GET streams
opened, the most ``tools/list`` requests in flight at once) as JSON.

Behaviours (``N`` sizes each):

- ``tools``: ``tools/list`` lists ``N`` small tools (one page).
- ``list_changed``: tool ``spam`` sends ``N`` ``notifications/tools/list_changed`` on its
  stream, then its result; every ``tools/list`` takes 50 ms to answer.
- ``flood``: tool ``flood`` sends ``N`` server-to-client requests (elicitation, sampling and
  roots in turn) on its stream and then, without waiting for any answer, its result; each
  answer POST takes 20 ms to be accepted.
- ``images``: tool ``images`` answers with ``N`` PNG images of 1 KiB each, and
  ``one_image`` with one image of 6 MiB.
- ``bad_sse``: over legacy SSE, tool ``deep`` is answered with JSON nested 100,000 levels
  deep and ``bad_utf8`` with bytes that are not UTF-8.
- ``retry0``: the session's GET stream says ``retry: 0`` and ends at once, every time; so
  does a call of ``drop`` (an event with an id, then the end, never a result).
"""

from __future__ import annotations

import base64
import json
import secrets
import sys
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

BEHAVIOUR = sys.argv[2] if len(sys.argv) > 2 else "tools"
N = int(sys.argv[3]) if len(sys.argv) > 3 else 10
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(1016)).decode()

stats: dict[str, Any] = {
    "methods": Counter(),
    "answers": 0,
    "gets": 0,
    "max_pending": 0,
    "max_listings": 0,
}
pending_answers = 0
listings = 0


def tool(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"Tool {name}.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    }


def listed_tools() -> list[dict[str, Any]]:
    if BEHAVIOUR == "tools":
        return [tool(f"t{i}") for i in range(N)]
    return [tool(name) for name in ("echo", "spam", "flood", "images", "one_image", "deep")] + [
        tool(name) for name in ("bad_utf8", "drop")
    ]


def reply(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def text_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


def event(message: dict[str, Any] | bytes, event_id: str | None = None) -> bytes:
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    head = f"id: {event_id}\n".encode() if event_id else b""
    return head + b"event: message\ndata: " + data + b"\n\n"


def server_requests(count: int) -> list[dict[str, Any]]:
    kinds = [
        ("elicitation/create", {"message": "name?", "requestedSchema": {"type": "object"}}),
        (
            "sampling/createMessage",
            {
                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                "maxTokens": 5,
            },
        ),
        ("roots/list", {}),
    ]
    return [
        {"jsonrpc": "2.0", "id": f"s{i}", "method": kinds[i % 3][0], "params": kinds[i % 3][1]}
        for i in range(count)
    ]


async def call_stream(request_id: Any, name: str) -> AsyncIterator[bytes]:
    """The event stream answering a tools/call of ``name``."""
    if name == "spam":
        for _ in range(N):
            yield event({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    elif name == "flood":
        for message in server_requests(N):
            yield event(message)
    elif name == "drop":
        yield b"id: e1\nretry: 0\ndata: \n\n"
        return
    yield event(reply(request_id, text_result(f"{name}: done")))


def result_of(request_id: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any] | bytes:
    """A tools/call answered with one JSON body (or raw bytes for the broken ones)."""
    if name == "images":
        blocks = [{"type": "image", "data": PNG, "mimeType": "image/png"} for _ in range(N)]
        return reply(request_id, {"content": blocks, "isError": False})
    if name == "one_image":
        data = base64.b64encode(bytes(6 * 1024 * 1024)).decode()
        return reply(
            request_id, {"content": [{"type": "image", "data": data, "mimeType": "image/png"}]}
        )
    if name == "deep":
        deep = "[" * 100_000 + "]" * 100_000
        return f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"result":{deep}}}'.encode()
    if name == "bad_utf8":
        return (
            b'{"jsonrpc":"2.0","id":' + json.dumps(request_id).encode() + b',"result":"\xff\xfe"}'
        )
    return reply(request_id, text_result(f"echo: {arguments.get('text', '')}"))


SESSION = secrets.token_hex(8)


async def mcp_post(request: Request) -> Response:
    global pending_answers
    message = json.loads(await request.body())
    method, request_id = message.get("method"), message.get("id")
    if method is None:  # an answer to one of our requests
        stats["answers"] += 1
        pending_answers += 1
        stats["max_pending"] = max(stats["max_pending"], pending_answers)
        try:
            if BEHAVIOUR == "flood":
                await anyio.sleep(0.02)
        finally:
            pending_answers -= 1
        return Response(status_code=202)
    stats["methods"][method] += 1
    if request_id is None:
        return Response(status_code=202)
    headers = {"mcp-session-id": SESSION}
    if method == "initialize":
        capabilities = {"tools": {"listChanged": True}}
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "serverInfo": {"name": "hostile", "version": "1"},
        }
        return JSONResponse(reply(request_id, result), headers=headers)
    if method == "tools/list":
        global listings
        listings += 1
        stats["max_listings"] = max(stats["max_listings"], listings)
        try:
            if BEHAVIOUR == "list_changed":
                await anyio.sleep(0.05)
        finally:
            listings -= 1
        return JSONResponse(reply(request_id, {"tools": listed_tools()}), headers=headers)
    if method == "tools/call":
        params = message.get("params") or {}
        name = params.get("name", "")
        if name in ("spam", "flood", "drop"):
            return StreamingResponse(
                call_stream(request_id, name), media_type="text/event-stream", headers=headers
            )
        answer = result_of(request_id, name, params.get("arguments") or {})
        body = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
        return Response(body, media_type="application/json", headers=headers)
    return JSONResponse(reply(request_id, {}), headers=headers)


async def mcp_get(request: Request) -> Response:
    stats["gets"] += 1
    if BEHAVIOUR != "retry0":
        return Response(status_code=405)

    async def once() -> AsyncIterator[bytes]:
        yield b"id: g1\nretry: 0\ndata: \n\n"

    return StreamingResponse(once(), media_type="text/event-stream")


async def mcp_delete(request: Request) -> Response:
    return Response(status_code=204)


# -- legacy SSE: one event stream for everything, requests POSTed to /messages ---------------

_legacy: list[anyio.abc.ObjectSendStream[bytes]] = []


async def sse(request: Request) -> Response:
    send, receive = anyio.create_memory_object_stream[bytes](1000)
    _legacy.append(send)

    async def events() -> AsyncIterator[bytes]:
        yield b"event: endpoint\ndata: /messages?session_id=" + SESSION.encode() + b"\n\n"
        async with receive:
            async for chunk in receive:
                yield chunk

    return StreamingResponse(events(), media_type="text/event-stream")


async def messages(request: Request) -> Response:
    message = json.loads(await request.body())
    method, request_id = message.get("method"), message.get("id")
    if method is not None:
        stats["methods"][method] += 1
    if request_id is None or method is None:
        return Response(status_code=202)
    if method == "initialize":
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile-sse", "version": "1"},
        }
        answer: dict[str, Any] | bytes = reply(request_id, result)
    elif method == "tools/list":
        answer = reply(request_id, {"tools": listed_tools()})
    elif method == "tools/call":
        params = message.get("params") or {}
        answer = result_of(request_id, params.get("name", ""), params.get("arguments") or {})
    else:
        answer = reply(request_id, {})
    for stream in _legacy:
        await stream.send(event(answer))
    return Response(status_code=202)


async def stats_page(request: Request) -> Response:
    return JSONResponse({**stats, "methods": dict(stats["methods"])})


app = Starlette(
    routes=[
        Route("/mcp", mcp_post, methods=["POST"]),
        Route("/mcp", mcp_get, methods=["GET"]),
        Route("/mcp", mcp_delete, methods=["DELETE"]),
        Route("/sse", sse),
        Route("/messages", messages, methods=["POST"]),
        Route("/stats", stats_page),
    ]
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
