"""The ``toolbelt`` command as a user runs it: a real subprocess of the CLI.

Tests that check what a user sees — output, exit status, files on disk, processes ended by a
signal — drive the real command, and all of them start it from here: ``toolbelt`` runs it to
its end, ``start`` in the background, ``toolbelt_run``/``start_run`` are ``toolbelt run``
against a fake provider, and MCP clients that take a program and its arguments apart start the
server as ``command=sys.executable, args=[*TOOLBELT_ARGS, "mcp", ...]``. The test's private
home and XDG directories (``tests/conftest.py``) reach the command through the environment.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from tests.support.waiting import wait_until

__all__ = [
    "LAUNCHER",
    "TOOLBELT",
    "TOOLBELT_ARGS",
    "environment",
    "fake_model",
    "signal_once",
    "start",
    "start_run",
    "toolbelt",
    "toolbelt_run",
]

TOOLBELT_ARGS = ["-m", "toolbelt.cli.main"]
"""The interpreter's arguments that run the command."""
TOOLBELT = [sys.executable, *TOOLBELT_ARGS]
"""The command, run by the virtual environment's interpreter."""
LAUNCHER = str(Path(sys.executable).with_name("toolbelt"))
"""The console script the installation made (``pip install`` puts it on the user's PATH):
for tests of what the launcher itself puts on ``sys.path``."""

PROVIDER_VARIABLES = ("_API_KEY", "_BASE_URL")
"""Endings of the variables that would point ``toolbelt run`` at a real model."""


def environment(
    env: Mapping[str, str] | None = None, *, unset: Iterable[str] = ()
) -> dict[str, str]:
    """The test's environment with ``env`` over it and the ``unset`` names left out."""
    drop = set(unset)
    return {**{k: v for k, v in os.environ.items() if k not in drop}, **(env or {})}


def toolbelt(
    *args: str,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    unset: Iterable[str] = (),
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 60,
    launcher: bool = False,
    check: bool = False,
    **options: Any,
) -> subprocess.CompletedProcess[str]:
    """``toolbelt ARGS`` run to its end, its output captured as text. ``stdin`` is what it
    reads (None: /dev/null, never the terminal pytest runs in); ``env`` and ``unset`` change
    the test's environment (``environment``); ``launcher`` runs the installed console script
    instead of ``python -m``; other options go to ``subprocess.run``."""
    command = [LAUNCHER] if launcher else TOOLBELT
    feed: dict[str, Any] = {"stdin": subprocess.DEVNULL} if stdin is None else {"input": stdin}
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        env=environment(env, unset=unset),
        cwd=cwd,
        timeout=timeout,
        check=check,
        **feed,
        **options,
    )


def start(
    *args: str,
    stdin: int | None = subprocess.DEVNULL,
    env: Mapping[str, str] | None = None,
    unset: Iterable[str] = (),
    cwd: str | os.PathLike[str] | None = None,
    **options: Any,
) -> subprocess.Popen[str]:
    """``toolbelt ARGS`` started in the background, its output piped as text (``stdin``: None
    inherits ours); the caller waits for it or kills it."""
    settings: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **options}
    return subprocess.Popen(
        [*TOOLBELT, *args],
        stdin=stdin,
        text=True,
        env=environment(env, unset=unset),
        cwd=cwd,
        **settings,
    )


def _provider_variables() -> list[str]:
    return [k for k in os.environ if k.endswith(PROVIDER_VARIABLES) or k == "TOOLBELT_MODEL"]


def toolbelt_run(
    *args: str, home: Path, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``toolbelt run ARGS`` with its own home (the user's settings never leak in) and no
    provider variables but those given."""
    return toolbelt(
        "run",
        *args,
        stdin=stdin,
        env={"HOME": str(home), **(env or {})},
        unset=_provider_variables(),
        timeout=120,
    )


def fake_model(base_url: str, root: Path, model: str = "openai:gpt-test") -> tuple[str, ...]:
    """The options that point a run at the fake provider and a workspace, approving every
    call (``--yes``)."""
    return ("--model", model, "--base-url", base_url, "--root", str(root), "--yes")


def start_run(*args: str, home: Path, stdin: int | None = None) -> subprocess.Popen[str]:
    """``toolbelt run ARGS`` started in the background, its output piped, with its own home
    (``stdin``: None inherits ours)."""
    return start("run", *args, stdin=stdin, env={"HOME": str(home)})


def signal_once(
    process: subprocess.Popen[str], sig: signal.Signals, *, when: Callable[[], bool]
) -> tuple[str, str]:
    """Send ``sig`` once ``when()`` holds (or the run ended first), then its stdout and stderr;
    the run is killed whatever happens, so a failed test leaves no process behind."""
    try:
        wait_until(lambda: when() or process.poll() is not None, "the command to start")
        process.send_signal(sig)
        return process.communicate(timeout=30)
    finally:
        process.kill()
