"""Records grouped into checkpoints: one per call that changed something, newest first.

A call may leave several change records (a file tool writing twice, ``apply_patch`` changing
several files): they form one checkpoint, whose change to each path runs from what the path
held before the call's first record to what its last one left. A checkpoint is

- ``active`` — its changes are in the workspace, as far as toolbelt knows;
- ``undone`` — its last action was an undo (a redo makes it active again);
- ``running`` — a command (or background job) still in progress: not undoable yet;
- ``interrupted`` — a command whose process ended before its after-snapshot: which files it
  changed is unknown, only what they held before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from toolbelt.checkpoints.records import name_time_ns, process_alive
from toolbelt.checkpoints.states import Change, FileState

__all__ = ["Action", "Checkpoint", "build_history"]

State = Literal["active", "undone", "running", "interrupted"]


@dataclass(frozen=True, slots=True)
class Action:
    """An undo or redo of one checkpoint, with what its files held just before it."""

    name: str
    kind: Literal["undo", "redo"]
    session: str
    call_id: str
    time: float
    images: tuple[tuple[str, FileState | None, FileState | None], ...]
    """Per path: what it held just before this action, and what the action put there."""
    forced: bool = False

    @classmethod
    def from_record(cls, name: str, data: dict[str, Any]) -> Action:
        images = tuple(
            (i["path"], FileState.from_json(i.get("state")), FileState.from_json(i.get("put")))
            for i in data["images"]
        )
        return cls(
            name,
            data["kind"],
            data["session"],
            data["call"],
            data["time"],
            images,
            bool(data.get("forced")),
        )


@dataclass(slots=True)
class Checkpoint:
    """What one call changed, and where that stands now."""

    session: str
    """The session that made the call (``toolbelt call`` makes one per call)."""
    call_id: str
    tool: str
    time: float
    """When its first change was recorded (seconds since the epoch)."""
    changes: tuple[Change, ...]
    state: State
    summary: str = ""
    """The command, for a command's checkpoint."""
    unrecorded: tuple[str, ...] = ()
    """Paths the call changed that the snapshot left out (bigger than the size limit)."""
    before_tree: str | None = None
    """A command's before-snapshot (a tree in the shadow repository)."""
    entry_names: tuple[str, ...] = ()
    last_time: float = 0.0
    actions: list[Action] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str]:
        return self.session, self.call_id

    @property
    def last_action(self) -> Action | None:
        return self.actions[-1] if self.actions else None

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(change.path for change in self.changes)

    def as_json(self) -> dict[str, Any]:
        return {
            "call_id": self.call_id,
            "session": self.session,
            "tool": self.tool,
            "time": self.time,
            "state": self.state,
            "summary": self.summary,
            "files": [{"path": c.path, "change": c.verb} for c in self.changes],
            "unrecorded": list(self.unrecorded),
        }


def build_history(
    entries: list[tuple[str, dict[str, Any]]], actions: list[tuple[str, dict[str, Any]]]
) -> list[Checkpoint]:
    """The checkpoints the records describe, newest first (by their latest record)."""
    grouped: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = {}
    for name, data in entries:
        grouped.setdefault((data["session"], data["call"]), []).append((name, data))
    found = {key: _checkpoint(records) for key, records in grouped.items()}
    for name, data in actions:
        checkpoint = found.get((data["session"], data["call"]))
        if checkpoint is not None and data.get("kind") in ("undo", "redo"):
            checkpoint.actions.append(Action.from_record(name, data))
    for checkpoint in found.values():
        last = checkpoint.last_action
        undone = last is not None and last.kind == "undo"
        if checkpoint.state in ("active", "interrupted") and undone:
            checkpoint.state = "undone"
    listed = [c for c in found.values() if c.changes or c.state != "active" or c.actions]
    return sorted(listed, key=lambda c: c.last_time, reverse=True)


def _checkpoint(records: list[tuple[str, dict[str, Any]]]) -> Checkpoint:
    first = records[0][1]
    merged: dict[str, Change] = {}
    unrecorded: list[str] = []
    state: State = "active"
    before_tree = None
    for _, data in records:
        before_tree = before_tree or data.get("before_tree")
        if data.get("state") == "pending":
            state = "running" if process_alive(data["pid"], data.get("started")) else "interrupted"
        unrecorded += data.get("unrecorded", ())
        for raw in data.get("changes", ()):
            change = Change.from_json(raw)
            earlier = merged.get(change.path)
            if earlier is not None:
                change = Change(change.path, earlier.before, change.after, earlier.dirs)
            merged[change.path] = change
    changes = tuple(c for c in merged.values() if c.before != c.after)  # a chmod counts
    return Checkpoint(
        session=first["session"],
        call_id=first["call"],
        tool=first["tool"],
        time=first["time"],
        changes=changes,
        state=state,
        summary=first.get("summary", ""),
        unrecorded=tuple(dict.fromkeys(unrecorded)),
        before_tree=before_tree,
        entry_names=tuple(name for name, _ in records),
        last_time=max(name_time_ns(name) for name, _ in records) / 1e9,
    )
