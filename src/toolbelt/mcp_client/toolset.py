"""Every configured MCP server's tools as one toolset, plus the generic ``call_mcp_tool`` and
the resource tools (``list_mcp_resources``, ``read_mcp_resource``: ``resources``).

Each server is its own ``McpServerToolset`` (opened, listed and closed with this one); their
tools follow ``call_mcp_tool`` in configuration order. ``call_mcp_tool {server, tool,
arguments}`` is for models that cannot take many tools: it checks the arguments against the
tool's live schema and answers to the policy *as that tool* (``Tool.call_identity``), so a
rule for ``mcp__s__t`` — allow or deny — governs ``call_mcp_tool`` of ``s``/``t`` as well.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.registry import AnyTool, Toolset
from toolbelt.core.rule_identity import RuleIdentity
from toolbelt.core.tool import HookSubject, Tool, ToolInput
from toolbelt.mcp_client.config import ServerConfig
from toolbelt.mcp_client.server import McpServerToolset
from toolbelt.mcp_client.tools import McpTool, server_prefixes, server_spellings
from toolbelt.runners.runner import Runner

__all__ = ["CallMcpTool", "McpToolset"]

_LISTED = 50
"""How many of a server's tools an error names (a server may list thousands)."""


class McpToolset(Toolset):
    """The configured servers' tools and ``call_mcp_tool``; ``taken`` are names in use."""

    def __init__(
        self,
        servers: Sequence[ServerConfig],
        *,
        taken: frozenset[str] = frozenset(),
        runner: Callable[[ServerConfig], Callable[[], Runner] | None] | None = None,
    ):
        """``runner``: for each server, what gives the runner it starts with (None, or a
        None answer: unconfined) — the runtime confines the workspace's own servers."""
        names = [config.name for config in servers]
        prefixes = server_prefixes(names)
        spellings = server_spellings(names, prefixes)
        self.servers = tuple(
            McpServerToolset(
                config,
                taken=taken,
                prefix=prefix,
                spellings=spelled,
                runner=runner(config) if runner is not None else None,
            )
            for config, prefix, spelled in zip(servers, prefixes, spellings, strict=True)
        )
        self.call_tool = CallMcpTool(self)
        from toolbelt.mcp_client.resources import ListMcpResourcesTool, ReadMcpResourceTool

        self._own: dict[str, AnyTool] = {
            tool.name: tool
            for tool in (self.call_tool, ListMcpResourcesTool(self), ReadMcpResourceTool(self))
        }

    def tools(self) -> tuple[AnyTool, ...]:
        """Every server's tools; names are unique by construction (``tools.server_prefixes``),
        and a name met twice anyway is listed once rather than breaking every other tool."""
        listed: dict[str, AnyTool] = dict(self._own)
        for server in self.servers:
            for tool in server.tools():
                listed.setdefault(tool.name, tool)
        return tuple(listed.values())

    def get(self, name: str) -> AnyTool | None:
        if name in self._own:
            return self._own[name]
        for server in self.servers:
            found = server.get(name)
            if found is not None:
                return found
        return None

    async def list_tools(self) -> tuple[AnyTool, ...]:
        for server in self.servers:
            await server.list_tools()
        return self.tools()

    async def open(self) -> None:
        for server in self.servers:
            await server.open()

    async def aclose(self) -> None:
        for server in reversed(self.servers):
            await server.aclose()

    def why_missing(self, name: str) -> str | None:
        """For ``mcp__<server>__…`` of a configured server that is not running: why."""
        for server in self.servers:
            if name.startswith(f"mcp__{server.prefix}__") and server.get(name) is None:
                return server.unavailable()
        return None

    def server(self, name: str) -> McpServerToolset | None:
        """The server configured as ``name``."""
        return next((s for s in self.servers if s.config.name == name), None)


class CallMcpInput(ToolInput):
    server: str = Field(description="The MCP server's name, as configured.")
    tool: str = Field(description="The tool's name on that server.")
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="The tool's arguments, as its input schema describes."
    )


class CallMcpTool(Tool[CallMcpInput]):
    """Calls any tool of a configured MCP server by server and tool name."""

    name = "call_mcp_tool"
    title = "Call MCP tool"
    example = {"server": "github", "tool": "search_issues", "arguments": {"query": "crash"}}

    def __init__(self, toolset: McpToolset) -> None:
        self._toolset = toolset
        names = ", ".join(f"`{s.config.name}`" for s in toolset.servers) or "none"
        self.description = (
            "Call a tool of a configured MCP server by name, with its arguments as its input "
            f"schema describes. Servers: {names}. Each call asks for permission unless a rule "
            "allows that tool."
        )

    def _target(self, args: CallMcpInput) -> McpTool | None:
        server = self._toolset.server(args.server)
        return None if server is None else server.remote_tool(args.tool)

    async def _resolve(self, args: CallMcpInput) -> McpTool:
        server = self._toolset.server(args.server)
        if server is None:
            known = ", ".join(f"`{s.config.name}`" for s in self._toolset.servers)
            raise ToolError(f"There is no MCP server `{args.server}`; use one of {known}.")
        await server.start()
        target = server.remote_tool(args.tool)
        if target is None:
            listed = server.remote_tools()
            tools = ", ".join(f"`{t.remote_name}`" for t in listed[:_LISTED]) or "none"
            if len(listed) > _LISTED:
                tools += f" and {len(listed) - _LISTED} more"
            raise ToolError(
                f"The MCP server `{args.server}` has no tool `{args.tool}`; its tools: {tools}."
            )
        return target

    def is_readonly(self, args: CallMcpInput) -> bool:
        target = self._target(args)
        return target is not None and target.readonly

    async def hook_subject(self, args: CallMcpInput, dumped: dict[str, Any]) -> HookSubject:
        """The target tool with its arguments; a matcher for ``call_mcp_tool`` selects it too."""
        target = await self._resolve(args)
        aliases = (target.claude_name, self.name) if target.claude_name else (self.name,)
        return HookSubject(target.name, aliases, dict(args.arguments))

    def from_hook_input(self, dumped: dict[str, Any], updated: Mapping[str, Any]) -> dict[str, Any]:
        return {**dumped, "arguments": dict(updated)}

    def call_identity(self, args: CallMcpInput) -> RuleIdentity:
        target = self._target(args)
        return self.rule_identity() if target is None else target.rule_identity()

    async def access(self, args: CallMcpInput, ctx: ToolContext) -> Access:
        target = await self._resolve(args)
        valid = target.validate(args.arguments)
        ctx.scratch["mcp_arguments"] = valid
        return await target.access(valid, ctx)

    async def run(self, args: CallMcpInput, ctx: ToolContext) -> ToolOutput:
        target = await self._resolve(args)
        valid = ctx.scratch.get("mcp_arguments") or target.validate(args.arguments)
        return await target.run(valid, ctx)
