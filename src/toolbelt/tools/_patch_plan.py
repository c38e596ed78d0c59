"""apply_patch's plan: every file a patch touches, read, checked and changed in memory first.

Nothing is written while planning, so a hunk that does not apply, a file that was never read
or a path that cannot be written refuses the whole patch before any file changes. The files
are kept as slots of a small in-memory tree, so operations compose in patch order: a second
section on the same file sees the first one's result, a file deleted and added again is
replaced, a moved file is updated under its new name.

Each file follows the rules of the tool that would make that change alone: an update is
edit_file's (the file read in this session, a notebook refused, its encoding, BOM and line
endings kept), replacing an existing file whole (``*** Add File`` over it, or a move onto it)
and deleting one are write_file's (read in this session and unchanged since). The plan keeps
what the policy needs — every real path, the protections the path guard found — and a diff per
file for the prompt, the events and the result.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from toolbelt.core.access import Access
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.wording import counted
from toolbelt.files.diff import diff_stats, region_diff, unified_text
from toolbelt.files.patch_apply import apply_hunks
from toolbelt.files.patch_format import AddFile, DeleteFile, UpdateFile, parse_patch
from toolbelt.files.text import DecodedText, decode_text, encode_text, looks_binary
from toolbelt.files.tracker import Freshness
from toolbelt.paths.guard import ResolvedPath
from toolbelt.tools._files import (
    MAX_EDIT_BYTES,
    Change,
    file_guard,
    read_tracker,
    require_read_to_match,
    resolve,
    write_access,
)

__all__ = ["PatchPlan", "PlannedChange", "kept_plan", "plan_patch", "plan_rewrites"]

Action = Literal["add", "update", "delete"]
_PLAIN = DecodedText("")


@dataclass(frozen=True, slots=True)
class PlannedChange:
    """One file's change: its bytes before and after (None: absent), and its diff."""

    resolved: ResolvedPath
    shown: str
    action: Action
    before: bytes | None
    after: bytes | None
    change: Change
    mode: int | None
    """The mode bits a created file gets (a moved file keeps its own); None: the default."""
    original_mode: int | None
    """The mode bits of the file on disk, to put a removed file back with."""
    moved_from: str | None = None
    moved_to: str | None = None
    """Set on the source of a move: its removal is part of the move, not a deletion."""
    recoveries: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    stale: bool = False
    quote: bool = True
    """Whether the result may show this file's text (a read would not have asked)."""


@dataclass(frozen=True, slots=True)
class PatchPlan:
    """Every change of one patch, writes first, and how to tell the files have not moved."""

    changes: tuple[PlannedChange, ...]
    seen: tuple[tuple[Path, tuple[int, int] | None], ...]
    """(real path, (size, mtime) or None when absent) of every file read for the plan."""

    def still_current(self) -> bool:
        """Whether every file is still as it was when the plan was made."""
        return all(_signature(path) == signature for path, signature in self.seen)

    def access(self, summary: str) -> Access:
        """Writing this plan, as the policy is asked about it (``access`` keeps the plan for
        ``run``: see ``kept_plan``)."""
        preview = "".join(change.change.unified for change in self.changes)
        return write_access(summary, preview, *(change.resolved for change in self.changes))


def kept_plan(ctx: ToolContext, key: str, made_for: object) -> PatchPlan | None:
    """The plan ``access`` kept in ``ctx.scratch[key]`` with what it was ``made_for`` (the
    call's arguments), when ``run`` has the same arguments and no file changed since."""
    kept = ctx.scratch.pop(key, None)
    if kept is not None and kept[0] == made_for and kept[1].still_current():
        plan: PatchPlan = kept[1]
        return plan
    return None


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


