"""What the sandbox undoes is never lost and never outside the workspace: a directory a command
moves keeps its protected entries (a nested repository's ``.git``, its ``.env.local``), an
entry made while a background job ran is moved to the quarantine folder, not deleted, and the
clean-up does not follow a directory swapped for a symlink."""

from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.tools.helpers import Harness
from toolbelt.core.events import CallState
from toolbelt.sandbox.created import CreatedWatch
from toolbelt.sandbox.landlock import abi_version
from toolbelt.sandbox.sandbox import Sandbox, SandboxSettings

needs_landlock = pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)")


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    (tmp_path / "ws").mkdir()
    harness = Harness(tmp_path / "ws", mode="bypass")
    yield harness
    await harness.session.aclose()


def _git(*args: str, cwd: Path) -> str:
    ident = ["-c", "user.email=u@example.invalid", "-c", "user.name=u"]
    done = subprocess.run(["git", *ident, *args], cwd=cwd, capture_output=True, text=True)
    return done.stdout


@needs_landlock
@pytest.mark.anyio
async def test_a_moved_directory_keeps_its_repository_secrets_and_settings(h: Harness) -> None:
    vendored = h.root / "libs" / "vendored"
    vendored.mkdir(parents=True)
    _git("init", "-q", ".", cwd=vendored)
    (vendored / "a.c").write_text("int a;\n")
    _git("add", "a.c", cwd=vendored)
    _git("commit", "-qm", "history", cwd=vendored)
    (vendored / ".env.local").write_text("TOKEN=only-copy\n")
    (h.root / "frontend" / ".vscode").mkdir(parents=True)
    await h.call("bash", command="echo warm")  # the watch knows the workspace

    result = await h.call("bash", command="mv libs/vendored libs/vendor && mv frontend web")

    assert result.state is CallState.SUCCESS and "sandbox" not in result.text
    moved = h.root / "libs" / "vendor"
    assert _git("log", "--format=%s", cwd=moved) == "history\n"
    assert (moved / ".env.local").read_text() == "TOKEN=only-copy\n"
    assert (h.root / "web" / ".vscode").is_dir()


@needs_landlock
@pytest.mark.anyio
async def test_an_entry_made_while_a_job_runs_is_moved_aside_not_deleted(h: Harness) -> None:
    await h.call("bash", command="sleep 600", run_in_background=True)
    (h.root / "notes").mkdir()
    (h.root / "notes" / ".env.local").write_text("MINE=1\n")  # the user's, or the job's

    result = await h.call("bash", command="echo next")

    assert not (h.root / "notes" / ".env.local").exists()
    quarantine = Path(os.environ["XDG_STATE_HOME"]) / "toolbelt" / "quarantine"
    [kept] = list(quarantine.glob("*/.env.local"))
    assert kept.read_text() == "MINE=1\n"
    note = f"The sandbox removed notes/.env.local, which a background job created, to {kept}: "
    assert note in result.text and "(if it was yours, move it back)" in result.text


def test_the_clean_up_does_not_follow_a_directory_swapped_for_a_symlink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "otherproject"
    (outside / ".git").mkdir(parents=True)
    (outside / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / "sub").mkdir(parents=True)
    sandbox = Sandbox(
        SandboxSettings(mode="off"),
        [ws],
        temp_dir=tmp_path / "tmp",
        state_dir=tmp_path / "state",
        home=tmp_path / "home",
    )
    sandbox.watch_job(lambda: None)  # a confined job runs: what appears is not accepted
    (ws / "sub" / ".git").mkdir()
    watch = sandbox._watch
    scan = watch.created

    def scan_then_swap() -> list[Path]:
        found = scan()  # sees sub/.git; then the job swaps sub/ for a symlink, as it races
        os.rename(ws / "sub", ws / "A")
        os.symlink(outside, ws / "sub")
        return found

    monkeypatch.setattr(watch, "created", scan_then_swap)

    notes = sandbox.check_jobs()

    assert (outside / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert os.path.islink(ws / "sub") and (ws / "A" / ".git").is_dir()
    assert len(notes) == 1 and notes[0].startswith(f"The sandbox could not move {ws}/sub/.git")
    assert not (tmp_path / "home" / ".local" / "state").exists()  # nothing was moved


def test_the_watch_tells_a_moved_directory_from_a_new_link(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / ".envrc").write_text("use nix\n")
    (tmp_path / "other").mkdir()
    watch = CreatedWatch([tmp_path])
    watch.baseline()
    os.rename(tmp_path / "old", tmp_path / "new")
    assert watch.created() == []  # the same entry, moved with its directory
    os.link(tmp_path / "new" / ".envrc", tmp_path / "other" / ".envrc")
    assert watch.created() == [tmp_path / "other" / ".envrc"]  # a new name for it: made
