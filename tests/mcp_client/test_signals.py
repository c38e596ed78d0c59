"""A ``toolbelt call`` to an MCP server that is stopped — by SIGTERM, or killed outright —
leaves nothing behind: not the server, not the process its tool started."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.mcp_client.conftest import fake_entry, write_servers


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGKILL, -9)])
def test_a_stopped_call_leaves_neither_the_server_nor_its_child(
    workspace: Path, mark: str, tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    write_servers(workspace / ".mcp.json", {"fake": fake_entry(mark, state)})
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolbelt.cli.main",
            "call",
            "mcp__fake__sleeper",
            "{}",
            "--root",
            str(workspace),
            "--trust-workspace",
            "--yes",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (state / "sleeper.pid").exists() and process.poll() is None:
            assert time.monotonic() < deadline, "the tool never started its child"
            time.sleep(0.02)
        process.send_signal(sig)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == status, err
    server = int((state / "started").read_text().split()[0])
    child = int((state / "sleeper.pid").read_text())
    deadline = time.monotonic() + 10  # after SIGKILL the watchdog ends them, a moment later
    while not (gone(server) and gone(child)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(server) and gone(child)
    if sig is signal.SIGTERM:
        assert err.endswith("toolbelt: stopped by SIGTERM; the call was cancelled.\n")
