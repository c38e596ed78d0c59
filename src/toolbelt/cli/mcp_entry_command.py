"""``toolbelt mcp-servers add|remove|get``: MCP server entries from the command line.

``add`` writes Claude Code's ``mcpServers`` entry — a command and its arguments (stdio), or a
URL (``http``/``sse``, guessed from an ``http(s)://`` target) with headers and an ``oauth``
object — into the user's ``mcp.json``, or with ``--scope project`` the workspace's
``.mcp.json`` (``mcp_client.config_edit``). ``remove`` takes one out; ``get`` shows one entry as
it loads, started, with its tools and its login.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio

from toolbelt.cli.json_output import print_json
from toolbelt.core.errors import SettingsError
from toolbelt.core.terminal_text import escape_for_terminal

__all__ = ["add_server", "get_server", "remove_server"]


def add_server(
    root: str,
    name: str,
    target: str,
    args: list[str],
    *,
    transport: str | None,
    scope: str,
    env: list[str],
    headers: list[str],
    client_id: str | None,
    client_secret_var: str | None,
    callback_port: int | None,
) -> int:
    """Add the entry; 0 when written, 2 when it would not load (nothing written)."""
    from toolbelt.mcp_client.config_edit import add_entry, scope_file

    kind = transport or ("http" if target.startswith(("http://", "https://")) else "stdio")
    entry: dict[str, Any]
    try:
        if kind == "stdio":
            entry = {"command": target, "args": args}
            if env:
                entry["env"] = _pairs(env, "=", "--env KEY=VALUE")
            if headers or client_id or client_secret_var or callback_port:
                raise SettingsError("--header and the OAuth options are for http and sse servers.")
        else:
            if args or env:
                raise SettingsError(f"a {kind} server takes a URL alone (no arguments, no --env).")
            entry = {"type": kind, "url": target}
            if headers:
                entry["headers"] = _pairs(headers, ":", '--header "Name: value"')
            oauth: dict[str, Any] = {}
            if client_id:
                oauth["clientId"] = client_id
            if client_secret_var:
                oauth["clientSecret"] = "${" + client_secret_var.strip("${}") + "}"
            if callback_port:
                oauth["callbackPort"] = callback_port
            if oauth:
                entry["oauth"] = oauth
        path = scope_file("project" if scope == "project" else "user", Path(root))
        add_entry(path, name, entry)
    except SettingsError as exc:
        return _fail(str(exc))
    print(
        f"Added the MCP server `{escape_for_terminal(name)}` to {escape_for_terminal(str(path))}."
    )
    if scope == "project":
        print(f"It starts once the workspace is trusted again: `toolbelt trust {root}`.")
    return 0


def remove_server(root: str, name: str, *, scope: str | None) -> int:
    """Remove the entry from the scope's file (without a scope: the one file that has it)."""
    from toolbelt.mcp_client.config_edit import remove_entry, scope_file

    scopes = [scope] if scope else ["user", "project"]
    files = [scope_file("project" if s == "project" else "user", Path(root)) for s in scopes]
    holding = [path for path in files if _holds(path, name)]
    if not holding:
        where = " or ".join(str(path) for path in files)
        return _fail(f"there is no MCP server `{name}` in {where}.")
    if len(holding) > 1:
        return _fail(
            f"both {holding[0]} and {holding[1]} have an MCP server `{name}`; say which with "
            "--scope user or --scope project."
        )
    try:
        remove_entry(holding[0], name)
    except SettingsError as exc:
        return _fail(str(exc))
    print(f"Removed the MCP server `{escape_for_terminal(name)}` from {holding[0]}.")
    return 0


def get_server(root: str, name: str, *, trust_workspace: bool, as_json: bool) -> int:
    """Show one server: its entry as it loads, its state once started, its tools, its login."""
    from toolbelt.cli.mcp_login_command import configured_server
    from toolbelt.mcp_client.oauth_account import login_status
    from toolbelt.mcp_client.server import McpServerToolset

    config = configured_server(root, name, trust_workspace=trust_workspace)
    if isinstance(config, int):
        return config

    async def started() -> dict[str, Any]:
        server = McpServerToolset(config)
        async with server:
            await server.list_tools()
            prompts = await _named(server, "prompts")
            resources = await _named(server, "resources")
            return {
                "name": config.name,
                "source": str(config.source),
                "transport": config.transport,
                "state": server.state,
                "auth": login_status(config, server.state),
                "tools": [tool.remote_name for tool in server.remote_tools()],
                "prompts": prompts,
                "resources": resources,
                "error": server.error,
            }

    facts = anyio.run(started)
    if config.transport == "stdio":
        facts["command"] = [config.command, *config.args]
    else:
        facts["url"] = config.url
        facts["headers"] = sorted(config.headers)  # names only: values may be secrets
    if as_json:
        print_json(facts)
        return 0
    for key, value in facts.items():
        if value in (None, []) and key != "tools":
            continue
        shown = ", ".join(value) if isinstance(value, list) else str(value)
        print(f"{key}: {escape_for_terminal(shown)}")
    return 0


async def _named(server: Any, kind: str) -> list[str]:
    """The server's prompts (as slash commands) or resources (URIs); none when it is not
    running or offers none."""
    from toolbelt.core.errors import ToolError
    from toolbelt.mcp_client.prompts import server_prompts
    from toolbelt.mcp_client.resources import server_resources

    if server.state != "running":
        return []
    try:
        if kind == "prompts":
            return [prompt.command for prompt in await server_prompts(server)]
        return [resource.uri for resource in await server_resources(server)]
    except ToolError:
        return []


def _holds(path: Path, name: str) -> bool:
    from toolbelt.config.files import ConfigFileError, load_json_config

    try:
        data = load_json_config(path)
    except ConfigFileError:
        return False
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return isinstance(servers, dict) and name in servers


def _pairs(items: list[str], separator: str, form: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(separator)
        if not found or not key.strip():
            raise SettingsError(f"{item!r} is not of the form {form}.")
        pairs[key.strip()] = value.strip() if separator == ":" else value
    return pairs


def _fail(text: str) -> int:
    print(f"toolbelt: {escape_for_terminal(text)}", file=sys.stderr)
    return 2
