"""One toolset used by several runtimes at once: opened by the first, closed by the last.

A runtime owns its toolset: entering it opens the toolset, closing it closes the toolset. That
is right for a toolset made per runtime, and wrong for one object handed to many — the MCP
HTTP server's sessions all serving the ``Toolset`` instance ``--toolset MODULE:ATTR`` names: the
first session to end would close the connections every other session still uses, and each new
session would open them again. ``SharedToolset.lease()`` gives each runtime a handle of its
own; the handles count who holds the toolset, so it is opened once, when the first holder
enters, and closed once, when the last one leaves.
"""

from __future__ import annotations

from typing import Any

import anyio

from toolbelt.core.registry import AnyTool, Toolset
from toolbelt.core.tool import Tool

__all__ = ["SharedToolset"]


class SharedToolset:
    """Hands out leases on ``inner`` and opens/closes it for the first/last holder."""

    def __init__(self, inner: Toolset) -> None:
        self.inner = inner
        self._holders = 0
        self._lock = anyio.Lock()

    def lease(self) -> Toolset:
        """A toolset of its own for one holder, showing ``inner``'s tools."""
        return _Lease(self)

    async def _hold(self) -> None:
        async with self._lock:  # a second holder waits until the first open has finished
            if self._holders == 0:
                await self.inner.open()
            self._holders += 1

    async def _release(self) -> None:
        async with self._lock:
            self._holders -= 1
            if self._holders == 0:
                await self.inner.aclose()


class _Lease(Toolset):
    """One holder's handle: ``open`` and ``aclose`` count once each, however often called."""

    def __init__(self, shared: SharedToolset) -> None:
        self._shared = shared
        self._held = False

    def tools(self) -> tuple[AnyTool, ...]:
        return self._shared.inner.tools()

    def get(self, name: str) -> Tool[Any] | None:
        return self._shared.inner.get(name)

    def why_missing(self, name: str) -> str | None:
        return self._shared.inner.why_missing(name)

    async def list_tools(self) -> tuple[AnyTool, ...]:
        return await self._shared.inner.list_tools()

    async def open(self) -> None:
        if not self._held:
            await self._shared._hold()
            self._held = True

    async def aclose(self) -> None:
        if self._held:
            self._held = False
            await self._shared._release()
