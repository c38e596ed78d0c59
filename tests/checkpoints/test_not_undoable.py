"""A journal that cannot be written never makes a call fail: the change is made and the
result says it is not undoable — with a state directory that cannot be created, and with a
real full disk (a 64 KiB tmpfs, filled, in a mount namespace of the test's own)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.checkpoints.helpers import call, open_runtime
from toolbelt.checkpoints.settings import CheckpointSettings
from toolbelt.config.settings import Settings

pytestmark = pytest.mark.anyio


async def test_a_state_directory_that_cannot_be_made_leaves_calls_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("one\n")
    async with open_runtime(workspace) as runtime:
        edited = await call(runtime, "edit_file", path="a.txt", old_string="one", new_string="2")
        ran = await call(runtime, "bash", command="echo made > b.txt")
        assert await runtime.checkpoints.list() == []
    assert (workspace / "a.txt").read_text() == "2\n" and (workspace / "b.txt").exists()
    assert edited.text.endswith(
        "\n[This change is not undoable: the checkpoint journal could not be written "
        "(Not a directory).]"
    )
    assert ran.text == (
        "(no output)\n[This change is not undoable: the workspace could not be snapshotted "
        "before it ran (Not a directory).]"
    )


def _mount_namespace_reason() -> str | None:
    if shutil.which("unshare") is None:
        return "unshare is not installed"
    probe = subprocess.run(
        [
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            "mount -t tmpfs -o size=64k tmpfs /mnt",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"cannot mount a tmpfs in a mount namespace here: {probe.stderr.strip()[:200]}"
    return None


@pytest.mark.skipif(_mount_namespace_reason() is not None, reason=str(_mount_namespace_reason()))
def test_a_full_disk_makes_the_change_not_undoable_not_failed(tmp_path: Path) -> None:
    state = Path(os.environ["XDG_STATE_HOME"])
    (tmp_path / "a.txt").write_text("one\n")
    arguments = json.dumps({"path": "a.txt", "old_string": "one", "new_string": "two"})
    script = (
        'mount -t tmpfs -o size=64k tmpfs "$0" && (head -c 1000000 /dev/zero > "$0/fill"; true)'
        ' && exec "$@"'
    )
    done = subprocess.run(
        [
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            str(state),
            sys.executable,
            "-m",
            "toolbelt.cli.main",
            "call",
            "edit_file",
            arguments,
            "--root",
            str(tmp_path),
            "--yes",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(
        "[This change is not undoable: the checkpoint journal could not be written "
        "(No space left on device).]\n"
    )
    assert (tmp_path / "a.txt").read_text() == "two\n"


async def test_a_snapshot_out_of_time_leaves_the_command_running(tmp_path: Path) -> None:
    settings = Settings(checkpoints=CheckpointSettings(snapshot_timeout=0.000001))
    async with open_runtime(tmp_path, settings) as runtime:
        ran = await call(runtime, "bash", command="echo made > b.txt")
        assert await runtime.checkpoints.list() == []
    assert (tmp_path / "b.txt").read_text() == "made\n"
    assert ran.text == (
        "(no output)\n[This change is not undoable: the workspace could not be snapshotted "
        "before it ran (git ls-files took longer than 1e-06 s).]"
    )
