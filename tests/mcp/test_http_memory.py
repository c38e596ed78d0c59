"""The HTTP door gives back the memory of large bodies (issue #32, item 3), through the real
server: RSS returns to where it was once large requests are answered, round after round,
while a well-behaved client is served beside them."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx
import pytest
from tests.mcp.http_server import HttpServer, start

pytestmark = pytest.mark.anyio

MODERN = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28"}
MIB = 1024 * 1024


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def think(thought: str, request_id: int) -> dict[str, object]:
    params = {"name": "think", "arguments": {"thought": thought}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def answer_text(response: httpx.Response) -> str:
    """The text of a call's answer, sent as plain JSON or (a slower call) as an event stream."""
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
        message = json.loads(data[-1])
    else:
        message = response.json()
    return str(message["result"]["content"][0]["text"])


async def settles_below(server: HttpServer, limit: int) -> int:
    """RSS once it is at most ``limit`` (polled; 15 s at most)."""
    with anyio.fail_after(15):
        while (now := rss(server.process.pid)) > limit:
            await anyio.sleep(0.1)
    return now


async def test_large_bodies_are_given_back_round_after_round(tmp_path: Path) -> None:
    server = start(tmp_path)
    try:
        async with httpx.AsyncClient(timeout=60, headers={**server.headers, **MODERN}) as http:
            warm = await http.post(server.url, json=think("warm up", 1))
            assert answer_text(warm) == "Thought recorded."
            baseline = rss(server.process.pid)
            served: list[str] = []

            async def large(request_id: int) -> None:
                answer = await http.post(server.url, json=think("x" * (12 * MIB), request_id))
                assert answer_text(answer) == "Thought recorded."

            async def bystander() -> None:
                answer = await http.post(server.url, json=think("small", 99))
                served.append(answer_text(answer))

            for round_ in range(4):  # 4 × 12 MiB at once, four times: 192 MiB in all
                async with anyio.create_task_group() as group:
                    for i in range(4):
                        group.start_soon(large, 10 * round_ + i)
                    group.start_soon(bystander)
                await settles_below(server, baseline + 24 * MIB)
            assert served == ["Thought recorded."] * 4
    finally:
        server.stop()
