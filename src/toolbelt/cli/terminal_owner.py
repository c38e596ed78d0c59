"""The one owner of the terminal: one interaction at a time, nothing read that was typed before
it was asked, nothing written over it while it waits.

A permission prompt, a tool's question (``ask_user``) and an MCP server's form all read the
answer from the same keyboard. Let two of them wait at once and the person's ``y`` meant for a
question can approve a prompt that scrolled off screen (issue #27, "the terminal has no
owner"). So every interaction in this process goes through ``terminal_owner()``:

- one lock: the next prompt is shown only once the previous one is answered or given up;
- before a prompt is shown, what the display is doing stops (``on_interaction``: the chat's
  live area and its Esc watcher step aside), and whatever else this process would write to
  the terminal meanwhile (a parallel subagent's finished calls, a server's progress) waits
  until the interaction ends (``show``): the line the person types on stays the prompt's;
- what was typed before an interaction starts, and after each of its answers, is discarded
  (``tcflush``) before the next prompt is written, so no key pressed before a question was
  visible can answer it, and none typed in reply to it is lost;
- the answer is read in a worker thread that polls a stop flag, and a prompt whose wait
  ends (timeout, cancellation) stops its reader before the lock is released: no abandoned
  thread is left to swallow the answer to the next question;
- where a lone Esc cancels the work in progress (``toolbelt chat``: ``escape_cancels``), the
  answer is read key by key so that Esc at a prompt cancels too, as it does everywhere else
  in a turn.

Each prompt restates what it approves on the line where the answer is typed (``prompt.py``,
``user_prompt.py``). ``toolbelt call``, ``toolbelt run`` and ``toolbelt chat`` all use it;
calls that may ask the person something run alone in the executor (``Tool.asks_user``).
The programs toolbelt starts cannot reach the terminal either: each runs in a session of
its own (no controlling terminal) with pipes for its standard streams, and the sandbox
hides the machine's terminals (``sandbox.profiles``).
"""

from __future__ import annotations

import codecs
import contextlib
import os
import select
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TextIO, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel

__all__ = ["ReadLine", "TerminalOwner", "terminal_owner"]

T = TypeVar("T")
ReadLine = Callable[[], str]
"""Reads one line of the answer ("" at the end of input)."""
_POLL = 0.05
_ERASE = {"\x7f", "\x08"}
_KILL_LINE = "\x15"
_END_OF_INPUT = "\x04"


class _Stopped(Exception):
    """The interaction was given up while its reader waited."""


class TerminalOwner:
    """Serialises the interactions of one process on its terminal."""

    def __init__(self, fd: int | None = None) -> None:
        self._fd = fd
        self._lock: anyio.Lock | None = None
        self._guards: list[tuple[Callable[[], None], Callable[[], None]]] = []
        self._held: list[Callable[[], None]] | None = None
        self._escape: Callable[[], None] | None = None

    @property
    def fd(self) -> int | None:
        """The descriptor answers are read from; None when standard input has none (a
        stream a test or an embedding program put in its place: read with its readline)."""
        if self._fd is not None:
            return self._fd
        try:
            return sys.stdin.fileno()
        except (OSError, ValueError, AttributeError):
            return None

    @property
    def interacting(self) -> bool:
        """Whether an interaction holds the terminal now."""
        return self._held is not None

    def on_interaction(self, pause: Callable[[], None], resume: Callable[[], None]) -> None:
        """Call ``pause`` before every interaction and ``resume`` after it (a live display)."""
        self._guards.append((pause, resume))

    def off_interaction(self, pause: Callable[[], None]) -> None:
        """Stop calling the guard registered with ``pause``."""
        self._guards = [g for g in self._guards if g[0] is not pause]

    def escape_cancels(self, cancel: Callable[[], None] | None) -> None:
        """While set, a lone Esc typed at a prompt calls ``cancel`` (in the event loop's
        thread) and ends the prompt unanswered; None: Esc is an ordinary key."""
        self._escape = cancel

    def show(self, write: Callable[[], None]) -> None:
        """Run ``write`` — something that writes to the terminal — now, or, while an
        interaction waits for its answer, as soon as it ends (in the order given)."""
        if self._held is None:
            write()
        else:
            self._held.append(write)

    async def interact(self, ask: Callable[[ReadLine], T]) -> T:
        """Run ``ask(read_line)`` in a worker thread as the terminal's only interaction.

        ``ask`` writes its prompt and reads the answer with ``read_line``; what was typed
        before it started, or after an answer read, is discarded. Cancelling stops the reader,
        then raises."""
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            guards = list(self._guards)
            for pause, _ in guards:
                pause()
            self._held = []
            try:
                self.discard_typed_ahead()
                return await self._in_thread(ask)
            finally:
                held, self._held = self._held, None
                for write in held:
                    write()
                for _, resume in reversed(guards):
                    resume()

    def discard_typed_ahead(self) -> None:
        """Drop whatever was typed and not yet read (a terminal only)."""
        with contextlib.suppress(OSError, ValueError, ImportError):
            import termios

            fd = self.fd
            if fd is not None and os.isatty(fd):
                termios.tcflush(fd, termios.TCIFLUSH)

    async def _in_thread(self, ask: Callable[[ReadLine], T]) -> T:
        stop = threading.Event()
        done = anyio.Event()
        outcome: list[T] = []
        failure: list[BaseException] = []
        token = anyio.lowlevel.current_token()
        fd = self.fd
        escape = self._escape if fd is not None and _is_terminal(fd) else None

        def on_escape() -> None:
            if escape is not None:
                with contextlib.suppress(RuntimeError):  # the loop is gone: nothing to cancel
                    anyio.from_thread.run_sync(escape, token=token)

        def read_line() -> str:
            if fd is None:
                return sys.stdin.readline()
            if escape is not None:
                line = _edit_line(fd, stop, sys.stderr, on_escape)
            else:
                line = _read_line(fd, stop)
            # typed after this answer, before the next line is asked: not an answer to it (a
            # flush once the next prompt is on screen would drop keys typed in reply to it)
            self.discard_typed_ahead()
            return line

        def work() -> None:
            try:
                outcome.append(ask(read_line))
            except BaseException as exc:
                failure.append(exc)
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
                anyio.from_thread.run_sync(done.set, token=token)

        threading.Thread(target=work, name="toolbelt-terminal", daemon=True).start()
        try:
            await done.wait()
        finally:
            if not done.is_set():  # given up: stop the reader before anyone else may read
                stop.set()
                with anyio.CancelScope(shield=True), anyio.move_on_after(1):
                    await done.wait()
        if failure and not isinstance(failure[0], _Stopped):
            raise failure[0]
        if not outcome:
            raise anyio.get_cancelled_exc_class()()
        return outcome[0]


