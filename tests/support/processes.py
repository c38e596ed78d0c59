"""Which processes are alive, by their command line: how tests prove nothing was left behind.

A test that stops a run, a server or a hook must show that every process it started is gone,
including ones that left its process group (``setsid``, ``nohup``). Each test's commands carry
a unique tag (often this test run's pid) so the search finds only them; a zombie has ended
and is not counted.
"""

from __future__ import annotations

import os
import select

__all__ = ["alive", "ended", "live_pids"]


def live_pids(pattern: str) -> list[int]:
    """Pids of the live (not zombie) processes whose command line contains ``pattern``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat", "rb") as handle:
                zombie = handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
        except (OSError, IndexError):  # it ended while we looked
            continue
        if pattern in cmdline and not zombie:
            found.append(int(entry))
    return found


def alive(pattern: str) -> bool:
    """Whether a live process's command line contains ``pattern``."""
    return bool(live_pids(pattern))


def ended(pid: int, *, within: float = 10.0) -> bool:
    """Whether ``pid`` has exited, waiting on a pidfd up to ``within`` seconds (a zombie has
    exited: only its parent has not collected it yet)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], within)[0])
    finally:
        os.close(fd)
