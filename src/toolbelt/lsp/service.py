"""Diagnostics after an edit, within a deadline: new problems, fixed ones, late ones.

For each changed file of a known language: the session's server for it (``servers``) if it is
up by the deadline, else the fast checker (``checkers``), else nothing. With a server, the
file's diagnostics before the edit are the baseline: those the server last published for
the text it has, when that is the text before the edit (the previous edit left it so), or else
the text before the edit is opened first and its diagnostics awaited; then the new text is
sent and its diagnostics awaited. Whatever has not arrived by the deadline is not waited for:
the result says they are pending, and they are reported with the next edit's result (``late``)
unless that edit changed the same file again. Everything runs concurrently, bounded by one
deadline: a slow, hung or crashed server never holds an edit's result past it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from lsprotocol import types as lsp

from toolbelt.lsp.checkers import checker_for, run_checker
from toolbelt.lsp.client import Published, ServerConnection, ServerGone
from toolbelt.lsp.diagnostics import Diagnostic, Outcome, compare, render
from toolbelt.lsp.languages import language_of
from toolbelt.lsp.queries import utf16_to_column
from toolbelt.lsp.servers import LanguageServers
from toolbelt.lsp.settings import LspSettings
from toolbelt.sandbox.sandbox import Sandbox

__all__ = ["ChangedFile", "CodeDiagnostics", "from_lsp"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A file an edit changed: its path, how the model knows it, its text before and after."""

    path: Path
    label: str
    before: str | None
    """None: the edit created it."""
    after: str
    moved_from: Path | None = None
    """Where the file was before the edit, when the edit moved it."""

    @property
    def before_path(self) -> Path:
        """Where the text before the edit was: the source of a move (of the same language:
        its problems there are the baseline, and a move that breaks a relative import is
        seen), else the file's own path."""
        moved = self.moved_from
        if moved is not None and language_of(moved) == language_of(self.path):
            return moved
        return self.path


@dataclass
class _Pending:
    change: ChangedFile
    work: asyncio.Task[dict[Path, Outcome | str]]


def _language(change: ChangedFile) -> str:
    return language_of(change.path) or ""


