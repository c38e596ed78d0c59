"""Other MCP servers' resources: ``list_mcp_resources`` and ``read_mcp_resource``.

A resource is data a server offers by URI (a document, a record, a file of its own); the model
lists them and reads one as Claude Code's ListMcpResources and ReadMcpResource do. Both tools
only read, so they run beside other reads without asking — but they answer to the policy as
the server's (``mcp__<server>`` rules): a rule that denies ``mcp__github`` denies reading its
resources too, and one that asks makes them ask. What a resource holds is capped like a tool
result (``config.output_cap``); an image stays an image, other binary data is described.
"""

from __future__ import annotations

import base64
from typing import Any, Protocol

import mcp_types as types
from pydantic import Field

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import ContentBlock, ImageBlock, TextBlock, ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.rule_identity import RuleIdentity
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.core.wording import counted
from toolbelt.mcp_client.config import output_cap
from toolbelt.mcp_client.paging import listing_pages
from toolbelt.mcp_client.results import output_from_result
from toolbelt.mcp_client.server import McpServerToolset
from toolbelt.mcp_client.tools import McpNames


class McpToolset(Protocol):
    """The configured servers, as the resource tools look them up (``toolset.McpToolset``)."""

    servers: tuple[McpServerToolset, ...]

    def server(self, name: str) -> McpServerToolset | None:
        """The server configured as ``name``."""
        ...


__all__ = ["ListMcpResourcesTool", "ReadMcpResourceTool", "read_contents", "server_resources"]

_LISTED = 200
"""Resources one listing shows at the most (a server may offer millions)."""
_IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp")


async def server_resources(server: McpServerToolset) -> list[types.Resource]:
    """The resources ``server`` lists (none when it offers none), page by page."""
    await server.start()
    if server.capabilities is not None and server.capabilities.resources is None:
        return []
    found: list[types.Resource] = []
    async for page in listing_pages(
        server, "resources/list", lambda session, params: session.list_resources(params=params)
    ):
        found += page.resources
        if len(found) >= _LISTED:
            break
    return found


async def read_contents(server: McpServerToolset, uri: str) -> list[ContentBlock]:
    """What the resource ``uri`` of ``server`` holds, as content blocks."""
    result = await server.request("resources/read", lambda session: session.read_resource(uri))
    blocks: list[ContentBlock] = []
    for item in result.contents:
        if isinstance(item, types.TextResourceContents):
            blocks.append(TextBlock(item.text))
        elif (item.mime_type or "") in _IMAGES:
            blocks.append(ImageBlock(item.blob, item.mime_type or "image/png"))
        else:
            size = counted(len(base64.b64decode(item.blob, validate=False)), "byte")
            blocks.append(TextBlock(f"[{item.mime_type or 'binary'} data, {size}, not shown]"))
    return blocks


def _server_identity(tool: str, server: McpServerToolset | None) -> RuleIdentity:
    """The tool as the server's rules see it: ``mcp__<server>`` rules name it."""
    spellings = server.spellings if server is not None else ()
    return RuleIdentity(tool, tool, mcp=McpNames(spellings, ()))


class ListResourcesInput(ToolInput):
    server: str | None = Field(
        default=None, description="Only this server's resources (default: every server's)."
    )


class ListMcpResourcesTool(Tool[ListResourcesInput]):
    """Lists the resources the configured MCP servers offer."""

    name = "list_mcp_resources"
    title = "List MCP resources"
    hints = ToolHints(readonly=True)
    example = {"server": "docs"}

    def __init__(self, toolset: McpToolset) -> None:
        self._toolset = toolset
        self.description = (
            "List the resources (documents, records, files) the configured MCP servers offer, "
            "with their URIs; read one with read_mcp_resource."
        )

    def call_identity(self, args: ListResourcesInput) -> RuleIdentity:
        server = self._toolset.server(args.server) if args.server else None
        return _server_identity(self.name, server)

    async def access(self, args: ListResourcesInput, ctx: ToolContext) -> Access:
        where = f"the MCP server `{args.server}`" if args.server else "every MCP server"
        return Access(AccessKind.READ, summary=f"list the resources of {where}")

    async def run(self, args: ListResourcesInput, ctx: ToolContext) -> ToolOutput:
        servers = (
            [_server(self._toolset, args.server)] if args.server else list(self._toolset.servers)
        )
        lines: list[str] = []
        listed: list[dict[str, Any]] = []
        for server in servers:
            try:
                found = await server_resources(server)
            except ToolError as exc:
                lines.append(f"{server.config.name}: {exc}")
                continue
            for resource in found[:_LISTED]:
                about = f" — {resource.description}" if resource.description else ""
                kind = f" ({resource.mime_type})" if resource.mime_type else ""
                lines.append(f"{server.config.name}: {resource.uri} {resource.name}{kind}{about}")
                listed.append(
                    {"server": server.config.name, "uri": resource.uri, "name": resource.name}
                )
        text = "\n".join(lines) or "No MCP server offers resources."
        return ToolOutput((TextBlock(text),), {"resources": listed})


class ReadResourceInput(ToolInput):
    server: str = Field(description="The MCP server's name, as configured.")
    uri: str = Field(description="The resource's URI, as list_mcp_resources shows it.")


class ReadMcpResourceTool(Tool[ReadResourceInput]):
    """Reads one resource of a configured MCP server."""

    name = "read_mcp_resource"
    title = "Read MCP resource"
    hints = ToolHints(readonly=True)
    example = {"server": "docs", "uri": "docs://guide/install.md"}

    def __init__(self, toolset: McpToolset) -> None:
        self._toolset = toolset
        self.description = (
            "Read a resource of a configured MCP server by its URI (list_mcp_resources lists them)."
        )

    def call_identity(self, args: ReadResourceInput) -> RuleIdentity:
        return _server_identity(self.name, self._toolset.server(args.server))

    async def access(self, args: ReadResourceInput, ctx: ToolContext) -> Access:
        return Access(AccessKind.READ, summary=f"read {args.uri} of the MCP server `{args.server}`")

    async def run(self, args: ReadResourceInput, ctx: ToolContext) -> ToolOutput:
        server = _server(self._toolset, args.server)
        blocks = await read_contents(server, args.uri)
        content: list[types.ContentBlock] = [
            types.TextContent(text=block.text)
            if isinstance(block, TextBlock)
            else types.ImageContent(data=block.data, mime_type=block.mime_type)
            for block in blocks
        ]
        capped = output_from_result(
            types.CallToolResult(content=content),
            session_id=ctx.session.id,
            call_id=ctx.call_id,
            cap=output_cap(server.config.output_tokens),
        )
        return ToolOutput(capped.content, {"server": args.server, "uri": args.uri})


def _server(toolset: McpToolset, name: str) -> McpServerToolset:
    server = toolset.server(name)
    if server is None:
        known = ", ".join(f"`{s.config.name}`" for s in toolset.servers)
        raise ToolError(f"There is no MCP server `{name}`; use one of {known}.")
    return server
