"""Hostile clients of the HTTP door (issue #32, items 1, 2 and 4), through the real server.

A cancelled call must end its stream and free its ``--max-calls`` slot at once; a stateless
(2026-07-28) client must not be able to cancel another's call by reusing its id; an expired
or deleted session id must never be served as the shared stateless session. Beside each
attack a well-behaved client (the official ``mcp.Client``) keeps being served.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from tests.mcp.http_server import HttpServer, start
from tests.support.mcp_requests import INITIALIZE
from tests.support.processes import alive

pytestmark = pytest.mark.anyio

STREAM = {"accept": "application/json, text/event-stream"}
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


def bash_call(command: str, request_id: int, *, modern: bool) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "bash", "arguments": {"command": command}}
    if modern:
        params["_meta"] = MODERN
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def cancelled(request_id: int, *, modern: bool = False) -> dict[str, Any]:
    params: dict[str, Any] = {"requestId": request_id}
    if modern:
        params["_meta"] = MODERN
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}


async def until(condition: Callable[[], bool], seconds: float = 10) -> None:
    with anyio.fail_after(seconds):
        while not condition():
            await anyio.sleep(0.02)


async def messages(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON-RPC messages of an event stream, until the server ends it."""
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            yield json.loads(line.removeprefix("data: "))


async def well_behaved(server: HttpServer, calls: int = 3, mode: str = "auto") -> list[str]:
    """An official client's think calls, each bounded: what a bystander gets meanwhile."""
    texts = []
    async with server.client(mode=mode) as client:
        for _ in range(calls):
            with anyio.fail_after(10):
                result = await client.call_tool("think", {"thought": "still served"})
            texts.append(result.content[0].text)  # type: ignore[union-attr]
    return texts


async def test_cancelled_calls_end_their_streams_and_free_their_slots_at_once(
    tmp_path: Path,
) -> None:
    """``--max-calls 3`` and three cancelled calls: every later call still runs."""
    server = start(tmp_path, "--mode", "bypass", "--max-calls", "3")
    mark = f"3201{os.getpid()}"
    try:
        async with httpx.AsyncClient(timeout=30, headers=server.headers) as http:
            opened = await http.post(server.url, json=INITIALIZE)
            session = {**STREAM, "mcp-session-id": opened.headers["mcp-session-id"]}
            for round_ in range(2):  # twice the cap: a slot that leaked would show
                for i in range(3):
                    command = f"sleep 3{round_}{i}{mark}"
                    call = bash_call(command, 10 + i, modern=False)
                    async with http.stream("POST", server.url, json=call, headers=session) as got:
                        await until(lambda command=command: alive(command))
                        cancel = await http.post(
                            server.url, json=cancelled(10 + i), headers=session
                        )
                        assert cancel.status_code == 202
                        with anyio.fail_after(5):  # the stream ends, with no answer
                            seen = [m async for m in messages(got)]
                        assert seen == []
                    await until(lambda command=command: not alive(command))
                assert await well_behaved(server) == ["Thought recorded."] * 3
            # the session, nothing in flight, still answers; its calls are all gone
            listed = await http.post(
                server.url, json={"jsonrpc": "2.0", "id": 99, "method": "ping"}, headers=session
            )
            assert listed.json()["result"] == {}  # a session-era ping: no modern-only field
    finally:
        server.stop()


async def test_a_stateless_client_cannot_cancel_another_clients_call(tmp_path: Path) -> None:
    """Client A's call has id 1; client B (no session either) cancels id 1: A is answered."""
    server = start(tmp_path, "--mode", "bypass")
    mark = f"3202{os.getpid()}"
    gate, started = tmp_path / "go", tmp_path / "started"
    waiting = f"touch {started}; while [ ! -e {gate} ]; do sleep 0.05; done; echo A-done {mark}"
    headers = {**server.headers, **STREAM, "mcp-protocol-version": "2026-07-28"}
    try:
        async with httpx.AsyncClient(timeout=30) as a, httpx.AsyncClient(timeout=30) as b:
            call = bash_call(waiting, 1, modern=True)
            async with a.stream("POST", server.url, json=call, headers=headers) as first:
                await until(started.exists)
                for spelled_modern in (True, False):  # by _meta, and by the header alone
                    refused = await b.post(
                        server.url, json=cancelled(1, modern=spelled_modern), headers=headers
                    )
                    assert refused.status_code == 202
                # a bystander with a session of its own (the stateless one is busy with A's bash)
                assert await well_behaved(server, 2, "legacy") == ["Thought recorded."] * 2
                gate.touch()
                with anyio.fail_after(10):
                    answers = [m async for m in messages(first) if "result" in m]
        assert [(m["id"], m["result"]["content"][0]["text"]) for m in answers] == [
            (1, f"A-done {mark}")
        ]
    finally:
        server.stop()


UNKNOWN = {
    "code": -32001,
    "message": "Unknown Mcp-Session-Id: the session expired or was deleted, and what it held "
    "(its shell, todo list, read files and jobs) is gone; initialize a new session.",
}


async def test_an_ended_session_id_is_never_served_as_the_stateless_session(
    tmp_path: Path,
) -> None:
    server = start(tmp_path, "--mode", "bypass")
    todo_read = {"jsonrpc": "2.0", "id": 5, "method": "tools/call"}
    plain = {**todo_read, "params": {"name": "todo_read", "arguments": {}}}
    by_meta = {**todo_read, "params": {**plain["params"], "_meta": MODERN}}
    try:
        async with httpx.AsyncClient(timeout=30, headers=server.headers) as http:
            deleted = (await http.post(server.url, json=INITIALIZE)).headers["mcp-session-id"]
            assert (
                await http.delete(server.url, headers={"mcp-session-id": deleted})
            ).status_code == 204
            never_issued = os.urandom(16).hex()  # what an expired session's id is to the door
            for session_id in (deleted, never_issued):
                for body, version in (
                    (plain, {"mcp-protocol-version": "2026-07-28"}),
                    (by_meta, {}),
                    (by_meta, {"mcp-protocol-version": "2026-07-28"}),
                    (plain, {}),
                ):
                    headers = {**STREAM, "mcp-session-id": session_id, **version}
                    answer = await http.post(server.url, json=body, headers=headers)
                    assert (answer.status_code, answer.json()["error"]) == (404, UNKNOWN)
            # the stateless session itself still serves a client that names no session
            assert await well_behaved(server, 2) == ["Thought recorded."] * 2
    finally:
        server.stop()
