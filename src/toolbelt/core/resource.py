"""One shape for what toolbelt opens and closes: leaving ``async with`` always closes.

As trio's ``AsyncResource``: ``aclose`` releases everything, is safe to call twice, and
``async with`` calls it on the way out whatever happened inside. A resource that acquires
something on the way in (a toolset's connections, a runtime's toolset) overrides
``__aenter__`` to do so.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self

__all__ = ["AsyncResource"]


class AsyncResource(ABC):
    """Closed by ``aclose``, once, and by leaving ``async with``."""

    @abstractmethod
    async def aclose(self) -> None:
        """Release everything; calling it again changes nothing."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
