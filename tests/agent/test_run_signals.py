"""SIGTERM (``timeout``, ``docker stop``, CI runners) and SIGHUP (a closed terminal) stop
``toolbelt run`` the way Ctrl-C does: the running command and everything it started — in a
new session with ``setsid``, or ``nohup``ed into the background — end, and the exit status is
128 + the signal's number."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests.agent.test_cancel import TAG, sleeps_running
from tests.support.fake_provider import FakeProvider
from tests.support.toolbelt_cli import fake_model, signal_once, start_run


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
        process = start_run(
            "wait", *fake_model(fake.openai_url, root), home=tmp_path, stdin=subprocess.DEVNULL
        )
        out, err = signal_once(process, sig, when=lambda: len(sleeps_running()) >= 3)
    assert process.returncode == status, err
    assert out == ""
    assert err.endswith(f"toolbelt: stopped by {sig.name}\n")
    assert sleeps_running() == []
