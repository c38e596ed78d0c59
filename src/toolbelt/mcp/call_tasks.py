"""The tasks a connection's ``tools/call`` requests run in: one plain asyncio task each.

anyio's task group (4.16) gives every task it starts a handle, an event, a wrapper coroutine
and a cancel scope of its own, about 10 µs a task: a sixth of what a trivial call cost over
stdio. A call needs none of it: it has a cancel scope already (``InFlightCall.scope``, for
``notifications/cancelled``) and answers its own failures. So ``CallTasks`` runs each call in
a plain task, and keeps the structure the task group gave:

- leaving the ``async with`` waits until every call has been answered;
- when the block is left by an exception, or cancelled while it waits (SIGTERM, a client that
  stopped reading), every call is cancelled by the ``cancel`` its owner gives (the server's
  ``cancel_calls``) and by the anyio scope each task runs in here, so no call escapes whatever
  its owner's records say (a call whose record was lost once waited out its timeout); anyio
  scopes, never a bare ``Task.cancel``, so shielded clean-up inside a tool still runs to the
  end and its processes are ended; the block is left only once every call has unwound;
- a call that raises (the server answers its own failures, so only a ``BaseException`` such
  as ``SystemExit`` gets here) cancels the others and is raised, in an exception group as
  anyio's task group raises it, when the block is left.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any, Protocol, TypeVarTuple, Unpack

import anyio

__all__ = ["CallSpawner", "CallTasks"]

PosArgsT = TypeVarTuple("PosArgsT")


class CallSpawner(Protocol):
    """Where a request that may take long is started: ``CallTasks`` or an anyio task group."""

    def start_soon(
        self,
        func: Callable[[Unpack[PosArgsT]], Coroutine[Any, Any, Any]],
        *args: *PosArgsT,
        name: object = None,
    ) -> object:
        """Start ``func(*args)`` as a task of its own."""
        ...


class CallTasks:
    """Calls running concurrently, each in a plain asyncio task, left together (see above)."""

    def __init__(
        self, cancel: Callable[[], None], *, on_finished: Callable[[], None] | None = None
    ) -> None:
        self._cancel = cancel
        """Cancels every call started here and every one that starts afterwards."""
        self._on_finished = on_finished
        """Told each time a call ends (stdio reads on once fewer calls run)."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._scopes: set[anyio.CancelScope] = set()
        """The scope each running task runs in: cancelling them all cancels every call."""
        self._cancelled = False
        self._failures: list[BaseException] = []
        self._idle: asyncio.Future[None] | None = None
        self._open = False

    async def __aenter__(self) -> CallTasks:
        self._open = True
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if exc is None:
                try:
                    await self._all_done()
                except BaseException:  # cancelled while waiting: end the calls first
                    await self._cancel_and_wait()
                    raise
            else:
                await self._cancel_and_wait()
        finally:
            self._open = False
        if self._failures:
            raise BaseExceptionGroup("a call failed", self._failures)

    @property
    def running(self) -> int:
        """Calls started and not finished."""
        return len(self._tasks)

    def start_soon(
        self,
        func: Callable[[Unpack[PosArgsT]], Coroutine[Any, Any, Any]],
        *args: *PosArgsT,
        name: object = None,
    ) -> None:
        """Start ``func(*args)`` in a task of its own (``name`` is accepted for anyio's
        signature and not used)."""
        if not self._open:
            raise RuntimeError("The calls' task group is not active; no call can start.")
        task = asyncio.get_running_loop().create_task(self._scoped(func(*args)))
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    async def _scoped(self, call: Coroutine[Any, Any, Any]) -> None:
        """Run ``call`` in a scope of its own that ``_cancel_and_wait`` cancels."""
        with anyio.CancelScope() as scope:
            if self._cancelled:
                scope.cancel()
            self._scopes.add(scope)
            try:
                await call
            finally:
                self._scopes.discard(scope)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (failure := task.exception()) is not None:
            self._failures.append(failure)
            self._cancel()
        if not self._tasks and self._idle is not None and not self._idle.done():
            self._idle.set_result(None)
        if self._on_finished is not None:
            self._on_finished()

    async def _all_done(self) -> None:
        while self._tasks:
            self._idle = asyncio.get_running_loop().create_future()
            await self._idle

    async def _cancel_and_wait(self) -> None:
        self._cancel()
        self._cancelled = True
        for scope in list(self._scopes):
            scope.cancel()
        with anyio.CancelScope(shield=True):
            await self._all_done()
