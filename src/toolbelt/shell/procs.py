"""Find and end every process a command started — including the ones that ran away.

A process group is not enough: ``setsid``, ``nohup … &`` plus a double fork, or a daemon that
ignores SIGTERM all escape a group kill. Every tree toolbelt starts has an anchor at its root,
a child subreaper (``subreaper``) that orphans are re-parented to, so every process of the
tree stays a descendant of it by parent pid (``descendants``), whatever it does to its
session, group or environment. Every command is also marked with an environment variable
``TOOLBELT_RUN_ID=<id>`` that its descendants inherit unless they clear it (a second net, and
what the watchdog finds the anchors by). ``sweep`` finds them all in /proc and ends them:
SIGTERM, a grace period, then SIGKILL, repeated until none is left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Collection, Iterable

__all__ = [
    "RUN_ID_VAR",
    "descendants",
    "end_trees",
    "last_pid",
    "marked_processes",
    "processes_marked_with",
    "sweep",
]

RUN_ID_VAR = "TOOLBELT_RUN_ID"


def marked_processes(
    run_id: str,
    *,
    newer_than: int = 0,
    group: int | None = None,
    spare: Collection[int] = (),
    root: int | None = None,
) -> list[int]:
    """PIDs of live processes whose environment carries ``run_id`` — or, with ``group``, that
    are still in that process group, or, with ``root`` (an anchor), that descend from it
    (``root`` and ``spare`` excepted: the anchor and the shell it runs).

    The group catches what the environment cannot yet show: a child the shell has forked but
    not yet exec'd still has the environment the shell itself started with. The descent
    catches what cleared its environment and left the group. ``newer_than`` skips PIDs
    allocated before the command started (PIDs grow until they wrap; pass 0 after a wrap), so
    a sweep reads a handful of /proc entries, not all of them.
    """
    needle = f"{RUN_ID_VAR}={run_id}\0".encode() if run_id else None
    found = []
    parents: dict[int, int] = {}
    unmarked = []
    skip = {os.getpid(), *spare} if root is None else {os.getpid(), root, *spare}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        if pid <= newer_than:
            continue
        state = _state(pid)
        if state is None:
            continue
        parents[pid] = state[2]
        if state[0] == b"Z" or pid in skip:
            continue
        in_group = group is not None and state[1] == group
        if in_group or (needle is not None and needle in _environ(pid)):
            found.append(pid)
        else:
            unmarked.append(pid)
    if root is not None:
        anchors = {root, *spare}
        found += [pid for pid in unmarked if _descends(pid, parents, anchors)]
    return found


def descendants(root: int) -> list[int]:
    """Live (non-zombie) processes below ``root`` by parent pid, ``root`` itself excepted."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            state = _state(int(entry))
            if state is not None and state[0] != b"Z":
                parents[int(entry)] = state[2]
    return [pid for pid in parents if pid != root and _descends(pid, parents, {root})]


def _descends(pid: int, parents: dict[int, int], anchors: Collection[int]) -> bool:
    """Whether following parent pids from ``pid`` (through ``parents``) meets an anchor."""
    for _ in range(len(parents) + 1):  # a chain never loops; the bound only guards a misread
        parent = parents.get(pid)
        if parent is None:
            return False
        if parent in anchors:
            return True
        pid = parent
    return False


def _environ(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def end_trees(seeds: Iterable[int], *, rounds: int = 200) -> None:
    """SIGKILL ``seeds`` and everything below them, none of which may escape meanwhile.

    Killing an anchor first would hand its orphans to init, and killing a child first lets its
    parent fork again: so the whole set — the seeds and every descendant — is stopped
    (SIGSTOP: a stopped process neither forks nor exits) until a rescan adds nothing, and
    only then killed. Blocking; for the watchdog and the interpreter's exit.
    """
    wanted = set(seeds)
    for _ in range(rounds):
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                state = _state(int(entry))
                if state is not None and state[0] != b"Z":
                    parents[int(entry)] = state[2]
        tree = {pid for pid in parents if pid in wanted or _descends(pid, parents, wanted)}
        tree.discard(os.getpid())
        if not tree:
            return
        if tree <= wanted:  # stopped last round and closed under children: end them all
            _signal_all(tree, signal.SIGKILL)
            wanted = set()  # the next round sees what was not killed (another user's)
            continue
        _signal_all(tree, signal.SIGSTOP)
        wanted |= tree
        time.sleep(0.001)


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


def _state(pid: int) -> tuple[bytes, int, int] | None:
    """(state letter, process group, parent pid) of ``pid``, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return fields[0], int(fields[2]), int(fields[1])
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
    spare: Collection[int] = (),
    root: int | None = None,
) -> int:
    """End every process marked with ``run_id`` (and the ``extra`` process groups; with
    ``group``, every other member of that group too; with ``root``, every descendant of that
    anchor — see ``marked_processes``).

    The anchor itself is never signalled but SIGTERM, which it ignores: it must outlive its
    descendants, or the orphans among them would go to init before they are killed. It ends
    by itself once what it runs has ended. Blocking (it waits up to ``grace`` seconds): call
    it from a worker thread. Returns how many processes were found, the ``extra`` groups'
    members included.
    """
    groups = tuple(extra)

    def scan(of_group: int | None, floor: int = 0) -> list[int]:
        return marked_processes(run_id, newer_than=floor, group=of_group, spare=spare, root=root)

    # counted before the group kill: a group member that dies of it is ended all the same
    ended = {pid for member_of in groups for pid in scan(member_of, newer_than)}
    for each in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(each, signal.SIGTERM)
    victims = scan(group, newer_than)
    ended.update(victims)
    if not victims and not groups:
        return 0
    _signal_all(victims, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        left = scan(group)
        if not left and not any(_group_alive(g, spare=root) for g in groups):
            return len(ended)
        time.sleep(0.01)
    for _ in range(50):
        remaining = scan(group)
        for each in groups:  # not `group`: that is the parameter the scans above use
            if each != root:  # the anchor's members are its descendants: killed one by one
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(each, signal.SIGKILL)
        if not remaining:
            break
        _signal_all(remaining, signal.SIGKILL)
        time.sleep(0.01)
    return len(ended)


def _group_alive(group: int, *, spare: int | None = None) -> bool:
    """True while a live (non-zombie) process other than ``spare`` is in ``group``."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == spare:
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
