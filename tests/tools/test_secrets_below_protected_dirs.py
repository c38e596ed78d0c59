"""A secret's name below a protected directory (``.devcontainer/.env``, ``sub/.github/.env.local``,
``.git/.env``) is a secret, not the directory's code: read_file asks for it, grep, glob and ls
leave it out, a hard link to it is the same secret, and ``toolbelt call`` behaves the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.toolbelt_cli import toolbelt
from tests.tools.helpers import Harness

from toolbelt.core.events import CallState

pytestmark = pytest.mark.anyio

DIRECTORIES = [
    ".devcontainer",
    ".vscode",
    ".github",
    ".claude",
    ".toolbelt",
    ".idea",
    ".cargo",
    ".mvn",
    ".husky",
    ".git",
    "sub/.devcontainer",
    ".github/workflows",
    ".git/hooks",
]


def workspace(root: Path, directory: str, name: str = ".env") -> Path:
    (root / directory).mkdir(parents=True)
    (root / directory / name).write_text("SEKRET_nested\n")
    (root / "plain.txt").write_text("SEKRET_not_secret\n")
    return root / directory / name


@pytest.mark.parametrize("directory", DIRECTORIES)
async def test_reading_a_secret_below_a_protected_directory_asks(
    tmp_path: Path, directory: str
) -> None:
    workspace(tmp_path, directory)
    h = Harness(tmp_path, mode="bypass", approve=False)
    result = await h.call("read_file", path=f"{directory}/.env")
    assert result.state is not CallState.SUCCESS
    assert "SEKRET_nested" not in result.text
    assert len(h.requester.asked) == 1  # a secret asks in every mode, bypass too


@pytest.mark.parametrize("directory", DIRECTORIES)
async def test_listings_leave_a_secret_below_a_protected_directory_out(
    tmp_path: Path, directory: str
) -> None:
    workspace(tmp_path, directory, ".env.local")
    h = Harness(tmp_path, mode="default")
    content = await h.call("grep", pattern="SEKRET", output_mode="content")
    assert content.text == "plain.txt:1:SEKRET_not_secret"
    files = await h.call("grep", pattern="SEKRET")
    assert files.text == "Found 1 file\nplain.txt"
    count = await h.call("grep", pattern="SEKRET", output_mode="count")
    assert "nested" not in count.text and ".env" not in count.text, count.text
    found = await h.call("glob", pattern="**/.env*")
    assert found.text == "No files found."
    listed = await h.call("ls", path=directory)
    assert ".env.local" not in listed.text, listed.text


async def test_a_hard_link_to_a_secret_below_a_protected_directory_is_that_secret(
    tmp_path: Path,
) -> None:
    secret = workspace(tmp_path, ".git")
    (tmp_path / "notes.txt").hardlink_to(secret)
    h = Harness(tmp_path, mode="bypass", approve=False)
    result = await h.call("read_file", path="notes.txt")
    assert "SEKRET_nested" not in result.text
    assert len(h.requester.asked) == 1
    assert f"it is a hard link of {secret}" in str(h.requester.asked[0])
    grep = await h.call("grep", pattern="SEKRET", output_mode="content")
    assert grep.text == "plain.txt:1:SEKRET_not_secret"


def test_toolbelt_call_keeps_a_nested_secret(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace(root, "sub/.devcontainer")
    env = {"HOME": str(home), "COLUMNS": "200"}

    def call(tool: str, args: dict[str, object]) -> str:
        out = toolbelt("call", tool, json.dumps(args), "--root", str(root), env=env)
        return out.stdout + out.stderr

    read = call("read_file", {"path": "sub/.devcontainer/.env"})
    assert "SEKRET_nested" not in read and "(.env files hold secrets)" in read, read
    grep = call("grep", {"pattern": "SEKRET", "output_mode": "content"})
    assert grep.strip() == "plain.txt:1:SEKRET_not_secret"
