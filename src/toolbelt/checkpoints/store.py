"""One workspace's checkpoint store: the journal for file tools, snapshots for commands, and
the history both make.

Everything here is synchronous and safe to run from several processes at once: records are
files of their own, snapshots and undo/redo hold the store's ``flock``. Async callers run it
in a worker thread (``Checkpoints``).
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolbelt.checkpoints.history import Checkpoint, build_history
from toolbelt.checkpoints.layout import Layout
from toolbelt.checkpoints.objects import write_blob
from toolbelt.checkpoints.records import Records, name_time_ns, record
from toolbelt.checkpoints.settings import CheckpointSettings
from toolbelt.checkpoints.shadow_git import ShadowGit
from toolbelt.checkpoints.snapshots import Snapshot, changes_between, take_snapshot
from toolbelt.checkpoints.states import (
    BIG_FILE,
    Change,
    FileState,
    current_umask,
    fingerprint,
    read_current,
)

__all__ = ["CallInfo", "CheckpointStore", "PendingSnapshot"]


@dataclass(frozen=True, slots=True)
class CallInfo:
    """Which call a record belongs to."""

    session: str
    call_id: str
    tool: str


@dataclass(frozen=True, slots=True)
class PendingSnapshot:
    """A command's before-snapshot, recorded as a pending entry until it ends."""

    name: str
    call: CallInfo
    before: Snapshot
    summary: str
    time: float
    """When the command started (the checkpoint's time)."""


