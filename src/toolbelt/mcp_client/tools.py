"""One remote tool as a ``SchemaTool`` named ``mcp__<server>__<tool>``, and how names are made.

A remote tool is a plain schema tool, so every provider format, tool search and the executor
treat it like any other. Its permission identity is its name, so ``mcp__server`` and
``mcp__server__tool`` rules speak about it; it always declares an effect (``execute``): what a
server does is unknown, so every call asks unless a rule allows it. ``readOnlyHint`` only lets
calls run beside other read-only calls — a server may not declare itself safe to approve.

Names follow the registry's rule (snake_case ASCII, at most 64 characters): camelCase becomes
snake_case, anything else outside ``[a-z0-9_]`` becomes ``_``, and a name that is taken (two
remote names that read the same, or one cut at 64 characters) gets ``_2``, ``_3``... A
server's part never holds ``__`` (``a__b`` is written ``a_b``) and is unique, so the first
``__`` after ``mcp__`` always ends it: server ``a``'s tool ``b__c`` (``mcp__a__b__c``) and
server ``a__b``'s tool ``c`` (``mcp__a_b__c``) cannot meet under one name. A remote tool keeps
its name for the whole session, and a name once given is never given to another tool.

Rules, though, are written as people spell servers — as configured (``mcp__brave-search``,
Claude Code's spelling) or as toolbelt shows them (``mcp__brave_search``): ``McpNames`` holds
every spelling of one tool, and the rule matching (``RuleIdentity.named_by``) uses it.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.rule_identity import RuleIdentity
from toolbelt.core.schema_tool import SchemaArguments, SchemaTool
from toolbelt.core.tool_hints import ToolHints
from toolbelt.mcp_client.metadata import (
    MAX_DESCRIPTION,
    MAX_TITLE,
    UnusableToolError,
    capped,
    capped_schema,
    unusable,
)

__all__ = [
    "McpNames",
    "McpTool",
    "claude_name",
    "server_prefixes",
    "server_spellings",
    "snake_name",
    "tool_names",
]

RemoteCall = Callable[[str, dict[str, Any], ToolContext], Awaitable[ToolOutput]]
_MAX = 64
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_OTHER = re.compile(r"[^a-z0-9_]+")
_CLAUDE_OTHER = re.compile(r"[^a-zA-Z0-9_-]")
_RUNS = re.compile(r"__+")
_SERVER_MAX = 40


def snake_name(text: str) -> str:
    """``getTinyImage`` → ``get_tiny_image``; ``my-server.v2`` → ``my_server_v2``."""
    name = _OTHER.sub("_", _CAMEL.sub("_", text).lower()).strip("_")
    return name or "tool"


def claude_name(text: str) -> str:
    """Claude Code's spelling of a server or tool in ``mcp__server__tool``: what is outside
    ``[a-zA-Z0-9_-]`` becomes ``_`` (``brave-search`` stays, ``my.server`` is ``my_server``)."""
    return _CLAUDE_OTHER.sub("_", text)


def _server_base(server: str) -> str:
    """A server's part of its tools' names before it is made unique: no ``__`` inside."""
    return _RUNS.sub("_", snake_name(server)[:_SERVER_MAX]).strip("_") or "server"


def server_prefixes(servers: Iterable[str]) -> list[str]:
    """Each server's part of its tools' names, unique and without ``__`` (``my-server`` and
    ``my_server`` would both read ``my_server``: the one not named so becomes ``my_server_2``)."""
    names = list(servers)
    bases = [_server_base(name) for name in names]
    used: set[str] = set()
    prefixes = [""] * len(names)
    # a server already named as its part keeps it, whatever the order of the file
    for index, (name, base) in enumerate(zip(names, bases, strict=True)):
        if name == base and base not in used:
            prefixes[index] = base
            used.add(base)
    for index, base in enumerate(bases):
        if prefixes[index]:
            continue
        prefix, number = base, 1
        while prefix in used:
            number += 1
            prefix = f"{base}_{number}"
        used.add(prefix)
        prefixes[index] = prefix
    return prefixes


def server_spellings(servers: Sequence[str], prefixes: Sequence[str]) -> list[tuple[str, ...]]:
    """For each server, the names a rule may call it by: as configured, as Claude Code writes
    it, and its part of our tool names — except a spelling that is another server's name or
    part, so one rule never reaches two servers by accident."""
    spellings = []
    for index, (name, prefix) in enumerate(zip(servers, prefixes, strict=True)):
        others = {
            *servers[:index],
            *servers[index + 1 :],
            *prefixes[:index],
            *prefixes[index + 1 :],
        }
        extra = (s for s in (prefix, claude_name(name)) if s not in others)
        spellings.append(tuple(dict.fromkeys((name, *extra))))
    return spellings


def tool_names(
    prefix: str,
    remote: Iterable[str],
    taken: Iterable[str] = (),
    given: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Remote tool name → our unique name, in the server's order. ``given``: the names handed
    out earlier in the session (remote → ours), kept for the same remote tool and never handed
    to another one."""
    earlier = dict(given or {})
    used = set(taken) | set(earlier.values())
    names: dict[str, str] = {}
    start = f"mcp__{prefix}__"
    for original in remote:
        if original in names:
            continue
        if original in earlier:
            names[original] = earlier[original]
            continue
        base = (start + snake_name(original))[:_MAX]
        name, number = base, 1
        while name in used:
            number += 1
            suffix = f"_{number}"
            name = base[: _MAX - len(suffix)] + suffix
        used.add(name)
        names[original] = name
    return names


