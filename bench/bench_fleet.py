"""A fleet on loopback: 1, 2, 4 and 8 `toolbelt mcp --http` servers driven by one client process.

Each server is started as a fleet starts it (``--port 0 --ready-file``, the token in
``$TOOLBELT_MCP_TOKEN``, its own workspace). One client process — raw JSON-RPC over
HTTP/1.1 keep-alive on asyncio streams, no SDK and no HTTP library on the measuring side —
keeps ``IN_FLIGHT`` calls in flight per server, a trivial call (``think``) each, for
``SECONDS``; reported: aggregate calls/s, p50 and p99 latency, and the scaling against one
server (on 2 cores: one core is the most one server can use, and the client shares the
machine). Beside the time, the CPU each call cost the servers (``/proc/PID/stat``) and the
client (``getrusage``): calls/s per core of the servers is what the fleet would do per core
were the client and the other helpers of the machine elsewhere, and what a machine of N
cores gives is about N times it. The per-call line puts one toolbelt server beside the MCP
SDK's own server (``peer_sdk_http.py``, the same trivial tool) in the same run, 16 in flight.

Then ``STARTS`` servers are started one after another (each kept running): the time from
spawn to its ready file (median, p90, total), and the idle RSS of each once all are up.

Usage: ``.venv/bin/python bench/run.py fleet`` (records), or ``bench/bench_fleet.py
[SECONDS] [STARTS]`` (prints only).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from harness import fmt_time, table, write_section

TOOLBELT = str(Path(sys.executable).with_name("toolbelt"))
PEER = Path(__file__).with_name("peer_sdk_http.py")
TOKEN = "fleet-bench-token"
IN_FLIGHT = 4
SECONDS = 6.0
STARTS = 100
SIZES = (1, 2, 4, 8)


class Server:
    """One `toolbelt mcp --http --port 0` with its own workspace."""

    def __init__(self, base: Path, index: int) -> None:
        self.root = base / f"task-{index}"
        self.root.mkdir()
        self.ready = base / f"ready-{index}.json"
        self.rest = ["--root", str(self.root), "--mode", "dont_ask"]
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [TOOLBELT, "mcp", "--port", "0", "--ready-file", str(self.ready), *self.rest],
            env={**os.environ, "TOOLBELT_MCP_TOKEN": TOKEN},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # a session of its own, as a sandbox's server has: with the scheduler's
            # autogroups, servers sharing the bench's session would share one CPU slice
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while not self.ready.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server {index} did not become ready")
            time.sleep(0.005)
        self.start_time = time.perf_counter() - started
        self.url = json.loads(self.ready.read_text())["url"]

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


class SdkPeer:
    """The MCP SDK's own streamable HTTP server (session era, no auth)."""

    def __init__(self) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        self.process = subprocess.Popen(
            [sys.executable, str(PEER), str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # as the toolbelt servers (see ``Server``)
        )
        self.url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(self.url, timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the SDK server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


class Connection:
    """One keep-alive HTTP/1.1 connection speaking just enough HTTP for these requests: a
    client far cheaper than the servers it measures (httpx costs about a millisecond a call,
    which would make the client the fleet's bottleneck)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, url: str):
        self.reader, self.writer = reader, writer
        parts = urlsplit(url)
        self.path, self.host = parts.path, parts.netloc

    @classmethod
    async def open(cls, url: str) -> Connection:
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        return cls(reader, writer, url)

    async def post(
        self, message: dict[str, Any], headers: dict[str, str]
    ) -> tuple[dict[str, str], dict[str, Any] | None]:
        """The response's headers and the JSON-RPC message in it (None: an empty answer)."""
        body = json.dumps(message).encode()
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.writer.write(
            f"POST {self.path} HTTP/1.1\r\nhost: {self.host}\r\n{head}"
            f"content-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        lines = (await self.reader.readuntil(b"\r\n\r\n")).decode().split("\r\n")
        status = int(lines[0].split()[1])
        got = {
            k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)
        }
        if "content-length" in got:
            data = await self.reader.readexactly(int(got["content-length"]))
        else:  # chunked: an event stream
            chunks = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(chunk[:-2])
            data = b"".join(chunks)
        if status >= 400:
            raise RuntimeError(f"HTTP {status}: {data[:200]!r}")
        text = data.decode()
        if got.get("content-type", "").startswith("text/event-stream"):
            found = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
            text = next((d for d in reversed(found) if d.startswith("{")), "")
        return got, json.loads(text) if text else None

    def close(self) -> None:
        self.writer.close()


async def _session(url: str, headers: dict[str, str]) -> dict[str, str]:
    """The headers of an initialized 2025-11-25 session (both servers speak it)."""
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "fleet-bench", "version": "1"},
        },
    }
    connection = await Connection.open(url)
    try:
        got, _ = await connection.post(init, headers)
        headers = {**headers, "mcp-session-id": got["mcp-session-id"]}
        await connection.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    finally:
        connection.close()
    return headers


