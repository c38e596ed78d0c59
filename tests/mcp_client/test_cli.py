"""The doors: `toolbelt call`, `toolbelt tools`, `toolbelt mcp-servers` and `toolbelt mcp`."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters, stdio_client

from mcp import Client
from tests.mcp_client.conftest import everything_entry, fake_entry, write_servers
from tests.support import toolbelt_cli
from tests.support.toolbelt_cli import TOOLBELT_ARGS

NOTICE = (
    "this workspace is not trusted, so the MCP servers in {path} were not started (they would "
    "run programs it names). Trust it with `toolbelt trust` (or `--trust-workspace` for one run)."
)


def toolbelt(*args: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """``toolbelt ARGS``, given the time to start the test's MCP servers."""
    return toolbelt_cli.toolbelt(*args, timeout=120, **options)


def test_call_runs_a_server_everything_tool(workspace: Path, mark: str) -> None:
    write_servers(workspace / ".mcp.json", {"everything": everything_entry(mark)})
    done = toolbelt(
        "call", "mcp__everything__echo", '{"message":"hi"}', "--root", str(workspace),
        "--trust-workspace", "--yes",
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "Echo: hi\n")


def test_call_without_approval_is_denied_with_exit_3(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    write_servers(workspace / ".mcp.json", {"fake": fake_entry(mark, tmp_path)})
    done = toolbelt(
        "call", "mcp__fake__echo", '{"text":"hi"}', "--root", str(workspace), "--trust-workspace"
    )
    assert done.returncode == 3
    assert done.stdout.startswith(
        "`mcp__fake__echo` (tool `echo` of the MCP server `fake`) has effects toolbelt cannot "
        "check. No one could be asked;"
    )


def test_an_untrusted_workspace_starts_no_server_and_says_how_to_trust(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    config = write_servers(workspace / ".mcp.json", {"fake": fake_entry(mark, tmp_path)})
    done = toolbelt("call", "mcp__fake__echo", '{"text":"hi"}', "--root", str(workspace), "--yes")
    assert done.returncode == 2
    assert done.stderr == f"toolbelt: {NOTICE.format(path=config)}\n"
    assert done.stdout.startswith("There is no tool named `mcp__fake__echo`.")
    listed = toolbelt("mcp-servers", "--root", str(workspace), "--json")
    assert json.loads(listed.stdout) == [
        {
            "name": "fake",
            "source": str(config),
            "transport": "?",
            "state": "not started",
            "tools": 0,
            "error": "the workspace is not trusted; trust it with `toolbelt trust` (or "
            "`--trust-workspace` for one run)",
            "auth": "none",
        }
    ]
    assert not (tmp_path / "started").exists()


def test_tools_and_mcp_servers_list_a_trusted_workspaces_servers(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    config = write_servers(
        workspace / ".mcp.json",
        {"fake": fake_entry(mark, tmp_path), "broken": {"command": str(tmp_path / "missing")}},
    )
    tools = toolbelt("tools", "--root", str(workspace), "--trust-workspace", "--json")
    listing = {tool["name"]: tool for tool in json.loads(tools.stdout)}
    assert listing["mcp__fake__echo"]["input_schema"] == {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    assert listing["mcp__fake__read_only_echo"]["readonly"] is True
    assert "read_file" in listing and "call_mcp_tool" in listing
    missing = tmp_path / "missing"
    assert tools.stderr == (
        f"toolbelt: MCP server `broken`: cannot run `{missing}`: No such file or directory\n"
    )
    servers = toolbelt("mcp-servers", "--root", str(workspace), "--trust-workspace")
    lines = servers.stdout.splitlines()
    assert lines[0] == f"fake\trunning\t12 tools\tstdio\t{config}"
    assert lines[1] == (
        f"broken\tfailed\t0 tools\tstdio\t{config}\tcannot run `{missing}`: No such file or "
        "directory"
    )


@pytest.mark.anyio
async def test_toolbelt_mcp_serves_the_servers_tools_beside_the_builtins(
    workspace: Path, mark: str, tmp_path: Path, user_config: Path
) -> None:
    write_servers(workspace / ".mcp.json", {"fake": fake_entry(mark, tmp_path)})
    (user_config / "settings.json").write_text('{"permissions": {"allow": ["mcp__fake"]}}')
    params = StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--root", str(workspace), "--trust-workspace"],
        env={"XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"], "TOOLBELT_TEST_MARK": mark},
    )
    async with Client(stdio_client(params), mode="legacy") as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("mcp__fake__echo", {"text": "through two servers"})
    assert {"read_file", "bash", "call_mcp_tool", "mcp__fake__echo"} <= set(names)
    assert result.content[0].text == "echo: through two servers"  # type: ignore[union-attr]


def test_a_call_without_servers_never_imports_the_mcp_sdk(workspace: Path, tmp_path: Path) -> None:
    write_servers(workspace / ".mcp.json", {"x": {"command": "never-started"}})  # untrusted
    code = (
        "import sys; from toolbelt.cli.main import main; main(['call', 'think', "
        f"'{{\"thought\": \"x\"}}', '--root', {str(workspace)!r}]); "
        "print(sorted(m for m in ('mcp', 'toolbelt.mcp_client.toolset') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "[]"


@pytest.mark.anyio
async def test_toolbelt_mcp_over_http_shares_the_servers_between_sessions(
    workspace: Path, mark: str, tmp_path: Path, user_config: Path
) -> None:
    from tests.mcp.http_server import start

    write_servers(workspace / ".mcp.json", {"fake": fake_entry(mark, tmp_path)})
    (user_config / "settings.json").write_text('{"permissions": {"allow": ["mcp__fake__echo"]}}')
    server = start(workspace, "--trust-workspace")
    try:
        replies = []
        for text in ("first session", "second session"):
            async with server.client(mode="legacy") as client:
                names = [tool.name for tool in (await client.list_tools()).tools]
                result = await client.call_tool("mcp__fake__echo", {"text": text})
                replies.append(result.content[0].text)  # type: ignore[union-attr]
        starts = (tmp_path / "started").read_text().splitlines()
    finally:
        server.stop()
    assert {"read_file", "call_mcp_tool", "mcp__fake__echo"} <= set(names)
    assert replies == ["echo: first session", "echo: second session"]
    assert len(starts) == 1  # one server process for both sessions


def test_a_users_server_starts_in_the_workspace_only_when_its_entry_says_so(
    workspace: Path, user_config: Path, tmp_path: Path
) -> None:
    """``python3 -m srv`` started in the repository would import the repository's ``srv.py``
    (and ``npx pkg`` run its ``node_modules/.bin/pkg``), files a sandboxed command may write:
    a user-level server starts in the user's home, trusted workspace or not, unless its entry
    names the workspace as its ``cwd`` (``${TOOLBELT_PROJECT_DIR}``)."""
    marker = tmp_path / "ran"
    (workspace / "planted_srv.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    # PYTHONSAFEPATH empty: the cwd is on sys.path, so where it starts decides what it imports
    entry: dict[str, Any] = {
        "command": sys.executable,
        "args": ["-m", "planted_srv"],
        "env": {"PYTHONSAFEPATH": ""},
        "startupTimeout": 5,
    }
    (user_config / "mcp.json").write_text(json.dumps({"mcpServers": {"mine": entry}}))
    listed = toolbelt("mcp-servers", "--root", str(workspace), cwd=workspace)  # run from it
    assert "mine" in listed.stdout
    assert not marker.exists()
    trusted = toolbelt("mcp-servers", "--root", str(workspace), "--trust-workspace", cwd=workspace)
    assert "mine" in trusted.stdout
    assert not marker.exists()  # trusting the repository is not trusting what was written there
    entry["cwd"] = "${TOOLBELT_PROJECT_DIR}"  # the user's own entry may ask for the workspace
    (user_config / "mcp.json").write_text(json.dumps({"mcpServers": {"mine": entry}}))
    toolbelt("mcp-servers", "--root", str(workspace), "--trust-workspace", cwd=workspace)
    assert marker.exists()


def test_toolbelt_mcp_ends_cleanly_when_its_client_leaves(
    workspace: Path, user_config: Path, mark: str, tmp_path: Path
) -> None:
    """The configured servers' connections end in the task that opened them: a client closing
    stdin gets exit 0 and no traceback, and the server's process is gone (``mark``)."""
    write_servers(user_config / "mcp.json", {"fake": fake_entry(mark, tmp_path)})
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    done = toolbelt(
        "mcp", "--root", str(workspace), stdin="".join(json.dumps(line) + "\n" for line in lines)
    )
    assert "mcp__fake__echo" in done.stdout
    assert "Traceback" not in done.stderr
    assert done.returncode == 0


def test_a_python_server_does_not_import_modules_from_its_cwd(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    marker = tmp_path / "workspace-module-ran"
    (workspace / "planted_srv.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    entry = fake_entry(mark, tmp_path)
    python = shlex.quote(sys.executable)
    launch = f"{python} -m planted_srv 2>/dev/null; exec {python} {shlex.quote(entry['args'][0])}"
    entry |= {"command": "/bin/sh", "args": ["-c", launch], "cwd": str(workspace)}
    write_servers(workspace / ".mcp.json", {"fake": entry})
    done = toolbelt(
        "call", "mcp__fake__echo", '{"text":"hi"}', "--root", str(workspace),
        "--trust-workspace", "--yes",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists()


def test_a_server_is_not_found_through_a_relative_path_entry(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    marker = tmp_path / "planted-python-ran"
    planted = workspace / "bin" / "python3"
    planted.parent.mkdir()
    planted.write_text(f"#!/bin/sh\necho ran > {marker}\nexit 1\n")
    planted.chmod(0o755)
    entry = fake_entry(mark, tmp_path)
    real = str(Path(sys.executable).parent)
    entry |= {"command": "python3", "cwd": str(workspace)}
    entry["env"] |= {"PATH": f"bin:{real}:{os.environ['PATH']}"}
    write_servers(workspace / ".mcp.json", {"fake": entry})
    done = toolbelt(
        "call", "mcp__fake__echo", '{"text":"hi"}', "--root", str(workspace),
        "--trust-workspace", "--yes",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists()


def planted_python(workspace: Path, marker: Path) -> str:
    """``workspace/bin/python3``: records that it ran, then runs the real interpreter; the
    PATH of an activated environment that puts it first (an absolute entry in the workspace)."""
    planted = workspace / "bin" / "python3"
    planted.parent.mkdir()
    planted.write_text(f'#!/bin/sh\necho ran > {marker}\nexec {shlex.quote(sys.executable)} "$@"\n')
    planted.chmod(0o755)
    return f"{planted.parent}:{Path(sys.executable).parent}:{os.environ['PATH']}"


def call_echo(workspace: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return toolbelt(
        "call", "mcp__fake__echo", '{"text":"hi"}',
        "--root", str(workspace), "--trust-workspace", "--yes",
        cwd=workspace, env={"HOME": str(home)}, unset=["XDG_CONFIG_HOME"],
    )  # fmt: skip


def test_a_users_server_is_not_found_in_the_workspace_an_absolute_path_entry_names(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    marker, home = tmp_path / "planted-python-ran", tmp_path / "home"
    entry = fake_entry(mark, tmp_path)
    entry |= {"command": "python3"}
    entry["env"] |= {"PATH": planted_python(workspace, marker)}
    write_servers(home / ".config" / "toolbelt" / "mcp.json", {"fake": entry})
    done = call_echo(workspace, home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists()


def test_the_workspaces_own_server_keeps_the_workspace_entries_of_its_path(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    marker, home = tmp_path / "workspace-python-ran", tmp_path / "home"
    home.mkdir()
    entry = fake_entry(mark, tmp_path)
    entry |= {"command": "python3"}
    entry["env"] |= {"PATH": planted_python(workspace, marker)}
    write_servers(workspace / ".mcp.json", {"fake": entry})
    done = call_echo(workspace, home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert marker.read_text() == "ran\n"  # the workspace's code, by the workspace's choice
