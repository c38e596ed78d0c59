"""``toolbelt run`` as a user runs it: a real subprocess of the CLI, against a fake provider.

The end-to-end tests drive the real CLI so that what they check — output, exit status, files
on disk, processes ended by a signal — is what a user sees. Each run gets its own home, so the
user's settings never leak in.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["TOOLBELT", "fake_model", "signal_once", "start_run", "toolbelt_run"]

TOOLBELT = [sys.executable, "-m", "toolbelt.cli.main"]


def toolbelt_run(
    *args: str, home: Path, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``toolbelt run ARGS`` with its own home (the user's settings never leak in) and no
    provider variables but those given."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith(("_API_KEY", "_BASE_URL")) and k != "TOOLBELT_MODEL"
    }
    return subprocess.run(
        [*TOOLBELT, "run", *args],
        capture_output=True,
        text=True,
        input=stdin,
        env={**clean, "HOME": str(home), **(env or {})},
        timeout=120,
    )


def fake_model(base_url: str, root: Path, model: str = "openai:gpt-test") -> tuple[str, ...]:
    """The options that point a run at the fake provider and a workspace, approving every
    call (``--yes``)."""
    return ("--model", model, "--base-url", base_url, "--root", str(root), "--yes")


def start_run(*args: str, home: Path, stdin: int | None = None) -> subprocess.Popen[str]:
    """``toolbelt run ARGS`` started in the background, its output piped, with its own home
    (``stdin``: None inherits ours)."""
    return subprocess.Popen(
        [*TOOLBELT, "run", *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "HOME": str(home)},
    )


def signal_once(
    process: subprocess.Popen[str], sig: signal.Signals, *, when: Callable[[], bool]
) -> tuple[str, str]:
    """Send ``sig`` once ``when()`` holds (or the run ended first), then its stdout and stderr;
    the run is killed whatever happens, so a failed test leaves no process behind."""
    try:
        deadline = time.monotonic() + 30
        while not when() and process.poll() is None:
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.02)
        process.send_signal(sig)
        return process.communicate(timeout=30)
    finally:
        process.kill()
