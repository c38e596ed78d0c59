"""Find and end every process a command started — including the ones that ran away.

A process group is not enough: ``setsid``, ``nohup … &`` plus a double fork, or a daemon that
ignores SIGTERM all escape a group kill. Every command toolbelt runs is marked with an
environment variable ``TOOLBELT_RUN_ID=<id>`` that every descendant inherits (a new session
or a new parent does not change a process's environment), so ``sweep`` finds them all in
/proc and ends them: SIGTERM, a grace period, then SIGKILL, repeated until none is left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable

__all__ = ["RUN_ID_VAR", "last_pid", "marked_processes", "processes_marked_with", "sweep"]

RUN_ID_VAR = "TOOLBELT_RUN_ID"


def marked_processes(
    run_id: str, *, newer_than: int = 0, group: int | None = None, spare: int = 0
) -> list[int]:
    """PIDs of live processes whose environment carries ``run_id`` — or, with ``group``, that
    are still in that process group (``spare`` excepted: the shell that leads it).

    The group catches what the environment cannot yet show: a child the shell has forked but
    not yet exec'd still has the environment the shell itself started with. ``newer_than``
    skips PIDs allocated before the command started (PIDs grow until they wrap; pass 0 after a
    wrap), so a sweep reads a handful of /proc entries, not all of them.
    """
    needle = f"{RUN_ID_VAR}={run_id}\0".encode()
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        if pid <= newer_than or pid in (me, spare):
            continue
        state = _state(pid)
        if state is None or state[0] == b"Z":
            continue
        if group is not None and state[1] == group:
            found.append(pid)
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if needle in environ:
            found.append(pid)
    return found


def processes_marked_with(prefix: str) -> list[tuple[int, int, int]]:
    """(pid, process group, session) of every live process whose run id starts with
    ``prefix`` (every run id of one toolbelt process does: see ``watchdog``)."""
    needle = f"\0{RUN_ID_VAR}={prefix}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = b"\0" + handle.read()
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if needle in environ and fields[0] != b"Z":
            found.append((int(entry), int(fields[2]), int(fields[3])))
    return found


def _state(pid: int) -> tuple[bytes, int] | None:
    """(state letter, process group) of ``pid``, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return fields[0], int(fields[2])
    except (OSError, IndexError, ValueError):
        return None


def _signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            continue


def sweep(
    run_id: str,
    *,
    grace: float = 2.0,
    extra: Iterable[int] = (),
    newer_than: int = 0,
    group: int | None = None,
    spare: int = 0,
) -> int:
    """End every process marked with ``run_id`` (and the ``extra`` process groups; with
    ``group``, every other member of that group too — see ``marked_processes``).

    Blocking (it waits up to ``grace`` seconds): call it from a worker thread. Returns how
    many processes were found, the ``extra`` groups' members included.
    """
    groups = tuple(extra)
    # counted before the group kill: a group member that dies of it is ended all the same
    ended = {
        pid
        for member_of in groups
        for pid in marked_processes(run_id, newer_than=newer_than, group=member_of, spare=spare)
    }
    for each in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(each, signal.SIGTERM)
    victims = marked_processes(run_id, newer_than=newer_than, group=group, spare=spare)
    ended.update(victims)
    if not victims and not groups:
        return 0
    _signal_all(victims, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        left = marked_processes(run_id, group=group, spare=spare)
        if not left and not any(_group_alive(g) for g in groups):
            return len(ended)
        time.sleep(0.01)
    for _ in range(50):
        remaining = marked_processes(run_id, group=group, spare=spare)
        for each in groups:  # not `group`: that is the parameter the scans above use
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(each, signal.SIGKILL)
        if not remaining:
            break
        _signal_all(remaining, signal.SIGKILL)
        time.sleep(0.01)
    return len(ended)


def _group_alive(group: int) -> bool:
    """True while a live (non-zombie) process is in ``group``."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and int(fields[2]) == group and fields[0] != b"Z":
            return True
    return False


def last_pid() -> int:
    """The most recently allocated PID (``/proc/loadavg``): if it did not move while a command
    ran, the command started no process and there is nothing to sweep."""
    try:
        with open("/proc/loadavg", "rb") as handle:
            return int(handle.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return -1
