"""A server's tool list, read page by page and turned into toolbelt tools.

A foreign server decides what it lists, so nothing in the list may take the start-up down: the
pages are bounded (a server whose cursor never ends cannot hang it), so is the number of tools
taken from one server (``MAX_TOOLS``: the rest are left out and named), a name listed twice
counts once, and a tool whose schema toolbelt cannot read or use is left out with the reason —
shown by ``toolbelt mcp-servers`` — while the others are served.

Turning a listed tool into a toolbelt tool checks its schema (``jsonschema``'s meta-schema,
about a millisecond a tool): ``build_tools`` is run in a worker thread, abandoned (not waited
for) when the caller's time runs out, so a long list neither stalls the event loop — every
other server and call in the process — nor outlives the server's start-up time, which a
synchronous loop over 20,000 tools did (38 s against a ``startupTimeout`` of 5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import mcp_types as types
from mcp.client.session import ClientSession

from toolbelt.core.errors import ToolbeltError
from toolbelt.mcp_client.listing_trim import LEFT_OUT, MAX_NAMED, MAX_TOOLS
from toolbelt.mcp_client.metadata import UnusableToolError
from toolbelt.mcp_client.stdio import UNREADABLE_KEY
from toolbelt.mcp_client.tools import McpTool, RemoteCall

__all__ = [
    "MAX_PAGES",
    "MAX_TOOLS",
    "Listing",
    "build_tools",
    "list_remote_tools",
]

MAX_PAGES = 100
"""Pages of ``tools/list`` read at the most."""


@dataclass
class Listing:
    """What a server listed: the tools taken, and those left out past ``MAX_TOOLS``."""

    tools: list[types.Tool] = field(default_factory=list)
    left_out: int = 0
    named: list[str] = field(default_factory=list)
    """The first ``MAX_NAMED`` tools left out."""
    unread: bool = False
    """Pages after the one that passed ``MAX_TOOLS`` were not read."""

    def add(self, page: types.ListToolsResult) -> None:
        room = MAX_TOOLS - len(self.tools)
        self.tools += page.tools[: max(room, 0)]
        rest = [tool.name for tool in page.tools[max(room, 0) :]]
        trimmed = (page.meta or {}).get(LEFT_OUT)  # cut before the SDK read it (listing_trim)
        if isinstance(trimmed, dict):
            rest += [str(name) for name in trimmed.get("names") or ()]
            self.left_out += int(trimmed.get("count") or 0) - len(trimmed.get("names") or ())
        self.named += rest[: MAX_NAMED - len(self.named)]
        self.left_out += len(rest)

    def note(self) -> str | None:
        """What was left out, for ``skipped``; None when nothing was."""
        if not self.left_out and not self.unread:
            return None
        named = ", ".join(repr(name[:80]) for name in self.named)
        more = self.left_out - len(self.named)
        listed = f": {named}" + (f" and {more:,} more" if more > 0 else "") if named else ""
        pages = " (and the pages after them, not read)" if self.unread else ""
        return (
            f"{self.left_out:,} tools past the first {MAX_TOOLS:,} were left out{pages}, "
            f"toolbelt takes no more from one server{listed}"
        )


async def list_remote_tools(session: ClientSession) -> Listing:
    """The tools the server lists, following its cursor for up to ``MAX_PAGES`` pages and no
    further than the page that reaches ``MAX_TOOLS``."""
    listing = Listing()
    cursor: str | None = None
    for _ in range(MAX_PAGES):  # a server whose pages never end cannot hang the start-up
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        listing.add(page)
        cursor = page.next_cursor
        if not cursor:
            return listing
        if len(listing.tools) >= MAX_TOOLS:
            listing.unread = True
            break
    return listing


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
