"""SIGTERM (``timeout``, ``docker stop``, CI runners) and SIGHUP (a closed terminal) stop
``toolbelt run`` the way Ctrl-C does: the running command and everything it started — in a
new session with ``setsid``, or ``nohup``ed into the background — end, and the exit status is
128 + the signal's number."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.agent.test_cancel import TAG, sleeps_running
from tests.agent.test_run_command import TOOLBELT
from tests.support.fake_provider import FakeProvider


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_stop_signal_mid_command_ends_its_whole_tree(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    sleep = f"sleep 100{TAG}"
    command = f"setsid {sleep} & nohup {sleep} >/dev/null 2>&1 & {sleep}"
    script = [{"calls": [{"name": "bash", "arguments": {"command": command}}]}]
    with FakeProvider(script) as fake:
        process = subprocess.Popen(
            [
                *TOOLBELT,
                "run",
                "wait",
                "--model",
                "openai:gpt-test",
                "--base-url",
                fake.openai_url,
                "--root",
                str(root),
                "--yes",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "HOME": str(tmp_path)},
        )
        try:
            deadline = time.monotonic() + 30
            while len(sleeps_running()) < 3 and process.poll() is None:
                assert time.monotonic() < deadline, "the command never started"
                time.sleep(0.02)
            process.send_signal(sig)
            out, err = process.communicate(timeout=30)
        finally:
            process.kill()
    assert process.returncode == status, err
    assert out == ""
    assert err.endswith(f"toolbelt: stopped by {sig.name}\n")
    assert sleeps_running() == []
