"""A writer SIGKILLed at random moments leaves the old file or the new one, never a torn one."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

WRITER = """
import os, sys
from toolbelt.files.atomic import atomic_write
target = sys.argv[1]
data = b"b" * (4 * 1024 * 1024)
fd = os.open(os.path.dirname(target), os.O_RDONLY | os.O_DIRECTORY)
sys.stdout.write("ready\\n"); sys.stdout.flush()
atomic_write(fd, os.path.basename(target), data)
sys.stdout.write("done\\n"); sys.stdout.flush()
"""


def test_sigkill_at_random_points_never_tears_the_file(tmp_path: Path) -> None:
    old, new = b"a" * (4 * 1024 * 1024), b"b" * (4 * 1024 * 1024)
    target = tmp_path / "data.bin"
    rng = random.Random(20261122)
    outcomes = {"old": 0, "new": 0}
    for _ in range(100):
        target.write_bytes(old)
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE
        )
        assert writer.stdout is not None
        assert writer.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0, 0.02))  # the random moment of the kill is the point of the test
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        content = target.read_bytes()
        assert content in (old, new), "torn file"
        outcomes["new" if content == new else "old"] += 1
    assert outcomes["old"] + outcomes["new"] == 100
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "data.bin"]
    assert all(".toolbelt-tmp-" in name for name in leftovers)
