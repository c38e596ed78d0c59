"""A toolbelt server killed with SIGKILL leaves no shell or background job behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolbelt.shell.landlock import abi_version


def _processes_with(text: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if text.encode() in cmdline:
                found.append(int(entry))
    return found


def _request(server: subprocess.Popen[bytes], message: dict[str, object]) -> dict[str, object]:
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()
    if "id" not in message:
        return {}
    while True:
        reply: dict[str, object] = json.loads(server.stdout.readline())
        if reply.get("id") == message["id"]:
            return reply


@pytest.mark.skipif(abi_version() < 1, reason="needs Landlock (no PID namespace there)")
def test_sigkill_of_the_server_ends_its_background_jobs_and_shell(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    marker = "521.0417"  # a sleep no other test runs
    args = ["-m", "toolbelt.cli.main", "mcp", "--root", str(tmp_path / "ws"), "--mode", "bypass"]
    server = subprocess.Popen(
        [sys.executable, *args, "--sandbox", "landlock"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "t", "version": "1"}
        _request(server, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        _request(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        for n, arguments in enumerate(
            [
                {
                    "command": f"setsid sleep {marker} & sleep {marker}; wait",
                    "run_in_background": True,
                },
                {"command": "echo shell up"},
            ]
        ):
            call = {"name": "bash", "arguments": arguments}
            _request(
                server, {"jsonrpc": "2.0", "id": 2 + n, "method": "tools/call", "params": call}
            )
        deadline = time.monotonic() + 10  # both sleeps started (the job runs on its own)
        while len(_processes_with(f"sleep\0{marker}")) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(_processes_with(f"sleep\0{marker}")) == 2
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
    deadline = time.monotonic() + 10
    while _processes_with(f"sleep\0{marker}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(f"sleep\0{marker}") == []
