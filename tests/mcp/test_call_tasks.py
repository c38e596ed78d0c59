"""The stdio server's calls run in plain tasks (``mcp.call_tasks``) with a task group's structure:
the block waits for every call, a cancelled block cancels each call through its own anyio scope
(shielded clean-up runs to its end) and waits for it, a call's BaseException is raised."""

from __future__ import annotations

import functools
import json
import math
import signal
import subprocess
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest
from tests.support.toolbelt_cli import TOOLBELT
from tests.support.waiting import wait_until

from toolbelt.mcp.call_tasks import CallTasks
from toolbelt.mcp.server import McpServer, Outgoing
from toolbelt.runtime import Runtime

pytestmark = pytest.mark.anyio


class _Calls:
    """Calls that each run in a scope of their own, as the server's calls do."""

    def __init__(self) -> None:
        self.scopes: list[anyio.CancelScope] = []
        self.log: list[str] = []

    def cancel(self) -> None:
        for scope in self.scopes:
            scope.cancel()

    async def slow_with_cleanup(self, name: str) -> None:
        with anyio.CancelScope() as scope:
            self.scopes.append(scope)
            try:
                await anyio.sleep_forever()
            finally:
                with anyio.CancelScope(shield=True):
                    for _ in range(5):  # a bare Task.cancel() would end the clean-up here
                        await anyio.lowlevel.checkpoint()
                    self.log.append(f"{name} cleaned up")

    async def quick(self, name: str, gate: anyio.Event) -> None:
        await gate.wait()
        self.log.append(f"{name} answered")


async def test_leaving_the_block_waits_for_every_call() -> None:
    calls, gate = _Calls(), anyio.Event()
    async with CallTasks(calls.cancel) as tasks:
        for name in ("a", "b", "c"):
            tasks.start_soon(calls.quick, name, gate)
        gate.set()
    assert sorted(calls.log) == ["a answered", "b answered", "c answered"]


async def test_a_cancelled_block_lets_each_call_finish_its_shielded_cleanup() -> None:
    calls = _Calls()
    with anyio.CancelScope() as outer:
        async with CallTasks(calls.cancel) as tasks:
            tasks.start_soon(calls.slow_with_cleanup, "a")
            tasks.start_soon(calls.slow_with_cleanup, "b")
            await anyio.lowlevel.checkpoint()  # both calls are in their scopes now
            outer.cancel()  # as SIGTERM does
    assert outer.cancelled_caught
    assert sorted(calls.log) == ["a cleaned up", "b cleaned up"]


async def test_a_call_cleaning_up_when_the_block_is_cancelled_is_not_interrupted() -> None:
    calls = _Calls()
    cleaning, release = anyio.Event(), anyio.Event()

    async def call() -> None:
        with anyio.CancelScope() as scope:
            calls.scopes.append(scope)
            scope.cancel()  # as notifications/cancelled does: its clean-up begins
            try:
                await anyio.sleep_forever()
            finally:
                with anyio.CancelScope(shield=True):
                    cleaning.set()
                    await release.wait()  # a bare Task.cancel() would land here
                    calls.log.append("cleaned up")

    async def release_later() -> None:
        await cleaning.wait()
        for _ in range(5):
            await anyio.lowlevel.checkpoint()
        release.set()

    async with anyio.create_task_group() as group:
        group.start_soon(release_later)
        with anyio.CancelScope() as outer:
            async with CallTasks(calls.cancel) as tasks:
                tasks.start_soon(call)
                await cleaning.wait()
                outer.cancel()  # SIGTERM while the call cleans up
    assert calls.log == ["cleaned up"]


class _Fatal(BaseException):
    pass


async def test_a_call_raising_a_base_exception_cancels_the_others_and_is_raised() -> None:
    calls = _Calls()

    async def fatal() -> None:
        await anyio.lowlevel.checkpoint()
        raise _Fatal

    async def both() -> None:
        async with CallTasks(calls.cancel) as tasks:
            tasks.start_soon(calls.slow_with_cleanup, "other")
            tasks.start_soon(fatal)

    with pytest.raises(BaseExceptionGroup) as raised:
        await both()
    assert [type(e) for e in raised.value.exceptions] == [_Fatal]
    assert calls.log == ["other cleaned up"]


def test_sigterm_during_a_call_ends_the_server_and_the_command(tmp_path: Path) -> None:
    marker = tmp_path / "shell.pid"
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}
    command = f"echo $$ > {marker}; sleep 300"
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "bash", "arguments": {"command": command}},
        },
    ]
    server = subprocess.Popen(
        [*TOOLBELT, "mcp", "--root", str(tmp_path), "--mode", "bypass", "--sandbox", "off"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1
        shell = int(wait_until(lambda: marker.exists() and marker.read_text().strip(), "bash"))
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) is not None
        assert server.stdout.read() == b""  # the cancelled call got no answer
        wait_until(lambda: not _alive(shell), "the command to end")
    finally:
        server.kill()
        server.wait()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_a_call_arriving_once_the_calls_are_cancelled_runs_nothing(tmp_path: Path) -> None:
    # received before SIGTERM, its task starting after it: it must not run its command
    send, receive = anyio.create_memory_object_stream[Outgoing](math.inf)
    server = McpServer(functools.partial(Runtime, tmp_path, mode="bypass"), send)
    marker = tmp_path / "ran"
    params = {"name": "bash", "arguments": {"command": f"touch {marker}"}}
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}
    ping = {"jsonrpc": "2.0", "id": 4, "method": "ping"}
    try:
        async with CallTasks(server.cancel_calls) as tasks:
            server.cancel_calls()
            await server.handle(call, tasks)
        await server.handle(ping, tasks)
        answered, _ = await receive.receive()
    finally:
        await server.aclose()
        send.close()
        receive.close()
    assert answered["id"] == 4  # the cancelled call was never answered
    assert not marker.exists()
