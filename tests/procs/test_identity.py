"""toolbelt never signals a pid it recorded once that pid may be another process's.

A background job that ended by itself was reaped by a ``poll``; its pid (and the process group
of that number) is free, and the next process created may get it — a user's process, which
session end used to SIGTERM (``end_run`` of the job's stale pid and group). Processes toolbelt
starts are held by a pidfd (``identity.Anchor``); processes found by a scan are signalled only
while their start time still matches (``identity.signal_if_same``).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.waiting import wait_until, wait_until_async
from toolbelt.procs.ending import end_run, end_trees
from toolbelt.procs.identity import Anchor, signal_if_same, start_time
from toolbelt.shell.jobs import JobManager

NS_LAST_PID = Path("/proc/sys/kernel/ns_last_pid")


@pytest.fixture
def bystanders() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes standing for the user's, in sessions of their own; killed at the end."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def bystander(started: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """A user's ``sh`` (with a ``sleep`` child) in a session and group of its own."""
    process = subprocess.Popen(
        ["/bin/sh", "-c", "sleep 600 & wait"], start_new_session=True, stdin=subprocess.DEVNULL
    )
    started.append(process)
    # its sleep is there before the test goes on (a slow fork would read as a killed child)
    wait_until(lambda: _children(process.pid) != [], "the bystander's sleep to start")
    return process


def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


def test_a_process_is_not_signalled_once_its_start_time_differs(
    bystanders: list[subprocess.Popen[bytes]],
) -> None:
    user = bystander(bystanders)
    start = start_time(user.pid)
    assert start is not None
    assert not signal_if_same(user.pid, start - 1, signal.SIGKILL)  # an earlier owner's pid
    assert user.poll() is None
    end_trees({user.pid: start - 1})  # the freeze-then-kill path checks the same way
    assert user.poll() is None
    assert signal_if_same(user.pid, start, signal.SIGKILL)
    assert user.wait(timeout=30) == -signal.SIGKILL


def test_a_reaped_anchors_pid_and_group_are_left_alone(
    bystanders: list[subprocess.Popen[bytes]],
) -> None:
    ended = subprocess.Popen(["true"], start_new_session=True)
    anchor = Anchor(ended.pid)
    assert anchor.alive()
    ended.wait()  # reaped: its pid is free for anyone
    assert not anchor.alive()
    user = bystander(bystanders)
    anchor.pid = user.pid  # the recycled pid, standing for a wrap of the pid counter
    assert end_run("", grace=0.2, anchor=anchor) == 0  # neither the group nor the tree of it
    assert not anchor.send(signal.SIGKILL)
    assert user.poll() is None
    children = Path(f"/proc/{user.pid}/task/{user.pid}/children").read_text().split()
    assert len(children) == 1 and start_time(int(children[0])) is not None


@pytest.mark.anyio
@pytest.mark.serial  # it sets the machine's next pid: another test's process would take it
@pytest.mark.skipif(
    not os.access(NS_LAST_PID, os.W_OK), reason="arranging a pid needs root (ns_last_pid)"
)
async def test_session_end_spares_a_user_process_holding_a_finished_jobs_pid(
    tmp_path: Path, bystanders: list[subprocess.Popen[bytes]]
) -> None:
    jobs = JobManager(f"recycled-{os.getpid()}")
    try:
        for _ in range(20):  # other processes on the machine may take the pid first
            job = jobs.start("true", tmp_path, dict(os.environ))
            await wait_until_async(  # status() polls, which reaps the anchor
                lambda job=job: job.status().state != "running", "the job to end"
            )
            NS_LAST_PID.write_text(str(job.process.pid - 1))
            user = bystander(bystanders)
            if user.pid == job.process.pid:
                break
        else:
            pytest.skip("the pid was taken by another process each time")
    finally:
        await jobs.aclose()
    assert user.poll() is None, "session end signalled the user's process"


def test_an_anchor_knows_its_process_start_only_while_the_process_is_its_own() -> None:
    """The start time is read when first asked (not at the spawn, where it waited for the
    child's exec): the living process's, and None once the process was reaped before it was
    asked — its pid may be another process's by then."""
    living = subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL)
    reaped = subprocess.Popen(["true"], stdin=subprocess.DEVNULL)
    held, gone = Anchor(living.pid), Anchor(reaped.pid)
    try:
        assert reaped.wait() == 0
        assert gone.start is None
        assert held.start == start_time(living.pid) is not None
    finally:
        living.kill()
        living.wait()
        held.close()
        gone.close()