class CheckpointStore:
    """The checkpoints of the workspace at ``root``, kept under the user's state directory."""

    def __init__(self, root: Path, settings: CheckpointSettings | None = None) -> None:
        self.layout = Layout.for_root(root)
        self.settings = settings or CheckpointSettings()
        self.records = Records(self.layout)
        self.git = ShadowGit(self.layout, timeout=self.settings.snapshot_timeout)

    @property
    def root(self) -> Path:
        return self.layout.root

    def relative(self, path: Path) -> str:
        """How a path is recorded: relative to the root inside it, else absolute."""
        text = os.fspath(path)
        prefix = os.fspath(self.layout.root).rstrip("/") + "/"
        return text[len(prefix) :] if text.startswith(prefix) else text

    # -- the file journal ---------------------------------------------------------------

    def record_file(self, call: CallInfo, path: Path, after: bytes | None) -> str:
        """Record ``path``'s before-image durably, and what the call is about to put there
        (``after``; None: it will be removed); returns the record's name."""
        self.layout.ensure()
        before = self._keep_big(path)
        if before is None:
            before, data = read_current(path)
            if before is not None and before.kind not in ("file", "link"):
                raise IsADirectoryError(f"{path} is {before.kind}, not a file")
            if data is not None and before is not None:
                write_blob(self.layout.objects, data, before.oid)
        after_state = None
        if after is not None:
            mode = before.mode if before is not None and before.kind == "file" else _default_mode()
            after_state = FileState(fingerprint(after), mode)
        change = Change(self.relative(path), before, after_state, self._missing_dirs(path))
        entry = record(
            "file",
            session=call.session,
            call=call.call_id,
            tool=call.tool,
            changes=[change.as_json()],
        )
        return self.records.write_entry(entry)

    def _keep_big(self, path: Path) -> FileState | None:
        """A big file's before-image, kept by hard-linking its inode into ``raw/`` (a copy
        when the workspace is on another file system); None for anything else. The link is
        durable with the record written after it (one journal commit)."""
        try:
            info = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        if not stat.S_ISREG(info.st_mode) or info.st_size < BIG_FILE or info.st_nlink != 1:
            return None  # a second name could change the inode behind the store's back
        name = f"{time.time_ns()}-{secrets.token_hex(4)}"
        target = self.layout.raw / name
        try:
            os.link(path, target, follow_symlinks=False)
            same = os.lstat(target).st_ino == info.st_ino
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
                raise
            shutil.copyfile(path, target, follow_symlinks=False)
            with open(target, "rb") as copied:
                os.fsync(copied.fileno())
                same = os.fstat(copied.fileno()).st_size == info.st_size
        if not same:  # replaced while it was linked or copied: take the slow path
            os.unlink(target)
            return None
        return FileState("", stat.S_IMODE(info.st_mode), "file", raw=name)

    def withdraw(self, name: str) -> None:
        """Forget a record whose change did not happen (the write failed), with the big
        before-image it kept."""
        for entry_name, data in self.records.entries(since_ns=name_time_ns(name)):
            if entry_name != name:
                continue
            for change in data.get("changes", ()):
                raw = (change.get("before") or {}).get("raw")
                if raw:
                    (self.layout.raw / raw).unlink(missing_ok=True)
        self.records.remove_entry(name)

    def _missing_dirs(self, path: Path) -> tuple[str, ...]:
        """The directories above ``path`` that do not exist yet (the write will create them)."""
        missing: list[str] = []
        parent = path.parent
        while parent != parent.parent and parent != self.layout.root and not parent.exists():
            missing.append(self.relative(parent))
            parent = parent.parent
        return tuple(missing)

    # -- command snapshots --------------------------------------------------------------

    def begin_snapshot(self, call: CallInfo, summary: str) -> PendingSnapshot:
        """Snapshot the workspace before a command and record it as pending."""
        self.layout.ensure()
        with self.layout.locked():
            before = take_snapshot(self.git, self.settings.max_file_bytes)
        entry = record(
            "snapshot",
            session=call.session,
            call=call.call_id,
            tool=call.tool,
            state="pending",
            before_tree=before.tree,
            summary=summary[:500],
        )
        name = self.records.write_entry(entry)
        return PendingSnapshot(name, call, before, summary[:500], entry["time"])

    def finish_snapshot(self, pending: PendingSnapshot) -> tuple[Change, ...]:
        """Snapshot after the command, record what it changed (or drop the record when it
        changed nothing); returns the changes."""
        with self.layout.locked():
            after = take_snapshot(self.git, self.settings.max_file_bytes)
            changes = changes_between(self.git, pending.before.tree, after.tree)
            left_out = pending.before.left_out.keys() | after.left_out.keys()
            unrecorded = sorted(
                p for p in left_out if pending.before.left_out.get(p) != after.left_out.get(p)
            )
            others = self._touched_by_others(pending)
            changes = [c for c in changes if c.path not in left_out and c.path not in others]
        if not changes and not unrecorded:
            self.records.remove_entry(pending.name)
            return ()
        entry = record(
            "snapshot",
            session=pending.call.session,
            call=pending.call.call_id,
            tool=pending.call.tool,
            state="done",
            time=pending.time,
            before_tree=pending.before.tree,
            after_tree=after.tree,
            summary=pending.summary,
            changes=[c.as_json() for c in changes],
            unrecorded=unrecorded,
        )
        self.records.write_entry(entry, pending.name)
        return tuple(changes)

    def _touched_by_others(self, pending: PendingSnapshot) -> set[str]:
        """Paths other calls recorded changes to while this command ran (a background job
        runs beside them): the job's snapshot must not claim their changes."""
        key = (pending.call.session, pending.call.call_id)
        touched: set[str] = set()
        for name, data in self.records.entries(since_ns=name_time_ns(pending.name)):
            if name != pending.name and (data["session"], data["call"]) != key:
                touched.update(change["path"] for change in data.get("changes", ()))
        return touched

    # -- history ------------------------------------------------------------------------

    def with_created_dirs(
        self, before_tree: str | None, changes: tuple[Change, ...]
    ) -> tuple[Change, ...]:
        """A command's ``changes``, each file it created with the directories it made for it
        (not in its before-snapshot), so an undo removes those again once empty."""
        created = [c for c in changes if c.before is None and not c.dirs]
        if before_tree is None or not created:
            return changes
        listed = self.git.run_lines("ls-tree", "-r", "-d", "-z", "--name-only", before_tree)
        existed = {os.fsdecode(p) for p in listed}
        result = []
        for change in changes:
            if change in created:
                parents = (str(p) for p in Path(change.path).parents if str(p) != ".")
                change = Change(
                    change.path, None, change.after, tuple(p for p in parents if p not in existed)
                )
            result.append(change)
        return tuple(result)

    def history(self) -> list[Checkpoint]:
        """Every checkpoint of this workspace, newest first."""
        if not self.layout.exists():
            return []
        return build_history(self.records.entries(), self.records.actions())

    def store_content(self, data: bytes, oid: str | None = None) -> None:
        """Keep ``data`` in the object store (durably; once per content)."""
        write_blob(self.layout.objects, data, oid)

    def write_action(self, kind: str, checkpoint: Checkpoint, **fields: Any) -> str:
        entry = record(kind, session=checkpoint.session, call=checkpoint.call_id, **fields)
        return self.records.write_action(entry)


def _default_mode() -> int:
    return 0o666 & ~current_umask()
