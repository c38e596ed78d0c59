"""An "always" answer is offered only where it will be honoured: a trusted workspace's rule in
its settings.local.json. An untrusted workspace ignores the allow rules saved in it, so there
the terminal prompt of `toolbelt call` and the approval `toolbelt mcp` asks its client for
offer once and session only, and say why "always" is missing."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from tests.mcp_client.test_prompt_arguments import on_terminal
from tests.support.toolbelt_cli import TOOLBELT, TOOLBELT_ARGS

NO_ALWAYS = (
    "(no always: this workspace is not trusted, so a rule saved in it would be ignored; "
    "run `toolbelt trust` to be offered it)"
)

WRITE = {"path": "made.txt", "content": "made\n"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user environment of the test's own: no trust stored anywhere else applies."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    return workspace


def call_on_terminal(workspace: Path, answers: list[bytes], *extra: str) -> tuple[int, str]:
    arguments = json.dumps(WRITE)
    command = [*TOOLBELT, "call", "write_file", arguments]
    return on_terminal([*command, "--root", str(workspace), *extra], answers)


def test_untrusted_terminal_prompt_offers_no_always_and_says_why(
    home: Path, workspace: Path
) -> None:
    code, screen = call_on_terminal(workspace, [b"a\r", b"s\r"])
    assert code == 0, screen
    assert f"  [y] yes  [s] yes for this session  [n] no   {NO_ALWAYS}\r\n" in screen
    assert f"Allow write_file on {workspace}/made.txt? [y/s/n] > " in screen
    assert "[a] always" not in screen
    assert screen.count("? [y/s/n] > ") == 2  # "a" is not taken: the question is asked again
    assert (workspace / "made.txt").read_text() == "made\n"
    assert not (workspace / ".toolbelt").exists()  # nothing written that would be ignored


def test_trusted_terminal_always_is_kept_and_honoured_next_run(home: Path, workspace: Path) -> None:
    code, screen = call_on_terminal(workspace, [b"a\r"], "--trust-workspace")
    assert code == 0, screen
    assert "  [y] yes  [s] yes for this session  [a] always  [n] no\r\n" in screen
    assert "? [y/s/a/n] > " in screen
    saved = json.loads((workspace / ".toolbelt" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == [f"Edit(/{workspace}/made.txt)"]
    (workspace / "made.txt").unlink()
    code, screen = call_on_terminal(workspace, [], "--trust-workspace")
    assert code == 0, screen
    assert "wants permission" not in screen  # the rule answered: no question this time
    assert (workspace / "made.txt").read_text() == "made\n"


@asynccontextmanager
async def mcp_door(root: Path, elicit: Any, *extra: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--root", str(root), *extra],
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
@pytest.mark.parametrize("trusted", [False, True])
async def test_mcp_approval_offers_always_only_where_it_is_kept(
    home: Path, workspace: Path, trusted: bool
) -> None:
    from mcp.types import ElicitResult

    asked: list[Any] = []

    async def elicit(context: Any, params: Any) -> ElicitResult:
        asked.append(params)
        # a client may send a choice it was not offered: it must get no more than a session
        return ElicitResult(action="accept", content={"decision": "allow_always"})

    extra = ("--trust-workspace",) if trusted else ()
    async with mcp_door(workspace, elicit, *extra) as client:
        result = await client.call_tool("write_file", WRITE)
    assert result.is_error is False
    assert (workspace / "made.txt").read_text() == "made\n"
    (params,) = asked
    offered = params.requested_schema["properties"]["decision"]["enum"]
    local = workspace / ".toolbelt" / "settings.local.json"
    if trusted:
        assert offered == ["allow_once", "allow_session", "allow_always", "deny"]
        assert "No always-allow" not in params.message
        allowed = json.loads(local.read_text())["permissions"]["allow"]
        assert allowed == [f"Edit(/{workspace}/made.txt)"]
    else:
        assert offered == ["allow_once", "allow_session", "deny"]
        assert params.message.splitlines()[1] == (
            "(No always-allow: this workspace is not trusted, so a rule saved in it would be "
            "ignored; run `toolbelt trust` to be offered it.)"
        )
        assert not local.exists()
