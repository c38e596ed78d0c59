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

from toolbelt.procs.ending import end_trees, marked_processes
from toolbelt.procs.identity import Anchor, start_time

__all__ = ["forget", "remember"]

_live: dict[Anchor, str] = {}  # an anchor (it leads its process group) -> run id


def remember(anchor: Anchor, run_id: str) -> None:
    """Track an anchor (and its run id) whose tree must not outlive this interpreter."""
    _live[anchor] = run_id


def forget(anchor: Anchor) -> None:
    """The anchor's tree was ended the normal way."""
    _live.pop(anchor, None)


@atexit.register
def _end_everything() -> None:
    # only anchors not yet reaped: the pid of one that was may be a user's process by now
    seeds: dict[int, int | None] = {a.pid: a.start for a in list(_live) if a.alive()}
    for run_id in filter(None, _live.values()):
        seeds.update((pid, start_time(pid)) for pid in marked_processes(run_id))
    if seeds:
        end_trees(seeds)
    _live.clear()
