"""Protected names a sandboxed command created anywhere in the workspace, found cheaply.

Mounts and Landlock keep *existing* protected entries read-only, but nothing stops a confined
command from creating a missing one (``sub/.git/hooks/pre-commit``, ``sub/.toolbelt/
settings.json``, ``pkg/.env``, a ``.pth`` in ``.venv``'s ``site-packages``): code or secrets
that would be used later, outside any sandbox. So the workspace's directories are watched by
their status-change time (``st_ctime_ns``), which changes whenever an entry is added to (or
removed from) a directory. Not their mtime: the command itself can put an mtime back
(``touch -m -r ref DIR`` after creating ``DIR/x.pth``), while the ctime is set by the kernel
to the current time on every change, ``touch`` included, and no unprivileged call sets it:

- ``baseline()`` (before a command) brings a cache of every directory of the roots up to
  date: one ``stat`` per known directory, a ``scandir`` only of those whose ctime changed.
  What it finds is accepted — it was made between commands, by tools the user approved.
- ``created()`` (after it) does the same walk, and returns the protected entries that were
  not in the cache: those the command made. Pre-existing ones (a nested repository's
  ``.git``) are never reported; ``nested()`` lists them, for the sandbox to mount read-only
  (a command could otherwise append to ``sub/.git/hooks/pre-commit`` or ``crate/
  rust-toolchain.toml``, which only a top-level mount would stop).

"Created" is decided by identity, not path: an entry whose ``(st_dev, st_ino, st_ctime_ns)``
was a protected entry's before the walk was moved with its directory, not made (``mv
libs/vendored libs/vendor`` carries a nested repository's ``.git`` and ``.env.local`` to
paths never seen, leaving their own ctime alone; they stay), unless that entry is still at a
known place too. The ctime is part of it because the kernel sets it on a new file, a new hard
link and a rename of the entry itself, so a reused inode number or a link is not taken for a
move (an entry renamed by itself is moved aside: nothing is lost either way). What a
user makes while a confined background job runs (a ``git clone`` in another terminal) cannot
be told from the job's work, so the sandbox never deletes what this reports: it moves it to a
quarantine folder and says where (``quarantine``), and nothing is lost.

A new ``pyvenv.cfg`` is not reported: ``python -m venv`` makes one (see ``startup_files``).
Protected directories are not descended into (everything under a new one goes with it; a
pre-existing one is left alone), nor are symlinks followed. A directory whose ctime lies
within ``_TICK`` of the moment it was scanned is rescanned next time whatever its ctime says:
file-system timestamps are coarse (a jiffy on ext4), so an entry added in the same tick as
the scan would otherwise leave the ctime unchanged.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolbelt.paths.protected import protected_entry_reason, secret_file_name
from toolbelt.paths.startup_files import VIRTUALENV_MADE
from toolbelt.sandbox.quarantine import Identity, identity

__all__ = ["CreatedWatch"]

_Stamp = tuple[int, int, int]
"""``(st_dev, st_ino, st_ctime_ns)`` of a protected entry."""

_TICK = 1_000_000_000
"""Nanoseconds within which a directory's ctime cannot tell a later change from none."""


@dataclass(slots=True)
class _Listing:
    ctime: int
    scanned: int
    identity: Identity
    subdirs: frozenset[str]
    protected: dict[str, _Stamp]
    linked: dict[str, _Stamp] = field(default_factory=dict)
    """Regular files with other hard links (``st_nlink > 1``), with their stamp: each may be
    another name of a secret (``Sandbox.secret_twins``, which answers once per stamp)."""
    secrets: frozenset[str] = frozenset()
    """The entries, directories aside, whose names make them secrets (``.env``…)."""
    special: frozenset[str] = frozenset()
    """FIFOs, sockets and devices: opening one can wait forever (``Sandbox.quiet_hidden``)."""


