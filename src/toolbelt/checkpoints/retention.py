"""Keeping the store bounded: checkpoints older than ``maxAgeDays`` are dropped, then the
oldest ones until the store is under ``maxSizeMB`` again, and git collects what nothing
refers to any more.

A prune runs at most once an hour per workspace, in a background thread after a change was
recorded, and never blocks a call: it takes its own lock without waiting (a second process
skips), and the git it runs is stopped when the session ends. What survives is named in one
tree (``refs/toolbelt/keep``: every blob and snapshot tree a remaining record needs), so
``git prune`` keeps exactly that plus whatever was written in the last hour — a change
recorded while the prune runs is never lost.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from toolbelt.checkpoints.history import Checkpoint, build_history
from toolbelt.checkpoints.shadow_git import GitFailed, ShadowGit
from toolbelt.checkpoints.states import FileState
from toolbelt.checkpoints.store import CheckpointStore

__all__ = ["PruneReport", "Pruner", "prune", "store_size"]


@dataclass(frozen=True, slots=True)
class PruneReport:
    dropped: int
    size_before: int
    size_after: int


_GRACE_SECONDS = 3600
"""What was written this recently is kept: a record being written now may need it."""
_LOOSE_LIMIT = 2000
"""Loose objects past which a prune packs the store (git's own ``gc.auto`` is 6700)."""


def prune(
    store: CheckpointStore, git: ShadowGit | None = None, *, now: float | None = None
) -> PruneReport | None:
    """Drop what the settings no longer keep; None when another process is pruning."""
    git = git or ShadowGit(store.layout, timeout=600)
    now = time.time() if now is None else now
    with store.layout.locked("prune.lock", wait=False) as mine:
        if not mine:
            return None
        size_before = store_size(store.layout.base)
        history = store.history()
        cutoff = now - store.settings.max_age_days * 86400
        dropped = _drop(
            store, [c for c in history if c.last_time < cutoff and c.state != "running"]
        )
        kept = [c for c in history if c.last_time >= cutoff or c.state == "running"]
        _collect(store, git)
        size = store_size(store.layout.base)
        while size > store.settings.max_size_bytes and len(kept) > 1:
            oldest = [c for c in reversed(kept) if c.state != "running"][: max(1, len(kept) // 2)]
            if not oldest:
                break
            dropped += _drop(store, oldest)
            kept = [c for c in kept if c not in oldest]
            _collect(store, git)
            size = store_size(store.layout.base)
        (store.layout.base / "pruned").touch()
        return PruneReport(dropped, size_before, size)


def _drop(store: CheckpointStore, checkpoints: list[Checkpoint]) -> int:
    for checkpoint in checkpoints:
        for name in checkpoint.entry_names:
            store.records.remove_entry(name)
        for action in checkpoint.actions:
            store.records.remove_action(action.name)
    return len(checkpoints)


def _collect(store: CheckpointStore, git: ShadowGit) -> None:
    """Point the keep ref at everything the remaining records need, then let git drop the
    rest (what was recorded after this read is younger than the grace period)."""
    kept = build_history(store.records.entries(), store.records.actions())
    states = list(_states(kept))
    _sweep_raw(store.layout.raw, {s.raw for s in states if s.raw})
    oids = {s.oid for s in states if len(s.oid) == 40}  # not a raw copy's, nor a fingerprint
    lines = [f"040000 tree {tree}\t{tree}".encode() for tree in _trees(store)]
    lines += [f"100644 blob {oid}\t{oid}".encode() for oid in oids]
    try:
        tree = git.run("mktree", "-z", "--missing", stdin=b"".join(line + b"\0" for line in lines))
        git.run("update-ref", "refs/toolbelt/keep", tree.decode().strip())
        git.run("prune", f"--expire={_GRACE_SECONDS}.seconds.ago")
        if _loose_objects(store.layout.objects) > _LOOSE_LIMIT:
            git.run("repack", "-a", "-d", "-q")
            git.run("prune-packed", "-q")
    except GitFailed:
        return


def _trees(store: CheckpointStore) -> set[str]:
    trees: set[str] = set()
    for _, data in store.records.entries():
        trees.update(t for t in (data.get("before_tree"), data.get("after_tree")) if t)
    return trees


def _states(kept: Iterable[Checkpoint]) -> Iterator[FileState]:
    """Every file state the remaining checkpoints (and their undos) need."""
    for checkpoint in kept:
        for change in checkpoint.changes:
            yield from (s for s in (change.before, change.after) if s is not None)
        for action in checkpoint.actions:
            for _, found, put in action.images:
                yield from (s for s in (found, put) if s is not None)


def _sweep_raw(raw: Path, needed: set[str | None]) -> None:
    """Remove the big before-images nothing needs, unless linked in the last hour (a record
    being written now may need it: a link's ctime is when it was made)."""
    cutoff = time.time() - _GRACE_SECONDS
    with contextlib.suppress(OSError), os.scandir(raw) as entries:
        for entry in entries:
            if entry.name not in needed:
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_ctime < cutoff:
                        os.unlink(entry.path)


def _loose_objects(objects: Path) -> int:
    count = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(objects):
            if len(entry.name) == 2 and entry.is_dir(follow_symlinks=False):
                count += len(os.listdir(entry.path))
    return count


def store_size(base: Path) -> int:
    """Bytes the store's files take."""
    total = 0
    pending = [base]
    while pending:
        with contextlib.suppress(OSError), os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
    return total


class Pruner:
    """Starts a background prune of a store when the last one is an hour old."""

    INTERVAL = 3600.0
    """Seconds between two prunes of one workspace."""

    def __init__(self, store: CheckpointStore) -> None:
        self.store = store
        self._thread: threading.Thread | None = None
        self._git = ShadowGit(store.layout, timeout=600)

    def maybe_start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        stamp = self.store.layout.base / "pruned"
        try:
            last = stamp.stat().st_mtime
        except FileNotFoundError:  # a new store: nothing to prune for an hour
            with contextlib.suppress(OSError):
                stamp.touch()
            return
        if time.time() - last < self.INTERVAL:
            return
        self._thread = threading.Thread(target=self._run, name="toolbelt-prune", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with contextlib.suppress(OSError, GitFailed, ValueError, KeyError):
            prune(self.store, self._git)

    def stop(self) -> None:
        """End a prune in progress (its git is stopped; what it did so far stays consistent)."""
        self._git.stop()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
