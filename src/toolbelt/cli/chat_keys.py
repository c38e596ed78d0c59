"""Esc and Ctrl-C cancel the running turn of ``toolbelt chat``, and only the turn.

While a turn runs the terminal is in cbreak mode (keys arrive one by one, nothing echoes) and
the event loop watches standard input: a lone Esc (not the start of an arrow key's sequence)
cancels the turn; other keys are dropped — nothing typed while the model works can answer a
prompt that appears later (``terminal_owner`` discards typed-ahead input too). Ctrl-C sends
SIGINT, which during a turn cancels it instead of ending the program. When a prompt needs the
terminal, the watcher steps aside: the terminal goes back to line mode with echo, and comes
back to cbreak after the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import termios
import tty
from collections.abc import Callable
from typing import Any

from toolbelt.cli.terminal_owner import TerminalOwner

__all__ = ["TurnKeys"]


class TurnKeys:
    """Watches the keyboard during one turn; ``cancel`` is called on Esc or Ctrl-C."""

    def __init__(self, fd: int, owner: TerminalOwner, cancel: Callable[[], None]) -> None:
        self.fd = fd
        self.owner = owner
        self.cancel = cancel
        self._saved: list[Any] | None = None
        self._watching = False

    def __enter__(self) -> TurnKeys:
        self._saved = termios.tcgetattr(self.fd)
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, self.cancel)
        self._start()
        self.owner.on_interaction(self._stop, self._start)
        self.owner.escape_cancels(self.cancel)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.owner.off_interaction(self._stop)
        self.owner.escape_cancels(None)
        self._stop()
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)
        termios.tcflush(self.fd, termios.TCIFLUSH)  # keys typed during the turn are dropped

    def _start(self) -> None:
        if self._watching:
            return
        tty.setcbreak(self.fd, termios.TCSANOW)
        asyncio.get_running_loop().add_reader(self.fd, self._key)
        self._watching = True

    def _stop(self) -> None:
        if not self._watching:
            return
        asyncio.get_running_loop().remove_reader(self.fd)
        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSANOW, self._saved)
        self._watching = False

    def _key(self) -> None:
        try:
            data = os.read(self.fd, 64)
        except OSError:
            return
        if data.endswith(b"\x1b") or data == b"\x1b\x1b":  # a lone Esc, not ESC [ A
            self.cancel()
