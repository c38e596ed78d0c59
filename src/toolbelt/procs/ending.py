"""Find and end every process a command started — including the ones that ran away.

A process group is not enough: ``setsid``, ``nohup … &`` plus a double fork, or a daemon that
ignores SIGTERM all escape a group kill. Every tree toolbelt starts has an anchor at its root,
a child subreaper (``subreaper``) that orphans are re-parented to, so every process of the
tree stays a descendant of it by parent pid (``descendants``), whatever it does to its
session, group or environment. Every command is also marked with an environment variable
``TOOLBELT_RUN_ID=<id>`` that its descendants inherit unless they clear it (a second net, and
what the watchdog finds the anchors by). ``sweep`` finds them all in /proc and ends them:
SIGTERM, a grace period, then what is left is frozen and killed (``end_trees``). A process is
only ever signalled while it is checked to be the one found (``identity``): a pid toolbelt
recorded may belong to a user's process by now.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Collection, Iterable, Mapping

from toolbelt.procs.identity import Anchor, signal_if_same, start_time

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
    a sweep reads a handful of /proc entries, not all of them. ``group`` and ``root`` must be
    those of a live anchor (``sweep`` checks through its pidfd).
    """
    table = _table(newer_than)
    return list(_marked(table, run_id, group=group, spare=spare, root=root))


def _marked(
    table: Mapping[int, _Stat],
    run_id: str,
    *,
    group: int | None = None,
    spare: Collection[int] = (),
    root: int | None = None,
) -> dict[int, int]:
    """``marked_processes`` over ``table``: pid -> start time."""
    needle = f"{RUN_ID_VAR}={run_id}\0".encode() if run_id else None
    found: dict[int, int] = {}
    unmarked = []
    skip = {os.getpid(), *spare} if root is None else {os.getpid(), root, *spare}
    for pid, (state, pgid, _, start) in table.items():
        if state == b"Z" or pid in skip:
            continue
        if (group is not None and pgid == group) or (
            needle is not None and needle in _environ(pid)
        ):
            found[pid] = start
        else:
            unmarked.append(pid)
    if root is not None:
        parents = {pid: stat[2] for pid, stat in table.items()}
        anchors = {root, *spare}
        found.update({pid: table[pid][3] for pid in unmarked if _descends(pid, parents, anchors)})
    return found


def descendants(root: int) -> dict[int, int]:
    """Live (non-zombie) processes below ``root`` by parent pid (pid -> start time), ``root``
    itself excepted."""
    table = _table()
    parents = {pid: stat[2] for pid, stat in table.items()}
    return {
        pid: stat[3]
        for pid, stat in table.items()
        if stat[0] != b"Z" and pid != root and _descends(pid, parents, {root})
    }


def _descends(pid: int, parents: Mapping[int, int], anchors: Collection[int]) -> bool:
    """Whether following parent pids from ``pid`` (through ``parents``) meets an anchor."""
    for _ in range(len(parents) + 1):  # a chain never loops; the bound only guards a misread
        parent = parents.get(pid)
        if parent is None:
            return False
        if parent not in parents and parent not in anchors:  # gone while /proc was read:
            parent = _parent(pid) or parent  # its orphans went to the nearest subreaper
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


def end_trees(
    seeds: Iterable[int] | Mapping[int, int | None],
    *,
    under: int | None = None,
    rounds: int = 200,
) -> None:
    """SIGKILL ``seeds`` (pids just found, or pid -> start time recorded when they were),
    everything below them and (with ``under``, a subreaper: the calling anchor) everything
    below ``under``, none of which may escape meanwhile.

    Blocking; for the watchdog, the interpreter's exit and the anchor's leftovers. See
    ``_freeze_then_kill``.
    """
    known = seeds if isinstance(seeds, Mapping) else {pid: start_time(pid) for pid in seeds}
    found = {pid: start for pid, start in known.items() if start is not None}
    if under is None:
        _freeze_then_kill(lambda table: {}, found, rounds=rounds)
        return
    root = under

    def below(table: Mapping[int, _Stat]) -> dict[int, int]:
        parents = {pid: stat[2] for pid, stat in table.items()}
        return {
            pid: stat[3]
            for pid, stat in table.items()
            if pid != root and _descends(pid, parents, {root})
        }

    _freeze_then_kill(below, found, root=root, rounds=rounds)


