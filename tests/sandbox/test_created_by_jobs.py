"""Protected names a confined background job creates are removed: when the job is seen
ended, at the next command, and when the session closes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.waiting import wait_until
from tests.tools.helpers import Harness
from toolbelt.sandbox.landlock import abi_version

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)"),
]

# waits for the test's go-ahead, plants settings and an MCP config, says so, then lingers
PLANT = (
    "while [ ! -e go ]; do sleep 0.01; done; awk 'BEGIN{system(\"mkdir -p .toolbelt sub/.vscode"
    " && echo x > .toolbelt/settings.json && echo x > .mcp.json"
    " && echo x > sub/.vscode/tasks.json\")}' && touch planted"
)


def _planted_gone(root: Path) -> bool:
    names = (".toolbelt", ".mcp.json", "sub/.vscode")
    return not any((root / name).exists() for name in names)


async def _start(h: Harness, command: str) -> str:
    started = await h.call("bash", command=command, run_in_background=True)
    job_id = str((started.output.structured or {})["id"])
    (h.root / "go").touch()
    wait_until((h.root / "planted").exists, "the job to plant its files")
    return job_id


async def test_removed_when_the_job_is_seen_ended(tmp_path: Path) -> None:
    h = Harness(tmp_path, mode="bypass")
    job_id = await _start(h, PLANT)
    output = await h.call("bash_output", id=job_id)
    while "exited" not in output.text:
        output = await h.call("bash_output", id=job_id)
    assert _planted_gone(tmp_path)
    assert "The sandbox removed .mcp.json, which a background job created" in output.text
    assert "The sandbox removed sub/.vscode" in output.text
    await h.session.aclose()


async def test_removed_at_the_next_command_while_the_job_runs(tmp_path: Path) -> None:
    h = Harness(tmp_path, mode="bypass")
    await _start(h, f"{PLANT}; sleep 600")
    result = await h.call("bash", command="echo next")
    assert _planted_gone(tmp_path)
    assert result.text.startswith("next")
    assert "The sandbox removed .toolbelt, which a background job created" in result.text
    await h.session.aclose()


async def test_removed_when_the_session_closes(tmp_path: Path) -> None:
    h = Harness(tmp_path, mode="bypass")
    await _start(h, f"{PLANT}; sleep 600")
    assert (tmp_path / ".mcp.json").exists()
    await h.session.aclose()
    assert _planted_gone(tmp_path)


async def test_what_existed_before_the_job_stays(tmp_path: Path) -> None:
    (tmp_path / ".vscode").mkdir()
    h = Harness(tmp_path, mode="bypass")
    await _start(h, PLANT)
    await h.session.aclose()
    assert (tmp_path / ".vscode").is_dir() and _planted_gone(tmp_path)
