"""The watchdog: ends what this toolbelt process started when it dies, ``kill -9`` included.

``atexit`` (``reaper``) runs on every exit but SIGKILL or the OOM killer. Shells and jobs run
in sessions of their own, so they would live on re-parented to init: under Landlock there is
no PID namespace to take them down, and without a sandbox there is nothing at all.

Every run id this process hands out (``new_run_id``) starts with a prefix of its own, and
every command, job, shell, hook and git process carries its run id in its environment (see
``procs``), which its descendants inherit whatever session or parent they move to. The first
time a run id is needed, a small watchdog is started (unconfined, in a session of its own,
~15 ms once) holding the read end of a pipe whose write end only this process holds. Nothing
is ever written to it: when the pipe reaches end of file this process is gone, however it
went, and the watchdog kills every process whose run id carries the prefix, their process
groups (a child that cleared its environment but stayed in its job's group) and all their
descendants (an anchor's, ``subreaper``: what cleared its environment and left the group),
stopping them all before it kills any (``procs.end_trees``), until none is left; then it
exits. There is nothing to register, so nothing to lock, tell or wait
for at exit: a normal exit has ended everything already and the watchdog finds nothing.
Then it removes the spill directories the process owned (``spill_owners``), which a process
killed with SIGKILL never removed itself.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import threading
import time

from toolbelt.procs.ending import RUN_ID_VAR, end_trees, processes_marked_with
from toolbelt.procs.helper_python import helper_argv, helper_code
from toolbelt.procs.spill_owners import remove_abandoned_spills, spill_base

__all__ = ["main", "new_run_id", "run_id_prefix"]

_BOOT = helper_code(
    "from toolbelt.procs.watchdog import main; main()",
    before="import os; os.fork() and os._exit(0); ",  # not our child: nothing to reap or wait for
)
_ROUNDS = 200
"""Sweeps before the watchdog gives up (each waits 10 ms for the killed to die): a process
that forks faster than it is killed is still caught, a stuck one never keeps it forever."""

_current: tuple[int, str, int] | None = None  # (our pid, prefix, the pipe's write end)
_start_lock = threading.Lock()


def new_run_id() -> str:
    """A fresh run id for a process toolbelt starts, covered by this process's watchdog."""
    return run_id_prefix() + secrets.token_hex(8)


def run_id_prefix() -> str:
    """This process's run-id prefix; starts the watchdog (again, if it was killed) first."""
    current = _current
    if current is not None and current[0] == os.getpid() and _alive(current[2]):
        return current[1]
    with _start_lock:
        return _start()


def _alive(pipe: int) -> bool:
    """Whether the watchdog still reads its pipe (it discards what it reads; a full pipe
    means it is alive but slow)."""
    try:
        os.write(pipe, b"\n")
    except BlockingIOError:
        return True
    except OSError:  # EPIPE: the watchdog is gone. The descriptor stays open (one per
        return False  # restart): closed, its number could be reused and written to.
    return True


def _start() -> str:
    global _current
    pid = os.getpid()
    current = _current
    if current is not None and current[0] == pid and _alive(current[2]):
        return current[1]  # another thread started it meanwhile
    # the same prefix again after a restart: what already runs stays covered
    prefix = current[1] if current is not None and current[0] == pid else secrets.token_hex(6) + "-"
    environment = {k: v for k, v in os.environ.items() if k != RUN_ID_VAR}
    read_end, write_end = os.pipe()  # close-on-exec: no other child ever holds the write end
    os.set_blocking(write_end, False)
    try:
        subprocess.run(
            helper_argv(_BOOT, str(pid), prefix),  # the prefix last: `ps` and tests find it
            stdin=read_end,
            stdout=subprocess.DEVNULL,  # never a pipe a caller waits to see closed
            stderr=subprocess.DEVNULL,
            cwd="/",
            env=environment,  # not swept with a command of a toolbelt that started this one
            start_new_session=True,  # a terminal's Ctrl-C or hang-up must not end it first
            check=False,
        )
    finally:
        os.close(read_end)
    _current = (pid, prefix, write_end)
    return prefix


def main() -> None:
    """Wait for end of file on stdin, then end every process marked with the prefix and
    remove the dead toolbelt's spill directories (``spill_owners``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a sweep of the toolbelt's group
    owner, prefix = int(sys.argv[1]), sys.argv[2]
    os.set_blocking(0, True)
    while os.read(0, 4096):
        pass
    _end_processes(prefix)
    remove_abandoned_spills(
        spill_base(), owner=owner
    )  # after the commands: none still writes there


def _end_processes(prefix: str) -> None:
    mine = os.getpgid(0)
    for _ in range(_ROUNDS):
        found = processes_marked_with(prefix)
        if not found:
            return
        seeds = {pid for pid, _, _ in found}
        # only a group that leads its own session: one toolbelt started (never a group of the
        # terminal's, such as a pipeline toolbelt ran in)
        groups = {group for _, group, session in found if group == session}
        groups -= {1, mine}
        seeds.update(_members(groups))
        end_trees(seeds)
        time.sleep(0.01)


def _members(groups: set[int]) -> list[int]:
    """The live processes of ``groups``."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != b"Z" and int(fields[2]) in groups:
            members.append(int(entry))
    return members
