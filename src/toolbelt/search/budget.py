"""Limits that keep one search from holding a session: a time budget and a per-file size cap.

A search of a tree holding a 10 GB sparse file (or a FIFO named on purpose) ran for minutes.
Each search gets ``SEARCH_SECONDS``; when they are spent the watchdog kills the searcher, the
search returns what it found so far, and the result says it was cut and how to narrow it.
Files over ``MAX_FILE_BYTES`` are skipped when a directory is searched (``rg --max-filesize``);
a file named on its own is searched whatever its size, within the time budget.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

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
    binary_at: int | None = None
    """Where the file named on its own turned to binary data, not searched past (see
    ``text_prefix``); None when it did not."""
    unnamed: int = 0
    """How many files the search found whose names hold a line break, left out of the
    results (rg prints such a name as it is, which the lines it is cut into cannot show)."""

    def __post_init__(self) -> None:
        self.deadline = time.monotonic() + self.seconds

    def spent(self) -> bool:
        """True once the time is up (for searches that check it themselves)."""
        if time.monotonic() >= self.deadline:
            self.expired = True
        return self.expired


@asynccontextmanager
async def watchdog(budget: SearchBudget | None, stop: Callable[[], None]) -> AsyncIterator[None]:
    """Call ``stop`` (kill the searcher) if the block is still running when ``budget`` ends.

    A timer on the running loop (toolbelt runs on asyncio, as ``search.ripgrep`` does), not a
    task group with a sleeping task, which cost the server CPU on every search (count mode,
    'def __init__' on the stdlib corpus: 4.8-5.3 → 3.9-4.0 ms per call).
    """
    if budget is None:
        yield
        return

    def fire() -> None:
        budget.expired = True
        stop()

    delay = max(budget.deadline - time.monotonic(), 0.0)
    timer = asyncio.get_running_loop().call_later(delay, fire)
    try:
        yield
    finally:
        timer.cancel()


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


def unnamed_note(budget: SearchBudget) -> str:
    """The note on the files left out because their names hold a line break (``unnamed``)."""
    one = budget.unnamed == 1
    files = (
        "1 file with a line break in its name"
        if one
        else (f"{budget.unnamed} files with a line break in their names")
    )
    return (
        f"[Left out: {files}, which these lines cannot show exactly; rename such a file to "
        "see it here.]"
    )
