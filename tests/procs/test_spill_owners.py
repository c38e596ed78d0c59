"""A session's spill directory goes away when its toolbelt dies, `kill -9` included: the
watchdog removes it once it has ended the commands, and any process's first spill sweeps
those of processes that are gone — never a live session's, never through a symbolic link."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.toolbelt_cli import TOOLBELT
from tests.support.waiting import wait_until
from toolbelt.procs.spill_owners import (
    LEGACY_AGE,
    OWNER_FILE,
    process_start,
    remove_abandoned_spills,
)
from toolbelt.shell.output import spill_dir

NAMESPACE = os.readlink("/proc/self/ns/pid")


@pytest.fixture
def base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The spill directories of this test only (``$XDG_RUNTIME_DIR/toolbelt-<uid>``)."""
    runtime = tmp_path / "run"
    runtime.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    return runtime / f"toolbelt-{os.getuid()}"


def _sessions(base: Path) -> list[str]:
    return sorted(os.listdir(base)) if base.exists() else []


def _dead_owner() -> str:
    """The owner line of a process that has ended (started, recorded, waited for)."""
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=-1)
    start = process_start(child.pid)
    child.communicate(b"")
    return f"{child.pid} {start} {NAMESPACE}\n"


def test_a_killed_call_leaves_no_spill_directory(base: Path, tmp_path: Path) -> None:
    started = tmp_path / "started"
    command = f"touch {started} && sleep 60"
    argv = [*TOOLBELT, "call", "bash"]
    argv += [json.dumps({"command": command}), "--root", str(tmp_path), "--mode", "bypass"]
    toolbelt = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=-3, stderr=-3)
    try:
        wait_until(lambda: started.exists() or toolbelt.poll() is not None, "the command to start")
        assert toolbelt.poll() is None
        (session,) = _sessions(base)
        owner = (base / session / OWNER_FILE).read_text().split()
        assert owner == [str(toolbelt.pid), process_start(toolbelt.pid), NAMESPACE]
    finally:
        toolbelt.send_signal(signal.SIGKILL)
        toolbelt.wait()
    wait_until(lambda: not _sessions(base), "the watchdog to remove the session's directory")


def test_a_sweep_removes_only_dead_sessions_directories(base: Path, tmp_path: Path) -> None:
    live = spill_dir("live-session")  # owned by this process, which runs
    (live / "job.out").write_text("kept\n")
    dead = base / "dead-session"
    dead.mkdir()
    (dead / OWNER_FILE).write_text(_dead_owner())
    (dead / "job.out").write_text("gone\n")
    reused = base / "reused-pid"  # this pid, but a start time that is not this process's
    reused.mkdir()
    (reused / OWNER_FILE).write_text(f"{os.getpid()} 1 {NAMESPACE}\n")
    elsewhere = base / "other-pid-namespace"  # its pids mean nothing here: never judged
    elsewhere.mkdir()
    (elsewhere / OWNER_FILE).write_text(_dead_owner().replace(NAMESPACE, "pid:[1]"))
    outside = tmp_path / "outside"  # a link to a dead-looking directory is never followed
    outside.mkdir()
    (outside / OWNER_FILE).write_text(_dead_owner())
    (base / "link").symlink_to(outside)
    fresh_legacy = base / "older-toolbelt-recent"  # no owner file, in use lately
    fresh_legacy.mkdir()
    stale_legacy = base / "older-toolbelt-stale"
    stale_legacy.mkdir()
    old = time.time() - LEGACY_AGE - 60
    os.utime(stale_legacy, (old, old))

    assert remove_abandoned_spills(base) == 3
    assert _sessions(base) == [
        "link",
        "live-session",
        "older-toolbelt-recent",
        "other-pid-namespace",
    ]
    assert (live / "job.out").read_text() == "kept\n"
    assert (outside / OWNER_FILE).exists()


def test_a_watchdog_sweep_removes_only_its_own_process_directories(base: Path) -> None:
    mine, other = base / "mine", base / "other"
    for directory in (mine, other):
        directory.mkdir(parents=True)
        (directory / OWNER_FILE).write_text(_dead_owner())
    owner = int((mine / OWNER_FILE).read_text().split()[0])
    assert remove_abandoned_spills(base, owner=owner) == 1
    assert _sessions(base) == ["other"]


def test_a_start_up_sweep_is_bounded_and_the_next_one_goes_on(base: Path) -> None:
    owner = _dead_owner()
    for number in range(70):
        directory = base / f"dead-{number:02}"
        directory.mkdir(parents=True)
        (directory / OWNER_FILE).write_text(owner)
    assert remove_abandoned_spills(base) == 64
    assert remove_abandoned_spills(base) == 6
    assert _sessions(base) == []


def test_the_next_call_sweeps_what_a_dead_session_left(base: Path, tmp_path: Path) -> None:
    dead = base / "dead-session"
    dead.mkdir(parents=True)
    (dead / OWNER_FILE).write_text(_dead_owner())
    argv = [*TOOLBELT, "call", "bash"]
    argv += [json.dumps({"command": "echo hi"}), "--root", str(tmp_path), "--mode", "bypass"]
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert not dead.exists()
    assert _sessions(base) == []  # its own removed at exit, as before
