"""Many HTTP clients at once: each call answered to its own client, cancelled only by it.

JSON-RPC ids are per client — every fresh client starts at the same ids — so these tests
make clients collide on purpose, in both wire eras, through the real server.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from tests.mcp.http_server import HttpServer, start
from tests.support.mcp_requests import INITIALIZE
from tests.support.processes import alive
from tests.support.waiting import wait_until_async

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(tmp_path: Path) -> Iterator[HttpServer]:
    running = start(tmp_path, "--mode", "bypass")
    yield running
    running.stop()


async def test_two_modern_clients_in_one_process_each_get_every_answer(
    server: HttpServer,
) -> None:
    """The issue's reproduction: two workers × 50 think calls, each answered (a lost answer
    never comes: the bound only ends the wait, generously for a loaded machine)."""
    done: list[int] = []

    async def worker(i: int) -> None:
        async with server.client() as client:
            for _ in range(50):
                with anyio.fail_after(30):
                    result = await client.call_tool("think", {"thought": "x"})
                assert result.is_error is False
        done.append(i)

    async with anyio.create_task_group() as group:
        group.start_soon(worker, 0)
        group.start_soon(worker, 1)
    assert sorted(done) == [0, 1]


async def test_clients_of_both_eras_at_once_see_only_their_own_results(
    server: HttpServer, tmp_path: Path
) -> None:
    for i in range(6):
        (tmp_path / f"c{i}.txt").write_text(f"client {i}\n")
    seen: dict[int, set[str]] = {}

    async def worker(i: int) -> None:
        mode = "legacy" if i % 2 else "auto"
        async with server.client(mode=mode) as client:
            for _ in range(20):
                with anyio.fail_after(30):
                    result = await client.call_tool("read_file", {"path": f"c{i}.txt"})
                seen.setdefault(i, set()).add(result.content[0].text)

    async with anyio.create_task_group() as group:
        for i in range(6):
            group.start_soon(worker, i)
    assert seen == {i: {f"1\tclient {i}"} for i in range(6)}


def call(command: str, request_id: int = 7) -> dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    params = {"name": "bash", "arguments": {"command": command}, "_meta": meta}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def events(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            yield json.loads(line.removeprefix("data: "))


def end_sleep(cmdline: str) -> None:
    """Stop the one process this test started with exactly ``cmdline``."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if handle.read().replace(b"\0", b" ").strip() == cmdline.encode():
                        os.kill(int(entry), signal.SIGTERM)
            except OSError:
                continue


async def test_one_client_closing_its_stream_cancels_only_its_own_call(
    server: HttpServer,
) -> None:
    """Two stateless clients, both with id 7: A leaves, B's call runs and is answered.

    They share the process's shell, so B's call waits for A's to end; before calls were keyed
    by the request the server received, A's leaving cancelled B's call instead of its own.
    """
    mark = f"4949{os.getpid()}"
    headers = {
        **server.headers,
        "mcp-protocol-version": "2026-07-28",
        "accept": "application/json, text/event-stream",
    }
    async with httpx.AsyncClient(timeout=30) as a, httpx.AsyncClient(timeout=30) as b:
        async with a.stream("POST", server.url, json=call(f"sleep 5{mark}"), headers=headers):
            await wait_until_async(lambda: alive(f"sleep 5{mark}"), "the call to start")
            async with b.stream(
                "POST", server.url, json=call("echo done-B"), headers=headers
            ) as second:
                assert second.status_code == 200
                await a.aclose()  # A leaves while B's call is queued behind A's
                await wait_until_async(lambda: not alive(f"sleep 5{mark}"), "the call to end")
                answers = [m async for m in events(second) if "result" in m]
    assert [(m["id"], m["result"]["content"][0]["text"]) for m in answers] == [(7, "done-B")]


async def test_a_cancel_notification_cancels_only_in_its_own_session(
    server: HttpServer, tmp_path: Path
) -> None:
    """Two 2025-11-25 sessions, both with a call id 7: A's notifications/cancelled ends A's."""
    mark = f"5050{os.getpid()}"
    base = {**server.headers, "accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=30) as http:
        ids = [
            (await http.post(server.url, json=INITIALIZE, headers=base)).headers["mcp-session-id"]
            for _ in range(2)
        ]
        a, b = ({**base, "mcp-session-id": i, "mcp-protocol-version": "2025-11-25"} for i in ids)
        legacy = {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
        waiting = f"sleep 7{mark}; echo done-B"
        second_call = {**legacy, "params": {"name": "bash", "arguments": {"command": waiting}}}
        first_call = {
            **legacy,
            "params": {"name": "bash", "arguments": {"command": f"sleep 6{mark}"}},
        }
        async with http.stream("POST", server.url, json=second_call, headers=b) as second:
            async with http.stream("POST", server.url, json=first_call, headers=a):
                await wait_until_async(
                    lambda: alive(f"sleep 6{mark}") and alive(f"sleep 7{mark}"),
                    "both calls to start",
                )
                cancel = {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": 7},
                }
                assert (await http.post(server.url, json=cancel, headers=a)).status_code == 202
                await wait_until_async(lambda: not alive(f"sleep 6{mark}"), "A's call to end")
                assert alive(f"sleep 7{mark}")
            end_sleep(f"sleep 7{mark}")  # B's command goes on to its echo
            answers = [m async for m in events(second) if "result" in m]
    # the notice is bash's report of the sleep the test stopped; then B's command went on
    texts = [(m["id"], m["result"]["content"][0]["text"]) for m in answers]
    assert texts == [(7, "Terminated\ndone-B")]


async def test_an_id_still_in_flight_in_its_session_is_refused_and_cancel_ends_the_first(
    server: HttpServer,
) -> None:
    """One 2025-11-25 session sends id 7 twice: the second is refused at once (a cancel by 7
    would name two calls), the first stays cancellable by its id."""
    mark = f"5151{os.getpid()}"
    base = {**server.headers, "accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=30) as http:
        opened = await http.post(server.url, json=INITIALIZE, headers=base)
        session = {
            **base,
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        legacy = {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
        first = {**legacy, "params": {"name": "bash", "arguments": {"command": f"sleep 8{mark}"}}}
        again = {**legacy, "params": {"name": "think", "arguments": {"thought": "reused"}}}
        async with http.stream("POST", server.url, json=first, headers=session):
            await wait_until_async(lambda: alive(f"sleep 8{mark}"), "the call to start")
            refused = await http.post(server.url, json=again, headers=session)
            assert refused.status_code == 200
            assert refused.json() == {
                "jsonrpc": "2.0",
                "id": 7,
                "error": {
                    "code": -32600,
                    "message": "Invalid Request: the id 7 is in use by a call still running; "
                    "send each request with a fresh id.",
                },
            }
            cancel = {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 7},
            }
            assert (await http.post(server.url, json=cancel, headers=session)).status_code == 202
            await wait_until_async(lambda: not alive(f"sleep 8{mark}"), "the call to end")
