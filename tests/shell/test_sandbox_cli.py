"""``--sandbox`` and the settings' ``sandbox`` key, through the real CLI."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from toolbelt.permissions.settings import load_settings
from toolbelt.shell.landlock import abi_version

needs_landlock = pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)")


def toolbelt(*args: str, home: Path, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
    env.update(HOME=str(home), COLUMNS="120", PATH=path or os.environ["PATH"])
    return subprocess.run(
        [sys.executable, "-m", "toolbelt.cli.main", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=60,
        check=False,
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
    from tests.mcp.test_http_server import start

    (tmp_path / "ws").mkdir()
    token = tmp_path / "token.txt"
    token.write_text("s3cret-token\n")
    command = {"command": f"touch {tmp_path}/made; cat {token}"}
    args = ["-m", "toolbelt.cli.main", "mcp", "--root", str(tmp_path / "ws"), "--mode", "bypass"]
    args += ["--sandbox", "landlock", "--token-file", str(token)]
    async with Client(StdioServerParameters(command=sys.executable, args=args)) as client:
        over_stdio = await client.call_tool("bash", command)
    process, base = start(tmp_path / "ws", "--mode", "bypass", "--sandbox", "landlock")
    try:
        async with Client(f"{base}/mcp") as client:
            over_http = await client.call_tool("bash", command)
    finally:
        process.terminate()
        process.wait(20)
    assert f"touch: cannot touch '{tmp_path}/made'" in str(over_stdio.content)
    assert f"touch: cannot touch '{tmp_path}/made': Read-only file system" in str(over_http.content)
    assert not (tmp_path / "made").exists()
    assert "s3cret-token" not in str(over_stdio.content)
