"""What ``toolbelt mcp-servers`` shows: each configured server, where from, and how it is doing.

Servers of an untrusted workspace's files are listed too (read by name only, never started),
so the user sees what trusting the workspace would start, and so are servers turned off
(``disabled``, or the settings' ``disabledMcpjsonServers``/``enabledMcpjsonServers``). A
running server's error also names the permission rules that name tools it does not have
(``rule_check``). A remote server's login (``auth``) is ``none``, ``needs-login``,
``logged-in (expires …)`` or ``error`` (``oauth_account.login_status``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from toolbelt.config.files import ConfigFileError, load_json_config
from toolbelt.mcp_client.oauth_account import login_status
from toolbelt.mcp_client.rule_check import unknown_tools

if TYPE_CHECKING:
    from toolbelt.runtime import Runtime

__all__ = ["ServerState", "server_states"]


@dataclass(frozen=True, slots=True)
class ServerState:
    """One configured server as the user sees it."""

    name: str
    source: str
    transport: str
    state: str
    tools: int
    error: str | None = None
    auth: str = "none"

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def server_states(runtime: Runtime) -> list[ServerState]:
    """Every server the runtime's configuration names, started or not, in configuration order."""
    states: list[ServerState] = []
    settings = runtime.settings
    rules = [*settings.allow, *settings.ask, *settings.deny]
    if runtime.mcp_servers is not None:
        for server in runtime.mcp_servers.servers:
            config = server.config
            error = server.error
            if server.skipped:
                skipped = "; ".join(server.skipped)
                error = f"{error}; " if error else ""
                error += f"tools left out: {skipped}"
            unknown = unknown_tools(rules, server)
            if unknown:
                error = f"{error}; " if error else ""
                error += f"the rules {', '.join(unknown)} name tools it does not have"
            states.append(
                ServerState(
                    config.name,
                    str(config.source),
                    config.transport,
                    server.state,
                    len(server.tools()),
                    error,
                    login_status(config, server.state),
                )
            )
    mcp = runtime.mcp_config
    changed = mcp.changed if mcp is not None else ()
    root = mcp.root if mcp is not None else None
    for path, name, what in changed:
        states.append(
            ServerState(
                name,
                str(path),
                "?",
                "not started",
                0,
                f"{what.strip()[1:-1] or 'it'} changed since you trusted the workspace; review it, "
                "then run "
                f"`toolbelt trust {root}` to approve it",
            )
        )
    for path, name, why in mcp.disabled if mcp is not None else ():
        states.append(ServerState(name, str(path), "?", "disabled", 0, why))
    ignored = runtime.mcp_config.ignored if runtime.mcp_config is not None else ()
    for path in ignored:
        for name in _names(path):
            states.append(
                ServerState(
                    name,
                    str(path),
                    "?",
                    "not started",
                    0,
                    "the workspace is not trusted; trust it with `toolbelt trust` "
                    "(or `--trust-workspace` for one run)",
                )
            )
    return states


def _names(path: Any) -> list[str]:
    try:
        data = load_json_config(path)
    except ConfigFileError:
        return []
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return [str(name) for name in servers] if isinstance(servers, dict) else []
