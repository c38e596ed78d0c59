"""Last-resort cleanup when the Python process exits without closing its sessions.

Background jobs and the persistent shell run in their own sessions, so they would outlive an
interpreter that exits (or crashes into ``sys.exit``) before ``Session.aclose``. Every group
and run id toolbelt starts is registered here, and an ``atexit`` hook ends them: SIGKILL to
each process group and the run-id sweep for anything that left it. A process killed with
SIGKILL runs no hooks: for that, every registration is also sent to a watchdog process
(``watchdog``) that ends what is left when this interpreter is gone, however it went.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import sys
import threading

from toolbelt.shell.procs import marked_processes

__all__ = ["forget", "remember"]

_live: dict[int, str] = {}  # process group -> run id
_watchdog: subprocess.Popen[bytes] | None = None
_lock = threading.Lock()
_BOOT = (
    "import sys; M = type(sys); P = M('toolbelt'); S = M('toolbelt.shell'); "
    "P.__path__ = [{pkg!r}]; S.__path__ = [{pkg!r} + '/shell']; "
    "sys.modules.update({{'toolbelt': P, 'toolbelt.shell': S}}); "
    "from toolbelt.shell.watchdog import main; main()"
)


def remember(group: int, run_id: str) -> None:
    """Track a process group (and its run id) that must not outlive this interpreter."""
    _live[group] = run_id
    _tell(f"+{group} {run_id}")


def forget(group: int) -> None:
    """The group was ended the normal way."""
    if _live.pop(group, None) is not None:
        _tell(f"-{group}")


def _tell(line: str) -> None:
    """Send ``line`` to the watchdog, started on first use (see ``watchdog``)."""
    global _watchdog
    with _lock:
        if _watchdog is None or _watchdog.poll() is not None:
            package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            _watchdog = subprocess.Popen(
                [sys.executable, "-S", "-E", "-s", "-c", _BOOT.format(pkg=package)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                start_new_session=True,  # a terminal's Ctrl-C must not end it first
            )
            for group, run_id in _live.items():  # a restarted watchdog learns them all
                _send(_watchdog, f"+{group} {run_id}")
        else:
            _send(_watchdog, line)


def _send(watchdog: subprocess.Popen[bytes], line: str) -> None:
    assert watchdog.stdin is not None
    with contextlib.suppress(OSError):
        watchdog.stdin.write(f"{line}\n".encode())
        watchdog.stdin.flush()


@atexit.register
def _end_everything() -> None:
    for group, run_id in list(_live.items()):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
        for pid in marked_processes(run_id) if run_id else ():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        forget(group)  # the watchdog must not kill the group id later, once reused
