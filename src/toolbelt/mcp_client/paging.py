"""Following a server's cursor through a listing of its prompts or its resources.

MCP lists page by page, each page naming the next by an opaque cursor. A server whose cursors
never end must not hang the person or the model waiting for the list, so no more than
``MAX_PAGES`` pages are read; a caller with enough stops sooner by leaving its loop. Each page
is one ``server.request`` (the call timeout, the server's errors as a ``ToolError``). The tool
listing at start-up pages on the session itself, with limits of its own (``tool_listing``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol, TypeVar

import mcp_types as types
from mcp.client.session import ClientSession

from toolbelt.mcp_client.server import McpServerToolset

__all__ = ["MAX_PAGES", "listing_pages"]

MAX_PAGES = 20


class _Page(Protocol):
    @property
    def next_cursor(self) -> str | None: ...


PageT = TypeVar("PageT", bound=_Page)
ListPage = Callable[[ClientSession, types.PaginatedRequestParams | None], Awaitable[PageT]]


async def listing_pages(
    server: McpServerToolset, what: str, list_page: ListPage[PageT]
) -> AsyncIterator[PageT]:
    """The pages of ``server``'s listing ``what`` (``prompts/list``…), first to last or to
    ``MAX_PAGES``; ``list_page`` asks the session for one page after a cursor."""
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None

        async def page_of(session: ClientSession) -> PageT:
            return await list_page(session, params)  # noqa: B023 - awaited here

        page = await server.request(what, page_of)
        yield page
        cursor = page.next_cursor
        if not cursor:
            return
