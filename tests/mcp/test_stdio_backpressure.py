"""A stdio client that stops reading stdout cannot make the server grow without end: while
replies wait to be written or many calls run the server reads no further request; once the
client reads again every reply arrives, none refused. SIGTERM still ends it at once."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

from tests.support.toolbelt_cli import TOOLBELT

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}
CALLS = 3000
"""~128 KiB replies each: about 400 MB queued in a server that keeps reading."""
GROWTH_MB = 150


def _call(request_id: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _send(stdin: IO[bytes], *messages: dict[str, Any]) -> None:
    stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
    stdin.flush()


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        line = next(row for row in status if row.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _start(root: Path) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [*TOOLBELT, "mcp", "--root", str(root), "--mode", "bypass", "--sandbox", "off"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None
    _send(server.stdin, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
    _send(server.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert json.loads(server.stdout.readline())["id"] == 0
    return server


def _flood_unread(server: subprocess.Popen[bytes]) -> tuple[float, float]:
    """Send ``CALLS`` read_file calls without reading a reply; return the server's RSS before
    and its peak until it sits idle (the growth is checked on the way)."""
    assert server.stdin is not None and server.stdout is not None
    _send(server.stdin, _call("warm", "read_file", {"path": "big.txt"}))
    assert json.loads(server.stdout.readline())["id"] == "warm"
    base = _rss_mb(server.pid)
    calls = [
        _call(n, "read_file", {"path": "big.txt", "offset": n % 250 + 1}) for n in range(CALLS)
    ]
    sender = threading.Thread(target=_send, args=(server.stdin, *calls), daemon=True)
    sender.start()
    peak, still, ticks = base, 0, -1
    deadline = time.monotonic() + 120
    while still < 20 and time.monotonic() < deadline:  # until the server sits idle
        peak = max(peak, _rss_mb(server.pid))
        assert peak - base < GROWTH_MB, f"RSS grew by {peak - base:.0f} MB"
        now = _cpu_ticks(server.pid)
        still = still + 1 if now == ticks else 0
        ticks = now
        time.sleep(0.05)  # the interval between two looks at the server
    return base, peak


def test_a_client_that_stops_reading_holds_memory_and_then_gets_every_reply(
    tmp_path: Path,
) -> None:
    (tmp_path / "big.txt").write_text(("x" * 1023 + "\n") * 256)
    server = _start(tmp_path)
    assert server.stdin is not None and server.stdout is not None
    try:
        _flood_unread(server)
        replies = [json.loads(server.stdout.readline()) for _ in range(CALLS)]
        assert sorted(reply["id"] for reply in replies) == list(range(CALLS))
        assert all(reply["result"]["isError"] is False for reply in replies)
        server.stdin.close()
        assert server.wait(timeout=30) == 0
    finally:
        server.kill()
        server.wait()


def test_sigterm_ends_a_server_whose_client_stopped_reading(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(("x" * 1023 + "\n") * 256)
    server = _start(tmp_path)
    try:
        _flood_unread(server)
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
    finally:
        server.kill()
        server.wait()
