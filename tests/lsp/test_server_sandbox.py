"""A language server runs like a command the workspace influences: under the sandbox's
``analysis`` profile (the workspace readable, nothing of it writable, no network, the user's
secrets hidden), anchored, and ended with its whole tree."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.support.sandboxes import backend_params

from toolbelt.lsp.spawn import end_process, spawn_process
from toolbelt.sandbox.sandbox import Sandbox, SandboxSettings

pytestmark = pytest.mark.anyio

PROBE = (
    "cat source.py; "
    "touch written.txt 2>/dev/null && echo workspace-written; "
    'touch "$TMPDIR/scratch" && echo temp-written; '
    "(exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null && echo network-reached; "
    "sleep 30 & echo started"
)


@pytest.mark.parametrize("backend", backend_params())
async def test_a_server_reads_the_workspace_writes_nothing_of_it_and_ends_whole(
    tmp_path: Path, backend: str
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "source.py").write_text("x = 1\n")
    sandbox = Sandbox(
        SandboxSettings(mode=backend, network="on"),  # on for commands; never for servers
        [root],
        temp_dir=tmp_path / "tmp",
        state_dir=tmp_path / "state",
    )
    server = await spawn_process(
        ["bash", "-c", PROBE], cwd=root, sandbox=sandbox, workspace_code=False, stdin=None
    )
    assert server.process.stdout is not None
    said = await asyncio.wait_for(server.process.stdout.readline(), 30)
    lines = [said.decode()]
    while not lines[-1].startswith("started"):
        lines.append((await asyncio.wait_for(server.process.stdout.readline(), 30)).decode())
    assert lines == ["x = 1\n", "temp-written\n", "started\n"]
    assert not (root / "written.txt").exists()
    await end_process(server)
    assert not server.anchor.alive()
    assert server.process.returncode is not None
