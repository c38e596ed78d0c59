"""Last-resort cleanup when the Python process exits without closing its sessions.

Background jobs and the persistent shell run in their own sessions, so they would outlive an
interpreter that exits (or crashes into ``sys.exit``) before ``Session.aclose``. Every group
and run id toolbelt starts is registered here, and an ``atexit`` hook ends them: SIGKILL to
each process group and the run-id sweep for anything that left it. A process killed with
SIGKILL runs no hooks: ``watchdog`` covers that (and the MCP server and the CLI also close
sessions on their normal paths and on SIGTERM).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal

from toolbelt.shell.procs import marked_processes

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
    for group, run_id in list(_live.items()):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
        for pid in marked_processes(run_id) if run_id else ():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    _live.clear()
