"""Sessions a test opened and did not close are closed as it ends, in its own event loop.

A shell left running outlives the test's event loop. When its pipe transports are collected
later — in whatever thread the garbage collector happens to run — their finalizers fail on
the closed loop, and the traceback printed for that is formatted (CPython 3.11 parses the
source line to underline it) while the main thread may be parsing source too: 3.11's AST
builder keeps one recursion counter per interpreter (cpython#106905), so a failing test's
report then raised ``SystemError: AST constructor recursion depth mismatch`` and took its
xdist worker down. ``tests/conftest.py`` awaits ``close_all`` at the end of every async test.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

__all__ = ["close_all", "close_at_end"]

_open: list[Callable[[], Awaitable[None]]] = []


def close_at_end(aclose: Callable[[], Awaitable[None]]) -> None:
    """Have ``aclose`` awaited when the running test ends (closing twice must be harmless)."""
    _open.append(aclose)


async def close_all() -> None:
    """Await every registered closer, the newest first."""
    while _open:
        await _open.pop()()
