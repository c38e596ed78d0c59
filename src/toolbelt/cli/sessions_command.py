"""``toolbelt sessions``: the workspace's saved conversations, the most recent first."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from toolbelt.agent.sessions import list_sessions
from toolbelt.cli.json_output import print_json
from toolbelt.core.terminal_text import escape_for_terminal

__all__ = ["list_saved"]


def list_saved(root: str, *, as_json: bool) -> int:
    """Print each conversation's id, when it was last used, its size and its first prompt."""
    directory = Path(root).expanduser().resolve()
    if not directory.is_dir():
        print(f"toolbelt: the workspace root {root!r} is not a directory.", file=sys.stderr)
        return 2
    sessions = list_sessions(directory)
    if as_json:
        print_json(
            [
                {
                    "id": s.id,
                    "updated": s.updated,
                    "title": s.title,
                    "bytes": s.size,
                    "path": str(s.path),
                }
                for s in sessions
            ]
        )
        return 0
    if not sessions:
        print(f"No saved conversation for {directory}; start one with `toolbelt chat`.")
        return 0
    for summary in sessions:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(summary.updated))
        print(f"{summary.id}  {when}  {escape_for_terminal(summary.title)}")
    return 0
