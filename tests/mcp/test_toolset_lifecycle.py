"""A toolset with a lifecycle (it would hold connections) is opened before its tools run and
closed when its session ends, over stdio and HTTP, by the real ``toolbelt mcp``.

The toolset lives in a user's module, named with ``--toolset``, and appends ``open N`` and
``close N`` to a log file as it is opened and closed; its one tool says whether it runs in an
open toolset. A function makes a toolset per session; a ``Toolset`` object is shared by every
session, so it is opened by the first and closed by the last.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.stdio import stdio_client
from tests.mcp.http_server import start
from tests.support.toolbelt_cli import TOOLBELT_ARGS

from mcp import ClientSession, StdioServerParameters
from toolbelt import Runtime, ToolRegistry
from toolbelt.mcp.http_sessions import Busy, Limits, SessionTable
from toolbelt.mcp.server import McpServer, Outbox

pytestmark = pytest.mark.anyio

LIFECYCLE_TOOLS = """
import itertools
import os

import toolbelt

_serial = itertools.count(1)


def _log(line: str) -> None:
    with open(os.environ["LIFECYCLE_LOG"], "a") as log:
        log.write(line + "\\n")


class StateInput(toolbelt.ToolInput):
    pass


class StateTool(toolbelt.Tool[StateInput]):
    name = "state"
    title = "State"
    description = "Say which toolset runs this call and whether it is open."
    input_model = StateInput
    example = {}
    readonly = True

    def __init__(self, owner: "Connected") -> None:
        self.owner = owner

    async def run(self, args: StateInput, ctx: toolbelt.ToolContext) -> toolbelt.ToolOutput:
        state = "open" if self.owner.is_open else "closed"
        return toolbelt.ToolOutput.text(f"toolset {self.owner.label} {state}")


class Connected(toolbelt.ToolRegistry):
    def __init__(self, label: str) -> None:
        super().__init__([StateTool(self)])
        self.label = label
        self.is_open = False

    async def open(self) -> None:
        self.is_open = True
        _log(f"open {self.label}")

    async def aclose(self) -> None:  # logs every call: the runtime must close it once
        self.is_open = False
        _log(f"close {self.label}")


def per_session() -> toolbelt.Toolset:
    return Connected(str(next(_serial)))


shared = Connected("shared")
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "lifecycle_tools.py").write_text(LIFECYCLE_TOOLS)
    return tmp_path


def logged(project: Path) -> list[str]:
    log = project / "lifecycle.log"
    return log.read_text().splitlines() if log.exists() else []


def environment(project: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(project), "LIFECYCLE_LOG": str(project / "lifecycle.log")}


async def state(client: ClientSession) -> str:
    result = await client.call_tool("state", {})
    return str(result.content[0].text)  # type: ignore[union-attr]


async def test_stdio_opens_the_toolset_once_and_closes_it_when_the_client_leaves(
    project: Path,
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--toolset", "lifecycle_tools:per_session"],
        cwd=str(project),
        env={**os.environ, **environment(project)},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        first, second = await state(client), await state(client)
        assert logged(project) == ["open 1"]
    assert (first, second) == ("toolset 1 open", "toolset 1 open")
    assert logged(project) == ["open 1", "close 1"]


async def test_each_http_session_opens_its_own_toolset_and_closes_it_when_it_ends(
    project: Path,
) -> None:
    server = start(project, "--toolset", "lifecycle_tools:per_session", env=environment(project))
    try:
        async with server.transport() as (read_a, write_a, *_), ClientSession(read_a, write_a) as a:
            await a.initialize()
            assert await state(a) == "toolset 1 open"
            async with (
                server.transport() as (read_b, write_b, *_),
                ClientSession(read_b, write_b) as b,
            ):
                await b.initialize()
                assert await state(b) == "toolset 2 open"
                assert await state(a) == "toolset 1 open"
                assert logged(project) == ["open 1", "open 2"]
            assert logged(project) == ["open 1", "open 2", "close 2"]
            assert await state(a) == "toolset 1 open"
        assert logged(project) == ["open 1", "open 2", "close 2", "close 1"]
    finally:
        server.stop()
    assert logged(project) == ["open 1", "open 2", "close 2", "close 1"]


async def test_a_toolset_object_is_shared_by_http_sessions_and_closed_by_the_last(
    project: Path,
) -> None:
    server = start(project, "--toolset", "lifecycle_tools:shared", env=environment(project))
    try:
        async with server.transport() as (read_a, write_a, *_), ClientSession(read_a, write_a) as a:
            await a.initialize()
            async with (
                server.transport() as (read_b, write_b, *_),
                ClientSession(read_b, write_b) as b,
            ):
                await b.initialize()
                assert await state(a) == await state(b) == "toolset shared open"
            assert logged(project) == ["open shared"]  # the other session still uses it
            assert await state(a) == "toolset shared open"
        assert logged(project) == ["open shared", "close shared"]
    finally:
        server.stop()
    assert logged(project) == ["open shared", "close shared"]


async def test_stopping_the_http_server_closes_the_toolsets_of_open_sessions(
    project: Path,
) -> None:
    server = start(project, "--toolset", "lifecycle_tools:per_session", env=environment(project))
    try:  # the client leaves without ending its session: the server still holds it
        async with (
            server.transport(terminate_on_close=False) as (read, write, *_),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            assert await state(client) == "toolset 1 open"
        assert logged(project) == ["open 1"]
    finally:
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(20)
        server.stop()  # already stopped: removes the test's token file
    assert server.process.returncode == 0
    assert logged(project) == ["open 1", "close 1"]


async def test_a_session_still_opening_when_the_server_stops_is_closed_once_open(
    tmp_path: Path,
) -> None:
    log: list[str] = []
    release = anyio.Event()

    class SlowToOpen(ToolRegistry):
        async def open(self) -> None:
            await release.wait()  # a connection that takes a while
            log.append("open")

        async def aclose(self) -> None:
            log.append("close")

    async def open_server(outbox: Outbox, *, stateless: bool) -> McpServer:
        server = McpServer(functools.partial(Runtime, tmp_path, toolset=SlowToOpen()), outbox)
        await server.runtime.open()
        return server

    refused: list[str] = []

    async def initialize(table: SessionTable) -> None:
        try:
            await table.open("s1")
        except Busy as exc:
            refused.append(str(exc))

    async with anyio.create_task_group() as group:
        table = SessionTable(open_server, Limits(), group)
        group.start_soon(initialize, table)
        await anyio.wait_all_tasks_blocked()  # its toolset is opening
        await table.close_all()
        release.set()
    assert refused == ["The server is stopping."]
    assert log == ["open", "close"]
    assert table.sessions == {}
