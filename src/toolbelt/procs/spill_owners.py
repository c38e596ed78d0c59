"""Which process owns a session's spill directory, and removing those whose owner is gone.

A session deletes its spill directory when it ends (``output.remove_spill_dir``), but a
toolbelt killed with SIGKILL or by the OOM killer never gets there, and the directories of
such runs piled up by the thousand. So each directory records its owner in a ``.owner`` file —
the pid, the process's start time (which tells a reused pid from the original) and its PID
namespace (a directory of another namespace is never judged) — and is removed once that
process is gone: by the watchdog of the dead process (``watchdog``), as soon as it has ended
the process's commands, and by the first spill of every later process
(``remove_abandoned_spills``), a bounded number at a time, for anything missed.

Only this user's directories are considered, a symbolic link is never followed (nor removed:
only real directories are), and a directory whose owner still runs is never touched. A
directory without an owner file (written by an older toolbelt) is removed once nothing has
changed in it for ``LEGACY_AGE`` seconds.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time
from pathlib import Path

__all__ = [
    "LEGACY_AGE",
    "OWNER_FILE",
    "mark_owner",
    "process_start",
    "remove_abandoned_spills",
    "spill_base",
]

OWNER_FILE = ".owner"
LEGACY_AGE = 2 * 24 * 3600
"""Seconds untouched after which a directory with no owner file counts as abandoned."""
_EXAMINED = 512
"""Entries a sweep looks at at most (start-up stays cheap however many have piled up)."""
_REMOVED = 64
"""Directories a sweep removes at most; the next start-up goes on."""


def spill_base() -> Path:
    """Where the sessions' spill directories are: ``$XDG_RUNTIME_DIR`` (or /tmp), per user."""
    return Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp") / f"toolbelt-{os.getuid()}"


def process_start(pid: int) -> str | None:
    """The start time of ``pid`` (clock ticks after boot, /proc's field 22), None if it is
    not running."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    if fields[0] == b"Z":  # a zombie has ended; only its parent has not collected it
        return None
    return fields[19].decode()


def mark_owner(directory: Path) -> None:
    """Record this process as ``directory``'s owner, unless one is recorded already."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(directory / OWNER_FILE, flags, 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "w") as handle:
        handle.write(f"{os.getpid()} {process_start(os.getpid())} {_pid_namespace()}\n")


def _pid_namespace() -> str:
    """This process's PID namespace: a pid means something only within it (two containers
    sharing a /tmp would each see the other's sessions as gone)."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return "-"


def remove_abandoned_spills(base: Path, *, owner: int | None = None) -> int:
    """Remove the directories in ``base`` whose owner is gone; returns how many were removed.

    With ``owner`` (the watchdog of that process, which has ended) only its directories go,
    all of them; without, at most ``_REMOVED`` of the first ``_EXAMINED`` entries, so a
    start-up never pays for a backlog at once.
    """
    examined_cap, removed_cap = (_EXAMINED, _REMOVED) if owner is None else (None, None)
    removed = 0
    try:
        entries = os.scandir(base)
    except OSError:
        return 0
    with entries:
        for examined, entry in enumerate(entries):
            if examined == examined_cap or removed == removed_cap:
                break
            if _abandoned(entry, owner):
                with contextlib.suppress(OSError):
                    shutil.rmtree(entry.path)  # never follows a link (it works by fd)
                    removed += 1
    return removed


def _abandoned(entry: os.DirEntry[str], owner: int | None) -> bool:
    """Whether ``entry`` is one of this user's spill directories whose owner is gone."""
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return False
    recorded = _owner_of(entry.path)
    if recorded is None:
        return owner is None and time.time() - info.st_mtime > LEGACY_AGE
    pid, start, namespace = recorded
    if (owner is not None and pid != owner) or namespace != _pid_namespace():
        return False
    return process_start(pid) != start


def _owner_of(directory: str) -> tuple[int, str, str] | None:
    """The pid, start time and PID namespace ``directory``'s owner file records, None when
    there is none (or it is not a regular file of a sane size)."""
    try:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # no FIFO holds it
        fd = os.open(os.path.join(directory, OWNER_FILE), flags)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        parts = handle.read(64).split()
    if len(parts) != 3 or not parts[0].isdigit():
        return None
    start, namespace = (part.decode(errors="replace") for part in parts[1:])
    return int(parts[0]), start, namespace
