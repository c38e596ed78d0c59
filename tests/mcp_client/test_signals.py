"""A ``toolbelt call`` to an MCP server that is stopped — by SIGTERM, or killed outright —
leaves nothing behind: not the server, not the process its tool started."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests.mcp_client.conftest import fake_entry, write_servers
from tests.support.toolbelt_cli import TOOLBELT
from tests.support.waiting import wait_until


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
            *TOOLBELT,
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
        wait_until(
            lambda: (state / "sleeper.pid").exists() or process.poll() is not None,
            "the tool to start its child",
        )
        process.send_signal(sig)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == status, err
    server = int((state / "started").read_text().split()[0])
    child = int((state / "sleeper.pid").read_text())
    # after SIGKILL the watchdog ends them, a moment later
    wait_until(lambda: gone(server) and gone(child), "the server and its child to end")
    if sig is signal.SIGTERM:
        assert err.endswith("toolbelt: stopped by SIGTERM; the call was cancelled.\n")
