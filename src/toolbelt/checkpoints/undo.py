"""Undo and redo: put a call's files back as they were before it — or as it left them.

An undo holds the store's lock, finds the checkpoint (``CALL_ID``, else the newest one in
effect), and checks every file it changed: still as the call left it → restored; already as
before → nothing to do; anything else (edited since by a later call or by someone else,
deleted, replaced) → the undo is refused naming each such file and how it changed, unless
``force``. Before writing, what each file holds is stored and recorded with the undo, so a
redo (or an undo forced over someone's edit) can be undone in turn: a redo puts those images
back under the same check, against what the undo wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from toolbelt.checkpoints.history import Checkpoint
from toolbelt.checkpoints.restore import Restorer
from toolbelt.checkpoints.shadow_git import GitFailed
from toolbelt.checkpoints.snapshots import changes_between, take_snapshot
from toolbelt.checkpoints.states import Change, FileState, holds, read_current
from toolbelt.checkpoints.store import CheckpointStore
from toolbelt.checkpoints.wording import how_changed, label, listed_paths
from toolbelt.core.errors import ToolbeltError

__all__ = ["UndoError", "UndoOutcome", "redo", "undo"]


class UndoError(ToolbeltError):
    """An undo or redo that cannot (or may not) be done; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class UndoOutcome:
    """What an undo or redo did."""

    kind: Literal["undo", "redo"]
    checkpoint: Checkpoint
    restored: tuple[str, ...]
    """Files written back (their content before the call, or — redo — after it)."""
    removed: tuple[str, ...] = ()
    """Files removed (the call created them; a redo removes what the call deleted)."""
    already: tuple[str, ...] = ()
    """Files that already held what the undo (redo) would have put there."""
    failed: tuple[str, ...] = ()
    """Files that could not be written, each with the reason."""
    unrecorded: tuple[str, ...] = ()

    def describe(self) -> str:
        """One paragraph for the person who asked."""
        verb = "Undid" if self.kind == "undo" else "Redid"
        done = [
            f"{what} {listed_paths(paths, 10)}"
            for what, paths in (("restored", self.restored), ("removed", self.removed))
            if paths
        ]
        if self.already:
            held = "holds" if len(self.already) == 1 else "hold"
            done.append(f"{listed_paths(self.already)} already {held} that")
        text = f"{verb} {label(self.checkpoint)}: {'; '.join(done) or 'nothing to change'}."
        if self.failed:
            text += f" Not restored: {'; '.join(self.failed)}."
        if self.unrecorded:
            one = len(self.unrecorded) == 1
            text += (
                f" {listed_paths(self.unrecorded)} changed too but {'was' if one else 'were'} "
                f"over the snapshot size limit, so {'it is' if one else 'they are'} as the "
                f"command left {'it' if one else 'them'}."
            )
        return text


def undo(
    store: CheckpointStore, call_id: str | None = None, *, force: bool = False, hint: str = ""
) -> UndoOutcome:
    """Undo the call ``call_id`` (else the newest change in effect); ``hint`` tells how to
    force it in the caller's terms (``add --force``)."""
    _require_history(store, "undo")
    with store.layout.locked():
        history = store.history()
        target = _pick(history, call_id, "undo", store)
        if target.state == "interrupted":
            changes = _interrupted_changes(store, target, force=force, hint=hint)
            return _revert(store, target, history, changes, "undo", force=True, hint=hint)
        changes = store.with_created_dirs(target.before_tree, target.changes)
        return _revert(store, target, history, changes, "undo", force=force, hint=hint)


def redo(
    store: CheckpointStore, call_id: str | None = None, *, force: bool = False, hint: str = ""
) -> UndoOutcome:
    """Redo the call ``call_id`` (else the one undone last): put back what its undo replaced."""
    _require_history(store, "redo")
    with store.layout.locked():
        history = store.history()
        target = _pick(history, call_id, "redo", store)
        undone = target.last_action
        assert undone is not None
        changes = tuple(  # from what the undo wrote back to what it found
            Change(path, found, put) for path, found, put in undone.images
        )
        return _revert(store, target, history, changes, "redo", force=force, hint=hint)


def _require_history(store: CheckpointStore, kind: str) -> None:
    """Refuse before creating anything when nothing was ever recorded for the workspace."""
    if not store.layout.exists():
        raise UndoError(
            f"Nothing to {kind} in {store.root}: nothing was recorded there yet (changes made by "
            "toolbelt's tools are, from the first one on)."
        )
    store.layout.ensure()


