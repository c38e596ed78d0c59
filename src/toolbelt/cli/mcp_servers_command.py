"""``toolbelt mcp-servers``: the configured MCP servers, each started once to count its tools."""

from __future__ import annotations

import sys

import anyio

from toolbelt.cli.json_output import print_json
from toolbelt.cli.notices import print_notices
from toolbelt.core.errors import UsageError
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.mcp_client.status import ServerState, server_states
from toolbelt.runtime import Runtime

__all__ = ["list_servers"]


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
        line = (
            f"{escape_for_terminal(state.name)}\t{state.state}\t{state.tools} tools\t"
            f"{state.transport}\t{escape_for_terminal(state.source)}"
        )
        print(line + (f"\t{escape_for_terminal(state.error)}" if state.error else ""))
    return 0


async def _states(runtime: Runtime) -> list[ServerState]:
    async with runtime:
        await runtime.toolset.list_tools()
        return server_states(runtime)