def _is_terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _reads(fd: int, stop: threading.Event, size: int) -> Iterator[bytes | None]:
    """Each read of ``fd`` as it becomes readable (b"" at its end), ``stop`` polled between
    waits; None once ``fd`` cannot be watched. Ends when ``stop`` is set."""
    while not stop.is_set():
        try:
            ready, _, _ = select.select([fd], [], [], _POLL)
        except (OSError, ValueError):
            yield None
            return
        if ready:
            yield os.read(fd, size)


def _read_line(fd: int, stop: threading.Event) -> str:
    """One line from ``fd`` (a terminal in its usual line mode hands over a line per read),
    polling ``stop``; "" at the end of input."""
    pending = b""
    for chunk in _reads(fd, stop, 4096):
        if chunk is None:
            return ""
        if not chunk:
            return pending.decode(errors="replace")
        pending += chunk
        if b"\n" in pending:
            return pending.decode(errors="replace")
    raise _Stopped


def _edit_line(fd: int, stop: threading.Event, out: TextIO, on_escape: Callable[[], None]) -> str:
    """One line from the terminal ``fd`` read key by key, echoed and edited here (Backspace,
    Ctrl-U; Ctrl-D on an empty line ends input), so that a lone Esc can be told from a line:
    it calls ``on_escape`` and the prompt ends unanswered. Arrow and function keys (escape
    sequences) are ignored; Ctrl-C still raises SIGINT. "" at the end of input."""
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd, termios.TCSANOW)
    typed: list[str] = []
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    try:
        for chunk in _reads(fd, stop, 256):
            if not chunk:  # None (unwatchable) or b"" (end of input)
                return ""
            if chunk in (b"\x1b", b"\x1b\x1b"):  # a lone Esc, not the start of ESC [ A
                out.write("\n")
                out.flush()
                on_escape()
                return ""
            if chunk.startswith(b"\x1b"):
                continue
            for char in decoder.decode(chunk):
                if char in "\r\n":
                    out.write("\n")
                    out.flush()
                    return "".join(typed) + "\n"
                if char in _ERASE and typed:
                    typed.pop()
                    out.write("\b \b")
                elif char == _KILL_LINE:
                    out.write("\b \b" * len(typed))
                    typed.clear()
                elif char == _END_OF_INPUT and not typed:
                    out.write("\n")
                    return ""
                elif char.isprintable():
                    typed.append(char)
                    out.write(char)
            out.flush()
        raise _Stopped
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


_OWNER = TerminalOwner()


def terminal_owner() -> TerminalOwner:
    """This process's terminal owner (one per process: there is one keyboard)."""
    return _OWNER
