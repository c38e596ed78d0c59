"""A process SIGKILLed while it changes files leaves an undo that works: the journal is
written before the file, whole or not at all, and a command killed half-way is listed as
interrupted and undone on request."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.checkpoints.helpers import TOOLBELT, toolbelt
from tests.support.processes import alive
from toolbelt.checkpoints.states import BIG_FILE
from toolbelt.checkpoints.store import CheckpointStore
from toolbelt.checkpoints.undo import undo

KILLED_AT = """
import os, signal, sys
from toolbelt.cli.main import main
moment, real_replace = sys.argv[1], os.replace

def replace(source, target, *args, **kwargs):
    if target == "a.txt" and moment == "before-rename":
        os.kill(os.getpid(), signal.SIGKILL)
    real_replace(source, target, *args, **kwargs)
    if target == "a.txt" and moment == "after-rename":
        os.kill(os.getpid(), signal.SIGKILL)

os.replace = replace
main(sys.argv[2:])
"""


@pytest.mark.parametrize("moment", ["before-rename", "after-rename"])
@pytest.mark.parametrize("size", ["small", "big"])
def test_undo_after_a_sigkill_in_the_middle_of_a_write(
    tmp_path: Path, moment: str, size: str
) -> None:
    original = b"line one\r\nline two\r\n" * (1 if size == "small" else BIG_FILE // 10)
    (tmp_path / "a.txt").write_bytes(original)
    arguments = json.dumps({"path": "a.txt", "content": "replaced\n"})
    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            KILLED_AT,
            moment,
            "call",
            "write_file",
            arguments,
            "--root",
            str(tmp_path),
            "--yes",
        ],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL
    written = (tmp_path / "a.txt").read_bytes()
    assert written == (original if moment == "before-rename" else b"replaced\r\n")
    undone = toolbelt("undo", "--root", str(tmp_path))
    assert undone.returncode == 0, undone.stderr
    what = "a.txt already holds that" if moment == "before-rename" else "restored a.txt"
    assert re.fullmatch(rf"Undid write_file call cli-\w+ \(\S+\): {what}\.\n", undone.stdout)
    assert (tmp_path / "a.txt").read_bytes() == original
    again = toolbelt("undo", "--root", str(tmp_path))  # it counts as undone now
    assert again.returncode == 1 and again.stderr.startswith("toolbelt: Nothing to undo in ")


WRITER = """
import sys
from toolbelt.cli.main import main
sys.stdout.write("ready\\n"); sys.stdout.flush()
main(sys.argv[1:])
"""
WRITER_ARGV = [sys.executable, "-c", WRITER]


def test_a_sigkill_at_any_moment_never_leaves_a_change_that_cannot_be_undone(
    tmp_path: Path,
) -> None:
    """Whenever the writer dies, the file is the original, or a recorded change of it."""
    original = b"o" * (2 * 1024 * 1024)
    arguments = json.dumps({"path": "big.txt", "content": "n" * (2 * 1024 * 1024)})
    rng = random.Random(20261129)
    outcomes = {"not written": 0, "undone": 0}
    for _ in range(12):
        (tmp_path / "big.txt").write_bytes(original)
        writer = subprocess.Popen(
            [*WRITER_ARGV, "call", "write_file", "-", "--root", str(tmp_path), "--yes"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert writer.stdin is not None and writer.stdout is not None
        assert writer.stdout.readline() == b"ready\n"
        writer.stdin.write(arguments.encode())
        writer.stdin.close()
        time.sleep(rng.uniform(0.05, 0.45))  # the random moment of the kill is the point
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        store = CheckpointStore(tmp_path)
        if [c for c in store.history() if c.state == "active"]:
            undo(store)
            outcomes["undone"] += 1
        else:
            outcomes["not written"] += 1
        assert (tmp_path / "big.txt").read_bytes() == original
    assert sum(outcomes.values()) == 12


def test_a_command_killed_half_way_is_interrupted_and_undone_when_forced(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("before\n")
    tag = f"{os.getpid()}.{time.monotonic_ns() % 1000}"
    command = json.dumps(
        {
            "command": "echo after >> a.txt && mkdir out && echo new > out/b.txt"
            f" && touch started && sleep {tag}9"
        }
    )
    process = subprocess.Popen(
        [*TOOLBELT, "call", "bash", command, "--root", str(tmp_path), "--yes"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline and process.poll() is None, "the command never ran"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    while alive(f"sleep {tag}9"):  # toolbelt's watchdog ends what the killed process started
        assert time.monotonic() < deadline, "the command outlived toolbelt"
        time.sleep(0.05)
    [listed] = json.loads(toolbelt("checkpoints", "--root", str(tmp_path), "--json").stdout)
    assert (listed["tool"], listed["state"], listed["files"]) == ("bash", "interrupted", [])
    refused = toolbelt("undo", "--root", str(tmp_path), listed["call_id"])
    assert refused.returncode == 1
    assert re.fullmatch(
        r"toolbelt: bash call cli-\w+ \(\S+\) did not finish \(its process ended before the "
        r"after-snapshot\), so which files it changed is unknown; undoing it would put back "
        r"a\.txt, out/b\.txt and started as they were before it, with any change made since by "
        r"anyone; add --force to do that\.\n",
        refused.stderr,
    )
    forced = toolbelt("undo", "--root", str(tmp_path), listed["call_id"], "--force")
    assert forced.returncode == 0, forced.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert (tmp_path / "a.txt").read_text() == "before\n"