def _revert(
    store: CheckpointStore,
    target: Checkpoint,
    history: list[Checkpoint],
    changes: tuple[Change, ...],
    kind: Literal["undo", "redo"],
    *,
    force: bool,
    hint: str,
) -> UndoOutcome:
    """Turn each change's ``after`` (what its file should hold now) back into its
    ``before``; refuses when a file holds something else, unless ``force``."""
    restorer = Restorer(store.layout, store.git)
    todo: list[tuple[Change, FileState | None, bytes | None]] = []
    already: list[str] = []
    images: list[dict[str, object]] = []
    conflicts: list[str] = []
    for change in changes:
        current, data = read_current(restorer.absolute(change.path))
        if holds(current, data, restorer.resolved(change.after)):
            todo.append((change, current, data))
        elif holds(current, data, restorer.resolved(change.before)):  # its writer was killed
            already.append(change.path)
            images.append({"path": change.path, "state": _json(current), "put": _json(current)})
        else:
            conflicts.append(how_changed(change, current) + _by_whom(target, history, change))
            todo.append((change, current, data))
    if conflicts and not force:
        raise UndoError(
            f"Refusing to {kind} {label(target)}: {'; '.join(conflicts)}. "
            f"{'Undo' if kind == 'undo' else 'Redo'} the later change first, or "
            f"{hint or 'force it'} to overwrite {'it' if len(conflicts) == 1 else 'them'}."
        )
    restored: list[str] = []
    removed: list[str] = []
    failed: list[str] = []
    for change, current, data in todo:
        try:
            if current is not None and data is not None:
                store.store_content(data, current.oid)  # what a redo (or an undo) puts back
            restorer.put(change.path, change.before, dirs=change.dirs)
        except (OSError, ToolbeltError, GitFailed) as exc:
            failed.append(f"{change.path} ({exc})")
            continue
        keep = current if current is not None and current.kind in ("file", "link") else None
        images.append({"path": change.path, "state": _json(keep), "put": _json(change.before)})
        (restored if change.before is not None else removed).append(change.path)
    if images:  # the call counts as undone (redone) even when nothing needed writing
        store.write_action(kind, target, images=images, forced=bool(conflicts))
    return UndoOutcome(
        kind,
        target,
        tuple(restored),
        tuple(removed),
        tuple(already),
        tuple(failed),
        target.unrecorded if kind == "undo" else (),
    )


def _json(state: FileState | None) -> dict[str, object] | None:
    return None if state is None else state.as_json()


def _by_whom(target: Checkpoint, history: list[Checkpoint], change: Change) -> str:
    """How ``change``'s file came to differ: "since, by edit_file call X (12:04:05)" when a
    later call in effect changed it, else "since, by someone else"."""
    for later in history:  # newest first
        if later.last_time <= target.last_time:
            break
        if later.state == "active" and change.path in later.paths:
            return f" since, by {label(later)}"
    return " since, by someone else"


def _pick(
    history: list[Checkpoint], call_id: str | None, kind: str, store: CheckpointStore
) -> Checkpoint:
    wanted = "undone" if kind == "redo" else "active"
    if call_id is None:
        if kind == "redo":
            undone = [c for c in history if c.state == "undone" and c.last_action is not None]
            undone.sort(key=lambda c: c.last_action.name if c.last_action else "", reverse=True)
            found = undone[:1]
        else:
            found = [c for c in history if c.state == wanted][:1]
        if not found:
            nothing = "no undone call to redo" if kind == "redo" else "no recorded change in effect"
            raise UndoError(
                f"Nothing to {kind} in {store.root}: {nothing} (`toolbelt checkpoints` lists them)."
            )
        return found[0]
    matches = [c for c in history if _names(c, call_id)]
    if not matches:
        raise UndoError(
            f"No checkpoint of {store.root} has the call id {call_id!r}; `toolbelt checkpoints` "
            "lists them, newest first."
        )
    target = next((c for c in matches if c.state in (wanted, "interrupted")), matches[0])
    if target.state == "running":
        raise UndoError(f"{label(target)} is still running; {kind} it once it has ended.")
    if kind == "undo" and target.state == "undone":
        raise UndoError(f"{label(target)} is already undone; redo puts it back.")
    if kind == "redo" and target.state != "undone":
        raise UndoError(f"{label(target)} is not undone, so there is nothing to redo.")
    return target


def _names(checkpoint: Checkpoint, call_id: str) -> bool:
    if call_id == checkpoint.call_id:
        return True
    session, _, call = call_id.rpartition(":")
    return bool(session) and call == checkpoint.call_id and checkpoint.session.startswith(session)


def _interrupted_changes(
    store: CheckpointStore, target: Checkpoint, *, force: bool, hint: str
) -> tuple[Change, ...]:
    """An interrupted command's changes: whatever differs now from its before-snapshot."""
    if target.before_tree is None:
        return ()
    now = take_snapshot(store.git, store.settings.max_file_bytes)
    found = tuple(changes_between(store.git, target.before_tree, now.tree))
    changes = store.with_created_dirs(target.before_tree, found)
    if changes and not force:
        raise UndoError(
            f"{label(target)} did not finish (its process ended before the after-snapshot), so "
            f"which files it changed is unknown; undoing it would put back "
            f"{listed_paths([c.path for c in changes])} as they were before it, with any change "
            f"made since by anyone; {hint or 'force it'} to do that."
        )
    return changes
