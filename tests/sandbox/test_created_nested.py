"""Protected names a sandboxed command creates below the workspace's top level are removed
when it ends, like those at the top; what existed before stays and keeps working."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.tools.helpers import Harness
from toolbelt.core.events import CallState
from toolbelt.sandbox import created
from toolbelt.sandbox.created import CreatedWatch
from toolbelt.sandbox.landlock import abi_version

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)"),
]

ATTACK = (
    "awk 'BEGIN{system(\"mkdir -p sub/.git/hooks sub/.toolbelt sub/.vscode deep/a/b; "
    "echo x>sub/.git/hooks/pre-commit; echo x>sub/.toolbelt/settings.json; "
    "echo x>sub/.vscode/tasks.json; echo x>sub/.env; echo x>sub/.bashrc; "
    "echo x>deep/a/b/.mcp.json; echo x>sub/ok.txt\")}'"
)


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    (tmp_path / "ws" / "sub").mkdir(parents=True)
    (tmp_path / "ws" / "deep" / "a").mkdir(parents=True)
    harness = Harness(tmp_path / "ws", mode="bypass")
    yield harness
    await harness.session.aclose()


async def test_nested_protected_names_a_command_creates_are_removed(h: Harness) -> None:
    result = await h.call("bash", command=ATTACK)
    assert result.state is CallState.SUCCESS
    sub = h.root / "sub"
    assert sorted(os.listdir(sub)) == ["ok.txt"]
    assert os.listdir(h.root / "deep" / "a" / "b") == []
    for shown in ("sub/.git", "sub/.toolbelt", "sub/.vscode", "sub/.env", "sub/.bashrc"):
        assert f"The sandbox removed {shown}, which the command created" in result.text
    assert "The sandbox removed deep/a/b/.mcp.json" in result.text


async def test_a_nested_repository_made_before_keeps_working(h: Harness) -> None:
    repo = h.root / "sub"
    _make_repo(repo)
    result = await h.call("bash", command="git -C sub log --format=%s && echo y > sub/new.txt")
    assert result.state is CallState.SUCCESS and result.text.startswith("first")
    assert (repo / ".git" / "HEAD").is_file() and (repo / ".env").read_text() == "KEY=1\n"
    assert "removed" not in result.text


async def test_protected_names_made_between_commands_are_kept(h: Harness) -> None:
    await h.call("bash", command="echo one")
    (h.root / "sub" / ".vscode").mkdir()  # as write_file would, approved by the user
    result = await h.call("bash", command="echo two")
    assert result.text == "two" and (h.root / "sub" / ".vscode").is_dir()


def test_the_watch_sees_an_entry_added_in_the_same_clock_tick(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    watch = CreatedWatch([tmp_path])
    watch.baseline()
    (tmp_path / "a" / "b" / ".envrc").write_text("x")  # right after the scan: same tick
    assert watch.created() == [tmp_path / "a" / "b" / ".envrc"]
    assert watch.created() == []


SET_MTIME_BACK = "touch -r sub .ref\necho 'import os' > sub/.envrc\ntouch -m -r .ref sub\nrm .ref\n"


@pytest.fixture
def late_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The watch's scans stamped 10 s late: as if the directories were last changed long
    before, so only their timestamps, not the coarse-clock rescan, can reveal a change."""
    real = time.time_ns
    monkeypatch.setattr(created.time, "time_ns", lambda: real() + 10_000_000_000)


@pytest.mark.usefixtures("late_clock")
async def test_a_command_that_sets_the_directory_mtime_back_is_still_caught(h: Harness) -> None:
    (h.root / "mk.sh").write_text(SET_MTIME_BACK)
    await h.call("bash", command="echo warm")  # the watch knows the workspace
    result = await h.call("bash", command="sh mk.sh")
    assert "The sandbox removed sub/.envrc, which the command created" in result.text
    assert sorted(os.listdir(h.root / "sub")) == []


@pytest.mark.usefixtures("late_clock")
def test_the_watch_ignores_a_restored_mtime(tmp_path: Path) -> None:
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    watch = CreatedWatch([tmp_path])
    watch.baseline()
    stamp = os.stat(site)
    (site / "zz.pth").write_text("import os\n")
    os.utime(site, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert watch.created() == [site / "zz.pth"]


def _make_repo(repo: Path) -> None:
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / ".env").write_text("KEY=1\n")
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "first"], check=True)