@dataclass(eq=False)
class _Slot:
    """One path of the patch's in-memory tree: what is on disk, and what the patch makes."""

    resolved: ResolvedPath
    shown: str
    disk: bytes | None
    mode: int | None
    freshness: Freshness | None
    present: bool
    text: str | None = None
    """The planned content (None while a present file has not been decoded)."""
    like: DecodedText = _PLAIN
    """How the planned content is stored: encoding, BOM, newlines."""
    origin: _Slot | None = None
    """The slot this content was moved from."""
    disk_text: str | None = None
    signature: tuple[int, int] | None = None
    """(size, mtime) of the file on disk when it was read."""
    checked: bool = False
    stale: bool = False
    """Updated though it changed on disk since the model read it."""
    recoveries: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class _Planner:
    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.slots: dict[Path, _Slot] = {}

    def slot(self, raw: str, line: int) -> _Slot:
        try:
            resolved = resolve(self.ctx, raw)
        except ToolError as exc:
            if line <= 0:  # not from a patch (plan_rewrites)
                raise
            raise type(exc)(f"Patch line {line}: {exc}") from exc
        found = self.slots.get(resolved.path)
        if found is not None:
            return found
        shown = file_guard(self.ctx).display(resolved.path)
        data, mode, freshness, signature = None, None, None, None
        if resolved.exists:
            data, info = self._read(resolved, shown)
            mode = stat.S_IMODE(info.st_mode)
            freshness = read_tracker(self.ctx).check(resolved.path, data, info)
            signature = (info.st_size, info.st_mtime_ns)
        slot = _Slot(resolved, shown, data, mode, freshness, present=data is not None)
        slot.signature = signature
        self.slots[resolved.path] = slot
        return slot

    def _read(self, resolved: ResolvedPath, shown: str) -> tuple[bytes, os.stat_result]:
        with os.fdopen(file_guard(self.ctx).open_for_read(resolved), "rb") as handle:
            info = os.fstat(handle.fileno())
            if info.st_size > MAX_EDIT_BYTES:
                raise ToolError(
                    f"{shown} is {counted(info.st_size, 'byte')}, too large to change here."
                )
            return handle.read(), info

    def check_seen(self, slot: _Slot, *, whole: bool) -> None:
        """The file on disk may be changed: seen by the model in this session (and, for a
        ``whole`` replacement or a removal, unchanged since)."""
        if slot.checked or slot.disk is None:
            return
        require_read_to_match(self.ctx, slot.resolved)
        if slot.freshness is Freshness.UNREAD and self.ctx.session.config.require_read_before_write:
            raise ToolError(
                f"{slot.shown} has not been read in this session. Read it with read_file first, "
                "so the change is based on its current content."
            )
        if whole and slot.freshness is Freshness.CHANGED:
            raise ToolError(
                f"{slot.shown} has changed since you read it (another program or the user "
                "edited it). Read it again with read_file before replacing or deleting it."
            )
        slot.checked = True

    def refuse_link(self, raw: str, line: int, section: str) -> None:
        """Refuse to remove (delete, or move away) a file named through a symbolic link: the
        plan works on the file the link leads to, so it would remove that file — perhaps
        outside the workspace — and leave the link dangling, not remove the link."""
        base = self.ctx.cwd if self.ctx.cwd.is_absolute() else Path.cwd() / self.ctx.cwd
        written = os.path.join(base, os.path.expanduser(raw) if raw.startswith("~") else raw)
        if not os.path.islink(written.rstrip("/")):
            return
        raise ToolError(
            f"{raw} is a symbolic link (patch line {line}); {section} would remove the file it "
            "leads to, not the link. To remove the link itself, use bash (`rm` on the link)."
        )

    def text_of(self, slot: _Slot) -> str:
        """The slot's current text, decoding the file on disk the first time."""
        if slot.text is None:
            data = slot.disk or b""
            kind = looks_binary(data[:8192])
            if kind is not None:
                raise ToolError(f"{slot.shown} is {kind}; it cannot be changed as text.")
            try:
                slot.like = decode_text(data)
            except ToolError as exc:
                raise ToolError(f"{slot.shown}: {exc}") from exc
            slot.text = slot.disk_text = slot.like.text
        return slot.text

    # -- the three operations -------------------------------------------------------------

    def update(self, op: UpdateFile) -> None:
        source = self.slot(op.path, op.line)
        if not source.present:
            raise ToolError(
                f"{source.shown} does not exist (patch line {op.line}); `*** Update File` "
                "changes existing files — create it with `*** Add File`."
            )
        if source.resolved.path.suffix.lower() == ".ipynb" and op.hunks:
            raise ToolError(
                f"{source.shown} is a Jupyter notebook; change its cells with notebook_edit."
            )
        self.check_seen(source, whole=False)
        text = self.text_of(source)
        quote = self.ctx.may_quote(source.resolved.path)
        patched = apply_hunks(text, op.hunks, label=source.shown, quote=quote)
        target = source
        if op.move_to is not None:
            self.refuse_link(op.path, op.line, "`*** Move to`")
            target = self.slot(op.move_to, op.line)
            if target is not source:
                if target.present:
                    self.check_seen(target, whole=True)
                target.like, target.origin = source.like, source.origin or source
                target.mode = target.mode if target.disk is not None else source.mode
                source.present, source.text = False, None
        target.present, target.text = True, patched.text
        target.recoveries += _for_patch(patched.recoveries)
        target.notes += _for_patch(patched.notes)
        target.stale |= source.freshness is Freshness.CHANGED

    def add(self, op: AddFile) -> None:
        slot = self.slot(op.path, op.line)
        if slot.present and slot.disk is not None and slot.text is None:
            self.check_seen(slot, whole=True)
            if looks_binary(slot.disk[:8192]) is None:
                self.text_of(slot)  # an overwritten file keeps its encoding and newlines
        slot.present, slot.text, slot.origin = True, op.content, None

    def delete(self, op: DeleteFile) -> None:
        slot = self.slot(op.path, op.line)
        if not slot.present:
            raise ToolError(
                f"{slot.shown} does not exist (patch line {op.line}), or the patch already "
                "removed or moved it; leave out its `*** Delete File` section."
            )
        self.refuse_link(op.path, op.line, "`*** Delete File`")
        self.check_seen(slot, whole=True)
        slot.present, slot.text, slot.origin = False, None, None

    # -- the result -------------------------------------------------------------------------

    def changes(self) -> list[PlannedChange]:
        writes: list[PlannedChange] = []
        removals: list[PlannedChange] = []
        moved_to = {
            slot.origin.resolved.path: slot.shown
            for slot in self.slots.values()
            if slot.origin is not None and slot.present
        }
        for slot in self.slots.values():
            after = self._stored(slot)
            if after == slot.disk:
                continue
            planned = self._planned(slot, after, moved_to.get(slot.resolved.path))
            (removals if after is None else writes).append(planned)
        return writes + removals

    def _stored(self, slot: _Slot) -> bytes | None:
        if not slot.present:
            return None
        if slot.text is None:
            return slot.disk  # present and untouched
        try:
            return encode_text(slot.text.replace("\r\n", "\n"), slot.like)
        except ToolError as exc:
            raise ToolError(f"{slot.shown}: {exc}") from exc

    def _planned(self, slot: _Slot, after: bytes | None, moved_to: str | None) -> PlannedChange:
        origin = slot.origin if slot.disk is None else None
        before_text = _shown_text(origin if origin is not None else slot)
        after_text = (slot.text or "") if after is not None else ""
        action: Action = "add" if slot.disk is None else "update" if after is not None else "delete"
        hunks = region_diff(before_text, after_text)
        unified = unified_text(
            slot.shown,
            hunks,
            source=origin.shown if origin is not None else None,
            created=action == "add" and origin is None,
            deleted=action == "delete",
        )
        added, removed = diff_stats(hunks)
        return PlannedChange(
            resolved=slot.resolved,
            shown=slot.shown,
            action=action,
            before=slot.disk,
            after=after,
            change=Change(hunks, unified, added, removed),
            mode=slot.mode if slot.disk is None else None,
            original_mode=slot.mode if slot.disk is not None else None,
            moved_from=origin.shown if origin is not None else None,
            moved_to=moved_to,
            recoveries=tuple(slot.recoveries),
            notes=tuple(slot.notes),
            stale=slot.stale,
            quote=self.ctx.may_quote(slot.resolved.path),
        )