def _freeze_then_kill(
    scan: Callable[[Mapping[int, _Stat]], Mapping[int, int]],
    seeds: Mapping[int, int],
    *,
    root: Callable[[], int | None] | int | None = None,
    spare: Collection[int] = (),
    rounds: int = 200,
) -> None:
    """SIGKILL what ``scan`` finds, the ``seeds`` and all below them, so that none escapes.

    Killing an anchor first would hand its orphans to init, and killing a child first lets its
    parent fork again (a process that forks and lets its parent exit, over and over, outruns
    any scan-then-kill): so the whole set is stopped (SIGSTOP: a stopped process neither forks
    nor exits) until a rescan adds nothing, and only then killed. Every process is known by
    pid and start time, and signalled only while both still match (``signal_if_same``).

    A full /proc scan takes milliseconds: a hopper is gone by the time its stat is read, and
    its child, a pid newer than the listing, is not in it. So each round also chases the pids
    handed out since the scan began (``_chase``): a child of the subreaper ``root`` (an anchor,
    or a callable giving it while it lives; ``spare`` excepted) or of a stopped process is
    stopped; and the set is only taken as complete after two rounds found nothing new.
    """
    stopped: dict[int, int] = {}
    settled = 0
    for _ in range(rounds):
        anchor = root() if callable(root) else root
        since = last_pid()
        table = _table()
        live = {pid: stat[3] for pid, stat in table.items() if stat[0] != b"Z"}
        same = {pid for pid, start in {**seeds, **stopped}.items() if live.get(pid) == start}
        parents = {pid: stat[2] for pid, stat in table.items()}
        found = dict(scan(table))
        found.update({pid: live[pid] for pid in same})
        found.update({pid: start for pid, start in live.items() if _descends(pid, parents, same)})
        found.pop(os.getpid(), None)
        new = {pid: start for pid, start in found.items() if stopped.get(pid) != start}
        for pid, start in new.items():
            if signal_if_same(pid, start, signal.SIGSTOP):
                stopped[pid] = start
        if anchor is not None:
            chased = len(stopped)
            _chase(anchor, spare, stopped, since)
            if len(stopped) != chased:
                new[0] = 0  # something new was stopped: not settled
        settled = 0 if new else settled + 1
        if settled < 2:
            time.sleep(0.001)
            continue
        if not found and not stopped:
            return
        for pid, start in {**found, **stopped}.items():  # stopped, closed under children
            signal_if_same(pid, start, signal.SIGKILL)
        stopped, seeds, settled = {}, {}, 0  # next: what was not killed (another user's)


def _chase(root: int, spare: Collection[int], stopped: dict[int, int], since: int) -> None:
    """SIGSTOP every process created after pid ``since`` whose parent is ``root``, ``spare``
    or a stopped process, pid by pid in the order the kernel hands them out, until the pid
    counter stops moving (or a bound): a process that forks and exits over and over takes one
    new pid per hop, and reading one pid is quicker than a fork."""
    parents = {root, *spare}
    skip = {os.getpid(), *spare}
    last = since
    for _ in range(1000):  # bounded: the machine's other processes move the counter too
        current = last_pid()
        if current == last or current < 0 or last < 0:
            return
        fresh = range(last + 1, current + 1) if current > last else range(1, current + 1)
        for pid in fresh:
            parent = _parent(pid)
            if parent is None or pid in skip or pid in stopped:
                continue
            if parent in parents or parent in stopped:
                start = start_time(pid)
                if start is not None and signal_if_same(pid, start, signal.SIGSTOP):
                    stopped[pid] = start
        last = current


def _parent(pid: int) -> int | None:
    """The parent pid of live (non-zombie) ``pid``, read now; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return None if fields[0] == b"Z" else int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


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


_Stat = tuple[bytes, int, int, int]
"""(state letter, process group, parent pid, start time) of a process."""


def _table(newer_than: int = 0) -> dict[int, _Stat]:
    """Every process above pid ``newer_than`` (zombies included), read from /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) > newer_than:
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
                table[int(entry)] = (fields[0], int(fields[2]), int(fields[1]), int(fields[19]))
            except (OSError, IndexError, ValueError):
                continue
    return table


def sweep(
    run_id: str,
    *,
    grace: float = 2.0,
    anchor: Anchor | None = None,
    newer_than: int = 0,
    spare: Collection[int] = (),
) -> int:
    """End every process marked with ``run_id`` and, while ``anchor`` lives, every member of
    its process group and every descendant of it (``spare`` excepted: the shell it runs).

    SIGTERM, up to ``grace`` seconds, then what is left is frozen and killed
    (``_freeze_then_kill``). The anchor itself is never signalled: it must outlive its
    descendants, or the orphans among them would go to init before they are killed; it ends
    by itself once what it runs has ended. Once the anchor has been reaped its pid and group
    may be another process's: only the run id's marked processes are ended then. Blocking:
    call it from a worker thread. Returns how many processes were found.
    """

    def live_anchor() -> int | None:
        return anchor.pid if anchor is not None and anchor.alive() else None

    def scan(table: Mapping[int, _Stat]) -> dict[int, int]:
        if anchor is not None and anchor.alive():
            found = _marked(table, run_id, group=anchor.pid, spare=spare, root=anchor.pid)
            if anchor.alive():  # still alive after the read: the group and tree were its own
                return found
        return _marked(table, run_id)

    victims = scan(_table(newer_than))
    if not victims and live_anchor() is None:  # with a live anchor, an empty scan is no
        return 0  # proof: a process that keeps forking may be between two pids (see below)
    for pid, start in victims.items():
        signal_if_same(pid, start, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and scan(_table(newer_than)):
        time.sleep(0.01)  # an empty scan is no proof: a hopper may be between two pids
    _freeze_then_kill(scan, {}, root=live_anchor, spare=spare)
    return len(victims)


def last_pid() -> int:
    """The most recently allocated PID (``/proc/loadavg``): if it did not move while a command
    ran, the command started no process and there is nothing to sweep."""
    try:
        with open("/proc/loadavg", "rb") as handle:
            return int(handle.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return -1
