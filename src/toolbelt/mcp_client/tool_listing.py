"""A server's tool list, read page by page and turned into toolbelt tools.

A foreign server decides what it lists, so nothing in the list may take the start-up down: the
pages are bounded (a server whose cursor never ends cannot hang it), a name listed twice counts
once, and a tool whose schema toolbelt cannot read or use is left out with the reason — shown
by ``toolbelt mcp list`` — while the others are served.
"""

from __future__ import annotations

from collections.abc import Mapping

import mcp_types as types
from mcp.client.session import ClientSession

from toolbelt.core.errors import ToolbeltError
from toolbelt.mcp_client.metadata import UnusableToolError
from toolbelt.mcp_client.stdio import UNREADABLE_KEY
from toolbelt.mcp_client.tools import McpTool, RemoteCall

__all__ = ["MAX_PAGES", "build_tools", "list_remote_tools"]

MAX_PAGES = 100
"""Pages of ``tools/list`` read at the most."""


async def list_remote_tools(session: ClientSession) -> list[types.Tool]:
    """Every tool the server lists, following its cursor for up to ``MAX_PAGES`` pages."""
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):  # a server whose pages never end cannot hang the start-up
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def build_tools(
    remote_tools: list[types.Tool],
    names: Mapping[str, str],
    server: str,
    call: RemoteCall,
    spellings: tuple[str, ...],
) -> tuple[dict[str, McpTool], list[str]]:
    """Our tools by our names (``names``: remote name → ours), and the remote tools left out,
    each with the reason."""
    built: dict[str, McpTool] = {}
    skipped: list[str] = []
    for remote in remote_tools:
        name = names[remote.name]
        if name in built:  # the server listed the same name twice: the first one counts
            skipped.append(f"{remote.name[:80]!r}: listed twice")
            continue
        if remote.input_schema.get(UNREADABLE_KEY):
            skipped.append(f"{remote.name[:80]!r}: {remote.input_schema[UNREADABLE_KEY]}")
            continue
        try:
            built[name] = McpTool(name, server, remote, call, servers=spellings)
        except UnusableToolError as exc:
            skipped.append(f"{remote.name[:80]!r}: {exc}")
        except (ToolbeltError, RecursionError, KeyError, TypeError, ValueError) as exc:
            skipped.append(f"{remote.name[:80]!r}: {type(exc).__name__}: {str(exc)[:200]}")
    return built, skipped
