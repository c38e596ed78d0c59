"""A process that keeps forking and letting its parent exit changes its pid faster than a
scan-then-kill can follow, and ignores SIGTERM: every ending path freezes the tree (SIGSTOP
until a rescan adds nothing) before it kills, so it ends with the call and with a job."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.support.waiting import wait_until_async
from toolbelt.shell.jobs import JobManager
from toolbelt.shell.session import ShellSession

TAG = f"hopper-{os.getpid()}"
HOPPER = (
    "import os, signal, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "open(sys.argv[1], 'w').close()\n"
    "end = time.monotonic() + 300\n"  # bounded: gives up by itself if the test fails
    "while time.monotonic() < end:\n"
    "    if os.fork(): os._exit(0)\n"
)


def hoppers(tag: str) -> list[int]:
    """Live (not zombie) hopper processes carrying ``tag`` on their command line."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                argv = handle.read()
            with open(f"/proc/{entry}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if tag.encode() in argv and state != b"Z":
            found.append(int(entry))
    return found


@pytest.fixture
def tag() -> Iterator[str]:
    """This test's hopper tag; hoppers left over are frozen and killed afterwards."""
    tag = f"{TAG}-{time.monotonic_ns()}"
    yield tag
    for _ in range(200):
        left = hoppers(tag)
        if not left:
            return
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in left:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    continue


def command(tag: str, started: Path) -> str:
    """Start a hopper with a cleared environment in a session of its own, wait until it runs."""
    hopper = HOPPER.replace("'", "'\\''")
    launch = (
        f"env -i setsid {sys.executable} -c '{hopper}' {started} {tag} </dev/null >/dev/null 2>&1 &"
    )
    return f"{launch}\nuntil [ -e {started} ]; do sleep 0.01; done"


@pytest.mark.anyio
async def test_a_fork_hopper_ends_with_the_call(tmp_path: Path, tag: str) -> None:
    session = ShellSession(tmp_path, dict(os.environ), f"{tag}-call", grace=0.2)
    try:
        result = await session.run(command(tag, tmp_path / "started"), timeout=60)
        assert result.exit_code == 0, result.output
        assert hoppers(tag) == []
        again = await session.run("echo still here", timeout=30)  # the shell was spared
        assert again.output == "still here\n"
    finally:
        await session.aclose()


@pytest.mark.anyio
async def test_a_jobs_fork_hopper_ends_with_the_session(tmp_path: Path, tag: str) -> None:
    started = tmp_path / "started"
    jobs = JobManager(f"{tag}-job")
    try:
        jobs.start(command(tag, started), tmp_path, dict(os.environ))
        await wait_until_async(lambda: started.exists(), "the hopper to start")
        assert hoppers(tag)
    finally:
        with anyio.fail_after(60):  # a hopper left alive keeps its job's anchor waiting
            await jobs.aclose()
    assert hoppers(tag) == []
