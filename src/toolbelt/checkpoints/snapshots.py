"""Snapshots of a workspace for commands, and what changed between two of them.

A snapshot is a git tree written from the private index after refreshing it with what
changed since the last snapshot, so a snapshot costs one scan of the workspace plus the work
for the files that changed, not a copy of everything:

1. ``git ls-files -z -m -d -o --exclude-standard`` names what differs from the index —
   modified, deleted and new files, ``.gitignore``'d ones left out (the stat data the index
   keeps makes the unchanged majority cheap);
2. each is looked at once: gone → removed from the index; bigger than the limit → left out
   (and removed from the index, so an old small version is never taken for the current one),
   noted with its size and mtime; a nested repository (``dir/``) is left out;
3. ``git update-index --add --remove -z --stdin`` stores the rest; ``git write-tree`` names
   the whole state — or, when nothing changed and the index is the one the last tree was
   written from (its size, inode and mtime, kept beside it), that tree is named again without
   starting git: the common case before a command.

A file whose stat data no longer matches the index while its content does — written in the
same second as the index ("racily clean"), touched, rewritten unchanged, checked out again —
has its content compared on every scan, and nothing in the steps above heals that: a command
that wrote ten thousand files would slow every later snapshot. So a slow scan schedules
``update-index --refresh``, which records the current stat data, a few seconds later (once
the files are no longer racy) and at most once a minute.

``changes_between`` reads ``git diff-tree -r -z --no-renames`` into ``Change``s (a rename is
a deletion and a creation). Every git command runs under the store's lock.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from toolbelt.checkpoints.shadow_git import GitFailed, ShadowGit
from toolbelt.checkpoints.states import Change, FileState

__all__ = ["Snapshot", "changes_between", "take_snapshot"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A tree id and the big files it left out (path → (size, mtime in ns))."""

    tree: str
    left_out: dict[str, tuple[int, int]] = field(default_factory=dict)
    nested: tuple[str, ...] = ()
    """Nested repositories (their own ``.git``) whose files are not in the snapshot."""


def take_snapshot(git: ShadowGit, max_file_bytes: int) -> Snapshot:
    """Refresh the private index from the work tree and write its tree (hold the lock).

    The whole snapshot gets ``git.timeout`` seconds; files are stored in batches, each kept
    in the index, so a first snapshot of a big workspace that runs out of time goes on where
    it stopped the next time instead of starting over."""
    root = git.layout.root
    deadline = time.monotonic() + git.timeout

    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise GitFailed(
                f"snapshotting the workspace took longer than {git.timeout:g} s (the next "
                "command goes on where this one stopped)"
            )
        return remaining

    _refresh_if_due(git)
    listed = _timed_scan(git)
    update: list[bytes] = []
    drop: list[bytes] = []
    left_out: dict[str, tuple[int, int]] = {}
    nested: list[str] = []
    for raw in dict.fromkeys(listed):
        if raw.endswith(b"/"):
            nested.append(os.fsdecode(raw))
            continue
        try:
            info = os.lstat(os.path.join(os.fsencode(root), raw))
        except (FileNotFoundError, NotADirectoryError):
            update.append(raw)  # --remove drops it
            continue
        if stat.S_ISDIR(info.st_mode):
            drop.append(raw)  # a file that became a directory: its files are listed too
        elif stat.S_ISREG(info.st_mode) and info.st_size > max_file_bytes:
            drop.append(raw)
            left_out[os.fsdecode(raw)] = (info.st_size, info.st_mtime_ns)
        elif stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
            update.append(raw)
    for start in range(0, len(update), _BATCH):
        batch = update[start : start + _BATCH]
        git.run_lines(
            "update-index", "-z", "--add", "--remove", "--stdin", stdin=batch, timeout=left()
        )
    if drop:
        git.run_lines("update-index", "-z", "--force-remove", "--stdin", stdin=drop, timeout=left())
    tree = None if update or drop else _last_tree(git)
    if tree is None:
        tree = git.run("write-tree", timeout=left()).decode().strip()
        _remember_tree(git, tree)
    return Snapshot(tree, left_out, tuple(nested))


_BATCH = 2000
"""Files stored per ``update-index``: each batch is kept even if the next one runs out of time."""
_SLOW_SCAN = 0.05
"""Seconds past which a scan is worth healing the index's stat data for."""
_SETTLE = 2.0
_REFRESH_EVERY = 60.0


def _timed_scan(git: ShadowGit) -> list[bytes]:
    """``ls-files`` for what changed; a slow one schedules a refresh (``_refresh_if_due``)."""
    started = time.monotonic()
    listed = git.run_lines("ls-files", "-z", "-m", "-d", "-o", "--exclude-standard")
    if time.monotonic() - started > _SLOW_SCAN:
        due = git.layout.base / "refresh"
        if (
            not due.exists()
            and _age(git.layout.base / "refreshed", missing=_REFRESH_EVERY + 1) > _REFRESH_EVERY
        ):
            due.touch()
    return listed


def _refresh_if_due(git: ShadowGit) -> None:
    """Refresh the index's stat data (``update-index --refresh``) when a scan was slow, once
    the files it re-read are a few seconds old (no longer racy); at most once a minute."""
    due = git.layout.base / "refresh"
    if _age(due, missing=0.0) < _SETTLE:  # not due, or not yet
        return
    with contextlib.suppress(GitFailed):  # it fails when files changed: the scan finds them
        git.run("update-index", "-q", "--refresh")
    due.unlink(missing_ok=True)
    (git.layout.base / "refreshed").touch()


def _age(path: Path, *, missing: float) -> float:
    """Seconds since ``path`` was modified; ``missing`` when it does not exist."""
    try:
        return time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return missing


def _index_signature(git: ShadowGit) -> str | None:
    try:
        info = os.stat(git.layout.index)
    except FileNotFoundError:
        return None
    return f"{info.st_ino} {info.st_size} {info.st_mtime_ns}"


def _last_tree(git: ShadowGit) -> str | None:
    """The tree last written, if the index has not changed since."""
    try:
        signature, _, tree = (git.layout.base / "tree").read_text().rpartition(" ")
    except (FileNotFoundError, ValueError):
        return None
    return tree if tree and signature == _index_signature(git) else None


def _remember_tree(git: ShadowGit, tree: str) -> None:
    signature = _index_signature(git)
    if signature is not None:
        temp = git.layout.base / f".tree-{os.getpid()}"
        temp.write_text(f"{signature} {tree}")
        os.replace(temp, git.layout.base / "tree")


def changes_between(git: ShadowGit, before: str, after: str) -> list[Change]:
    """What differs from tree ``before`` to tree ``after``, path by path (submodules left out)."""
    if before == after:
        return []
    fields = git.run_lines("diff-tree", "-r", "-z", "--no-renames", before, after)
    changes: list[Change] = []
    for header, raw_path in zip(fields[0::2], fields[1::2], strict=True):
        old_mode, new_mode, old_oid, new_oid, _status = header.decode().lstrip(":").split()
        if "160000" in (old_mode, new_mode):
            continue
        changes.append(
            Change(
                os.fsdecode(raw_path),
                FileState.from_git(old_mode, old_oid),
                FileState.from_git(new_mode, new_oid),
            )
        )
    return changes