class CreatedWatch:
    """The directories of ``roots`` by ctime, and the protected names each holds."""

    def __init__(
        self, roots: Sequence[Path], *, named: Sequence[Path] = (), inside: bool = False
    ) -> None:
        """``named``: more paths that count as protected entries, wherever their names put
        them (what protected configuration names as code: ``paths.named_code``); ``inside``:
        enter protected directories too (a watch of what protected directories hold — their
        secrets, hard links and FIFOs — rather than of what commands create)."""
        self._roots = tuple(str(root) for root in roots)
        self._named = frozenset(str(path) for path in named)
        self._inside = inside
        self._dirs: dict[str, _Listing] = {}
        self._before: frozenset[_Stamp] = frozenset()

    @property
    def roots(self) -> tuple[str, ...]:
        """The directories walked."""
        return self._roots

    @property
    def walked(self) -> bool:
        """Whether the roots were walked at least once."""
        return bool(self._dirs)

    def baseline(self) -> None:
        """Accept the workspace as it is now (run before each confined command)."""
        self._refresh()

    def created(self) -> list[Path]:
        """Protected entries that appeared since the last ``baseline``/``created``, sorted;
        the cache then holds them as known (remove them, or they count as accepted)."""
        return sorted(Path(p) for p in self._refresh())

    def nested(self) -> list[Path]:
        """The protected entries the last walk found below the roots' top level (those at
        the top are the sandbox's own concern), sorted: existing ones, which the sandbox
        keeps read-only as it does the top level's."""
        roots = set(self._roots)
        return sorted(
            Path(directory, name)
            for directory, listing in self._dirs.items()
            if directory not in roots
            for name in listing.protected
        )

    def secret_names(self) -> list[Path]:
        """The entries the last walk found, at any depth, whose names make them secrets
        (``.env``, ``.env.local``…), directories aside."""
        return sorted(
            Path(directory, name)
            for directory, listing in self._dirs.items()
            for name in listing.secrets
        )

    def special(self) -> list[Path]:
        """The FIFOs, sockets and devices the last walk found (sorted)."""
        return sorted(
            Path(directory, name)
            for directory, listing in self._dirs.items()
            for name in listing.special
        )

    def linked(self) -> list[tuple[Path, _Stamp]]:
        """The regular files with other hard links the last walk found, with their
        ``(st_dev, st_ino, st_ctime_ns)`` (a new link or name changes the ctime), sorted."""
        return sorted(
            (Path(directory, name), stamp)
            for directory, listing in self._dirs.items()
            for name, stamp in listing.linked.items()
        )

    def forget(self, path: Path) -> None:
        """Drop ``path`` (a removed protected entry) from its directory's listing."""
        listing = self._dirs.get(str(path.parent))
        if listing is not None:
            listing.protected.pop(path.name, None)

    def recorded(self, path: Path) -> Identity | None:
        """The identity the last walk saw at ``path`` (a directory, or a protected entry)."""
        listing = self._dirs.get(str(path))
        if listing is not None:
            return listing.identity
        listing = self._dirs.get(str(path.parent))
        stamp = None if listing is None else listing.protected.get(path.name)
        return None if stamp is None else stamp[:2]

    def known_before(self, path: Path) -> bool:
        """Whether the entry now at ``path`` was a protected entry before the last walk (moved
        with its directory, not made): compared by ``(st_dev, st_ino, st_ctime_ns)``."""
        try:
            return _stamp(os.stat(path, follow_symlinks=False)) in self._before
        except OSError:
            return False

    def _refresh(self) -> list[str]:
        before = self._identities()
        new: list[str] = []
        first = not self._dirs
        pending = list(self._roots)
        seen: set[str] = set()
        while pending:
            directory = pending.pop()
            seen.add(directory)
            old = self._dirs.get(directory)
            try:
                ctime = os.stat(directory, follow_symlinks=False).st_ctime_ns
            except OSError:
                self._dirs.pop(directory, None)
                continue
            if old is not None and ctime == old.ctime and old.scanned - ctime > _TICK:
                pending += (os.path.join(directory, name) for name in old.subdirs)
                continue
            listing = _scan(directory, ctime, self._named, inside=self._inside)
            if listing is None:
                self._dirs.pop(directory, None)
                continue
            if old is not None:  # a directory never seen before is new as a whole: its
                new += (  # protected names are found in its parent, or it is a root
                    os.path.join(directory, name)
                    for name in listing.protected.keys() - old.protected.keys()
                )
            elif not first and directory not in self._roots:
                new += (os.path.join(directory, name) for name in listing.protected)
            self._dirs[directory] = listing
            pending += (os.path.join(directory, name) for name in listing.subdirs)
        for gone in self._dirs.keys() - seen:
            del self._dirs[gone]
        self._before = before
        return self._made(new, before)

    def _identities(self) -> frozenset[_Stamp]:
        return frozenset(i for listing in self._dirs.values() for i in listing.protected.values())

    def _made(self, new: list[str], before: frozenset[_Stamp]) -> list[str]:
        """Of the ``new`` paths, those whose entry did not exist before: one whose stamp was a
        protected entry's is the same entry moved with its directory (``mv libs/vendored
        libs/vendor`` keeps its ``.git``), unless it is still at a known place too."""
        fresh = set(new)
        elsewhere = {
            ident
            for directory, listing in self._dirs.items()
            for name, ident in listing.protected.items()
            if os.path.join(directory, name) not in fresh
        }
        stamps = {
            path: self._dirs[os.path.dirname(path)].protected.get(os.path.basename(path))
            for path in new
        }
        return [
            path
            for path, stamp in stamps.items()
            if stamp is None or stamp not in before or stamp in elsewhere
        ]


