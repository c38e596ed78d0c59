"""Files an editor runs when it opens the folder (``.exrc``, ``.nvim.lua``,
``.dir-locals.el``, a ``*.code-workspace``, IntelliJ's ``.run/``) and bazelisk's
``.bazeliskrc`` are launch configuration: write_file asks for them in every mode, an approved
sandboxed command that creates one has it moved aside, and an existing one stays read-only."""

from __future__ import annotations

import json

import pytest

from tests.runners.cli import Place, needs_sandbox, place, toolbelt

__all__ = ["place"]

NAMES = [
    ".exrc",
    ".vimrc",
    ".nvimrc",
    ".nvim.lua",
    "sub/.dir-locals.el",
    ".dir-locals-2.el",
    "app.code-workspace",
    ".bazeliskrc",
    ".run/App.run.xml",
]


@pytest.mark.parametrize("name", NAMES)
def test_write_file_asks_for_an_editor_start_up_file(place: Place, name: str) -> None:
    args = json.dumps({"path": name, "content": "x\n"})
    done = toolbelt("call", "write_file", args, "--mode", "accept_edits", place=place)
    assert done.returncode == 3, done.stdout
    assert "touches a protected path" in done.stdout
    assert not (place.ws / name).exists()


PLANT = """\
import os, sys
for name in sys.argv[1:]:
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    open(name, "w").write("planted")
"""


@needs_sandbox
def test_an_approved_command_cannot_plant_editor_start_up_files(place: Place) -> None:
    (place.ws / "plant.py").write_text(PLANT)
    (place.ws / "sub").mkdir()
    command = "python3 plant.py " + " ".join(NAMES)
    args = json.dumps({"command": command, "timeout_ms": 30_000})
    done = toolbelt("call", "bash", args, "--yes", place=place)
    for name in (".exrc", ".nvim.lua", "app.code-workspace", ".bazeliskrc", ".run"):
        assert f"The sandbox removed {name}, which the command created" in done.stdout
    assert sorted(p.name for p in place.ws.iterdir()) == ["plant.py", "sub"]
    assert list((place.ws / "sub").iterdir()) == []


@needs_sandbox
def test_an_existing_editor_start_up_file_stays_read_only(place: Place) -> None:
    (place.ws / ".nvim.lua").write_text("-- mine\n")
    (place.ws / "app.code-workspace").write_text("{}\n")
    command = "echo 'os.execute(\"x\")' >> .nvim.lua; echo '{\"tasks\": 1}' > app.code-workspace"
    args = json.dumps({"command": command, "timeout_ms": 30_000})
    done = toolbelt("call", "bash", args, "--yes", place=place)
    assert "line 4: .nvim.lua: Read-only file system" in done.stdout
    assert "line 4: app.code-workspace: Read-only file system" in done.stdout
    assert (place.ws / ".nvim.lua").read_text() == "-- mine\n"
    assert (place.ws / "app.code-workspace").read_text() == "{}\n"
