"""A session's language servers: started once, kept warm, restarted with back-off.

A server starts the first time a file of its language needs it, in the background: the edit
that asked waits for it only until its own deadline (a cold basedpyright takes a second or
two), and the next edit finds it warm. One process serves every language its spec names.
A server that fails to start, exits, or stops answering (``HANG_LIMIT`` waits in a row that
ran out, and nothing from it for ``HANG_SECONDS``) is ended and started again on a later
need, after a back-off that doubles from one second to a minute; until then its languages
fall back to the fast checker. ``aclose`` ends
them all with the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolbelt.lsp.client import ServerConnection, ServerGone
from toolbelt.lsp.discovery import Discovery, find_server
from toolbelt.lsp.settings import LspSettings
from toolbelt.sandbox.sandbox import Sandbox

__all__ = ["HANG_LIMIT", "START_TIMEOUT", "LanguageServers"]

START_TIMEOUT = 60.0
"""Seconds a server may take to start and initialize before it counts as failed."""
HANG_LIMIT = 3
"""Waits in a row that ran out before a server counts as hung and is restarted..."""
HANG_SECONDS = 10.0
"""...once it has also not answered for this long (a cold server's first check is slow)."""
_BACKOFF = (1.0, 60.0)


@dataclass
class _Slot:
    """One server's life: the running connection, or the start under way, and its failures."""

    connection: ServerConnection | None = None
    starting: asyncio.Task[None] | None = None
    failures: int = 0
    retry_at: float = 0.0
    timeouts: int = 0
    answered_at: float = 0.0
    note: str | None = None
    """What went wrong last (said once in a result)."""
    old: list[ServerConnection] = field(default_factory=list)


class LanguageServers:
    """The servers of one session (a session resource)."""

    def __init__(
        self, roots: Sequence[Path], settings: LspSettings, sandbox: Sandbox | None
    ) -> None:
        self._roots = tuple(roots)
        self.settings = settings
        self._sandbox = sandbox
        self._found: dict[str, Discovery] = {}
        self._slots: dict[str, _Slot] = {}
        self._closed = False
        self._reaping: set[asyncio.Task[None]] = set()
        """Hung servers being ended in the background: held so a task is never collected
        half-way, and waited for when the session closes."""

    def discovery(self, language: str) -> Discovery:
        """The server found for ``language`` (looked up once per session)."""
        found = self._found.get(language)
        if found is None:
            found = self._found[language] = find_server(language, self.settings, self._roots)
        return found

    def running(self) -> list[ServerConnection]:
        """The servers up now."""
        return [s.connection for s in self._slots.values() if s.connection is not None]

    async def ready(self, language: str, deadline: float) -> ServerConnection | None:
        """The server for ``language`` once it is up, waiting at most until ``deadline``
        (``time.monotonic``); None when there is none, it is backing off, or it is not up yet."""
        found = self.discovery(language).server
        if found is None or self._closed:
            return None
        slot = self._slots.setdefault(found.spec.name, _Slot())
        connection = slot.connection
        if connection is not None and connection.gone.is_set():
            self._failed(slot, f"{found.spec.name} exited")
        if slot.connection is not None:
            return slot.connection
        if slot.starting is None:
            if time.monotonic() < slot.retry_at:
                return None
            slot.starting = asyncio.create_task(self._start(slot, ServerConnection(
                found, self._roots[0], self._sandbox)))  # fmt: skip
        remaining = deadline - time.monotonic()
        if remaining > 0:
            await asyncio.wait({slot.starting}, timeout=remaining)
        return slot.connection

    async def _start(self, slot: _Slot, connection: ServerConnection) -> None:
        try:
            async with asyncio.timeout(START_TIMEOUT):
                await connection.start()
        except asyncio.CancelledError:
            await connection.aclose()
            raise
        except Exception as exc:
            slot.old.append(connection)
            self._failed(slot, _why(connection.name, exc))
            await self._reap(slot)
        else:
            slot.connection, slot.timeouts = connection, 0
            slot.answered_at = time.monotonic()
        finally:
            slot.starting = None

    def timed_out(self, connection: ServerConnection) -> None:
        """A wait on ``connection`` ran out; after ``HANG_LIMIT`` in a row it is restarted."""
        slot = self._slots.get(connection.name)
        if slot is None or slot.connection is not connection:
            return
        slot.timeouts += 1
        silent = time.monotonic() - slot.answered_at
        if slot.timeouts >= HANG_LIMIT and silent >= HANG_SECONDS:
            self._failed(slot, f"{connection.name} stopped answering")
            reaping = asyncio.get_running_loop().create_task(self._reap(slot))
            self._reaping.add(reaping)
            reaping.add_done_callback(self._reaping.discard)

    def answered(self, connection: ServerConnection) -> None:
        slot = self._slots.get(connection.name)
        if slot is not None and slot.connection is connection:
            slot.timeouts = slot.failures = 0
            slot.answered_at = time.monotonic()

    def _failed(self, slot: _Slot, reason: str) -> None:
        if slot.connection is not None:
            slot.old.append(slot.connection)
            slot.connection = None
        slot.failures += 1
        delay = min(_BACKOFF[0] * 2 ** (slot.failures - 1), _BACKOFF[1])
        slot.retry_at = time.monotonic() + delay
        slot.note = f"{reason}; it will be restarted after {delay:g} s"

    async def _reap(self, slot: _Slot) -> None:
        old, slot.old = slot.old, []
        for connection in old:
            await connection.aclose()

    def notes(self) -> list[str]:
        """What went wrong with a server since the last look (each said once)."""
        found = []
        for slot in self._slots.values():
            if slot.note:
                found.append(slot.note)
                slot.note = None
        return found

    async def aclose(self) -> None:
        """End every server; safe to call twice."""
        self._closed = True
        for slot in self._slots.values():
            if slot.starting is not None:
                slot.starting.cancel()
                with contextlib.suppress(BaseException):
                    await slot.starting
            if slot.connection is not None:
                slot.old.append(slot.connection)
                slot.connection = None
            await self._reap(slot)
        if self._reaping:  # a hung server still being ended: its process goes with the session
            await asyncio.gather(*self._reaping, return_exceptions=True)


def _why(name: str, error: Exception) -> str:
    """Why the server ``name`` did not start, in a few words."""
    if isinstance(error, TimeoutError):
        return f"{name} did not start in time"
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename else ""
        return f"{name} could not be started ({where}{error.strerror})"
    if isinstance(error, ServerGone):
        return str(error)  # "NAME exited"
    return f"{name} did not start ({error or type(error).__name__})"
