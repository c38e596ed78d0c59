"""Request ids over stdio: ``1`` and ``"1"`` are two calls, each cancellable by its own id; an
id still in use by a running call is refused at once (the call it would have started never
runs); SIGTERM ends every call whatever the server's records say."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import IO, Any

import anyio
import anyio.lowlevel
import pytest
from tests.support.toolbelt_cli import TOOLBELT
from tests.support.waiting import wait_until

from toolbelt.mcp.call_tasks import CallTasks

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}


def _call(request_id: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _send(stdin: IO[bytes], *messages: dict[str, Any]) -> None:
    stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
    stdin.flush()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _server(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*TOOLBELT, "mcp", "--root", str(root), "--mode", "bypass", "--sandbox", "off"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def test_ids_1_and_string_1_are_two_calls_and_a_reused_id_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "shell.pid"
    server = _server(tmp_path)
    assert server.stdin is not None and server.stdout is not None
    try:
        _send(server.stdin, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
        _send(server.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert json.loads(server.stdout.readline())["id"] == 0
        _send(server.stdin, _call(1, "bash", {"command": f"echo $$ > {marker}; sleep 300"}))
        shell = int(wait_until(lambda: marker.exists() and marker.read_text().strip(), "bash"))
        again = tmp_path / "ran-again"
        _send(server.stdin, _call("1", "think", {"thought": "a string id"}))
        _send(server.stdin, _call(1, "bash", {"command": f"touch {again}"}))
        refused = json.loads(server.stdout.readline())
        assert refused == {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32600,
                "message": "Invalid Request: the id 1 is in use by a call still running; "
                "send each request with a fresh id.",
            },
        }
        cancel = {"requestId": 1, "reason": "enough"}
        _send(
            server.stdin, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}
        )
        wait_until(lambda: not _alive(shell), "the cancelled call's command to end")
        answered = json.loads(server.stdout.readline())  # the think call, after the gate opened
        assert answered["id"] == "1" and "result" in answered
        server.stdin.close()
        assert server.wait(timeout=30) == 0
        assert server.stdout.read() == b""  # the cancelled call got no answer
        assert not again.exists()
    finally:
        server.kill()
        server.wait()


def test_sigterm_ends_calls_under_ids_1_and_string_1_at_once(tmp_path: Path) -> None:
    marker = tmp_path / "shell.pid"
    server = _server(tmp_path)
    assert server.stdin is not None and server.stdout is not None
    try:
        _send(server.stdin, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
        _send(server.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert json.loads(server.stdout.readline())["id"] == 0
        command = f"echo $$ > {marker}; sleep 300"
        _send(server.stdin, _call(1, "bash", {"command": command, "timeout_ms": 300_000}))
        shell = int(wait_until(lambda: marker.exists() and marker.read_text().strip(), "bash"))
        _send(server.stdin, _call("1", "think", {"thought": "waits for the gate"}))
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)  # before the fix: until the bash call's timeout (300 s)
        wait_until(lambda: not _alive(shell), "the command to end")
    finally:
        server.kill()
        server.wait()


@pytest.mark.anyio
async def test_a_cancelled_block_cancels_a_call_its_owner_lost_track_of() -> None:
    log: list[str] = []

    async def untracked() -> None:  # a call in none of the owner's records
        try:
            await anyio.sleep(5)
            log.append("ran to its end")
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.lowlevel.checkpoint()
                log.append("cleaned up")

    with anyio.CancelScope() as outer:
        async with CallTasks(lambda: None) as tasks:  # an owner that cancels nothing
            tasks.start_soon(untracked)
            await anyio.lowlevel.checkpoint()
            outer.cancel()  # as SIGTERM does
    assert log == ["cleaned up"]
