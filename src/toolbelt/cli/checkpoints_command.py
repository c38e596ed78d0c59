"""``toolbelt checkpoints``, ``toolbelt undo`` and ``toolbelt redo``: a workspace's history of
changes, from any process, and putting it back.

Exit status: 0 done, 1 nothing to undo or redo / refused (the message says which files
changed since and how to force it), 2 bad usage (no such directory, malformed settings).
"""

from __future__ import annotations

import sys
from pathlib import Path

from toolbelt.checkpoints.history import Checkpoint
from toolbelt.checkpoints.store import CheckpointStore
from toolbelt.checkpoints.undo import UndoError, redo, undo
from toolbelt.checkpoints.wording import when
from toolbelt.cli.json_output import print_json
from toolbelt.config.settings import load_settings
from toolbelt.core.errors import UsageError
from toolbelt.core.terminal_text import escape_for_terminal

__all__ = ["list_checkpoints", "undo_or_redo"]

_LETTERS = {"created": "A", "modified": "M", "deleted": "D"}


def list_checkpoints(root: str, *, as_json: bool) -> int:
    """Print the workspace's checkpoints, newest first."""
    store = _store(root)
    if store is None:
        return 2
    history = store.history()
    if as_json:
        print_json([checkpoint.as_json() for checkpoint in history])
        return 0
    if not history:
        print(f"No checkpoints for {store.root} yet: changes made by toolbelt's tools appear here.")
        return 0
    rows = [("CALL ID", "SESSION", "TOOL", "TIME", "STATE", "FILES")]
    rows += [_row(checkpoint) for checkpoint in history]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:5], widths, strict=True)]
        print(escape_for_terminal("  ".join([*cells, row[5]]).rstrip()))
    return 0


def undo_or_redo(call_id: str | None, *, root: str, force: bool, redoing: bool) -> int:
    """Undo (or redo) a call's changes and say what was restored."""
    store = _store(root)
    if store is None:
        return 2
    action = redo if redoing else undo
    try:
        outcome = action(store, call_id, force=force, hint="add --force")
    except UndoError as exc:
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return 1
    print(escape_for_terminal(outcome.describe()))
    return 1 if outcome.failed else 0


def _store(root: str) -> CheckpointStore | None:
    directory = Path(root).expanduser()
    if not directory.is_dir():
        print(
            f"toolbelt: the workspace root {root!r} is not an existing directory.", file=sys.stderr
        )
        return None
    try:
        settings = load_settings(directory.resolve())
    except UsageError as exc:
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return None
    return CheckpointStore(directory, settings.checkpoints)


def _row(checkpoint: Checkpoint) -> tuple[str, str, str, str, str, str]:
    files = ", ".join(f"{_LETTERS[c.verb]} {c.path}" for c in checkpoint.changes[:5])
    if len(checkpoint.changes) > 5:
        files += f" … +{len(checkpoint.changes) - 5}"
    if checkpoint.state in ("running", "interrupted") and not files:
        files = f"`{checkpoint.summary[:60]}`"
    return (
        checkpoint.call_id,
        checkpoint.session[:8],
        checkpoint.tool,
        when(checkpoint.time),
        checkpoint.state,
        files,
    )
