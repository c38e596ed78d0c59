"""The watchdog: ends the shells and jobs of a toolbelt process that was killed outright.

``atexit`` (``reaper``) runs on every exit but SIGKILL (or an OOM kill). Under bubblewrap a
PID namespace takes everything down with the shell; under Landlock there is none, so a
``sleep 600 &`` in a background job would be re-parented to init and live on. The first time
toolbelt starts a shell or job it also starts this small process (unconfined, its own
session, ~15 ms once), holding the read end of a pipe whose write end only toolbelt has.
toolbelt writes ``+GROUP RUN_ID`` and ``-GROUP`` lines as it starts and ends process groups;
when the pipe reaches end of file — toolbelt exited, however — the watchdog kills every group
still registered and, by run id, what left its group (``setsid``, double forks). A
``PR_SET_PDEATHSIG`` would not do: it reaches only the shell, not what the shell started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

__all__ = ["main"]


def main() -> None:
    """Read registrations from stdin until end of file, then end what is still registered."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C for toolbelt: wait for the EOF
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    live: dict[int, str] = {}
    for line in sys.stdin.buffer:
        text = line.decode(errors="replace").strip()
        op, (group, _, run_id) = text[:1], text[1:].partition(" ")
        if not group.isdigit():
            continue
        if op == "+":
            live[int(group)] = run_id
        elif op == "-":
            live.pop(int(group), None)
    from toolbelt.shell.procs import marked_processes

    for group, run_id in live.items():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
        for pid in marked_processes(run_id) if run_id else ():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
