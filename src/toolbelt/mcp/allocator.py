"""Giving memory back to the system after large requests (glibc's allocator, for the HTTP door).

A long-running ``toolbelt mcp --http`` that received a few 15 MiB bodies (``write_file`` of a
large file) kept hundreds of MiB after every client had left, and more after each round
(issue #32: 43 → 244 → 404 MiB). The objects were freed; glibc kept the memory:

- its mmap threshold is dynamic: once a 15 MiB block allocated with ``mmap`` is freed, blocks
  of up to that size come from the heap instead, where a freed block stays mapped and its
  neighbours fragment the heap, so the next large body lands somewhere new;
- every thread that allocates (tools run their file work in worker threads) gets an arena of
  its own, up to 8 per core, each holding its own freed memory.

So the door caps the arenas at ``ARENA_MAX`` before its threads start, and once a large
request has been answered, or a session has ended, asks glibc to return the free pages of every
arena (``malloc_trim``, in a worker thread, one at a time). Fixing the mmap threshold as well
gave the same plateau but made each large body about 1.5 times slower (every large block
mapped and faulted in afresh), so the threshold is left dynamic. Measured with four sessions
writing three 4 MiB files each, seven rounds: RSS 2 s after the clients left went from
215 → 235 MiB after three rounds to 104 → 148 MiB after seven; with 15 MiB ``think`` bodies from
141 → 171 MiB to a flat 74 MiB (``bench/bench_http_battery.py`` repeats it under every attack).
Elsewhere (musl, macOS) nothing is changed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Any

import anyio

__all__ = ["ARENA_MAX", "LARGE_BODY", "give_back", "tune_allocator"]

ARENA_MAX = 2
"""Arenas at most: the door's work is on one event loop, its threads few and short-lived."""
LARGE_BODY = 1024 * 1024
"""A request body this large is followed by a ``give_back``."""
_M_ARENA_MAX = -8


@functools.cache
def _glibc() -> Any | None:
    """glibc's ``libc``, or None where the C library is another one."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    needed = ("gnu_get_libc_version", "mallopt", "malloc_trim")
    return libc if all(hasattr(libc, symbol) for symbol in needed) else None


def tune_allocator() -> bool:
    """Cap the arenas (before the server's threads start); False where the C library is not
    glibc."""
    libc = _glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(_M_ARENA_MAX, ARENA_MAX))


@functools.cache
def _trimming() -> anyio.Lock:
    return anyio.Lock()


async def give_back() -> None:
    """Return the free pages of every arena to the system, in a worker thread (it walks the
    heaps: a few milliseconds for hundreds of MiB); nothing where the C library is not glibc."""
    libc = _glibc()
    if libc is None:
        return
    async with _trimming():
        await anyio.to_thread.run_sync(libc.malloc_trim, 0)
