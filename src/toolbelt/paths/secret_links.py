"""Hard links to secrets: a name is not an identity.

``ln .env notes.txt`` — run outside the sandbox, by a ``cp -al`` backup, or by extracting an
archive with hard-link entries (inside the sandbox an existing secret is a read-only mount,
which ``link`` cannot cross) — gives the secret a second, innocent name, and every check
by name — read_file asking before ``.env``, grep leaving ``.env`` out of its results — lets
``notes.txt`` through. So a file the policy
would show without asking that has other hard links (``st_nlink > 1``) is matched by its
identity, ``(st_dev, st_ino)``, against the workspace's secret-named files that have other
links too, and takes the decision of the secret it is.

The index of those secrets comes from one walk of the roots (breadth first, symlinks not
followed), made the first time a file with other links is met and kept for the session. It
is rebuilt only when the file asked about changed its links after the walk began: ``link``,
``unlink`` and ``rename`` set the inode's ``st_ctime`` to the current time, and no
unprivileged call sets it back, so a file whose ctime is older than the walk had the same
names during it (``_TICK`` covers the coarse clock file systems stamp ctimes with). Files
with one link — nearly all of them — cost one ``stat``. A walk that meets more than
``limit`` entries stops there, and then a file with other links whose identity it did not
see is treated as a secret: the analysis cannot be sure, so it asks.

The user's secret locations (``~/.ssh``, ``~/.aws``…) are walked too, up to ``_HOME_LIMIT``
entries, whether or not a root holds them (a root of ``~``: the walk of the roots may stop at
its limit before it reaches them, and must not be their only look): ``ln ~/.ssh/id_rsa
notes.txt`` (same file system, a key the user owns) puts the key in the workspace under a
name no check by name would stop. The
sandbox asks ``secret_of`` for every file with other links its walk of the roots meets, and
hides those that are secrets from commands (``sandbox.Sandbox``).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

from toolbelt.core.access import Protection

__all__ = ["SecretLinks"]

_TICK = 100_000_000
"""Nanoseconds by which a file system's ctime may lag the clock (a jiffy is at most 10 ms)."""
_LIMIT = 300_000
"""Entries one walk looks at before it gives up being sure."""
_HOME_LIMIT = 20_000
"""Entries of the user's secret locations one walk looks at (a browser profile is large)."""

SecretReason = Callable[[Path, Path], str | None]
"""(path below the first root, path) → why a file with that name is a secret, or None."""


class SecretLinks:
    """The secret-named files of the roots that have other hard links, by identity."""

    def __init__(
        self,
        roots: Callable[[], Sequence[Path]],
        secret_reason: SecretReason,
        *,
        locations: Callable[[], Sequence[Path]] = tuple,
        limit: int = _LIMIT,
    ) -> None:
        """``locations``: the user's secret locations, walked too (inside the roots or not)."""
        self._roots = roots
        self._reason = secret_reason
        self._locations = locations
        self._limit = limit
        self._lock = threading.Lock()  # listings filter their paths in worker threads
        self._walked_at: int | None = None
        self._complete = True
        self._secrets: dict[tuple[int, int], tuple[Path, str]] = {}

    def twin(self, path: Path) -> Protection | None:
        """The secret protection ``path`` has as another name of a secret file, or None."""
        info = _linked_file(path)
        if info is None:
            return None
        found, complete = self._look_up(info)
        if found is not None:
            secret, reason = found
            return Protection("secret", f"it is a hard link of {secret}, and {reason}", path)
        if not complete:
            return Protection(
                "secret",
                f"it has {info.st_nlink} hard links and the workspace is too large to check "
                "that none of them is a secret",
                path,
            )
        return None

    def secret_of(self, path: Path) -> Path | None:
        """The secret file ``path`` is another hard link of, when a walk found it; None when
        it is none, or a walk cut short cannot tell."""
        info = _linked_file(path)
        if info is None:
            return None
        found, _ = self._look_up(info)
        return None if found is None else found[0]

    def _look_up(self, info: os.stat_result) -> tuple[tuple[Path, str] | None, bool]:
        """The secret with ``info``'s identity (walking again if its links changed since the
        last walk), and whether that walk was complete."""
        with self._lock:
            if self._walked_at is None or info.st_ctime_ns >= self._walked_at - _TICK:
                self._walk()
            return self._secrets.get((info.st_dev, info.st_ino)), self._complete

    def _walk(self) -> None:
        started = time.time_ns()
        roots = [Path(os.path.realpath(root)) for root in self._roots()]
        first = str(roots[0]) + os.sep if roots else ""
        pending = deque(str(root) for root in roots)
        secrets: dict[tuple[int, int], tuple[Path, str]] = {}
        seen = 0
        while pending and seen <= self._limit:
            seen += self._note_directory(pending.popleft(), pending, first, secrets)
        self._complete = not pending
        self._walk_locations(first, secrets)
        self._secrets = secrets
        self._walked_at = started

    def _walk_locations(self, first: str, secrets: dict[tuple[int, int], tuple[Path, str]]) -> None:
        """Note the files with other links among the user's secret locations."""
        pending = deque(str(p) for p in self._locations() if os.path.lexists(p))
        seen = 0
        while pending and seen <= _HOME_LIMIT:
            place = pending.popleft()
            if not os.path.isdir(place) or os.path.islink(place):
                self._note_file(place, first, secrets)
                continue
            seen += self._note_directory(place, pending, first, secrets)

    def _note_directory(
        self,
        directory: str,
        pending: deque[str],
        first: str,
        secrets: dict[tuple[int, int], tuple[Path, str]],
    ) -> int:
        """One step of a breadth-first walk: note the files in ``directory``, queue its
        subdirectories on ``pending``; how many entries were read (a directory that cannot be
        read counts what was read before it failed)."""
        seen = 0
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    seen += 1
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        self._note_file(entry.path, first, secrets, entry)
        except OSError:
            pass
        return seen

    def _note_file(
        self,
        text: str,
        first: str,
        secrets: dict[tuple[int, int], tuple[Path, str]],
        entry: os.DirEntry[str] | None = None,
    ) -> None:
        """Index the file at ``text`` when its name or place makes it a secret and it has
        other links (``entry``: its directory entry, whose stat may be cached)."""
        path = Path(text)
        below = Path(text[len(first) :]) if text.startswith(first) else path
        reason = self._reason(below, path)
        if reason is None:
            return
        try:
            info = entry.stat(follow_symlinks=False) if entry else os.lstat(text)
        except OSError:
            return
        if info.st_nlink > 1 and stat.S_ISREG(info.st_mode):
            secrets[(info.st_dev, info.st_ino)] = (path, reason)


def _linked_file(path: Path) -> os.stat_result | None:
    """What ``os.stat`` says of ``path`` when it is a regular file with other hard links (the
    only kind that can be a secret's twin); None for any other, or one that cannot be read."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if info.st_nlink < 2 or not stat.S_ISREG(info.st_mode):
        return None
    return info
