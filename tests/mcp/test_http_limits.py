"""What the HTTP door holds at once and for how long: sessions, calls, bodies, slow clients."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.mcp.http_server import HttpServer, start
from tests.support.mcp_requests import INITIALIZE
from tests.support.processes import alive
from tests.support.waiting import wait_until_async

pytestmark = pytest.mark.anyio

STREAM = {"accept": "application/json, text/event-stream"}


def modern_call(command: str, request_id: int = 1) -> dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    params = {"name": "bash", "arguments": {"command": command}, "_meta": meta}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def raw(server: HttpServer, data: bytes, *, close_after: bool = False) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(data)
        if close_after:
            sock.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


def test_a_body_over_the_cap_is_refused_with_413(tmp_path: Path) -> None:
    server = start(tmp_path)
    try:
        big = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "' + b"x" * (17 << 20) + b'"}'
        declared = httpx.post(
            server.url,
            content=big,
            headers={**server.headers, "content-type": "application/json"},
            timeout=30,
        )
        assert declared.status_code == 413
        assert declared.json()["error"]["message"] == "The request body is over 16777216 bytes."

        def chunks() -> Any:  # no Content-Length: the cap holds while reading
            for start_at in range(0, len(big), 1 << 20):
                yield big[start_at : start_at + (1 << 20)]

        streamed = httpx.post(
            server.url,
            content=chunks(),
            headers={**server.headers, "content-type": "application/json"},
            timeout=30,
        )
        assert streamed.status_code == 413
    finally:
        server.stop()


def test_slow_headers_and_slow_bodies_are_cut_off_even_without_a_token(tmp_path: Path) -> None:
    server = start(tmp_path, "--request-timeout", "1")
    try:
        # headers never finished, no token: the connection is closed with nothing sent
        assert raw(server, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n") == b""
        # nothing at all
        assert raw(server, b"") == b""
        # complete headers, a body that never comes
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Authorization: Bearer {server.token}\r\nContent-Type: application/json\r\n"
            "Content-Length: 100\r\n\r\n{"
        ).encode()
        reply = raw(server, head)
        status, _, rest = reply.partition(b"\r\n")
        assert status == b"HTTP/1.1 408 Request Timeout"
        assert b"The request body took over 1 s." in rest
        # no token: refused before the body is read, and the connection does not linger
        unauthenticated = head.replace(f"Bearer {server.token}".encode(), b"Bearer wrong")
        status = raw(server, unauthenticated).partition(b"\r\n")[0]
        assert status == b"HTTP/1.1 401 Unauthorized"
    finally:
        server.stop()


async def test_caps_on_sessions_and_calls_answer_with_an_error_not_a_wait(tmp_path: Path) -> None:
    server = start(tmp_path, "--mode", "bypass", "--max-sessions", "2", "--max-calls", "1")
    mark = f"5151{os.getpid()}"
    try:
        async with httpx.AsyncClient(timeout=30, headers=server.headers) as http:
            opened = [await http.post(server.url, json=INITIALIZE) for _ in range(3)]
            assert [r.status_code for r in opened[:2]] == [200, 200]
            assert opened[2].json()["error"] == {
                "code": -32000,
                "message": "The server already has 2 sessions; end one (DELETE /mcp) or retry "
                "once an idle one has expired.",
            }
            ended = await http.delete(
                server.url, headers={"mcp-session-id": opened[0].headers["mcp-session-id"]}
            )
            assert ended.status_code == 204
            assert "result" in (await http.post(server.url, json=INITIALIZE)).json()

            headers = {**STREAM, "mcp-protocol-version": "2026-07-28"}
            async with http.stream(
                "POST", server.url, json=modern_call(f"sleep 5{mark}"), headers=headers
            ):
                await wait_until_async(lambda: alive(f"sleep 5{mark}"), "the call to start")
                second = await http.post(
                    server.url, json=modern_call("echo hi", 2), headers=headers
                )
            assert second.json() == {
                "jsonrpc": "2.0",
                "id": 2,
                "error": {
                    "code": -32000,
                    "message": "The server is already running 1 calls; retry when one has "
                    "finished.",
                },
            }
    finally:
        server.stop()


async def test_an_idle_session_ends_with_the_jobs_it_started(tmp_path: Path) -> None:
    server = start(tmp_path, "--mode", "bypass", "--session-idle-timeout", "4")
    mark = f"5252{os.getpid()}"
    try:
        async with httpx.AsyncClient(timeout=30, headers=server.headers) as http:
            opened = await http.post(server.url, json=INITIALIZE)
            session = {**STREAM, "mcp-session-id": opened.headers["mcp-session-id"]}
            body = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {
                    "name": "bash",
                    "arguments": {"command": f"sleep 6{mark}", "run_in_background": True},
                },
            }
            started = await http.post(server.url, json=body, headers=session)
            assert "Started in the background" in started.text
            assert alive(f"sleep 6{mark}")
            # the client never comes back: the session expires and its job ends with it
            await wait_until_async(
                lambda: not alive(f"sleep 6{mark}"), "the idle session's job to end"
            )
            gone = await http.post(
                server.url,
                json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
                headers=session,
            )
            assert gone.status_code == 404
            assert json.loads(gone.text)["error"]["code"] == -32001
    finally:
        server.stop()
