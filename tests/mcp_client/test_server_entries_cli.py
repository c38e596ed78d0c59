"""`toolbelt mcp-servers add|remove|get`, the settings that turn a workspace's servers off, and
a server that needs a login as `toolbelt mcp` serves it (nobody is asked, no browser opens)."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from mcp import Client
from tests.mcp_client.conftest import everything_entry, fake_entry, write_servers
from tests.mcp_client.test_oauth import OAuthServer, start_server


def toolbelt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolbelt.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_add_get_remove_in_the_users_file(workspace: Path, user_config: Path, mark: str) -> None:
    mine = user_config / "mcp.json"
    entry = everything_entry(mark)
    added = toolbelt(
        "mcp-servers", "add", "everything", "-e", f"TOOLBELT_TEST_MARK={mark}",
        "--root", str(workspace), "--", entry["command"], *entry["args"],
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert added.stdout == f"Added the MCP server `everything` to {mine}.\n"
    written = json.loads(mine.read_text())
    assert written["mcpServers"]["everything"] == {
        "command": entry["command"],
        "args": entry["args"],
        "env": {"TOOLBELT_TEST_MARK": mark},
    }
    assert stat.S_IMODE(mine.stat().st_mode) == 0o600  # made by add: the user's alone
    written["keep"] = "this key"
    written["mcpServers"]["other"] = {"command": "x"}
    mine.write_text(json.dumps(written))
    shown = json.loads(toolbelt("mcp-servers", "get", "everything", "--json").stdout)
    assert (shown["state"], shown["transport"], shown["auth"]) == ("running", "stdio", "none")
    assert "echo" in shown["tools"]
    assert "/mcp__everything__args-prompt" in shown["prompts"]
    assert "demo://resource/static/document/features.md" in shown["resources"]
    again = toolbelt("mcp-servers", "add", "everything", "node")
    assert again.returncode == 2
    assert "already has an MCP server `everything`" in again.stderr
    removed = toolbelt("mcp-servers", "remove", "everything", "--root", str(workspace))
    assert removed.stdout == f"Removed the MCP server `everything` from {mine}.\n"
    left = json.loads(mine.read_text())
    assert (left["keep"], set(left["mcpServers"])) == ("this key", {"other"})  # the rest kept


def test_add_a_remote_server_to_the_workspace_file(workspace: Path) -> None:
    added = toolbelt(
        "mcp-servers", "add", "api", "https://mcp.example.test/mcp", "--scope", "project",
        "--client-id", "cid", "--client-secret-var", "API_SECRET", "--callback-port", "8765",
        "-H", "X-Team: tools", "--root", str(workspace),
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert json.loads((workspace / ".mcp.json").read_text()) == {
        "mcpServers": {
            "api": {
                "type": "http",
                "url": "https://mcp.example.test/mcp",
                "headers": {"X-Team": "tools"},
                "oauth": {"clientId": "cid", "clientSecret": "${API_SECRET}", "callbackPort": 8765},
            }
        }
    }


def test_an_entry_that_would_not_load_is_not_written(workspace: Path) -> None:
    refused = toolbelt(
        "mcp-servers", "add", "bad", "ftp://host/x", "--transport", "http", "--root",
        str(workspace), "--scope", "project",
    )  # fmt: skip
    assert refused.returncode == 2
    assert "`mcpServers.bad.url` must be an http:// or https:// URL" in refused.stderr
    assert not (workspace / ".mcp.json").exists()


def test_settings_turn_workspace_servers_off(workspace: Path, mark: str, tmp_path: Path) -> None:
    write_servers(
        workspace / ".mcp.json",
        {"a": fake_entry(mark, tmp_path), "b": fake_entry(mark, tmp_path / "b")},
    )
    (tmp_path / "b").mkdir()
    settings = workspace / ".toolbelt" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"disabledMcpjsonServers": ["b"]}))
    listed = toolbelt("mcp-servers", "--root", str(workspace), "--trust-workspace")
    lines = [line.split("\t") for line in listed.stdout.splitlines()]
    assert [(line[0], line[1]) for line in lines] == [("a", "running"), ("b", "disabled")]
    assert lines[1][-1] == "it is in `disabledMcpjsonServers` in your settings"
    assert listed.stderr == ""  # a key toolbelt reads now, not an unknown one


def test_a_server_needing_a_login_served_by_toolbelt_mcp_says_so(
    tmp_path: Path, workspace: Path
) -> None:
    server: OAuthServer = start_server(tmp_path)
    try:
        write_servers(workspace / ".mcp.json", {"conf": {"type": "http", "url": server.url}})
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "toolbelt.cli.main", "mcp", "--root", str(workspace), "--trust-workspace"],
        )

        async def ask() -> str:
            async with Client(params) as client:
                result = await client.call_tool(
                    "call_mcp_tool", {"server": "conf", "tool": "whoami", "arguments": {}}
                )
                return str(result.content[0].text)  # type: ignore[union-attr]

        import anyio

        text = anyio.run(ask)
        assert "`conf` could not be started (it needs a login (it answers 401" in text
        assert "`toolbelt mcp-servers login conf`" in text
        assert server.state()["authorizations"] == 0
    finally:
        server.process.terminate()
        server.process.wait(10)


@pytest.fixture(autouse=True)
def _workspace_root(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workspace)
