"""Run a blocking terminal read in a daemon thread that a timeout or cancellation abandons.

``readline`` on a terminal cannot be interrupted, so a prompt whose wait ends (the permission
timeout, the question's timeout, Ctrl-C) leaves its reading thread behind. anyio's worker
threads are not daemons: the interpreter joins them at exit, and ``toolbelt call`` would hang
until somebody pressed Enter. This thread is a daemon, so the process exits at once.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel

__all__ = ["run_abandonable"]

T = TypeVar("T")


async def run_abandonable(function: Callable[[], T]) -> T:
    """``function()``'s result, computed in a daemon thread; cancelling the caller abandons it."""
    done = anyio.Event()
    outcome: list[T] = []
    failure: list[BaseException] = []
    token = anyio.lowlevel.current_token()

    def work() -> None:
        try:
            outcome.append(function())
        except BaseException as exc:  # handed to the waiting task, raised there
            failure.append(exc)
        with contextlib.suppress(RuntimeError):  # the event loop is gone: nobody waits
            anyio.from_thread.run_sync(done.set, token=token)

    threading.Thread(target=work, name="toolbelt-terminal-read", daemon=True).start()
    await done.wait()
    if failure:
        raise failure[0]
    return outcome[0]
