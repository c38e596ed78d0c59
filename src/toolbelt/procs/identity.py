"""Signals that reach the process they were meant for, never one that got its pid later.

A pid is free again once its process has been reaped, and the next process created may get it
(pid_max is often 32768: a build wraps it). A job that ended by itself, reaped by a ``poll``,
left its pid in toolbelt's books; signalling that pid, or the process group of that number,
at session end hit whatever the user had started since. So nothing is signalled by a bare
number:

- a process toolbelt starts is held by a pidfd opened at spawn, while it is still an unreaped
  child (``Anchor``): the pidfd names that process and no other, and says when it is gone;
- a process found by scanning /proc is known by its pid and its start time (field 22 of
  ``/proc/PID/stat``) read when it was found; ``signal_if_same`` opens a pidfd on the pid,
  then checks the start time: the pidfd pins one process, the start time says it is the one
  found, and the signal goes through the pidfd.

A process group has no pidfd: ``ending.end_run`` signals a group's members one by one, each
found while the group's leader (the anchor) is still alive, which it checks through the
anchor's pidfd after the scan.

This module imports only the standard library: the anchor runs without ``site``.
"""

from __future__ import annotations

import contextlib
import os
import signal

__all__ = ["Anchor", "signal_if_same", "start_time"]


def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot), or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def signal_if_same(pid: int, start: int | None, sig: int) -> bool:
    """Send ``sig`` to ``pid`` only if it is still the process that started at ``start``;
    whether it was sent."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:  # gone
        return False
    try:
        if start is None or start_time(pid) != start:
            return False
        signal.pidfd_send_signal(fd, sig)
        return True
    except OSError:  # ended meanwhile, or not ours to signal
        return False
    finally:
        os.close(fd)


class Anchor:
    """A process toolbelt started, held by a pidfd from its spawn until ``close``.

    Open it right after starting the process, before anything may reap it (``Popen.poll``).
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._fd: int | None = None
        with contextlib.suppress(ProcessLookupError):  # already reaped (asyncio's watcher)
            self._fd = os.pidfd_open(pid)
        self._start: int | None = None
        self._start_read = self._fd is None

    @property
    def start(self) -> int | None:
        """When the process started (``start_time``), None when it is gone. Read when first
        asked, not at the spawn: /proc/PID/stat of a child still in its exec made the reader
        wait for the exec, ~2 ms of every rg search. A read followed by ``alive`` is the
        process's own: its pid cannot have gone to another process before it was reaped."""
        if not self._start_read:
            found = start_time(self.pid)
            self._start = found if self.alive() else None
            self._start_read = True
        return self._start

    def alive(self) -> bool:
        """True until the process has been reaped (a zombie still holds its pid and group)."""
        if self._fd is None:
            return False
        try:
            signal.pidfd_send_signal(self._fd, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # a setuid program: it exists all the same
            return True
        return True

    def fileno(self) -> int | None:
        """The pidfd (readable once the process has exited), None when there is none."""
        return self._fd

    def send(self, sig: int) -> bool:
        """Signal the process itself (never whatever holds its pid now); whether it was sent."""
        if self._fd is None:
            return False
        try:
            signal.pidfd_send_signal(self._fd, sig)
        except OSError:
            return False
        return True

    def close(self) -> None:
        """Release the pidfd (``alive`` is False from now on)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def __del__(self) -> None:
        self.close()
