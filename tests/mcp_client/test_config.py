"""The servers' configuration: files, trust, variables, and errors that name the file and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolbelt.mcp_client.config import load_mcp_config
from toolbelt.mcp_client.tools import server_prefixes, snake_name, tool_names


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_workspace_servers_are_left_out_until_the_workspace_is_trusted(
    workspace: Path, user_config: Path
) -> None:
    write(user_config / "mcp.json", {"mcpServers": {"mine": {"command": "my-server"}}})
    project = write(workspace / ".mcp.json", {"mcpServers": {"repo": {"command": "evil"}}})
    untrusted = load_mcp_config(workspace, trusted=False)
    assert [s.name for s in untrusted.servers] == ["mine"]
    assert untrusted.ignored == (project,)
    assert untrusted.notice == (
        f"this workspace is not trusted, so the MCP servers in {project} were not started "
        "(they would run programs it names). Trust it with `toolbelt trust` (or "
        "`--trust-workspace` for one run)."
    )
    trusted = load_mcp_config(workspace, trusted=True)
    assert [s.name for s in trusted.servers] == ["mine", "repo"]
    assert trusted.notice is None


def test_a_later_file_replaces_a_server_of_the_same_name(
    workspace: Path, user_config: Path
) -> None:
    write(user_config / "mcp.json", {"mcpServers": {"s": {"command": "from-user"}}})
    write(workspace / ".mcp.json", {"mcpServers": {"s": {"command": "from-mcp-json"}}})
    write(workspace / ".toolbelt" / "mcp.json", {"mcpServers": {"s": {"command": "from-toolbelt"}}})
    (server,) = load_mcp_config(workspace, trusted=True).servers
    assert server.command == "from-toolbelt"
    assert server.source == workspace / ".toolbelt" / "mcp.json"


def test_variables_are_expanded_with_defaults(workspace: Path) -> None:
    write(
        workspace / ".mcp.json",
        {
            "mcpServers": {
                "api": {
                    "type": "http",
                    "url": "${BASE:-http://127.0.0.1:9}/mcp",
                    "headers": {"Authorization": "Bearer ${TOKEN}"},
                },
                "local": {
                    "command": "${HOME}/bin/srv",
                    "args": ["--key", "${KEY:-none}"],
                    "env": {"X": "${TOKEN}"},
                    "startup": "eager",
                    "timeout": 5,
                },
            }
        },
    )
    config = load_mcp_config(workspace, trusted=True, environ={"TOKEN": "t0k", "HOME": "/h"})
    api, local = config.servers
    assert (api.transport, api.url, dict(api.headers)) == (
        "http",
        "http://127.0.0.1:9/mcp",
        {"Authorization": "Bearer t0k"},
    )
    assert (local.transport, local.command, local.args) == (
        "stdio",
        "/h/bin/srv",
        ("--key", "none"),
    )
    # a stdio server is told the workspace as hooks are (${TOOLBELT_PROJECT_DIR} works too)
    told = {"TOOLBELT_PROJECT_DIR": str(workspace), "CLAUDE_PROJECT_DIR": str(workspace)}
    assert (dict(local.env), local.eager, local.call_timeout) == (
        {**told, "X": "t0k"},
        True,
        5.0,
    )


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"command": "x", "args": "a b"}, "`mcpServers.s.args` must be a list of strings."),
        ({"type": "ws", "url": "ws://x"}, '`mcpServers.s.type` must be "stdio", "http" or "sse"'),
        ({"command": "x", "url": "http://x"}, "`mcpServers.s.url` is not a key of a stdio server"),
        (
            {"type": "http", "url": "file:///etc"},
            "`mcpServers.s.url` must be an http:// or https://",
        ),
        ({"command": "${UNSET_VAR}"}, "`mcpServers.s.command` uses ${UNSET_VAR}, which is not set"),
        ({"command": "x", "timeout": -1}, "`mcpServers.s.timeout` must be a positive number"),
        ({"command": "x", "startup": "now"}, '`mcpServers.s.startup` must be "lazy" or "eager"'),
    ],
)
def test_a_bad_entry_is_skipped_alone_with_a_warning_naming_the_file_and_key(
    workspace: Path, entry: dict[str, object], message: str
) -> None:
    good = {"mcpServers": {"fine": {"command": "x"}, "s": entry}}
    path = write(workspace / ".mcp.json", good)
    write(workspace / ".toolbelt" / "mcp.json", {"mcpServers": {"other": {"command": "y"}}})
    config = load_mcp_config(workspace, trusted=True, environ={})
    assert [server.name for server in config.servers] == ["fine", "other"]  # only `s` is out
    [warning] = config.warnings
    assert warning.startswith(f"{path}: {message.rstrip('.')}")
    assert warning.endswith("; the MCP server `s` was skipped until it is fixed.")


def test_claude_codes_whole_entry_loads_and_unknown_keys_only_warn(workspace: Path) -> None:
    path = write(
        workspace / ".mcp.json",
        {
            "mcpServers": {
                "api": {
                    "type": "http",
                    "url": "https://mcp.example.test/mcp",
                    "oauth": {
                        "clientId": "cid",
                        "clientSecret": "${API_SECRET}",
                        "callbackPort": 8765,
                        "scopes": "read write",
                        "authServerMetadataUrl": "https://auth.example.test/.well-known/x",
                        "futureKey": 1,
                    },
                    "headersHelper": "./bin/headers.sh api",
                    "alwaysLoad": True,
                },
                "static": {"type": "sse", "url": "https://s.example.test/sse", "oauth": False},
                "off": {"command": "x", "disabled": True},
            }
        },
    )
    config = load_mcp_config(workspace, trusted=True, environ={"API_SECRET": "s3cret"})
    api, static = config.servers
    assert api.oauth is not None
    assert (api.oauth.client_id, api.oauth.client_secret, api.oauth.callback_port) == (
        "cid",
        "s3cret",
        8765,
    )
    assert api.oauth.scopes == "read write"
    assert api.oauth.auth_server_metadata_url == "https://auth.example.test/.well-known/x"
    assert (api.headers_helper, api.cwd) == ("./bin/headers.sh api", str(workspace))
    assert static.oauth is None  # "oauth": false
    assert config.disabled == ((path, "off", "its entry says `disabled`"),)
    assert sorted(config.warnings) == [
        f"{path}: `mcpServers.api.alwaysLoad` is not a key toolbelt knows, so it was ignored.",
        f"{path}: `mcpServers.api.oauth.futureKey` is not a key toolbelt knows, so it was ignored.",
    ]


def test_a_client_secret_written_into_the_file_is_refused(workspace: Path) -> None:
    entry = {"type": "http", "url": "https://x.test/mcp", "oauth": {"clientSecret": "s3cret"}}
    path = write(workspace / ".mcp.json", {"mcpServers": {"api": entry}})
    config = load_mcp_config(workspace, trusted=True, environ={})
    assert config.servers == ()
    assert config.warnings == (
        f"{path}: `mcpServers.api.oauth.clientSecret` must name an environment variable, "
        '"${MY_SECRET}", never hold the secret itself (config files get shared); the MCP '
        "server `api` was skipped until it is fixed.",
    )


def test_settings_choose_among_the_workspace_servers(workspace: Path, user_config: Path) -> None:
    from toolbelt.mcp_client.config import ServerChoice

    write(user_config / "mcp.json", {"mcpServers": {"mine": {"command": "m"}}})
    path = write(
        workspace / ".mcp.json",
        {"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}, "c": {"command": "c"}}},
    )
    only = load_mcp_config(workspace, trusted=True, choice=ServerChoice(("a", "b"), ("b",)))
    assert [server.name for server in only.servers] == ["mine", "a"]
    assert only.disabled == (
        (path, "b", "it is in `disabledMcpjsonServers` in your settings"),
        (path, "c", "it is not in `enabledMcpjsonServers` in your settings"),
    )
    every = load_mcp_config(
        workspace, trusted=True, choice=ServerChoice(("a",), (), enable_all=True)
    )
    assert [server.name for server in every.servers] == ["mine", "a", "b", "c"]
    # the user's own servers are not the workspace's to choose
    mine = load_mcp_config(workspace, trusted=True, choice=ServerChoice((), ("mine",)))
    assert [server.name for server in mine.servers] == ["mine"]


def test_a_file_that_is_not_json_is_skipped_with_a_warning(workspace: Path) -> None:
    (workspace / ".mcp.json").write_text("{not json")
    config = load_mcp_config(workspace, trusted=True)
    assert config.servers == ()
    [warning] = config.warnings
    assert warning.startswith(f"{workspace / '.mcp.json'}: not accepted as JSON")


def test_tool_names_are_snake_case_unique_and_within_64_characters() -> None:
    assert snake_name("getTinyImage") == "get_tiny_image"
    assert snake_name("my-server.v2") == "my_server_v2"
    names = tool_names(
        "my_server",
        ["echo", "Echo", "odd name/ü!", "x" * 80, "x" * 81],
        taken={"mcp__my_server__e"},
    )
    assert names == {
        "echo": "mcp__my_server__echo",
        "Echo": "mcp__my_server__echo_2",
        "odd name/ü!": "mcp__my_server__odd_name",
        "x" * 80: ("mcp__my_server__" + "x" * 80)[:64],
        "x" * 81: ("mcp__my_server__" + "x" * 80)[:62] + "_2",
    }


def test_servers_whose_names_read_the_same_get_distinct_prefixes() -> None:
    # the server named exactly `my_server` keeps it, wherever it stands in the file
    assert server_prefixes(["my-server", "my_server", "My Server", "other"]) == [
        "my_server_2",
        "my_server",
        "my_server_3",
        "other",
    ]
