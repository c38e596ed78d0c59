"""A language server runs like a command the workspace influences: under the sandbox's
``analysis`` profile (the workspace readable, nothing of it writable, no network, the user's
secrets hidden), as a process tree, and ended with its whole tree."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from tests.support.processes import alive
from tests.support.sandboxes import backend_params

from toolbelt.lsp.spawn import spawn_process
from toolbelt.sandbox.sandbox import Sandbox, SandboxSettings

pytestmark = pytest.mark.anyio

PROBE = (
    "cat source.py; "
    "touch written.txt 2>/dev/null && echo workspace-written; "
    'touch "$TMPDIR/scratch" && echo temp-written; '
    "(exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null && echo network-reached; "
    '(exec -a "$1" sleep 30) & echo started'
)


@pytest.mark.parametrize("backend", backend_params())
async def test_a_server_reads_the_workspace_writes_nothing_of_it_and_ends_whole(
    tmp_path: Path, backend: str
) -> None:
    token = f"server-child-{backend}-{os.getpid()}-{tmp_path.name}"
    root = tmp_path / "ws"
    root.mkdir()
    (root / "source.py").write_text("x = 1\n")
    sandbox = Sandbox(
        SandboxSettings(mode=backend, network="on"),  # on for commands; never for servers
        [root],
        temp_dir=tmp_path / "tmp",
        state_dir=tmp_path / "state",
    )
    tree = await spawn_process(
        ["bash", "-c", PROBE, "bash", token],
        cwd=root,
        sandbox=sandbox,
        workspace_code=False,
        stdin=None,
    )
    stdout = tree.process.stdout
    assert stdout is not None
    said = b""
    with anyio.fail_after(30):
        while b"started" not in said or not said.endswith(b"\n"):
            said += await stdout.receive()
    lines = said.decode().splitlines()
    assert lines == ["x = 1", "temp-written", "started"]
    assert not (root / "written.txt").exists()
    assert alive(token)
    await tree.aclose()
    assert tree.process.returncode is not None
    assert not alive(token)  # gone with the tree, not left to end later
