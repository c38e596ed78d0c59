"""examples/ray_fleet.py in Ray's local mode: two sandboxes (Ray actors, each owning a real
`toolbelt mcp --http` server), a batch of scripted episodes through toolbelt.RemoteToolset, one
sandbox crashed on purpose mid-batch and replaced, and nothing lost or left running."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "examples" / "ray_fleet.py"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="Ray is not installed: pip install 'agent-toolbelt[fleet]'",
)


def test_a_batch_survives_a_crashed_sandbox_and_leaves_no_server(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--sandboxes", "2", "--episodes", "6", "--crash-after", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "sandboxes: 2 (Ray actors), replaced after a crash: 1" in lines
    assert "episodes: 6 done, 0 failed, of 6" in lines
    assert "servers left running: 0" in lines
