"""A shell that died between two commands is started again, in the same directory.

The persistent shell can die while nobody is running anything in it (killed from outside,
its sandbox torn down). The next command must not fail with a broken pipe: it gets a fresh
shell in the directory the last one was in, and runs.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.support.waiting import wait_until_async
from toolbelt.shell.session import ShellSession

pytestmark = pytest.mark.anyio


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


async def test_the_next_command_runs_in_a_new_shell_in_the_same_directory(
    tmp_path: Path,
) -> None:
    (tmp_path / "sub").mkdir()
    session = ShellSession(tmp_path, dict(os.environ), "restart-test")
    try:
        first = await session.run("cd sub && echo $$", timeout=30)
        shell = int(first.output.strip())
        os.kill(shell, signal.SIGKILL)
        await wait_until_async(lambda: gone(shell), "the killed shell to be gone")
        again = await session.run("pwd; echo $$", timeout=30)
        where, pid = again.output.split()
        assert (where, again.exit_code) == (str(tmp_path / "sub"), 0)
        assert int(pid) != shell
    finally:
        await session.aclose()