async def drive(urls: list[str], *, auth: bool, in_flight: int, seconds: float) -> list[float]:
    """Latencies of every call answered within ``seconds``, ``in_flight`` per server."""
    base = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    if auth:
        base["authorization"] = f"Bearer {TOKEN}"
    latencies: list[float] = []
    sessions = [await _session(url, base) for url in urls]
    numbers = itertools.count(1)  # ids unique per session, as JSON-RPC wants
    until = time.monotonic() + seconds

    async def worker(url: str, headers: dict[str, str]) -> None:
        connection = await Connection.open(url)
        try:
            while time.monotonic() < until:
                call = {
                    "jsonrpc": "2.0",
                    "id": next(numbers),
                    "method": "tools/call",
                    "params": {"name": "think", "arguments": {"thought": "fleet"}},
                }
                started = time.perf_counter()
                _, answer = await connection.post(call, headers)
                if answer is None or "result" not in answer or answer["result"].get("isError"):
                    raise RuntimeError(f"a call failed: {answer}")
                latencies.append(time.perf_counter() - started)
        finally:
            connection.close()

    await asyncio.gather(
        *(worker(url, h) for url, h in zip(urls, sessions, strict=True) for _ in range(in_flight))
    )
    return latencies


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (``/proc``: 10 ms ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None, *, record: bool = True) -> None:
    args = argv or []
    seconds = float(args[0]) if args else SECONDS
    starts = int(args[1]) if len(args) > 1 else STARTS
    load = os.getloadavg()[0]
    base = Path(tempfile.mkdtemp(prefix="fleet-bench-"))
    servers = [Server(base, index) for index in range(max(SIZES))]
    rows = []
    try:
        urls = [s.url for s in servers]
        asyncio.run(drive(urls, auth=True, in_flight=IN_FLIGHT, seconds=2))  # warm every server
        # per call, one server each: toolbelt beside the SDK's own server, interleaved
        peer = SdkPeer()
        try:
            ours_runs, peer_runs = [], []
            for _ in range(3):
                ours = drive([servers[0].url], auth=True, in_flight=16, seconds=seconds / 2)
                ours_runs.append(asyncio.run(ours))
                theirs = drive([peer.url], auth=False, in_flight=16, seconds=seconds / 2)
                peer_runs.append(asyncio.run(theirs))
        finally:
            peer.stop()
        ours_rate = statistics.median(len(r) / (seconds / 2) for r in ours_runs)
        peer_rate = statistics.median(len(r) / (seconds / 2) for r in peer_runs)
        ours_all = [x for run in ours_runs for x in run]
        peer_all = [x for run in peer_runs for x in run]
        per_call = (
            f"Per call, one server, 16 in flight (median of 3 interleaved runs of "
            f"{seconds / 2:g} s): toolbelt {ours_rate:,.0f} calls/s (p50 "
            f"{fmt_time(_p(ours_all, 0.5))}), the MCP SDK's server {peer_rate:,.0f} calls/s (p50 "
            f"{fmt_time(_p(peer_all, 0.5))}): **×{ours_rate / peer_rate:.2f}**."
        )
        single = 0.0
        per_core: list[float] = []
        for size in SIZES:
            driven = servers[:size]
            servers_cpu = sum(cpu_seconds(s.process.pid) for s in driven)
            client_cpu = own_cpu_seconds()
            latencies = asyncio.run(
                drive([s.url for s in driven], auth=True, in_flight=IN_FLIGHT, seconds=seconds)
            )
            calls = len(latencies)
            server_per_call = (
                sum(cpu_seconds(s.process.pid) for s in driven) - servers_cpu
            ) / calls
            client_per_call = (own_cpu_seconds() - client_cpu) / calls
            per_core.append(1 / server_per_call)
            rate = calls / seconds
            single = single or rate
            rows.append(
                [
                    str(size),
                    f"{rate:,.0f}",
                    fmt_time(_p(latencies, 0.5)),
                    fmt_time(_p(latencies, 0.99)),
                    f"×{rate / single:.2f}",
                    fmt_time(server_per_call),
                    fmt_time(client_per_call),
                    f"{1 / server_per_call:,.0f}",
                ]
            )
    finally:
        for server in servers:
            server.stop()
    started: list[Server] = []
    try:
        for index in range(starts):
            started.append(Server(base, 100 + index))
        times = [s.start_time for s in started]
        time.sleep(1.0)  # idle: the start-up's garbage settles
        rss = [s.rss_kib() / 1024 for s in started]
    finally:
        for server in started:
            server.stop()
    starts_line = (
        f"{starts} servers started one after another, each kept running: start to ready file "
        f"median {fmt_time(statistics.median(times))}, p90 {fmt_time(_p(times, 0.9))}, all "
        f"{fmt_time(sum(times))}; idle RSS per server median {statistics.median(rss):.1f} MiB "
        f"(min {min(rss):.1f}, max {max(rss):.1f})."
    )
    cores = os.cpu_count() or 1
    cores_line = (
        f"Per core: {statistics.median(per_core):,.0f} calls/s of server work per core (median "
        f"over the sizes; 1 / the servers' CPU per call), so about "
        f"{cores * statistics.median(per_core):,.0f} calls/s on this machine's {cores} cores "
        f"with the client elsewhere, and N times the per-core figure on N cores; the "
        f"{max(SIZES)}-server run reached {float(rows[-1][1].replace(',', '')):,.0f} with the "
        f"client ({rows[-1][6]} a call) on the same cores."
    )
    body = (
        f"Command: `.venv/bin/python bench/run.py fleet`; load average {load:.2f} at start. "
        "One client process (asyncio, raw HTTP/1.1 keep-alive, raw JSON-RPC, 2025-11-25 "
        "sessions), "
        f"{IN_FLIGHT} trivial calls (think) in flight per server for {seconds:g} s.\n\n"
        + table(
            rows,
            [
                "servers",
                "calls/s",
                "p50",
                "p99",
                "scaling vs 1",
                "server CPU/call",
                "client CPU/call",
                "calls/s per server core",
            ],
        )
        + f"\n\n{cores_line}\n\n{per_call}\n\n{starts_line}\n"
    )
    print(body)
    if record:
        write_section("fleet", body)


if __name__ == "__main__":
    main(sys.argv[1:], record=False)
