"""A ruleset for a home among thousands of siblings (CI's /tmp, a crowded $HOME's parent) is
larger than one argument may be (128 KiB): the launcher still starts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.sandbox.test_cli import toolbelt
from toolbelt.sandbox.confine import launcher_argv
from toolbelt.sandbox.landlock import abi_version


def test_a_large_spec_travels_in_pieces_of_at_most_128_kib() -> None:
    spec: dict[str, object] = {
        "landlock": {"read": [f"/tmp/d{i:05d}/" + "x" * 200 for i in range(5000)]}
    }
    argv = launcher_argv(spec, ["true"])
    assert max(len(arg.encode()) for arg in argv) < 128 * 1024
    assert argv[-2:] == ["--", "true"]


@pytest.mark.skipif(abi_version() < 1, reason="needs Landlock")
def test_a_command_runs_when_the_home_has_thousands_of_siblings(tmp_path: Path) -> None:
    crowd = tmp_path / "crowd"
    for i in range(2500):
        (crowd / f"sibling-{i:05d}").mkdir(parents=True)
    home = crowd / "sibling-00007"
    (home / ".ssh").mkdir()  # a secret below: every sibling on the way becomes a rule
    workspace = tmp_path / "ws"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    done = toolbelt(
        "call", "bash", '{"command": "touch made && echo ok"}', "--root", str(workspace),
        "--trust-workspace", "--sandbox", "landlock", home=home,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
    assert (workspace / "made").exists()
