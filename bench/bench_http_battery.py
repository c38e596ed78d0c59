"""The HTTP door under the whole battery of hostile clients (issue #32), with a bystander.

`toolbelt mcp --http` (``--max-calls 8 --request-timeout 2``) is attacked, ``ROUNDS`` times
over, by each of: slowloris on headers (60 connections, a byte every 0.5 s), slowloris on
bodies (30 connections), idle connections (200, nothing sent), unread streams (16 sessions
whose GET stream is never read, four with a call's stream unread too), cancelled calls (16
``sleep`` calls, cancelled: twice the ``--max-calls`` cap), large bodies (three 12 MiB
``think`` calls and three 4 MiB ``write_file`` calls at once, under ``--max-calls``) and
pipelining (500 pings on one connection). Meanwhile one well-behaved client (the official
``mcp.Client``, a session of its own) calls ``think`` in a loop, each call bounded by 10 s.
Reported: the bystander's p50, p99 and worst latency and its failures, per attack; the
server's RSS 2 s after each round (the plateau: the last round against the first); and what
each attack's own requests got (connections closed, 408s, streams ended). Every loop is
bounded in count and time; only 127.0.0.1 is contacted.

Usage: ``.venv/bin/python bench/run.py http-battery`` (3 rounds), or
``.venv/bin/python bench/bench_http_battery.py ROUNDS [SRC]`` to record nothing (SRC: another
commit's ``src`` directory, e.g. from ``git archive``, to run that toolbelt instead).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from harness import fmt_time, table, write_section
from mcp import Client

TOOLBELT = str(Path(sys.executable).with_name("toolbelt"))
MIB = 1024 * 1024
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "battery", "version": "1"},
    },
}
STREAM = {"accept": "application/json, text/event-stream"}
MODERN = {**STREAM, "mcp-protocol-version": "2026-07-28"}


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def call(name: str, arguments: dict[str, Any], request_id: int) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


@dataclass
class Door:
    port: int
    token: str
    pid: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def head(self, length: int) -> bytes:
        return (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Authorization: Bearer {self.token}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n"
            f"Mcp-Protocol-Version: 2026-07-28\r\nContent-Length: {length}\r\n\r\n"
        ).encode()


# -- the attacks: each returns what its own requests got, as one line -------------------------


async def slowloris_headers(door: Door) -> str:
    async def one() -> bool:
        reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
        try:
            for byte in b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ":
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(0.5)
                if reader.at_eof():
                    break
            return await asyncio.wait_for(reader.read(), 10) == b""
        except (ConnectionError, OSError):
            return True
        finally:
            writer.close()

    closed = await asyncio.gather(*(one() for _ in range(60)))
    return f"{sum(closed)}/60 closed unanswered"


async def slowloris_bodies(door: Door) -> str:
    async def one() -> bool:
        reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
        reply = asyncio.create_task(reader.read(200))
        try:
            writer.write(door.head(1000) + b"{")
            for _ in range(20):  # a byte every 0.5 s, until the server answers
                if reply.done():
                    break
                await writer.drain()
                await asyncio.sleep(0.5)
                writer.write(b" ")
            first = await asyncio.wait_for(reply, 10)
            return b" 408 " in first.split(b"\r\n", 1)[0]
        except (TimeoutError, ConnectionError, OSError):
            return False
        finally:
            reply.cancel()
            writer.close()

    answered = await asyncio.gather(*(one() for _ in range(30)))
    return f"{sum(answered)}/30 answered 408"


async def idle(door: Door) -> str:
    async def one() -> bool:
        reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
        try:
            return await asyncio.wait_for(reader.read(), 15) == b""
        except (TimeoutError, ConnectionError, OSError):
            return False
        finally:
            writer.close()

    closed = await asyncio.gather(*(one() for _ in range(200)))
    return f"{sum(closed)}/200 dropped"


async def unread_streams(door: Door) -> str:
    async with httpx.AsyncClient(timeout=30, headers=door.auth) as http:
        ids = [(await http.post(door.url, json=INIT)).headers["mcp-session-id"] for _ in range(16)]
        opened = 0
        streams = []
        for number, session_id in enumerate(ids):
            headers = {**STREAM, "mcp-session-id": session_id}
            request = http.build_request("GET", door.url, headers=headers)
            response = await http.send(request, stream=True)  # never read
            streams.append(response)
            opened += 1
            if number < 4:  # a call whose stream is never read either (under --max-calls)
                body = call("bash", {"command": "seq 1 100000; sleep 1"}, 2)
                request = http.build_request("POST", door.url, json=body, headers=headers)
                streams.append(await http.send(request, stream=True))
                opened += 1
        await asyncio.sleep(3)
        for response in streams:
            await response.aclose()
        for session_id in ids:
            await http.delete(door.url, headers={"mcp-session-id": session_id})
    return f"{opened} streams left unread, then closed"


async def cancels(door: Door) -> str:
    ended = 0
    async with httpx.AsyncClient(timeout=30, headers=door.auth) as http:
        session_id = (await http.post(door.url, json=INIT)).headers["mcp-session-id"]
        headers = {**STREAM, "mcp-session-id": session_id}
        for i in range(16):
            body = call("bash", {"command": f"sleep 30; echo {i}"}, 100 + i)
            async with http.stream("POST", door.url, json=body, headers=headers) as response:
                await asyncio.sleep(0.2)
                cancel = {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": 100 + i},
                }
                await http.post(door.url, json=cancel, headers=headers)
                try:
                    async with asyncio.timeout(5):
                        async for _ in response.aiter_bytes():
                            pass
                    ended += 1
                except TimeoutError:
                    pass
        after = await http.post(
            door.url, json=call("think", {"thought": "x"}, 999), headers=headers
        )
        await http.delete(door.url, headers={"mcp-session-id": session_id})
    refused = "already running" in after.text
    return f"{ended}/16 streams ended at once; next call {'REFUSED' if refused else 'served'}"


async def large_bodies(door: Door) -> str:
    async with httpx.AsyncClient(timeout=60, headers=door.auth) as http:

        async def think(i: int) -> int:
            body = call("think", {"thought": "x" * (12 * MIB)}, i)
            return (await http.post(door.url, json=body, headers=MODERN)).status_code

        async def write(i: int) -> int:
            content = "a large file line\n" * (4 * MIB // 18)
            body = call("write_file", {"path": f"big-{i}.txt", "content": content}, 10 + i)
            return (await http.post(door.url, json=body, headers=MODERN)).status_code

        codes = await asyncio.gather(*(think(i) for i in range(3)), *(write(i) for i in range(3)))
    return f"{codes.count(200)}/6 answered 200 (3 × 12 MiB, 3 × 4 MiB)"


async def pipelining(door: Door) -> str:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    one = door.head(len(body)) + body
    reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
    started = time.perf_counter()
    writer.write(one * 500)
    await writer.drain()
    seen = b""
    try:
        async with asyncio.timeout(30):
            while seen.count(b"HTTP/1.1 200") < 500:
                chunk = await reader.read(65536)
                if not chunk:
                    break
                seen += chunk
    except TimeoutError:
        pass
    writer.close()
    answered = seen.count(b"HTTP/1.1 200")
    return f"{answered}/500 pings answered in {time.perf_counter() - started:.2f} s"


ATTACKS: dict[str, Callable[[Door], Awaitable[str]]] = {
    "slowloris headers": slowloris_headers,
    "slowloris bodies": slowloris_bodies,
    "idle connections": idle,
    "unread streams": unread_streams,
    "cancelled calls": cancels,
    "large bodies": large_bodies,
    "pipelining": pipelining,
}


# -- the bystander -------------------------------------------------------------------------


@dataclass
class Bystander:
    latencies: list[float] = field(default_factory=list)
    failures: int = 0
    why: list[str] = field(default_factory=list)


async def bystander(door: Door, stop: asyncio.Event, tally: Bystander) -> None:
    http = create_mcp_http_client(headers=door.auth)
    try:
        async with Client(streamable_http_client(door.url, http_client=http), mode="legacy") as c:
            while not stop.is_set():
                started = time.perf_counter()
                try:
                    result = await asyncio.wait_for(c.call_tool("think", {"thought": "b"}), 10)
                    if result.is_error:
                        tally.failures += 1
                        tally.why.append(str(result.content)[:160])
                    else:
                        tally.latencies.append(time.perf_counter() - started)
                except Exception as exc:
                    tally.failures += 1
                    tally.why.append(repr(exc)[:160])
                await asyncio.sleep(0.05)
    finally:
        await http.aclose()


@dataclass
class Outcome:
    attack: str
    rounds: list[str] = field(default_factory=list)
    tally: Bystander = field(default_factory=Bystander)
    rss: list[float] = field(default_factory=list)


async def battery(door: Door, rounds: int) -> tuple[list[Outcome], float]:
    outcomes = {name: Outcome(name) for name in ATTACKS}
    await asyncio.sleep(1)
    start_rss = rss_mib(door.pid)
    for _ in range(rounds):
        for name, attack in ATTACKS.items():
            stop = asyncio.Event()
            watcher = asyncio.create_task(bystander(door, stop, outcomes[name].tally))
            try:
                outcomes[name].rounds.append(await asyncio.wait_for(attack(door), 120))
            except Exception as exc:
                outcomes[name].rounds.append(f"attack failed: {exc!r}"[:120])
            stop.set()
            await watcher
            await asyncio.sleep(2)
            outcomes[name].rss.append(rss_mib(door.pid))
    return list(outcomes.values()), start_rss


def run(rounds: int, source: str | None = None) -> tuple[list[Outcome], float]:
    """The battery against this installation, or against the toolbelt of ``source`` (a
    ``src`` directory, e.g. an older commit's, run with this interpreter)."""
    port = free_port()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "workspace"
        root.mkdir()
        token = os.urandom(16).hex()
        token_file = Path(scratch) / "token"
        token_file.write_text(token)
        env = {**os.environ, "PYTHONPATH": source} if source else None
        program = [sys.executable, "-m", "toolbelt.cli.main"] if source else [TOOLBELT]
        command = [*program, "mcp", "--http", str(port), "--root", str(root)]
        command += ["--token-file", str(token_file), "--mode", "bypass", "--max-calls", "8"]
        command += ["--request-timeout", "2", "--session-idle-timeout", "30"]
        server = subprocess.Popen(command, stderr=subprocess.DEVNULL, env=env)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not start")
                time.sleep(0.1)
            return asyncio.run(battery(Door(port, token, server.pid), rounds))
        finally:
            server.terminate()
            server.wait(30)


def rows(outcomes: list[Outcome]) -> list[list[str]]:
    found = []
    for outcome in outcomes:
        ordered = sorted(outcome.tally.latencies) or [0.0]
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        found.append(
            [
                outcome.attack,
                "; ".join(dict.fromkeys(outcome.rounds)),
                str(len(outcome.tally.latencies)),
                str(outcome.tally.failures),
                fmt_time(statistics.median(ordered)),
                fmt_time(p99),
                fmt_time(ordered[-1]),
                " → ".join(f"{mib:.0f}" for mib in outcome.rss),
            ]
        )
    return found


def main(rounds: int = 3, record: bool = True, source: str | None = None) -> None:
    outcomes, start = run(rounds, source)
    for outcome in outcomes:
        for why in outcome.tally.why[:3]:
            print(f"  bystander failure during {outcome.attack}: {why}")
    headers = [
        "attack (each round)",
        "what the attack got",
        "bystander calls",
        "failed",
        "p50",
        "p99",
        "worst",
        "RSS after each round (MiB)",
    ]
    every = [mib for outcome in outcomes for mib in outcome.rss]
    first = [outcome.rss[0] for outcome in outcomes]
    last = [outcome.rss[-1] for outcome in outcomes]
    body = (
        "Command: `.venv/bin/python bench/run.py http-battery`\n\n"
        f"{__doc__.split(chr(10) + chr(10))[1]}\n\n"
        + table(rows(outcomes), headers)
        + f"\n\nRSS: {start:.0f} MiB before the battery; after the first round "
        f"{min(first):.0f}–{max(first):.0f} MiB, after round {rounds} "
        f"{min(last):.0f}–{max(last):.0f} MiB; highest seen {max(every):.0f} MiB.\n"
    )
    print(body)
    if record:
        write_section("http-battery", body)


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 1,
        record=False,
        source=sys.argv[2] if len(sys.argv) > 2 else None,
    )
