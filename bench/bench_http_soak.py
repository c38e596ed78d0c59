"""Soak test of `toolbelt mcp --http`: many real MCP clients at once, both wire eras.

64 official `mcp.Client`s (32 stateless 2026-07-28, 32 with a 2025-11-25 session) in one
client process call cheap tools (think, todo_read) in a loop, each call bounded by a 10 s
wait. A warm-up wave of the same 64 clients runs for 10 s and leaves; the server's RSS is
read; then a fresh wave runs for the measured period and leaves, and the RSS is read again.
The same waves then run against the MCP SDK's own server with the same two
tools (``peer_sdk_http.py``). Reported: calls/s, p50/p99 latency (client side, so it includes
the SDK's own cost), errors
(error results or exceptions), unanswered calls (the 10 s wait ran out), RSS after warm-up
and after the run. Goal: 0 errors, 0 unanswered, RSS after within 20% of RSS after warm-up.

Usage: ``.venv/bin/python bench/run.py http-soak`` (60 s), or
``.venv/bin/python bench/bench_http_soak.py SECONDS`` for a shorter run that records nothing.
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from harness import fmt_time, table, write_section
from mcp import Client

TOOLBELT = str(Path(sys.executable).with_name("toolbelt"))
PEER = Path(__file__).with_name("peer_sdk_http.py")
CLIENTS_PER_ERA = 32
WARMUP = 10.0
CALL_BOUND = 10.0


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    unanswered: int = 0
    failures: list[str] = field(default_factory=list)


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (to see which side a run was bound by)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def client_loop(url: str, token: str, mode: str, until: float, tally: Tally) -> None:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    try:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            turn = 0
            while time.monotonic() < until:
                turn += 1
                name, args = ("think", {"thought": "soak"}) if turn % 2 else ("todo_read", {})
                started = time.perf_counter()
                try:
                    result = await asyncio.wait_for(client.call_tool(name, args), CALL_BOUND)
                except TimeoutError:
                    tally.unanswered += 1
                    continue
                except Exception as exc:  # counted, and the first few reported
                    tally.errors += 1
                    tally.failures.append(f"{mode}: {exc!r}"[:200])
                    continue
                tally.latencies.append(time.perf_counter() - started)
                if result.is_error:
                    tally.errors += 1
    except Exception as exc:
        tally.errors += 1
        tally.failures.append(f"{mode} client: {exc!r}"[:200])
    finally:
        await http.aclose()


async def wave(url: str, token: str, seconds: float) -> Tally:
    tally = Tally()
    until = time.monotonic() + seconds
    modes = ["auto"] * CLIENTS_PER_ERA + ["legacy"] * CLIENTS_PER_ERA
    await asyncio.gather(*(client_loop(url, token, mode, until, tally) for mode in modes))
    return tally


@dataclass
class Run:
    tally: Tally
    warm_rss: int
    after_rss: int
    elapsed: float
    server_cpu: float
    client_cpu: float


def wait_listening(port: int) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def soak(name: str, seconds: float) -> Run:
    """One server under a warm-up wave, then the measured wave."""
    port = free_port()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "workspace"
        root.mkdir()
        token = os.urandom(16).hex()
        token_file = Path(scratch) / "token"
        token_file.write_text(token)
        command = [TOOLBELT, "mcp", "--http", str(port), "--root", root, "--token-file", token_file]
        if name != "toolbelt":
            command = [sys.executable, str(PEER), str(port)]
        server = subprocess.Popen(command, stderr=subprocess.DEVNULL)
        try:
            wait_listening(port)
            url = f"http://127.0.0.1:{port}/mcp"
            asyncio.run(wave(url, token, WARMUP))
            time.sleep(1.0)  # the departed clients' sessions are closed by now
            warm = rss_kib(server.pid)
            server_cpu, client_cpu = cpu_seconds(server.pid), time.process_time()
            started = time.monotonic()
            tally = asyncio.run(wave(url, token, seconds))
            elapsed = time.monotonic() - started
            server_cpu = cpu_seconds(server.pid) - server_cpu
            client_cpu = time.process_time() - client_cpu
            time.sleep(1.0)
            after = rss_kib(server.pid)
        finally:
            server.terminate()
            server.wait(30)
    return Run(tally, warm, after, elapsed, server_cpu, client_cpu)


def row(name: str, seconds: float, run: Run) -> list[str]:
    tally, warm, after, elapsed = run.tally, run.warm_rss, run.after_rss, run.elapsed
    ordered = sorted(tally.latencies) or [0.0]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return [
        name,
        f"{CLIENTS_PER_ERA} + {CLIENTS_PER_ERA}",
        f"{seconds:g} s",
        f"{len(tally.latencies) / elapsed:,.0f}",
        fmt_time(statistics.median(ordered)),
        fmt_time(p99),
        str(tally.errors),
        str(tally.unanswered),
        f"{warm / 1024:.1f} MiB",
        f"{after / 1024:.1f} MiB ({(after - warm) / warm:+.0%})",
        f"{run.server_cpu / elapsed:.0%} / {run.client_cpu / elapsed:.0%}",
    ]


def main(seconds: float = 60.0, record: bool = True) -> None:
    rows = []
    for name in ("toolbelt", "MCP SDK server"):
        run = soak(name, seconds)
        rows.append(row(name, seconds, run))
        for failure in run.tally.failures[:5]:
            print(f"  {name} failure:", failure)
    headers = [
        "server",
        "clients (2026-07-28 + 2025-11-25)",
        "run",
        "calls/s",
        "p50",
        "p99",
        "errors",
        "unanswered",
        "RSS after warm-up",
        "RSS after run",
        "CPU server / clients",
    ]
    body = (
        "Command: `.venv/bin/python bench/run.py http-soak`\n\n"
        "Official `mcp.Client`s in one client process against `toolbelt mcp --http` (token "
        "on), then against the MCP SDK's own server (`bench/peer_sdk_http.py`, the same two "
        "tools, no auth), calling think and todo_read in turn, each call bounded by 10 s; a "
        "10 s warm-up wave of 64 clients comes and goes before the measured wave. Goal: 0 "
        "errors, 0 unanswered, RSS after the run within 20% of RSS after warm-up. Latency is "
        "measured by the client and includes the SDK client's cost; CPU is each side's share "
        "of one core during the measured wave (both sides share the machine's 2 cores).\n\n"
        + table(rows, headers)
    )
    print(body)
    if record:
        write_section("http-soak", body)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0, record=False)
