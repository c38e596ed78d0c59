"""Last-resort cleanup when the Python process exits without closing its sessions.

Background jobs and the persistent shell run in their own sessions, so they would outlive an
interpreter that exits (or crashes into ``sys.exit``) before ``Session.aclose``. Every group
and run id toolbelt starts is registered here, and an ``atexit`` hook ends them: each group's
anchor (``subreaper``) with every descendant, and whatever carries a registered run id. A
process killed with SIGKILL runs no hooks: ``watchdog`` covers that (and the MCP server and
the CLI also close sessions on their normal paths and on SIGTERM).
"""

from __future__ import annotations

import atexit

from toolbelt.shell.procs import end_trees, marked_processes

__all__ = ["forget", "remember"]

_live: dict[int, str] = {}  # process group -> run id


def remember(group: int, run_id: str) -> None:
    """Track a process group (and its run id) that must not outlive this interpreter."""
    _live[group] = run_id


def forget(group: int) -> None:
    """The group was ended the normal way."""
    _live.pop(group, None)


@atexit.register
def _end_everything() -> None:
    seeds = set(_live)
    for run_id in filter(None, _live.values()):
        seeds.update(marked_processes(run_id))
    if seeds:
        end_trees(seeds)
    _live.clear()
