"""``Checkpoints``: one runtime's view of its workspace's checkpoints.

The library's face of undo — ``await runtime.checkpoints.list()``, ``.undo(call_id)``,
``.redo()`` — and ``notices()``, what the model should be told about its calls that the
person undid or redid (from this process or any other), for the agent loop to deliver on its
next turn. It is also what the tools' hooks record through: the runtime stores it in the
session (``Session.resource``), where the file journal (``journal``) and the command wrapper
(``toolset``) find it; a session without one records nothing.

Closing it (the session closes its resources) waits, boundedly, for the after-snapshots of
background jobs that ended with the session, and stops a background prune.
"""

from __future__ import annotations

import builtins
import functools
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from toolbelt.checkpoints.settings import CheckpointSettings

if TYPE_CHECKING:  # the machinery loads on the first call that records (see ``store``)
    from concurrent.futures import ThreadPoolExecutor

    from toolbelt.checkpoints.history import Checkpoint
    from toolbelt.checkpoints.retention import Pruner
    from toolbelt.checkpoints.store import CallInfo, CheckpointStore, PendingSnapshot
    from toolbelt.checkpoints.undo import UndoOutcome

__all__ = ["Checkpoints"]

_JOB_WAIT = 30.0
"""Seconds closing waits for ended jobs' after-snapshots."""
_FILE_TOOLS = ("write_file", "edit_file", "multi_edit", "notebook_edit", "apply_patch")


