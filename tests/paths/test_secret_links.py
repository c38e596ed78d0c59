"""A hard link to a secret under an innocent name (``ln .env notes.txt`` made outside the
sandbox, a ``cp -al`` backup, an archive's hard-link entry) is that secret: read_file,
edit_file and a command that reads it ask as they would for ``.env``, and grep, glob and ls
leave it out — a name is not an identity. Other hard links (a uv or pnpm install links every
file of its cache) are read as before."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.agent.scripts import open_runtime
from tests.tools.helpers import Harness
from toolbelt.agent import Agent
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.core.events import CallState
from toolbelt.paths.secret_links import SecretLinks
from toolbelt.sandbox.landlock import abi_version

pytestmark = pytest.mark.anyio

SECRET = "API_KEY=sk-very-secret\n"


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    root = tmp_path / "ws"
    (root / "config").mkdir(parents=True)
    (root / "config" / ".env").write_text(SECRET)
    (root / "app.py").write_text("API_KEY = env('API_KEY')\n")
    harness = Harness(root, mode="bypass", approve=False)
    yield harness
    await harness.session.aclose()


def asked(h: Harness) -> list[str]:
    return [reason for _, reason in h.requester.asked]


async def test_read_file_of_a_hard_link_to_a_secret_asks(h: Harness) -> None:
    os.link(h.root / "config" / ".env", h.root / "notes.txt")
    result = await h.call("read_file", path="notes.txt")
    assert result.state is CallState.ERROR
    assert "sk-very-secret" not in result.text
    (reason,) = asked(h)
    assert "it is a hard link of" in reason and "config/.env" in reason
    assert ".env files hold secrets" in reason


async def test_edit_file_and_cat_of_the_link_ask(h: Harness) -> None:
    os.link(h.root / "config" / ".env", h.root / "docs.md")
    edited = await h.call("edit_file", path="docs.md", old_string="API_KEY", new_string="K")
    shown = await h.call("bash", command="cat docs.md")
    assert (edited.state, shown.state) == (CallState.ERROR, CallState.ERROR)
    assert "sk-very-secret" not in edited.text + shown.text
    assert "reading it is not allowed without asking" in edited.text  # as for .env itself
    assert ["hard link of" in reason for reason in asked(h)] == [True]  # cat
    assert (h.root / "config" / ".env").read_text() == SECRET


async def test_listings_leave_the_link_out(h: Harness) -> None:
    os.link(h.root / "config" / ".env", h.root / "notes.txt")
    grep = await h.call("grep", pattern="API_KEY", output_mode="content")
    assert grep.text == "app.py:1:API_KEY = env('API_KEY')"
    glob = await h.call("glob", pattern="**/*")
    assert glob.text == "app.py"
    assert asked(h) == []


async def test_other_hard_links_are_read_without_asking(h: Harness) -> None:
    (h.root / "lib.py").write_text("x = 1\n")
    os.link(h.root / "lib.py", h.root / "cache.py")
    result = await h.call("read_file", path="cache.py")
    assert result.state is CallState.SUCCESS and "x = 1" in result.text
    grep = await h.call("grep", pattern="x = 1", output_mode="files_with_matches")
    assert sorted(grep.text.splitlines()) == ["Found 2 files", "cache.py", "lib.py"]
    assert asked(h) == []


async def test_a_link_made_after_the_index_is_still_found(h: Harness) -> None:
    (h.root / "lib.py").write_text("x = 1\n")
    os.link(h.root / "lib.py", h.root / "cache.py")
    assert (await h.call("read_file", path="cache.py")).state is CallState.SUCCESS  # walks
    os.link(h.root / "config" / ".env", h.root / "later.txt")
    result = await h.call("read_file", path="later.txt")
    assert result.state is CallState.ERROR and "sk-very-secret" not in result.text
    assert ["hard link of" in reason for reason in asked(h)] == [True]


def test_a_walk_cut_short_treats_unseen_links_as_secrets(tmp_path: Path) -> None:
    for index in range(5):
        (tmp_path / f"d{index}").mkdir()
    (tmp_path / "a.txt").write_text("x")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    links = SecretLinks(lambda: [tmp_path], lambda below, path: None, limit=3)
    found = links.twin(tmp_path / "b.txt")
    assert found is not None and found.kind == "secret" and "too large" in found.reason
    whole = SecretLinks(lambda: [tmp_path], lambda below, path: None)
    assert whole.twin(tmp_path / "b.txt") is None
    assert whole.twin(tmp_path / "d0") is None  # a directory is never a twin


@pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)")
async def test_a_sandboxed_command_cannot_link_an_existing_secret(tmp_path: Path) -> None:
    """Below the top level too, an existing ``.env`` is mounted read-only for commands, so
    ``ln`` cannot give it a second name (a link made before is caught by the tests above)."""
    root = tmp_path / "ws"
    (root / "config").mkdir(parents=True)
    (root / "config" / ".env").write_text(SECRET)
    (root / "link.sh").write_text("ln config/.env config/notes.txt\n")
    h = Harness(root, mode="default", approve=True)
    try:
        made = await h.call("bash", command="sh link.sh")  # approved: the sandbox decides
        assert made.state is CallState.ERROR
        assert "Invalid cross-device link" in made.text
        assert not (root / "config" / "notes.txt").exists()
        assert (root / "config" / ".env").stat().st_nlink == 1
        assert len(asked(h)) == 1
    finally:
        await h.session.aclose()


async def test_an_instruction_file_linked_to_a_secret_is_not_sent_to_the_provider(
    tmp_path: Path,
) -> None:
    """``AGENTS.md`` goes into the system prompt only when read_file would show it without
    asking: a hard link of ``.env`` under that name stays out."""
    (tmp_path / ".env").write_text(SECRET)
    os.link(tmp_path / ".env", tmp_path / "AGENTS.md")
    (tmp_path / "CLAUDE.md").write_text("Use tabs.\n")
    async with open_runtime(tmp_path) as runtime:
        system = Agent(ScriptedModel([]), runtime).system
    assert "sk-very-secret" not in system and "AGENTS.md" not in system
    assert "Use tabs." in system
