"""A program on a pseudo-terminal, its screen read the way a person reads it.

``Terminal(argv, env=…)`` starts the program on a 120×40 pseudo-terminal (pexpect) and feeds
everything it writes into a terminal emulator (pyte), so a test asserts on what the screen
*shows* — the rows, and the row the cursor waits on, where what the person types goes — not
on the bytes written (a ``\\r`` or an escape sequence in them can make the screen show
something else). ``wait_for(predicate, what)`` reads until ``predicate(screen)`` holds or
fails after a generous deadline with the screen in the message; ``type(keys)`` types.

A person answers only what the screen asks: ``answer_line`` is the row the cursor waits on
when it ends with ``>`` (every prompt of toolbelt's ends its answer line so).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType

import pexpect
import pyte

__all__ = ["Screen", "Terminal"]

COLUMNS, ROWS = 120, 40
TIMEOUT = 30.0


class Screen:
    """What the terminal shows now."""

    def __init__(self, emulator: pyte.HistoryScreen) -> None:
        self._emulator = emulator

    @property
    def history(self) -> list[str]:
        """Every row that scrolled off the top, oldest first."""
        width = self._emulator.columns
        return [
            "".join(row[x].data for x in range(width)).rstrip()
            for row in self._emulator.history.top
        ]

    @property
    def rows(self) -> list[str]:
        """The visible rows, trailing spaces removed."""
        return [row.rstrip() for row in self._emulator.display]

    @property
    def text(self) -> str:
        """Everything shown since the start (scrolled-off rows, then the visible ones)."""
        return "\n".join([*self.history, *self.rows]).strip("\n")

    @property
    def cursor_row(self) -> str:
        """The row the cursor is on: where typed keys appear."""
        return self.rows[self._emulator.cursor.y]

    @property
    def answer_line(self) -> str | None:
        """The row the cursor waits on when it is a prompt's answer line (ends with ``>``),
        with what was typed after it; else None."""
        row = self.cursor_row
        before_cursor = row[: self._emulator.cursor.x].rstrip()
        return row if before_cursor.endswith(">") else None

    def above_cursor(self, count: int) -> list[str]:
        """The ``count`` non-empty rows just above the cursor's, nearest last."""
        rows = [*self.history, *self.rows[: self._emulator.cursor.y]]
        return [row for row in rows if row.strip()][-count:]


class Terminal:
    """``argv`` on a pseudo-terminal; a context manager that kills it on exit."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        full = {**os.environ, **(env or {})}
        full |= {"TERM": "xterm-256color", "COLUMNS": str(COLUMNS), "LINES": str(ROWS)}
        self._emulator = pyte.HistoryScreen(COLUMNS, ROWS, history=100_000)
        self._stream = pyte.ByteStream(self._emulator)
        self.raw = b""
        """Every byte the program wrote."""
        self.child = pexpect.spawn(
            argv[0], list(argv[1:]), env=full, cwd=cwd, timeout=TIMEOUT, dimensions=(ROWS, COLUMNS)
        )
        self.ended = False

    @classmethod
    def toolbelt(
        cls, *args: str, env: Mapping[str, str] | None = None, cwd: str | None = None
    ) -> Terminal:
        """The ``toolbelt`` command (``python -m toolbelt.cli.main ARGS``)."""
        return cls([sys.executable, "-m", "toolbelt.cli.main", *args], env=env, cwd=cwd)

    @property
    def screen(self) -> Screen:
        return Screen(self._emulator)

    def _feed(self, data: bytes) -> None:
        self.raw += data
        self._stream.feed(data)

    def read_some(self, timeout: float) -> bool:
        """Read what arrives within ``timeout`` seconds; False once the program has ended."""
        if self.ended:
            return False
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            self.ended = True
            return False
        self._feed(data)
        return True

    def wait_for(
        self, predicate: Callable[[Screen], object], what: str, *, timeout: float = TIMEOUT
    ) -> Screen:
        """Read until ``predicate(screen)`` holds; fail naming ``what`` and showing the
        screen when it does not within ``timeout`` seconds or the program ends first."""
        deadline = time.monotonic() + timeout
        while not predicate(self.screen):
            left = deadline - time.monotonic()
            if left <= 0 or (not self.read_some(min(left, 0.2)) and not predicate(self.screen)):
                state = "ended" if self.ended else f"waited {timeout:g} s"
                raise AssertionError(f"{state} for {what}; the screen shows:\n{self.screen.text}")
        return self.screen

    def wait_for_answer_line(self, what: str, *, timeout: float = TIMEOUT) -> str:
        """Wait until the cursor waits on a prompt's answer line; that line."""
        screen = self.wait_for(lambda s: s.answer_line is not None, what, timeout=timeout)
        assert screen.answer_line is not None
        return screen.answer_line

    def type(self, keys: str) -> None:
        """Type ``keys`` (``\\r`` is Enter)."""
        self.child.send(keys)

    def wait_to_end(self, *, timeout: float = 60.0) -> int | None:
        """Read to the end of the program; its exit status."""
        deadline = time.monotonic() + timeout
        while self.read_some(0.2):
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"the program did not end; the screen shows:\n{self.screen.text}"
                )
        self.child.close()
        return self.child.exitstatus

    def __enter__(self) -> Terminal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
        self.child.close(force=True)
