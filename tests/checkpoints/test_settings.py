"""The ``checkpoints`` settings: limits in the user's units, off switch, and a workspace's own
files count only once it is trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.checkpoints.helpers import call
from toolbelt.checkpoints.settings import CheckpointSettings
from toolbelt.config.settings import load_settings
from toolbelt.core.context import SessionConfig
from toolbelt.core.errors import SettingsError
from toolbelt.core.requesters import AutoApprove
from toolbelt.runtime import Runtime

pytestmark = pytest.mark.anyio

MB = 1024 * 1024


def user_settings(data: object) -> None:
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "toolbelt"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(data))


def test_limits_are_read_in_days_and_megabytes(tmp_path: Path) -> None:
    assert load_settings(tmp_path).checkpoints == CheckpointSettings()
    user_settings({"checkpoints": {"maxAgeDays": 7, "maxSizeMB": 100, "maxFileSizeMB": 1.5}})
    assert load_settings(tmp_path).checkpoints == CheckpointSettings(
        max_age_days=7, max_size_bytes=100 * MB, max_file_bytes=int(1.5 * MB)
    )


def test_a_workspace_may_set_them_only_once_trusted(tmp_path: Path) -> None:
    (tmp_path / ".toolbelt").mkdir()
    project = tmp_path / ".toolbelt" / "settings.json"
    project.write_text(json.dumps({"checkpoints": {"enabled": False}}))
    untrusted = load_settings(tmp_path, trusted=False)
    assert untrusted.checkpoints.enabled
    assert untrusted.ignored == [f"{project}: checkpoint settings"]
    assert not load_settings(tmp_path, trusted=True).checkpoints.enabled


def test_a_bad_value_names_the_file_and_line(tmp_path: Path) -> None:
    user_settings({"checkpoints": {"maxAgeDays": 0}})
    with pytest.raises(SettingsError, match=r"settings\.json, line 1: `checkpoints\.maxAgeDays`"):
        load_settings(tmp_path)


async def test_switched_off_nothing_is_recorded(tmp_path: Path) -> None:
    user_settings({"checkpoints": {"enabled": False}})
    (tmp_path / "a.txt").write_text("one\n")
    runtime = Runtime(
        tmp_path,
        requester=AutoApprove(),
        config=SessionConfig(require_read_before_write=False),
    )
    async with runtime:
        result = await call(runtime, "edit_file", path="a.txt", old_string="one", new_string="2")
        await call(runtime, "bash", command="echo x > b.txt")
        assert await runtime.checkpoints.list() == []
    assert "not undoable" not in result.text
    assert not runtime.checkpoints.store.layout.base.exists()