@dataclass(frozen=True, slots=True)
class McpNames:
    """Every spelling under which a rule may name one remote tool (see the module doc)."""

    servers: tuple[str, ...]
    tools: tuple[str, ...]

    def named_by(self, rule: str) -> bool:
        """Whether the rule's tool part (``mcp__server``, ``mcp__server__*``,
        ``mcp__server__tool``) names this tool, under any of its spellings."""
        rest = rule.removeprefix("mcp__")
        whole = rest.removesuffix("__*")
        if rest == "*" or whole in self.servers:  # `mcp__*`: every server's tools
            return True
        if whole != rest:
            return False
        return any(
            rest.startswith(server + "__") and rest[len(server) + 2 :] in self.tools
            for server in self.servers
        )


class McpTool(SchemaTool):
    """A tool of another MCP server; ``run`` forwards the call through its connection.

    ``servers``: the spellings rules may use for its server (``server_spellings``); its own
    spellings are its remote name, Claude Code's spelling of it and its part of our name.
    The server's words are bounded (``metadata``); ``UnusableToolError`` for a schema past the
    bounds, so the server's listing leaves this tool out and keeps the others."""

    def __init__(
        self,
        name: str,
        server: str,
        remote: types.Tool,
        call: RemoteCall,
        *,
        servers: tuple[str, ...] = (),
    ) -> None:
        why = unusable(remote.input_schema, remote.name)
        if why is not None:
            raise UnusableToolError(why)
        hints = remote.annotations or types.ToolAnnotations()
        description = capped(
            (remote.description or remote.title or remote.name).strip(), MAX_DESCRIPTION
        )
        super().__init__(
            name,
            title=capped(remote.title or hints.title or remote.name, MAX_TITLE),
            description=f"{description}\n\n(Tool `{remote.name}` of the MCP server `{server}`.)",
            input_schema=capped_schema(remote.input_schema),
            hints=ToolHints.from_mcp(hints),
        )
        self.asks_user = True  # the server may ask the person (elicitation) while it runs
        self.server = server
        self.remote_name = remote.name
        own = name.removeprefix("mcp__").partition("__")[2]
        self.names = McpNames(
            servers or (server,), tuple(dict.fromkeys((remote.name, claude_name(remote.name), own)))
        )
        claude = f"mcp__{claude_name(server)}__{claude_name(remote.name)}"
        self.claude_name = claude if claude != name else None  # hook matchers written for it
        self._call = call

    def rule_identity(self) -> RuleIdentity:
        """Its own family, named by every spelling of its server and of itself."""
        return RuleIdentity(self.name, self.name, mcp=self.names)

    async def access(self, args: SchemaArguments, ctx: ToolContext) -> Access:
        return Access(
            AccessKind.EXECUTE,
            summary=f"`{self.name}` (tool `{self.remote_name}` of the MCP server `{self.server}`)",
        )

    async def run(self, args: SchemaArguments, ctx: ToolContext) -> ToolOutput:
        return await self._call(self.remote_name, args.values(), ctx)
