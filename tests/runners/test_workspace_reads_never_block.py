"""``toolbelt run`` starts whatever the workspace's ``.git`` holds: a ``HEAD`` that is a FIFO, a
link to ``/dev/zero``, a ``gitdir:`` pointing at either, a ``.mcp.json`` that is a FIFO. Each
read toolbelt makes of the workspace on its own is bounded and never blocks
(``paths.small_read``). Through the real CLI against the loopback fake provider."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.fake_provider import FakeProvider
from tests.support.toolbelt_cli import fake_model, toolbelt_run


def fifo_head(ws: Path, tmp_path: Path) -> None:
    (ws / ".git").mkdir()
    os.mkfifo(ws / ".git" / "HEAD")


def head_to_dev_zero(ws: Path, tmp_path: Path) -> None:
    (ws / ".git").mkdir()
    (ws / ".git" / "HEAD").symlink_to("/dev/zero")


def gitdir_to_a_fifo(ws: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.mkfifo(elsewhere / "HEAD")
    (ws / ".git").write_text(f"gitdir: {elsewhere}\n")


@pytest.mark.parametrize(
    "plant",
    [fifo_head, head_to_dev_zero, gitdir_to_a_fifo],
)
def test_a_run_starts_whatever_the_workspace_holds(
    tmp_path: Path, plant: Callable[[Path, Path], None]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    plant(ws, tmp_path)
    with FakeProvider([{"text": "Done."}]) as fake:
        done = toolbelt_run("Say done", *fake_model(fake.openai_url, ws), home=tmp_path)
    assert (done.returncode, done.stdout) == (0, "Done.\n"), done.stderr
    system = fake.requests[0].body["messages"][0]["content"]
    assert f"- workspace root: {ws}" in system
    assert "- git branch:" not in system  # nothing readable: no branch, and no hang
