"""One remote tool as a ``SchemaTool`` named ``mcp__<server>__<tool>``, and how names are made.

A remote tool is a plain schema tool, so every provider format, tool search and the executor
treat it like any other. Its permission identity is its name, so ``mcp__server`` and
``mcp__server__tool`` rules speak about it; it always declares an effect (``execute``): what a
server does is unknown, so every call asks unless a rule allows it. ``readOnlyHint`` only lets
calls run beside other read-only calls — a server may not declare itself safe to approve.

Names follow the registry's rule (snake_case ASCII, at most 64 characters): camelCase becomes
snake_case, anything else outside ``[a-z0-9_]`` becomes ``_``, and a name that is taken (two
remote names that read the same, or one cut at 64 characters) gets ``_2``, ``_3``...
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import mcp_types as types

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.schema_tool import SchemaArguments, SchemaTool

__all__ = ["McpTool", "server_prefixes", "snake_name", "tool_names"]

RemoteCall = Callable[[str, dict[str, Any], ToolContext], Awaitable[ToolOutput]]
_MAX = 64
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_OTHER = re.compile(r"[^a-z0-9_]+")


def snake_name(text: str) -> str:
    """``getTinyImage`` → ``get_tiny_image``; ``my-server.v2`` → ``my_server_v2``."""
    name = _OTHER.sub("_", _CAMEL.sub("_", text).lower()).strip("_")
    return name or "tool"


def server_prefixes(servers: Iterable[str]) -> list[str]:
    """Each server's part of its tools' names, unique (``my-server`` and ``my_server`` would
    both read ``my_server``: the second becomes ``my_server_2``)."""
    used: set[str] = set()
    prefixes = []
    for server in servers:
        base = snake_name(server)[:40]
        prefix, number = base, 1
        while prefix in used:
            number += 1
            prefix = f"{base}_{number}"
        used.add(prefix)
        prefixes.append(prefix)
    return prefixes


def tool_names(server: str, remote: Iterable[str], taken: Iterable[str] = ()) -> dict[str, str]:
    """Remote tool name → our unique name, in the server's order."""
    used = set(taken)
    names: dict[str, str] = {}
    prefix = f"mcp__{snake_name(server)}__"
    for original in remote:
        base = (prefix + snake_name(original))[:_MAX]
        name, number = base, 1
        while name in used:
            number += 1
            suffix = f"_{number}"
            name = base[: _MAX - len(suffix)] + suffix
        used.add(name)
        names[original] = name
    return names


class McpTool(SchemaTool):
    """A tool of another MCP server; ``run`` forwards the call through its connection."""

    def __init__(self, name: str, server: str, remote: types.Tool, call: RemoteCall) -> None:
        hints = remote.annotations or types.ToolAnnotations()
        description = (remote.description or remote.title or remote.name).strip()
        super().__init__(
            name,
            title=remote.title or hints.title or remote.name,
            description=f"{description}\n\n(Tool `{remote.name}` of the MCP server `{server}`.)",
            input_schema=remote.input_schema,
            readonly=bool(hints.read_only_hint),
            destructive=hints.destructive_hint is not False,
            idempotent=bool(hints.idempotent_hint),
            open_world=hints.open_world_hint is not False,
        )
        self.server = server
        self.remote_name = remote.name
        self._call = call

    async def access(self, args: SchemaArguments, ctx: ToolContext) -> Access:
        return Access(
            AccessKind.EXECUTE,
            summary=f"`{self.name}` (tool `{self.remote_name}` of the MCP server `{self.server}`)",
        )

    async def run(self, args: SchemaArguments, ctx: ToolContext) -> ToolOutput:
        return await self._call(self.remote_name, args.values(), ctx)
