"""``--sandbox`` and the settings' ``sandbox`` key, through the real CLI."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.http_server import HttpServer, free_port, start
from tests.support import toolbelt_cli
from tests.support.toolbelt_cli import TOOLBELT_ARGS
from toolbelt.config.settings import load_settings
from toolbelt.sandbox.landlock import abi_version

needs_landlock = pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)")


def toolbelt(*args: str, home: Path, path: str | None = None) -> subprocess.CompletedProcess[str]:
    return toolbelt_cli.toolbelt(
        *args,
        env={"HOME": str(home), "COLUMNS": "120", "PATH": path or os.environ["PATH"]},
        unset=["XDG_CONFIG_HOME"],
    )


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    return tmp_path / "ws", tmp_path / "home"


@needs_landlock
def test_sandbox_flag_confines_an_approved_command_and_off_does_not(
    dirs: tuple[Path, Path],
) -> None:
    workspace, home = dirs
    command = json.dumps({"command": f"touch {home}/made"})
    confined = toolbelt("call", "bash", command, "--root", str(workspace), "--yes", home=home)
    assert confined.returncode == 1
    assert f"touch: cannot touch '{home}/made': Read-only file system" in confined.stdout
    assert not (home / "made").exists()
    free = toolbelt(
        "call", "bash", command, "--root", str(workspace), "--yes", "--sandbox", "off", home=home
    )
    assert free.returncode == 0
    assert (home / "made").exists()


@needs_landlock
def test_settings_choose_the_network_ports(dirs: tuple[Path, Path]) -> None:
    workspace, home = dirs
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    settings = {"sandbox": {"mode": "landlock", "network": [f"127.0.0.1:{port}"]}}
    (home / ".config" / "toolbelt").mkdir(parents=True)
    (home / ".config" / "toolbelt" / "settings.json").write_text(json.dumps(settings))
    try:
        command = json.dumps({"command": f"echo hi > /dev/tcp/127.0.0.1/{port} && echo SENT"})
        result = toolbelt("call", "bash", command, "--root", str(workspace), "--yes", home=home)
        assert (result.returncode, result.stdout) == (0, "SENT\n")
    finally:
        server.close()


def test_a_missing_backend_or_a_bad_setting_refuses_to_start(dirs: tuple[Path, Path]) -> None:
    workspace, home = dirs
    no_bwrap = toolbelt(
        "call", "think", '{"thought": "x"}', "--root", str(workspace), "--sandbox", "bwrap",
        home=home, path="/nonexistent",
    )  # fmt: skip
    assert no_bwrap.returncode == 2
    assert no_bwrap.stderr == (
        "toolbelt: --sandbox bwrap: bubblewrap is not installed or cannot create namespaces "
        "here; install it (the bubblewrap package) or use --sandbox landlock.\n"
    )
    (workspace / ".toolbelt").mkdir()
    (workspace / ".toolbelt" / "settings.json").write_text('{"sandbox": {"mode": "jail"}}')
    bad = toolbelt("call", "think", '{"thought": "x"}', "--root", str(workspace), home=home)
    assert bad.returncode == 2
    assert "`sandbox.mode`" in bad.stderr


def test_an_untrusted_workspace_cannot_turn_the_sandbox_off(tmp_path: Path) -> None:
    (tmp_path / ".toolbelt").mkdir()
    loosen = {"sandbox": {"mode": "off", "network": "on"}}
    (tmp_path / ".toolbelt" / "settings.json").write_text(json.dumps(loosen))
    untrusted = load_settings(tmp_path, home=tmp_path / "home", trusted=False)
    assert (untrusted.sandbox_mode, untrusted.sandbox_network) == (None, None)
    assert untrusted.ignored == [f"{tmp_path / '.toolbelt' / 'settings.json'}: sandbox settings"]
    trusted = load_settings(tmp_path, home=tmp_path / "home", trusted=True)
    assert (trusted.sandbox_mode, trusted.sandbox_network) == ("off", "on")


@needs_landlock
@pytest.mark.anyio
async def test_both_mcp_doors_confine_commands_and_hide_the_token_file(tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    (tmp_path / "ws").mkdir()
    # a write the command analysis cannot see (a visible one asks first, even in bypass mode)
    (tmp_path / "ws" / "Makefile").write_text(f"out:\n\ttouch {tmp_path}/made\n")
    token = tmp_path / "token.txt"
    token.write_text("s3cret-token\n")
    args = [*TOOLBELT_ARGS, "mcp", "--root", str(tmp_path / "ws"), "--mode", "bypass"]
    args += ["--sandbox", "landlock"]
    stdio = StdioServerParameters(command=sys.executable, args=[*args, "--token-file", str(token)])
    async with Client(stdio) as client:
        over_stdio = await client.call_tool("bash", {"command": f"make -s out; cat {token}"})
    running = start(tmp_path / "ws", *args[5:])
    try:
        given = {"command": f"make -s out; cat {running.token_file}"}
        async with running.client() as client:
            over_http = await client.call_tool("bash", given)
    finally:
        running.stop()
    # the token the server makes itself, kept under $XDG_STATE_HOME/toolbelt/tokens/
    server, written = _serve_with_its_own_token(args)
    try:
        async with server.client() as client:
            over_generated = await client.call_tool("bash", {"command": f"cat {written}"})
    finally:
        server.stop()
    refused = f"touch: cannot touch '{tmp_path}/made': Read-only file system\n"
    refused += "make: *** [Makefile:2: out] Error 1"
    # the sandbox covers every token file with an empty one: `cat` shows nothing; the token
    # the server keeps in $XDG_STATE_HOME/toolbelt/tokens is a protected read: asked, so refused
    texts = [getattr(r.content[0], "text", "") for r in (over_stdio, over_http, over_generated)]
    assert texts[:2] == [refused, refused]
    assert texts[2].startswith(f"`cat {written}` touches a protected path (the MCP server's")
    assert over_generated.is_error
    assert not (tmp_path / "made").exists()


def _serve_with_its_own_token(args: list[str]) -> tuple[HttpServer, Path]:
    """`toolbelt mcp --http` without --token-file: the token it keeps, and where."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, *args, "--http", f"127.0.0.1:{port}"], stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    process.stderr.readline()  # "serving …": the token file is written by then
    written = Path(os.environ["XDG_STATE_HOME"]) / "toolbelt" / "tokens" / f"mcp-{port}.token"
    token = written.read_text().strip()
    return HttpServer(process, f"http://127.0.0.1:{port}", port, token), written
