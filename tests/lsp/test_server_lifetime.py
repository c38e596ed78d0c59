"""A language server's processes live as long as the session: started as a process tree (an
anchor, a run id in the environment of every process below it), ended whole when the session
closes — the server and whatever it started (basedpyright's node) — and a server that cannot
start says why instead of passing for one that crashed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from tests.lsp.test_diagnostics_after_edit import CALC, diagnostics_part, edit, harness
from tests.support.processes import ended

from toolbelt.lsp.service import CodeDiagnostics
from toolbelt.lsp.settings import LspSettings

pytestmark = pytest.mark.anyio

BASEDPYRIGHT = Path(sys.prefix) / "bin" / "basedpyright-langserver"


def carrying(mark: str) -> list[int]:
    """The processes whose environment holds ``TOOLBELT_RUN_ID=mark``."""
    wanted = f"TOOLBELT_RUN_ID={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environment = handle.read().split(b"\0")
        except OSError:  # ended while we looked, or not ours
            continue
        if wanted in environment:
            found.append(int(entry))
    return found


@pytest.mark.skipif(not BASEDPYRIGHT.exists(), reason="basedpyright is not installed")
async def test_every_process_of_a_real_server_is_gone_once_the_session_closes(
    tmp_path: Path,
) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    h = harness(tmp_path, LspSettings(timeout=60))
    try:
        await h.call("read_file", path="calc.py")
        text = await edit(h, "calc.py", "return a + b", "return a + b + undefined_two")
        assert diagnostics_part(text)[0] == "New diagnostics in calc.py (basedpyright): 1 error"
        service = h.session.peek(CodeDiagnostics)
        assert service is not None
        [connection] = service.servers.running()
        tree = connection._tree
        assert tree is not None
        pids = carrying(tree.run_id)
        # the anchor's child: the launcher's python, then node running the server itself
        assert len(pids) >= 2, pids
        assert all(not ended(pid, within=0) for pid in pids)
    finally:
        await h.session.aclose()
    assert [pid for pid in pids if not ended(pid, within=0)] == []
    assert tree.process.returncode is not None


async def test_a_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "calc.py").write_text(CALC)
    missing = tmp_path / "bin" / "no-such-server"  # outside the workspace: not its own code
    h = harness(root, LspSettings(timeout=5, servers={"python": (str(missing),)}))
    try:
        await h.call("read_file", path="calc.py")
        text = await edit(h, "calc.py", "return a + b", "return a + b  # changed")
    finally:
        await h.session.aclose()
    notes = [line for line in diagnostics_part(text) if line.startswith("Note:")]
    assert notes == [
        f"Note: no-such-server could not be started ({missing}: No such file or directory); "
        "it will be restarted after 1 s."
    ]
