"""The terminal permission prompt gives way to its timeout and to cancellation while it waits
for a line that does not come (it reads in a worker thread that is abandoned, not awaited)."""

from __future__ import annotations

import contextlib
import io
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from toolbelt import Runtime, RuntimeOptions, SandboxSettings, SessionConfig, ToolCall
from toolbelt.cli.prompt import TerminalRequester
from toolbelt.core.events import CallState

pytestmark = pytest.mark.anyio

UNSANDBOXED = SandboxSettings(mode="off")
"""Sandboxed, `touch made` writes only inside the workspace and runs without asking; these
tests are about the prompt, so they run commands the way `--sandbox off` does: asking."""


@pytest.fixture
def silent_stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Standard input that never sends a line; closed after the test (or, as a safety valve
    that turns a hang into a failure, after 10 s: the prompt then sees end of input)."""
    read_fd, write_fd = os.pipe()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(os.fdopen(read_fd, "rb")))
    valve = threading.Timer(10, os.close, (write_fd,))
    valve.start()
    yield
    valve.cancel()
    with contextlib.suppress(OSError):  # the valve closed it already
        os.close(write_fd)


async def test_the_prompt_gives_up_at_the_permission_timeout(
    tmp_path: Path, silent_stdin: None
) -> None:
    config = SessionConfig(require_read_before_write=False)
    options = RuntimeOptions(config=config, permission_timeout=0.2)
    async with Runtime(tmp_path, requester=TerminalRequester(), options=options) as runtime:
        runtime.use_sandbox(UNSANDBOXED)
        [result] = await runtime.run([ToolCall("1", "bash", {"command": "touch made"})])
    assert result.error_kind == "permission_denied"
    assert result.text.startswith("No answer to the permission prompt within 0.2 s")
    assert not (tmp_path / "made").exists()


class PromptWatcher(io.StringIO):
    """Standard error that tells when the prompt has asked and is reading the answer."""

    def __init__(self) -> None:
        super().__init__()
        self.reading = threading.Event()

    def flush(self) -> None:
        if self.getvalue().endswith("> "):
            self.reading.set()


async def test_cancelling_the_batch_ends_a_waiting_prompt(
    tmp_path: Path, silent_stdin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    stderr = PromptWatcher()
    monkeypatch.setattr("sys.stderr", stderr)
    results: list[CallState] = []
    async with Runtime(tmp_path, requester=TerminalRequester()) as runtime:
        runtime.use_sandbox(UNSANDBOXED)

        async def run() -> None:
            try:
                [result] = await runtime.run([ToolCall("1", "bash", {"command": "touch made"})])
                results.append(result.state)
            finally:  # a call that never asks must fail the test, not leave it waiting
                stderr.reading.set()

        async with anyio.create_task_group() as group:
            group.start_soon(run)
            await anyio.to_thread.run_sync(stderr.reading.wait)
            runtime.cancel()
    assert results == [CallState.ABORTED]
    assert "wants permission: `touch made` runs a command." in stderr.getvalue()
    assert not (tmp_path / "made").exists()