class Checkpoints:
    """The checkpoints of a runtime's workspace, and the hooks its tools record through."""

    def __init__(
        self, root: Path, *, session_id: str, settings: CheckpointSettings | None = None
    ) -> None:
        self._root = root
        self._settings = settings or CheckpointSettings()
        self.session_id = session_id
        self._since_ns = time.time_ns()
        self._told: set[str] = set()
        self._watchers: builtins.list[threading.Thread] = []
        self._keeping: ThreadPoolExecutor | None = None

    @functools.cached_property
    def store(self) -> CheckpointStore:
        """The workspace's store, made on first use: a runtime that only answers an MCP
        client's ``initialize`` (or never records) does not import its machinery."""
        from toolbelt.checkpoints.store import CheckpointStore

        return CheckpointStore(self._root, self._settings)

    @functools.cached_property
    def _pruner(self) -> Pruner:
        from toolbelt.checkpoints.retention import Pruner

        return Pruner(self.store)

    @property
    def settings(self) -> CheckpointSettings:
        return self._settings

    # -- the library's undo -------------------------------------------------------------

    async def list(self) -> list[Checkpoint]:
        """Every checkpoint of the workspace, from any process, newest first."""
        return await anyio.to_thread.run_sync(self.store.history)

    async def undo(self, call_id: str | None = None, *, force: bool = False) -> UndoOutcome:
        """Undo ``call_id`` (else the newest change in effect); ``UndoError`` says why not."""
        from toolbelt.checkpoints.undo import undo

        return await anyio.to_thread.run_sync(
            lambda: undo(self.store, call_id, force=force, hint="pass force=True")
        )

    async def redo(self, call_id: str | None = None, *, force: bool = False) -> UndoOutcome:
        """Redo ``call_id`` (else the call undone last); ``UndoError`` says why not."""
        from toolbelt.checkpoints.undo import redo

        return await anyio.to_thread.run_sync(
            lambda: redo(self.store, call_id, force=force, hint="pass force=True")
        )

    def notices(self) -> builtins.list[str]:
        """What to tell the model, once each, about undos and redos of this session's calls
        made since the runtime started (by the person, from here or another process)."""
        if not self.store.layout.exists():
            return []
        fresh = [
            (name, data)
            for name, data in self.store.records.actions(since_ns=self._since_ns)
            if name not in self._told and data.get("session") == self.session_id
        ]
        if not fresh:
            return []
        self._told.update(name for name, _ in fresh)
        found = {c.key: c for c in self.store.history()}
        notices = []
        for _, data in fresh:
            checkpoint = found.get((data["session"], data["call"]))
            if checkpoint is not None:
                paths = [image["path"] for image in data.get("images", ())]
                notices.append(_notice(data["kind"], checkpoint, paths))
        return notices

    # -- what the tools record through --------------------------------------------------

    def call(self, call_id: str, tool: str) -> CallInfo:
        from toolbelt.checkpoints.store import CallInfo

        return CallInfo(self.session_id, call_id, tool)

    def record_file(self, call: CallInfo, path: Path, after: bytes | None) -> str:
        from toolbelt.checkpoints.states import BIG_FILE

        name = self.store.record_file(call, path, after)
        if after is not None and len(after) < BIG_FILE:
            self._keeper().submit(self.store.store_content, after)
        self._pruner.maybe_start()
        return name

    def _keeper(self) -> ThreadPoolExecutor:
        """Stores what a call wrote, off the call's path: it is the next edit's before-image
        (which then costs one fsync, not two); a content stored once is only touched again."""
        if self._keeping is None:
            from concurrent.futures import ThreadPoolExecutor

            self._keeping = ThreadPoolExecutor(1, thread_name_prefix="toolbelt-keep")
        return self._keeping

    def withdraw(self, name: str) -> None:
        self.store.withdraw(name)

    def begin_command(self, call: CallInfo, summary: str) -> PendingSnapshot:
        return self.store.begin_snapshot(call, summary)

    def end_command(self, pending: PendingSnapshot) -> None:
        if self.store.finish_snapshot(pending):
            self._pruner.maybe_start()

    def watch_job(self, pending: PendingSnapshot, ended: threading.Event) -> None:
        """Take the job's after-snapshot once ``ended`` is set (it ended, or was killed)."""

        from toolbelt.checkpoints.shadow_git import GitFailed

        def wait_then_snapshot() -> None:
            ended.wait()
            try:
                self.end_command(pending)
            except (OSError, GitFailed, ValueError):
                return  # stays pending: listed as interrupted, undoable with force

        watcher = threading.Thread(target=wait_then_snapshot, name="toolbelt-job-snapshot")
        watcher.daemon = True
        watcher.start()
        self._watchers.append(watcher)

    async def aclose(self) -> None:
        """Wait (at most 30 s in all) for ended jobs' after-snapshots; stop a prune."""
        deadline = time.monotonic() + _JOB_WAIT
        for watcher in self._watchers:
            left = deadline - time.monotonic()
            if left > 0:
                await anyio.to_thread.run_sync(watcher.join, left)
        self._watchers.clear()
        if "_pruner" in self.__dict__:  # none was made: no prune ever started
            await anyio.to_thread.run_sync(self._pruner.stop)
        if self._keeping is not None:
            self._keeping.shutdown(wait=False)


def _notice(kind: str, checkpoint: Checkpoint, paths: builtins.list[str]) -> str:
    """``The person reverted your last edit of src/app.py (edit_file call t1): …``."""
    call = f"{checkpoint.tool} call {checkpoint.call_id}"
    one = len(paths) == 1
    from toolbelt.checkpoints.wording import listed_paths

    files = listed_paths(paths) if paths else "its files"
    if checkpoint.tool in _FILE_TOOLS and one:
        what = f"your last edit of {paths[0]} ({call})"
    elif checkpoint.summary:
        what = f"your command `{checkpoint.summary[:120]}` ({call}), which changed {files}"
    else:
        what = f"your {call}, which changed {files}"
    subject, they, them = (files, "it", "it") if one else ("they", "they", "them")
    if kind == "undo":
        state = f"{subject} {'is' if one else 'are'} back to what {they} held before that call"
    else:
        state = f"{subject} {'holds' if one else 'hold'} again what that call left"
    verb = "reverted" if kind == "undo" else "restored"
    after = "" if kind == "undo" else " after undoing it"
    return f"The person {verb} {what}{after}: {state}. Read {them} again before changing {them}."
