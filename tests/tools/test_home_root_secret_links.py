"""A workspace root that holds the home directory (``--root ~``, or ``/``-like roots above it)
still knows the home's secrets by identity: a hard link to ``~/.ssh/id_rsa`` or
``~/.aws/credentials`` anywhere in it asks to be read and is left out of listings, as it is
with a root below the home (``--root ~/proj``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.toolbelt_cli import toolbelt
from tests.tools.helpers import Harness

pytestmark = pytest.mark.anyio

SECRETS = [".ssh/id_rsa", ".aws/credentials", ".netrc"]


def linked_home(home: Path) -> list[Path]:
    """The home's secrets, each with a hard link under ``proj/`` named innocently."""
    links = []
    for number, name in enumerate(SECRETS):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"SEKRET_{number}\n")
        (home / "proj").mkdir(exist_ok=True)
        link = home / "proj" / f"notes{number}.txt"
        link.hardlink_to(home / name)
        links.append(link)
    (home / "proj" / "plain.txt").write_text("SEKRET_plain\n")
    return links


@pytest.mark.parametrize("root", ["home", "above"])
async def test_hard_links_to_home_secrets_are_secrets_with_a_root_holding_the_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: str
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    links = linked_home(home)
    workspace = home if root == "home" else tmp_path
    h = Harness(workspace, mode="bypass", approve=False)
    for link in links:
        result = await h.call("read_file", path=str(link))
        assert "SEKRET" not in result.text, result.text
    assert len(h.requester.asked) == len(links)
    assert all("it is a hard link of" in str(asked) for asked in h.requester.asked)
    grep = await h.call("grep", pattern="SEKRET", output_mode="content", path=str(home / "proj"))
    assert grep.text.endswith("plain.txt:1:SEKRET_plain") and grep.text.count("SEKRET") == 1
    count = await h.call("grep", pattern="SEKRET", output_mode="count")
    assert "notes" not in count.text, count.text
    found = await h.call("glob", pattern="**/notes*")
    assert found.text == "No files found."
    listed = await h.call("ls", path=str(home / "proj"))
    assert "notes" not in listed.text and "plain.txt" in listed.text, listed.text


def test_toolbelt_call_with_the_home_as_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    linked_home(home)
    env = {"HOME": str(home), "COLUMNS": "200"}

    def call(tool: str, args: dict[str, object]) -> str:
        out = toolbelt("call", tool, json.dumps(args), "--root", str(home), env=env)
        return out.stdout + out.stderr

    read = call("read_file", {"path": "proj/notes0.txt"})
    assert "SEKRET" not in read and "it is a hard link of" in read, read
    grep = call("grep", {"pattern": "SEKRET", "output_mode": "content"})
    assert grep.strip() == "proj/plain.txt:1:SEKRET_plain"
    glob = call("glob", {"pattern": "proj/*"})
    assert glob.strip() == "proj/plain.txt"