def _shown_text(slot: _Slot) -> str:
    """The text the file held on disk, for its diff ("" when absent or not text)."""
    if slot.disk_text is None and slot.disk is not None and looks_binary(slot.disk[:8192]) is None:
        try:
            slot.disk_text = decode_text(slot.disk).text
        except ToolError:
            slot.disk_text = ""
    return slot.disk_text or ""


def _for_patch(said: tuple[str, ...]) -> list[str]:
    """Recovery labels and notes in a patch's words (the edit tools say old_string)."""
    return [
        line.replace("old_string", "the hunk").replace("new_string", "the '+' lines")
        for line in said
    ]


def plan_patch(ctx: ToolContext, patch: str) -> PatchPlan:
    """Parse ``patch`` and plan every change it makes; ``ToolError`` when any part cannot
    be applied (nothing is written either way)."""
    planner = _Planner(ctx)
    for op in parse_patch(patch):
        if isinstance(op, UpdateFile):
            planner.update(op)
        elif isinstance(op, AddFile):
            planner.add(op)
        else:
            planner.delete(op)
    changes = planner.changes()
    if not changes:
        raise ToolError(
            "The patch leaves every file as it was, so nothing was changed; check that its '+' "
            "and '-' lines say what should change."
        )
    seen = tuple((path, slot.signature) for path, slot in planner.slots.items())
    return PatchPlan(tuple(changes), seen)


def plan_rewrites(
    ctx: ToolContext, rewrites: Sequence[tuple[str, Callable[[str], str]]]
) -> PatchPlan:
    """Plan changing each file (a path as the model or a server names it) to what its
    function makes of its text: symbol edits (a rename across the code base, a replaced
    definition), through the same checks, encodings and diffs as a patch. A file need not
    have been read first (a rename reaches files the model never opened); one whose read
    would ask is refused (``require_read_to_match``), like one changed by a patch."""
    planner = _Planner(ctx)
    for raw, rewrite in rewrites:
        slot = planner.slot(raw, 0)
        if not slot.present:
            raise ToolError(f"{slot.shown} does not exist.")
        require_read_to_match(ctx, slot.resolved)
        slot.text = rewrite(planner.text_of(slot))
        slot.stale |= slot.freshness is Freshness.CHANGED
    changes = planner.changes()
    seen = tuple((path, slot.signature) for path, slot in planner.slots.items())
    return PatchPlan(tuple(changes), seen)
