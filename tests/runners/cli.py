"""The real ``toolbelt`` command for the runner tests, with a home of the test's own.

Each test gets a home holding a secret (``~/.ssh/id_rsa``) that a program toolbelt starts
must not reach, and a place outside the workspace it must not write to.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.sandboxes import landlock_missing_reason

__all__ = ["SECRET", "Place", "git", "needs_sandbox", "place", "toolbelt"]

SECRET = "BEGIN-PRIVATE-KEY-4d9a1c"

needs_sandbox = pytest.mark.skipif(
    landlock_missing_reason() is not None, reason=str(landlock_missing_reason())
)


@dataclass
class Place:
    """A workspace, a home with a secret, and a directory outside both."""

    ws: Path
    home: Path
    outside: Path

    def settings(self, value: dict[str, Any]) -> None:
        """Write the user's own settings."""
        folder = self.home / ".config" / "toolbelt"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "settings.json").write_text(json.dumps(value))

    def hooks(self, command: str, *, event: str = "PostToolUse", more: Any = None) -> None:
        """A user hook running ``command`` after write_file (``more``: other settings)."""
        group = {"matcher": "write_file", "hooks": [{"type": "command", "command": command}]}
        self.settings({"hooks": {event: [group]}, **(more or {})})


@pytest.fixture
def place(tmp_path: Path) -> Place:
    ws, home, outside = tmp_path / "ws", tmp_path / "home", tmp_path / "outside"
    for directory in (ws, home / ".ssh", outside):
        directory.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"{SECRET}\n")
    return Place(ws, home, outside)


def toolbelt(
    *args: str, place: Place, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``toolbelt ARGS`` as the user of ``place`` runs it (their home, their settings)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    return subprocess.run(
        [sys.executable, "-m", "toolbelt.cli.main", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=cwd or place.ws,
        env={**clean, "HOME": str(place.home), "COLUMNS": "200", **(env or {})},
        timeout=120,
        check=False,
    )


def git(repo: Path, *args: str, home: Path | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "XDG_"))}
    env |= {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home or repo)}
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout
