"""`toolbelt mcp` on stdio without --root, as a desktop host starts it: the workspace is the
client's first root (MCP roots), else the directory it was started in — never / or the home
directory. Driven by the official MCP SDK client, the server started in a directory of the
test's choosing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from mcp import ClientSession, StdioServerParameters, types

pytestmark = pytest.mark.anyio

SERVER = [sys.executable, "-m", "toolbelt.cli.main", "mcp"]


@asynccontextmanager
async def connect(
    cwd: Path, roots: list[Path] | None = None, *, initialize: bool = True
) -> AsyncIterator[ClientSession]:
    """The SDK client on `toolbelt mcp` (no --root) started in ``cwd``, offering ``roots``
    (None: the client has no roots capability)."""

    async def list_roots(context: Any) -> types.ListRootsResult:
        assert roots is not None
        return types.ListRootsResult(
            roots=[types.Root(uri=path.as_uri(), name=path.name) for path in roots]
        )

    params = StdioServerParameters(command=SERVER[0], args=SERVER[1:], cwd=str(cwd))
    async with stdio_client(params) as (read, write):
        callback = {"list_roots_callback": list_roots} if roots is not None else {}
        async with ClientSession(read, write, **callback) as session:
            if initialize:
                await session.initialize()
            yield session


def _text(result: types.CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def _project(tmp_path: Path, name: str, marker: str) -> Path:
    project = tmp_path / name
    project.mkdir()
    (project / "marker.txt").write_text(marker + "\n")
    return project


async def test_the_clients_first_root_is_the_workspace(tmp_path: Path) -> None:
    first = _project(tmp_path, "first", "in the first root")
    second = _project(tmp_path, "second", "in the second root")
    launch = _project(tmp_path, "launch", "in the launch directory")
    async with connect(launch, [first, second]) as client:
        relative = await client.call_tool("read_file", {"path": "marker.txt"})
        # further roots count as inside the workspace: reading there needs no permission
        other = await client.call_tool("read_file", {"path": str(second / "marker.txt")})
        outside = await client.call_tool("read_file", {"path": str(launch / "marker.txt")})
    assert not relative.is_error and "in the first root" in _text(relative)
    assert not other.is_error and "in the second root" in _text(other)
    assert outside.is_error  # the launch directory is outside: asked, and nobody can answer
    assert "in the launch directory" not in _text(outside)


async def test_without_roots_the_launch_directory_is_the_workspace(tmp_path: Path) -> None:
    launch = _project(tmp_path, "launch", "in the launch directory")
    async with connect(launch) as client:
        result = await client.call_tool("read_file", {"path": "marker.txt"})
    assert not result.is_error and "in the launch directory" in _text(result)


async def test_requests_sent_before_the_roots_arrive_are_served_in_the_root(
    tmp_path: Path,
) -> None:
    """A client calls right after initialize; its call waits for the roots, then runs there."""
    first = _project(tmp_path, "first", "in the first root")
    async with connect(tmp_path, [first]) as client:
        listed, result = await client.list_tools(), await client.call_tool("ls", {"path": "."})
    assert "read_file" in {tool.name for tool in listed.tools}
    assert "marker.txt" in _text(result)


@pytest.mark.parametrize("where", ["/", "home"])
async def test_a_root_of_slash_or_home_is_refused_naming_root(where: str, tmp_path: Path) -> None:
    launch = _project(tmp_path, "launch", "in the launch directory")
    offered = Path("/") if where == "/" else Path(os.environ["HOME"])
    async with connect(launch, [offered]) as client:
        with pytest.raises(MCPError) as refused:
            await client.list_tools()
    message = str(refused.value)
    assert "toolbelt mcp refuses to serve" in message
    assert "the client offers it as a root" in message
    assert "--root" in message


@pytest.mark.parametrize("second", [False, True])
async def test_a_root_holding_the_home_directory_is_refused(second: bool, tmp_path: Path) -> None:
    """A client offering ``/home`` (here the private home's parent), first or beside a project,
    would have every file of the home directory count as inside the workspace."""
    home = Path(os.environ["HOME"])
    (home / "notes.txt").write_text("private notes\n")
    holder = home.parent
    project = _project(tmp_path, "project", "in the project")
    offered = [project, holder] if second else [holder]
    async with connect(project, offered) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("read_file", {"path": str(home / "notes.txt")})
    message = str(refused.value)
    assert message.startswith(
        f"toolbelt mcp refuses to serve {os.path.realpath(holder)}, which holds your home "
        "directory, as its workspace (the client offers it as a root); pass --root"
    )


@pytest.mark.parametrize("where", ["/", "home"])
def test_started_in_slash_or_home_without_roots_refuses_and_exits_2(where: str) -> None:
    cwd = "/" if where == "/" else os.environ["HOME"]
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    done = subprocess.run(
        SERVER,
        input="".join(json.dumps(m) + "\n" for m in (initialize, listing)),
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )
    shown = "/, the whole file system," if where == "/" else f"{os.path.realpath(cwd)}, your home"
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [1, 2]
    for reply in replies:
        assert reply["error"]["code"] == -32000
        assert reply["error"]["message"].startswith(f"toolbelt mcp refuses to serve {shown}")
        assert '"args": ["mcp", "--root", "/path/to/project"]' in reply["error"]["message"]
    assert done.stderr == f"toolbelt: {replies[0]['error']['message']}\n"
    assert done.returncode == 2


async def test_the_initialize_answer_does_not_name_a_root_it_has_not_chosen(tmp_path: Path) -> None:
    first = _project(tmp_path, "first", "x")
    async with connect(tmp_path, [first], initialize=False) as client:
        result = await client.initialize()
    assert result.instructions == (
        "Coding tools for the workspace your first root names: read, search, edit files and "
        "run commands."
    )
