"""Waiting for something to happen: poll a condition until it holds, never sleep a fixed time.

A test that sleeps "long enough" is slow when the machine is idle and flaky when it is busy
(other tests run beside it under pytest-xdist). ``wait_until`` returns as soon as the condition
holds and fails with what it was waiting for once the deadline passes; the deadline is generous
because it only costs time when the test fails anyway. ``wait_until_async`` is the same for
async tests: it yields to the event loop between looks, so the task that makes the condition
true can run.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import TypeVar

import anyio

__all__ = ["accepts_connections", "wait_until", "wait_until_async"]

T = TypeVar("T")

TIMEOUT = 30.0
"""Seconds before a wait fails: far above what anything takes on a loaded machine."""
INTERVAL = 0.01
"""Seconds between two looks."""


def wait_until(
    condition: Callable[[], T],
    what: str = "the condition",
    *,
    timeout: float = TIMEOUT,
    interval: float = INTERVAL,
) -> T:
    """Look at ``condition()`` until it is true and return it; after ``timeout`` seconds fail
    the test saying ``what`` never happened."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(interval)
    return value


async def wait_until_async(
    condition: Callable[[], T],
    what: str = "the condition",
    *,
    timeout: float = TIMEOUT,  # noqa: ASYNC109 - the same deadline as wait_until's
    interval: float = INTERVAL,
) -> T:
    """``wait_until`` in an async test: the event loop runs between two looks."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        await anyio.sleep(interval)
    return value


def accepts_connections(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a server listens on ``host:port`` yet (a condition to wait for)."""
    try:
        socket.create_connection((host, port), timeout=1).close()
    except OSError:
        return False
    return True
