"""``tool_search``: find deferred tools, hand the model their schemas, load them for the session.

The model asks in words (``create a jira ticket``), by exact name (``mcp__jira__create_issue``
or ``create_issue``), or with ``select:name[,name2]`` to load tools it already knows of. The
answer carries each match's full name, server, description and complete input schema — the
proxy form: a provider without native tool search reads the schema here and calls the tool by
name from its next request (or at once through ``call_mcp_tool``). Every match is marked loaded
in the session (``deferral.session_state``), so ``offered_tools`` offers it from then on.

``ToolSearchToolset`` wraps the toolset a runtime runs: it adds ``tool_search`` (searching the
wrapped toolset's MCP tools) and keeps every tool callable, deferred or not.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError, UsageError
from toolbelt.core.registry import AnyTool, Toolset, WrappedToolset
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.providers.deferral import TOOL_SEARCH, is_deferrable, session_state
from toolbelt.toolsearch.index import ToolIndex
from toolbelt.toolsearch.terms import server_of

__all__ = ["ToolSearchInput", "ToolSearchTool", "ToolSearchToolset"]

SELECT = "select:"
DESCRIPTION = """\
Find tools of the connected MCP servers that are not loaded yet, and load them. Search with \
words saying what the tool should do (`create issue`), or with its exact name; \
`select:name1,name2` loads tools whose exact names you know. The answer lists each tool's \
name, description and complete parameter schema; the tools found stay callable by name for \
the rest of the session. Narrow with `server` when you know which server has the tool."""


class ToolSearchInput(ToolInput):
    """Arguments of `tool_search`."""

    query: str = Field(
        min_length=1,
        description="Words for what the tool does, or its exact name; `select:a,b` loads by name.",
    )
    server: str | None = Field(default=None, description="Only tools of this MCP server.")
    limit: int = Field(default=5, ge=1, le=20, description="How many tools to return, 1 to 20.")


class ToolSearchTool(Tool[ToolSearchInput]):
    """Search the deferrable tools of ``catalog`` and load what it finds into the session."""

    name = TOOL_SEARCH
    title = "Tool search"
    example = {"query": "create issue", "limit": 5}
    hints = ToolHints.READ_ONLY

    def __init__(self, catalog: Toolset) -> None:
        self._catalog = catalog
        self._seen: tuple[AnyTool, ...] = ()
        self._index = ToolIndex(())
        self.description = DESCRIPTION

    def index(self, catalog: tuple[AnyTool, ...] | None = None) -> ToolIndex:
        """The index of the catalog's deferrable tools, rebuilt when the catalog changed
        (``catalog``: its tools when the caller has just listed them)."""
        tools = self._catalog.tools() if catalog is None else catalog
        seen = self._seen
        if len(tools) != len(seen) or any(a is not b for a, b in zip(tools, seen, strict=True)):
            self._seen = tools
            self._index = ToolIndex([tool for tool in tools if is_deferrable(tool)])
            self.description = _describe(self._index)
        return self._index

    async def run(self, args: ToolSearchInput, ctx: ToolContext) -> ToolOutput:
        index = self.index()
        if not index.tools:
            raise ToolError(
                "No MCP server's tools are connected, so there is nothing to search; "
                "carry on with the tools you have."
            )
        server = args.server.strip() if args.server else None
        if server is not None and server.lower() not in {s.lower() for s in index.servers()}:
            raise ToolError(
                f"No MCP server is named {server!r}; use one of {_listing(index.servers())}, "
                "or leave `server` out."
            )
        query = args.query.strip()
        if query.lower().startswith(SELECT):
            found, problems = self._select(index, query[len(SELECT) :], server)
        else:
            found = [match.tool for match in index.search(query, server=server, limit=args.limit)]
            problems = []
        if not found:
            raise ToolError(
                " ".join(problems)
                or f"No tool matches {query!r}; try other words, a server "
                f"({_listing(index.servers())}) or `select:<exact name>`."
            )
        fresh = session_state(ctx.session).load(tool.name for tool in found)
        return ToolOutput.text(_render(query, found, problems), _structured(found, fresh))

    def _select(
        self, index: ToolIndex, names: str, server: str | None
    ) -> tuple[list[AnyTool], list[str]]:
        found: list[AnyTool] = []
        problems: list[str] = []
        for name in dict.fromkeys(part.strip() for part in names.split(",") if part.strip()):
            tools = index.resolve(name, server=server)
            if len(tools) == 1:
                found.append(tools[0])
            elif tools:
                full = ", ".join(tool.name for tool in tools)
                problems.append(
                    f"`{name}` names {len(tools)} tools ({full}); select one by its full name."
                )
            elif self._catalog.get(name) is not None:
                problems.append(f"`{name}` is always available; call it directly.")
            else:
                problems.append(
                    f"No tool is named `{name}`; search with words from its description instead."
                )
        if not found and not problems:
            problems.append(
                "`select:` needs tool names after it, like `select:mcp__github__create_issue`."
            )
        return found, problems


class ToolSearchToolset(WrappedToolset):
    """``inner``'s tools plus ``tool_search`` over them; every tool stays callable by name."""

    def __init__(self, inner: Toolset) -> None:
        if inner.get(TOOL_SEARCH) is not None:
            raise UsageError(f"The toolset already has a `{TOOL_SEARCH}` tool; wrap it only once.")
        super().__init__(inner)
        self.search = ToolSearchTool(inner)

    def tools(self) -> tuple[AnyTool, ...]:
        tools = self.inner.tools()
        self.search.index(tools)  # keeps its description (the servers it lists) current
        return (*tools, self.search)

    def get(self, name: str) -> AnyTool | None:
        return self.search if name == TOOL_SEARCH else self.inner.get(name)

    async def list_tools(self) -> tuple[AnyTool, ...]:
        await self.inner.list_tools()
        return self.tools()


def _describe(index: ToolIndex) -> str:
    counts: dict[str, int] = {}
    for tool in index.tools:
        server = server_of(tool.name) or ""
        counts[server] = counts.get(server, 0) + 1
    if not counts:
        return DESCRIPTION
    servers = ", ".join(
        f"{server} ({count} tool{'' if count == 1 else 's'})" for server, count in counts.items()
    )
    return f"{DESCRIPTION}\n\nServers: {servers}."


def _listing(servers: tuple[str, ...]) -> str:
    return ", ".join(servers)


def _render(query: str, found: list[AnyTool], problems: list[str]) -> str:
    count = "1 tool" if len(found) == 1 else f"{len(found)} tools"
    them = "it" if len(found) == 1 else "them"
    lines = [f"Loaded {count} for {query!r}; call {them} by name from now on."]
    lines += problems
    for tool in found:
        schema = json.dumps(tool.input_schema(), separators=(",", ":"), ensure_ascii=False)
        lines += ["", f"## {tool.name} (server: {server_of(tool.name)})", tool.description]
        lines.append(f"Parameters: {schema}")
    return "\n".join(lines)


def _structured(found: list[AnyTool], fresh: list[str]) -> dict[str, Any]:
    return {
        "tools": [
            {
                "name": tool.name,
                "server": server_of(tool.name),
                "description": tool.description,
                "input_schema": tool.input_schema(),
            }
            for tool in found
        ],
        "newly_loaded": fresh,
    }
