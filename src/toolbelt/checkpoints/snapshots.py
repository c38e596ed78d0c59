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
   the whole state.

``changes_between`` reads ``git diff-tree -r -z --no-renames`` into ``Change``s (a rename is
a deletion and a creation). Every git command runs under the store's lock.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from toolbelt.checkpoints.shadow_git import ShadowGit
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
    """Refresh the private index from the work tree and write its tree (hold the lock)."""
    root = git.layout.root
    listed = git.run_lines("ls-files", "-z", "-m", "-d", "-o", "--exclude-standard")
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
    if update:
        git.run_lines("update-index", "-z", "--add", "--remove", "--stdin", stdin=update)
    if drop:
        git.run_lines("update-index", "-z", "--force-remove", "--stdin", stdin=drop)
    tree = git.run("write-tree").decode().strip()
    return Snapshot(tree, left_out, tuple(nested))


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