def _scan(
    directory: str, ctime: int, named: frozenset[str], *, inside: bool = False
) -> _Listing | None:
    subdirs: list[str] = []
    protected: dict[str, _Stamp] = {}
    linked: dict[str, _Stamp] = {}
    secrets: list[str] = []
    special: list[str] = []
    try:
        own = identity(os.stat(directory, follow_symlinks=False))
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.path in named or (
                    entry.name not in VIRTUALENV_MADE
                    and protected_entry_reason(directory, entry.name)
                ):
                    protected[entry.name] = _stamp(entry.stat(follow_symlinks=False))
                    if secret_file_name(entry.name) and not entry.is_dir(follow_symlinks=False):
                        secrets.append(entry.name)
                    elif _special(entry):  # a FIFO named `.npmrc` blocks a reader all the same
                        special.append(entry.name)
                    elif inside and entry.is_dir(follow_symlinks=False):
                        subdirs.append(entry.name)
                elif entry.is_dir(follow_symlinks=False):
                    subdirs.append(entry.name)
                elif entry.is_file(follow_symlinks=False):
                    stamp = _linked_stamp(entry)
                    if stamp is not None:
                        linked[entry.name] = stamp
                elif not entry.is_symlink():
                    special.append(entry.name)
    except OSError:
        return None
    return _Listing(
        ctime,
        time.time_ns(),
        own,
        frozenset(subdirs),
        protected,
        linked,
        frozenset(secrets),
        frozenset(special),
    )


def _special(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is a FIFO, socket or device (not a file, directory or symlink)."""
    return not (
        entry.is_dir(follow_symlinks=False)
        or entry.is_file(follow_symlinks=False)
        or entry.is_symlink()
    )


def _linked_stamp(entry: os.DirEntry[str]) -> _Stamp | None:
    """The stamp of a file with other hard links, else None."""
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return None
    return _stamp(info) if info.st_nlink > 1 else None


def _stamp(stat: os.stat_result) -> _Stamp:
    return stat.st_dev, stat.st_ino, stat.st_ctime_ns
