"""Toolsets: register tools, look them up, list them in a stable order, compose them.

The order of ``tools()`` is the order in which tools were registered and never depends on
hashing or dict iteration of names, so the tool list a provider receives is byte-identical
from one request to the next (prompt caches key on it).

Toolsets compose (``filtered``, ``without``, ``CombinedToolset``); combining two toolsets that
share a name is refused rather than letting one silently shadow the other. ``build_toolset``,
which starts from the built-ins, lives with them in ``toolbelt.tools``: the core knows no tool.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Self

from toolbelt.core.errors import UsageError
from toolbelt.core.resource import AsyncResource
from toolbelt.core.tool import Tool

__all__ = [
    "CombinedToolset",
    "FilteredToolset",
    "ToolRegistry",
    "Toolset",
]

AnyTool = Tool[Any]

_TOOL_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
"""snake_case, and within every provider's limit (64 characters of ``[a-zA-Z0-9_-]``)."""


class Toolset(AsyncResource):
    """An ordered collection of uniquely named tools, with a lifecycle.

    The shape follows pydantic-ai's ``AbstractToolset``: a toolset may hold something that
    lives as long as it is open (a connection to another MCP server), so it is opened and
    closed (``async with``, or ``open``/``aclose``) and lists its tools asynchronously
    (``list_tools``). ``tools()`` and ``get()`` stay synchronous: the executor looks a tool up
    on every call, and a connected toolset answers them from what it listed when it opened.
    """

    @abstractmethod
    def tools(self) -> tuple[AnyTool, ...]:
        """Every tool, in a stable order."""

    async def list_tools(self) -> tuple[AnyTool, ...]:
        """Every tool, in a stable order, fetching them first if the toolset must."""
        return self.tools()

    async def open(self) -> None:
        """Acquire what the toolset needs while in use; the default needs nothing."""
        return None

    async def aclose(self) -> None:
        """Release what ``open`` acquired; safe to call twice, or without ``open``."""
        return None

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    def get(self, name: str) -> AnyTool | None:
        """The tool called ``name``, or None."""
        for tool in self.tools():
            if tool.name == name:
                return tool
        return None

    def why_missing(self, name: str) -> str | None:
        """Why there is no tool ``name`` though there would be one — its MCP server needs a
        login, or failed to start — as a sentence for the model; None when it is simply not
        a tool here. Wrappers ask what they wrap."""
        return None

    def names(self) -> tuple[str, ...]:
        """Tool names in listing order."""
        return tuple(tool.name for tool in self.tools())

    def filtered(self, predicate: Callable[[AnyTool], bool]) -> Toolset:
        """The tools for which ``predicate`` is true."""
        return FilteredToolset(self, predicate)

    def without(self, *names: str) -> Toolset:
        """This toolset minus ``names``; naming a tool that is not here is a mistake."""
        unknown = sorted(set(names) - set(self.names()))
        if unknown:
            raise UsageError(
                f"Cannot disable unknown tools {unknown}; known tools: {list(self.names())}."
            )
        dropped = frozenset(names)
        return FilteredToolset(self, lambda tool: tool.name not in dropped)

    def programmatic(self) -> Toolset:
        """Without tools that need a person or have outside side effects (seed 004's preset)."""
        return FilteredToolset(self, lambda tool: tool.programmatic)

    def readonly(self) -> Toolset:
        """Only tools whose class is read-only (for plan-style subagents)."""
        return FilteredToolset(self, lambda tool: tool.readonly)

    def __iter__(self) -> Iterator[AnyTool]:
        return iter(self.tools())

    def __len__(self) -> int:
        return len(self.tools())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None


class ToolRegistry(Toolset):
    """A mutable toolset: ``register`` tools one by one; duplicate names are refused."""

    def __init__(self, tools: Iterable[AnyTool] = ()) -> None:
        self._tools: dict[str, AnyTool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: AnyTool) -> AnyTool:
        """Add ``tool``; raises ``UsageError`` if its name is taken or malformed."""
        name = getattr(tool, "name", "")
        if not isinstance(name, str) or _TOOL_NAME.fullmatch(name) is None:
            raise UsageError(
                f"Tool name {name!r} must be snake_case ASCII: lowercase letters, digits and "
                "underscores, starting with a letter, at most 64 characters (like 'read_file')."
            )
        if name in self._tools:
            raise UsageError(
                f"A tool named {name!r} is already registered; rename one of them or "
                "remove the other with `without()`."
            )
        self._tools[name] = tool
        return tool

    def tools(self) -> tuple[AnyTool, ...]:
        return tuple(self._tools.values())

    def get(self, name: str) -> AnyTool | None:
        return self._tools.get(name)


class FilteredToolset(Toolset):
    """A view of another toolset keeping the tools a predicate accepts."""

    def __init__(self, inner: Toolset, predicate: Callable[[AnyTool], bool]) -> None:
        self._inner = inner
        self._predicate = predicate

    def tools(self) -> tuple[AnyTool, ...]:
        return tuple(tool for tool in self._inner.tools() if self._predicate(tool))

    async def list_tools(self) -> tuple[AnyTool, ...]:
        return tuple(tool for tool in await self._inner.list_tools() if self._predicate(tool))

    def why_missing(self, name: str) -> str | None:
        return self._inner.why_missing(name)

    async def open(self) -> None:
        await self._inner.open()

    async def aclose(self) -> None:
        await self._inner.aclose()


class CombinedToolset(Toolset):
    """Several toolsets listed one after the other; a name present twice is refused."""

    def __init__(self, *toolsets: Toolset) -> None:
        self._toolsets = toolsets
        self.tools()  # fail early on clashes

    def tools(self) -> tuple[AnyTool, ...]:
        seen: dict[str, AnyTool] = {}
        for toolset in self._toolsets:
            for tool in toolset.tools():
                if tool.name in seen:
                    raise UsageError(
                        f"Two toolsets both provide {tool.name!r}; drop it from one with "
                        "`without()` before combining them."
                    )
                seen[tool.name] = tool
        return tuple(seen.values())

    async def list_tools(self) -> tuple[AnyTool, ...]:
        for toolset in self._toolsets:
            await toolset.list_tools()
        return self.tools()

    def why_missing(self, name: str) -> str | None:
        found = (toolset.why_missing(name) for toolset in self._toolsets)
        return next((why for why in found if why is not None), None)

    async def open(self) -> None:
        opened: list[Toolset] = []
        try:
            for toolset in self._toolsets:
                await toolset.open()
                opened.append(toolset)
        except BaseException:
            for toolset in reversed(opened):
                await toolset.aclose()
            raise

    async def aclose(self) -> None:
        """Close every member, newest first, even when one of them fails to close."""
        errors: list[BaseException] = []
        for toolset in reversed(self._toolsets):
            try:
                await toolset.aclose()
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]
