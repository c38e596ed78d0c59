"""A process a command starts with a cleaned environment (``env -i``, ``env -u TOOLBELT_RUN_ID``)
in a session of its own (``setsid``), orphaned or double-forked, carries neither the run-id
marker nor the group: it must end all the same — with the call (foreground leftovers), with
the session (a job's), and with a toolbelt killed by SIGKILL (the watchdog) — because every
tree runs under an anchor that no process can shed (``shell.subreaper``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fake_provider import FakeProvider
from tests.support.toolbelt_cli import TOOLBELT, toolbelt
from tests.support.waiting import wait_until, wait_until_async
from toolbelt.shell.jobs import JobManager
from toolbelt.shell.session import ShellSession

TAG = str(os.getpid())
_numbers = iter(range(1, 1000))


def sleep_arg() -> str:
    """A fresh ``sleep`` argument of this test run (never another run's process)."""
    return f"7{TAG}{next(_numbers):03d}"


def running(arg: str) -> list[int]:
    """Live (not zombie) ``sleep ARG`` processes (the program itself, not a shell naming it)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\0")
            with open(f"/proc/{entry}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if argv[:2] == [b"sleep", arg.encode()] and state != b"Z":
            found.append(int(entry))
    return found


def wait_gone(*args: str) -> None:
    """Wait until no ``sleep ARG`` of ``args`` is left (the killed take a moment to die)."""
    wait_until(lambda: not any(running(arg) for arg in args), f"sleep {' '.join(args)} to end")


@pytest.fixture
def leftovers() -> Iterator[list[str]]:
    """The sleeps a test starts; whatever is still running at the end is killed (and fails
    the test where it asserts, not here)."""
    args: list[str] = []
    yield args
    for arg in args:
        for pid in running(arg):
            os.kill(pid, signal.SIGKILL)


def escapee(how: str, arg: str, started: Path) -> str:
    """A command that starts ``sleep ARG`` without the marker and out of the group, waits
    until it runs (``started`` exists), and returns."""
    body = f"touch {started}; exec sleep {arg}"
    quiet = "</dev/null >/dev/null 2>&1"
    launch = {
        "env -i": f"env -i /bin/sh -c \"setsid /bin/sh -c '{body}' {quiet} &\"",
        "env -u": f"env -u TOOLBELT_RUN_ID setsid /bin/sh -c '{body}' {quiet} &",
        "double fork": f"( ( env -i setsid /bin/sh -c '{body}' {quiet} & ) & )",
    }[how]
    return f"{launch}\nuntil [ -e {started} ]; do :; done"


HOWS = ["env -i", "env -u", "double fork"]


@pytest.mark.anyio
@pytest.mark.parametrize("how", HOWS)
async def test_a_foreground_commands_escapee_ends_with_the_call(
    tmp_path: Path, how: str, leftovers: list[str]
) -> None:
    arg = sleep_arg()
    leftovers.append(arg)
    session = ShellSession(tmp_path, dict(os.environ), f"escapee-{TAG}")
    try:
        result = await session.run(escapee(how, arg, tmp_path / "started"), timeout=30)
        assert result.exit_code == 0, result.output
        wait_gone(arg)
        again = await session.run("echo still here", timeout=30)  # the shell was spared
        assert again.output == "still here\n"
    finally:
        await session.aclose()


@pytest.mark.anyio
async def test_an_escapee_ends_when_its_command_exits_the_shell(
    tmp_path: Path, leftovers: list[str]
) -> None:
    arg = sleep_arg()
    leftovers.append(arg)
    session = ShellSession(tmp_path, dict(os.environ), f"escapee-exit-{TAG}")
    try:
        result = await session.run(
            escapee("env -i", arg, tmp_path / "started") + "\nexit 3", timeout=30
        )
        assert result.exit_code == 3
        wait_gone(arg)
    finally:
        await session.aclose()


@pytest.mark.anyio
async def test_a_jobs_escapee_runs_on_and_ends_with_the_session(
    tmp_path: Path, leftovers: list[str]
) -> None:
    arg = sleep_arg()
    leftovers.append(arg)
    started = tmp_path / "started"
    jobs = JobManager(f"escapee-job-{TAG}")
    try:
        jobs.start(escapee("env -i", arg, started), tmp_path, dict(os.environ))
        await wait_until_async(lambda: running(arg), "the escapee to start")
        assert len(running(arg)) == 1  # a job's leftovers live on until the session ends
    finally:
        await jobs.aclose()
    wait_gone(arg)


@pytest.mark.parametrize("how", HOWS)
def test_toolbelt_call_bash_leaves_no_escapee(
    tmp_path: Path, how: str, leftovers: list[str]
) -> None:
    arg = sleep_arg()
    leftovers.append(arg)
    command = escapee(how, arg, tmp_path / "started")
    done = toolbelt(
        "call",
        "bash",
        json.dumps({"command": command}),
        "--yes",
        cwd=tmp_path,
        env={"HOME": str(tmp_path)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "started").exists()
    wait_gone(arg)


def _run(tmp_path: Path, fake: FakeProvider) -> list[str]:
    return [
        *TOOLBELT,
        "run",
        "go",
        "--model",
        "openai:gpt-test",
        "--base-url",
        fake.openai_url,
        "--root",
        str(tmp_path),
        "--yes",
    ]


def test_toolbelt_run_leaves_no_escapee(tmp_path: Path, leftovers: list[str]) -> None:
    args = [sleep_arg() for _ in HOWS]
    leftovers += args
    commands = [
        escapee(how, arg, tmp_path / f"started-{arg}") for how, arg in zip(HOWS, args, strict=True)
    ]
    calls = [{"name": "bash", "arguments": {"command": command}} for command in commands]
    with FakeProvider([{"calls": calls}, {"text": "Done."}]) as fake:
        done = subprocess.run(
            _run(tmp_path, fake),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "HOME": str(tmp_path)},
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Done.\n"
    assert all((tmp_path / f"started-{arg}").exists() for arg in args)
    wait_gone(*args)


def test_a_sigkilled_toolbelt_leaves_no_escapee(tmp_path: Path, leftovers: list[str]) -> None:
    """The watchdog ends the escapees of a running command and of a background job."""
    job_arg, foreground_arg, blocker = sleep_arg(), sleep_arg(), sleep_arg()
    leftovers += [job_arg, foreground_arg, blocker]
    job = escapee("env -i", job_arg, tmp_path / "job-started")
    foreground = escapee("double fork", foreground_arg, tmp_path / "started") + f"\nsleep {blocker}"
    calls = [
        {"name": "bash", "arguments": {"command": job, "run_in_background": True}},
        {"name": "bash", "arguments": {"command": foreground}},
    ]
    with FakeProvider([{"calls": calls}, {"text": "Done."}]) as fake:
        process = subprocess.Popen(
            _run(tmp_path, fake),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "HOME": str(tmp_path)},
        )
        try:
            wait_until(
                lambda: (
                    all(running(arg) for arg in (job_arg, foreground_arg, blocker))
                    or process.poll() is not None
                ),
                "the commands to start",
                timeout=60,
            )
            assert process.poll() is None, "toolbelt ended before its commands ran"
            process.kill()
            process.wait(timeout=30)
        finally:
            process.kill()
    wait_gone(job_arg)
    wait_gone(foreground_arg)
    wait_gone(blocker)
