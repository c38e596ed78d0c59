"""With the home directory as the workspace root, a hard link to one of the home's secrets
(``~/.ssh/id_rsa``) is hidden from commands as the secret is, in the read-only profile and
in an approved command's workspace profile, with either backend — and hiding both the
secret's directory and the secret itself does not stop bwrap from starting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.sandboxes import backend_params
from tests.support.toolbelt_cli import toolbelt
from tests.tools.helpers import Harness
from toolbelt.sandbox.sandbox import SandboxSettings

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("mode", ["default", "bypass"])
@pytest.mark.parametrize("sandbox", backend_params(minimum_landlock_abi=4))
async def test_commands_do_not_see_hard_links_to_home_secrets_with_the_home_as_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: str, mode: str
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("SEKRET_key\n")
    (home / "proj").mkdir()
    (home / "proj" / "notes.txt").hardlink_to(home / ".ssh" / "id_rsa")
    (home / "proj" / "plain.txt").write_text("SEKRET_plain\n")
    h = Harness(home, mode=mode, approve=False)
    h.session.resource(SandboxSettings, lambda: SandboxSettings(mode=sandbox))
    try:
        command = "grep -rh SEKRET proj; find proj -exec cat {} +"
        if mode == "bypass":  # a command that writes: the workspace profile
            command += "; echo made > proj/made.txt"
        result = await h.call("bash", command=command)
        assert h.requester.asked == []
        assert "SEKRET_plain" in result.text, result.text
        assert "SEKRET_key" not in result.text, result.text
        assert (mode == "bypass") == (home / "proj" / "made.txt").exists()
    finally:
        await h.session.aclose()


@pytest.mark.parametrize("sandbox", backend_params(minimum_landlock_abi=4))
def test_toolbelt_call_bypass_with_the_home_as_root_hides_the_link(
    tmp_path: Path, sandbox: str
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("SEKRET_key\n")
    (home / "proj").mkdir()
    (home / "proj" / "notes.txt").hardlink_to(home / ".ssh" / "id_rsa")
    (home / "proj" / "plain.txt").write_text("SEKRET_plain\n")
    command = {"command": "find proj -type f -exec cat {} +; echo made > proj/made.txt"}
    for _ in range(2):  # the second call meets what the first left in the home
        out = toolbelt(
            "call",
            "bash",
            json.dumps(command),
            "--root",
            str(home),
            "--mode",
            "bypass",
            "--sandbox",
            sandbox,
            env={"HOME": str(home), "COLUMNS": "200"},
            cwd=home,
        )
        text = out.stdout + out.stderr
        assert "SEKRET_plain" in text and "SEKRET_key" not in text, text
        assert (home / "proj" / "made.txt").read_text() == "made\n"