class CodeDiagnostics:
    """A session's diagnostics after edits (a session resource)."""

    CHECKER_SHARE = 0.5
    """The share of an edit's deadline kept for the fast checker while the server starts."""
    LATE_LIMIT = 30.0
    """Seconds a server may take over one file's diagnostics before it counts as not
    answering."""

    def __init__(
        self, roots: Sequence[Path], settings: LspSettings, sandbox: Sandbox | None
    ) -> None:
        self.settings = settings
        self.servers = LanguageServers(roots, settings, sandbox)
        self._root = roots[0]
        self._sandbox = sandbox
        self._pending: dict[Path, _Pending] = {}
        self._skipped_said: set[str] = set()

    async def after_edit(
        self, changes: Sequence[ChangedFile], *, started: float | None = None
    ) -> list[str]:
        """The lines an edit's result gets (nothing when no file has a known language), by
        ``started`` (``time.monotonic``, default now) plus the timeout."""
        if not self.settings.diagnostics:
            return []
        deadline = (time.monotonic() if started is None else started) + self.settings.timeout
        for change in changes:
            for path in {change.path, change.moved_from or change.path}:
                superseded = self._pending.pop(path, None)
                if superseded is not None and not any(
                    p.work is superseded.work for p in self._pending.values()
                ):
                    superseded.work.cancel()  # every file it was checking changed again
        late = self._late()
        known = [c for c in changes if language_of(c.path) is not None]
        # a server not up yet leaves the checker time of its own (it starts meanwhile)
        ready_by = deadline - self.settings.timeout * self.CHECKER_SHARE
        languages = sorted({language_of(c.path) or "" for c in known})
        ready = await asyncio.gather(*(self.servers.ready(lang, ready_by) for lang in languages))
        connections = dict(zip(languages, ready, strict=True))
        groups: dict[ServerConnection, list[ChangedFile]] = {}
        checked: list[Awaitable[Outcome | str | None]] = []
        for change in known:
            language = language_of(change.path) or ""
            connection = connections[language]
            if connection is None:
                checked.append(self._with_checker(change, language, deadline))
            else:
                groups.setdefault(connection, []).append(change)
        by_server = [self._server_group(c, group, deadline) for c, group in groups.items()]
        results: list[Outcome | str | None] = []
        for found in await asyncio.gather(*by_server, *checked):
            results += found if isinstance(found, list) else [found]
        lines = render([r for r in results if isinstance(r, Outcome)])
        lines += [r for r in results if isinstance(r, str)]
        lines += [f"Note: {note}." for note in self.servers.notes()]
        for change in known:
            skipped = self.servers.discovery(language_of(change.path) or "").skipped
            if skipped and skipped not in self._skipped_said:
                self._skipped_said.add(skipped)
                lines.append(f"Note: {skipped}.")
        return late + lines

    async def _server_group(
        self, connection: ServerConnection, changes: list[ChangedFile], deadline: float
    ) -> list[Outcome | str | None]:
        """The outcomes for ``changes`` from one server, or notes that they are pending."""
        work = asyncio.create_task(self._with_server(connection, changes))
        done = await _bounded(asyncio.shield(work), deadline)
        if done is not None:
            return [done[change.path] for change in changes]
        self.servers.timed_out(connection)
        for change in changes:
            self._pending[change.path] = _Pending(change, work)
        return [
            f"Diagnostics for {change.label} did not arrive within {self.settings.timeout:g} s "
            f"({connection.name} is still checking); they will be reported with the next result."
            for change in changes
        ]

    async def _with_server(
        self, connection: ServerConnection, changes: list[ChangedFile]
    ) -> dict[Path, Outcome | str]:
        """The files' diagnostics before and after, however long the server takes (up to
        ``LATE_LIMIT``: the edit's result waits only until its own deadline). Every file is
        first given its old text and checked, then its new: a file's problems before the edit
        are judged with the other files as they were too (a renamed function's callers). A
        moved file's text before is checked where it was, then closed there: its problems are
        reported under its new path, and the server keeps no copy at the old one."""
        baselines: dict[Path, list[Diagnostic]] = {}
        found: dict[Path, Outcome | str] = {}
        try:
            async with asyncio.timeout(self.LATE_LIMIT), connection.checking:
                for change in changes:
                    if change.before is not None:
                        connection.sync(change.before_path, change.before, _language(change))
                for change in changes:
                    if change.before is not None:
                        published = await connection.diagnostics(change.before_path)
                        baselines[change.path] = from_lsp(published, change.before, connection.name)
                for change in changes:
                    if change.moved_from is not None:
                        connection.close(change.moved_from)
                for change in changes:
                    connection.sync(change.path, change.after, _language(change))
                for change in changes:
                    published = await connection.diagnostics(change.path)
                    after = from_lsp(published, change.after, connection.name)
                    found[change.path] = compare(
                        baselines.get(change.path),
                        after,
                        change.before,
                        change.after,
                        label=change.label,
                        source=connection.name,
                    )
        except ServerGone:
            note = f"Note: {connection.name} exited while checking " + "{}."
            return {c.path: found.get(c.path) or note.format(c.label) for c in changes}
        except TimeoutError:
            self.servers.timed_out(connection)
            note = f"Note: {connection.name} gave no diagnostics for " + "{}."
            return {c.path: found.get(c.path) or note.format(c.label) for c in changes}
        self.servers.answered(connection)
        return found

    def _late(self) -> list[str]:
        """What pending checks have finished since (each reported once)."""
        outcomes: list[Outcome] = []
        notes: list[str] = []
        for path, pending in list(self._pending.items()):
            if not pending.work.done():
                continue
            del self._pending[path]
            if pending.work.cancelled() or pending.work.exception() is not None:
                continue
            result = pending.work.result().get(path)
            if result is None:
                continue
            if isinstance(result, Outcome):
                outcomes.append(result)
            else:
                notes.append(result)
        if not outcomes and not notes:
            return []
        return ["Diagnostics that arrived late, for an earlier edit:", *render(outcomes), *notes]

    async def _with_checker(
        self, change: ChangedFile, language: str, deadline: float
    ) -> Outcome | str | None:
        found = checker_for(language)
        if found is None:
            return None
        checker, binary = found

        async def check(path: Path, text: str) -> list[Diagnostic]:
            return await run_checker(
                checker, binary, path, text, root=self._root, sandbox=self._sandbox
            )

        before = (
            check(change.before_path, change.before) if change.before is not None else _nothing()
        )
        results = await _bounded(asyncio.gather(before, check(change.path, change.after)), deadline)
        if results is None:
            return (
                f"Diagnostics for {change.label} did not arrive within "
                f"{self.settings.timeout:g} s ({checker.name} was still checking)."
            )
        old, new = results
        return compare(
            old if change.before is not None else None,
            new,
            change.before,
            change.after,
            label=change.label,
            source=checker.name,
        )

    async def aclose(self) -> None:
        for pending in self._pending.values():
            pending.work.cancel()
        self._pending.clear()
        await self.servers.aclose()


async def _nothing() -> list[Diagnostic]:
    return []


async def _bounded(work: Awaitable[T], deadline: float) -> T | None:
    """``work``'s result, or None once ``deadline`` has passed (``work`` is then cancelled)."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        if asyncio.iscoroutine(work):
            work.close()
        elif isinstance(work, asyncio.Future):
            work.cancel()
        return None
    try:
        async with asyncio.timeout(remaining):
            return await work
    except TimeoutError:
        return None


def from_lsp(published: Published, text: str, source: str) -> list[Diagnostic]:
    """``published``'s diagnostics in toolbelt's terms: 1-based lines, columns in characters
    (LSP counts UTF-16 units)."""
    lines = text.splitlines()
    found = []
    for item in published.diagnostics:
        start = item.range.start
        line_text = lines[start.line] if 0 <= start.line < len(lines) else ""
        found.append(
            Diagnostic(
                start.line + 1,
                utf16_to_column(line_text, start.character) + 1,
                int(item.severity or lsp.DiagnosticSeverity.Error),
                "" if item.code is None else str(item.code),
                item.message,
                item.source or source,
            )
        )
    return found
