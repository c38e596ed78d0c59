"""The configured servers opened once and shared by many runtimes (the HTTP door's sessions).

``toolbelt mcp --http`` runs a runtime per client session, opened and closed from different
tasks; a server's SDK session lives in a task group, which must be left by the task that
entered it. So the HTTP app opens the servers once, in its lifespan task, and each session's
runtime sees them through ``SharedServers``, whose ``open`` and ``aclose`` do nothing: one
process per server for the whole HTTP server, while every call still goes through its own
session's policy, hooks and user channel.
"""

from __future__ import annotations

from pathlib import Path

from toolbelt.config.settings import load_settings
from toolbelt.config.trust import approved_launches, is_trusted
from toolbelt.core.registry import AnyTool, Toolset
from toolbelt.mcp_client.config import load_mcp_config, server_choice
from toolbelt.mcp_client.toolset import McpToolset

__all__ = ["SharedServers", "configured_servers"]


def configured_servers(
    root: Path, *, trusted: bool | None, taken: frozenset[str]
) -> McpToolset | None:
    """The servers configured for ``root`` (trust as stored when ``trusted`` is None, with
    only the entries it approved), not yet opened; None when there are none."""
    trust = is_trusted(root) if trusted is None else trusted
    approved = approved_launches() if trusted is None and trust else None
    choice = server_choice(load_settings(root, trusted=trust))
    config = load_mcp_config(root, trusted=trust, approved=approved, choice=choice)
    return McpToolset(config.servers, taken=taken) if config.servers else None


class SharedServers(Toolset):
    """``servers`` as seen by one of the runtimes sharing them: opened and closed elsewhere."""

    def __init__(self, servers: McpToolset) -> None:
        self.servers = servers

    def tools(self) -> tuple[AnyTool, ...]:
        return self.servers.tools()

    def get(self, name: str) -> AnyTool | None:
        return self.servers.get(name)

    def why_missing(self, name: str) -> str | None:
        return self.servers.why_missing(name)

    async def list_tools(self) -> tuple[AnyTool, ...]:
        return await self.servers.list_tools()
