"""Claude Code's other settings keys, through the real ``toolbelt`` command: defaultMode,
additionalDirectories and disableBypassPermissionsMode do what they say."""

from __future__ import annotations

import json
from pathlib import Path

from tests.config.test_trust import toolbelt


def user_settings(home: Path, permissions: dict[str, object]) -> None:
    path = home / ".config" / "toolbelt" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"permissions": permissions}))


def test_default_mode_applies_unless_a_mode_is_given(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    user_settings(home, {"defaultMode": "plan"})
    write = '{"path": "a.txt", "content": "x"}'
    planned = toolbelt("call", "write_file", write, "--yes", cwd=work, home=home)
    assert planned.returncode == 3
    assert "plan mode" in planned.stdout
    assert not (work / "a.txt").exists()
    edits = toolbelt("call", "write_file", write, "--mode", "accept_edits", cwd=work, home=home)
    assert edits.returncode == 0
    assert (work / "a.txt").read_text() == "x"


def test_additional_directories_count_as_inside(tmp_path: Path) -> None:
    home, work, shared = tmp_path / "home", tmp_path / "work", tmp_path / "shared"
    work.mkdir()
    shared.mkdir()
    (shared / "notes.txt").write_text("shared notes\n")
    read = json.dumps({"path": str(shared / "notes.txt")})
    outside = toolbelt("call", "read_file", read, cwd=work, home=home)
    assert outside.returncode == 3  # outside the workspace: asks, and nobody is there
    user_settings(home, {"additionalDirectories": [str(shared)]})
    inside = toolbelt("call", "read_file", read, cwd=work, home=home)
    assert (inside.returncode, inside.stdout) == (0, "1\tshared notes\n")


def test_bypass_can_be_switched_off(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    user_settings(home, {"disableBypassPermissionsMode": "disable"})
    out = toolbelt("call", "think", '{"thought": "x"}', "--mode", "bypass", cwd=work, home=home)
    assert out.returncode == 2
    assert out.stderr.startswith("toolbelt: bypass mode is turned off by")
    served = toolbelt("mcp", "--mode", "bypass", cwd=work, home=home)
    assert served.returncode == 2
    assert served.stderr.startswith("toolbelt: bypass mode is turned off by")
