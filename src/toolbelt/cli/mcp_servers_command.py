"""``toolbelt mcp-servers``: the configured MCP servers, each started once to count its tools;
and its subcommands (login, logout, add, remove, get), dispatched from here."""

from __future__ import annotations

import argparse
import sys

import anyio

from toolbelt.cli.json_output import print_json
from toolbelt.cli.notices import print_notices
from toolbelt.core.errors import UsageError
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.mcp_client.status import ServerState, server_states
from toolbelt.runtime import Runtime

__all__ = ["list_servers", "servers_command"]


def servers_command(args: argparse.Namespace) -> int:
    """``toolbelt mcp-servers [SUBCOMMAND]``."""
    which = args.servers_command
    if which is None:
        return list_servers(args.root, trust_workspace=args.trust_workspace, as_json=args.json)
    root = args.sub_root or args.root
    trust = args.sub_trust or args.trust_workspace
    if which in ("login", "logout"):
        from toolbelt.cli.mcp_login_command import log_in_command, log_out_command

        if which == "logout":
            return log_out_command(root, args.name, trust_workspace=trust)
        return log_in_command(
            root,
            args.name,
            trust_workspace=trust,
            browser=not args.no_browser,
            callback_port=args.callback_port,
        )
    from toolbelt.cli.mcp_entry_command import add_server, get_server, remove_server

    if which == "get":
        return get_server(
            root, args.name, trust_workspace=trust, as_json=args.sub_json or args.json
        )
    if which == "remove":
        return remove_server(root, args.name, scope=args.scope)
    return add_server(
        root,
        args.name,
        args.target,
        args.args,
        transport=args.transport,
        scope=args.scope,
        env=args.env,
        headers=args.header,
        client_id=args.client_id,
        client_secret_var=args.client_secret_var,
        callback_port=args.callback_port,
    )


def list_servers(root: str, *, trust_workspace: bool, as_json: bool) -> int:
    """Print one line (or JSON object) per server: name, state, tools, source, error."""
    try:
        runtime = Runtime(root, trusted=True if trust_workspace else None)
    except UsageError as exc:
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return 2
    print_notices(runtime)
    states = anyio.run(_states, runtime)
    if as_json:
        print_json([state.as_json() for state in states])
        return 0
    if not states:
        print(
            "No MCP servers are configured; add them to .mcp.json in the workspace or to "
            "~/.config/toolbelt/mcp.json (Claude Code's mcpServers format)."
        )
        return 0
    for state in states:  # names and errors come from config files and servers: escaped
        shown = state.state
        if state.auth.startswith("logged-in"):
            shown += f", {state.auth}"
        line = (
            f"{escape_for_terminal(state.name)}\t{shown}\t{state.tools} tools\t"
            f"{state.transport}\t{escape_for_terminal(state.source)}"
        )
        print(line + (f"\t{escape_for_terminal(state.error)}" if state.error else ""))
    return 0


async def _states(runtime: Runtime) -> list[ServerState]:
    async with runtime:
        await runtime.toolset.list_tools()
        return server_states(runtime)
