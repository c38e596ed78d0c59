"""Limits that keep one search from holding a session: a time budget and a per-file size cap.

A search of a tree holding a 10 GB sparse file (or a FIFO named on purpose) ran for minutes.
Each search gets ``SEARCH_SECONDS``; when they are spent the watchdog kills the searcher, the
search returns what it found so far, and the result says it was cut and how to narrow it.
Files over ``MAX_FILE_BYTES`` are skipped when a directory is searched (``rg --max-filesize``);
a file named on its own is searched whatever its size, within the time budget.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_FILE_SIZE_ARG",
    "SEARCH_SECONDS",
    "SearchBudget",
    "cut_note",
    "watchdog",
]

SEARCH_SECONDS = 20.0
MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_FILE_SIZE_ARG = "200M"  # the same limit, as rg --max-filesize spells it


@dataclass
class SearchBudget:
    """The time one search may take; ``expired`` is set when the watchdog stopped it."""

    seconds: float = field(default_factory=lambda: SEARCH_SECONDS)
    expired: bool = False
    deadline: float = 0.0

    def __post_init__(self) -> None:
        self.deadline = time.monotonic() + self.seconds

    def spent(self) -> bool:
        """True once the time is up (for searches that check it themselves)."""
        if time.monotonic() >= self.deadline:
            self.expired = True
        return self.expired


@asynccontextmanager
async def watchdog(budget: SearchBudget | None, stop: Callable[[], None]) -> AsyncIterator[None]:
    """Call ``stop`` (kill the searcher) if the block is still running when ``budget`` ends."""
    if budget is None:
        yield
        return

    async def fire() -> None:
        await anyio.sleep(max(budget.deadline - time.monotonic(), 0.0))
        budget.expired = True
        stop()

    async with anyio.create_task_group() as group:
        group.start_soon(fire)
        try:
            yield
        finally:
            group.cancel_scope.cancel()


def cut_note(budget: SearchBudget, *, file_sizes: bool = True) -> str:
    """What the model reads when a search was cut by its time budget (``file_sizes``: a
    content search, which can also filter by file and skips huge files)."""
    narrow = (
        "search a subdirectory (`path`), filter files with `glob` or `type`, or make the "
        "pattern more specific"
        if file_sizes
        else "search a subdirectory (`path`) or make the pattern more specific"
    )
    note = (
        f"[The search was stopped after {budget.seconds:g} s, so these results are incomplete. "
        f"Narrow it: {narrow}."
    )
    if file_sizes:
        note += (
            f" Files over {MAX_FILE_BYTES // (1024 * 1024)} MB are skipped when a directory is "
            "searched; name a large file as `path` to search it alone."
        )
    return note + "]"
