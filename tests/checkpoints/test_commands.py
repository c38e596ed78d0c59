"""Undo of a command: what it edited, created, deleted and renamed comes back — in a git
repository without touching the user's index, stash, branches, hooks or config, and in a
directory that is no repository — with real git, real bash and real files."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
import pytest

from tests.checkpoints.helpers import call, digest_tree, git, open_runtime, tree_state
from toolbelt.checkpoints.settings import CheckpointSettings
from toolbelt.checkpoints.store import CheckpointStore
from toolbelt.checkpoints.undo import UndoError
from toolbelt.config.settings import Settings

pytestmark = pytest.mark.anyio

MESSY = (
    "printf 'changed\\r\\n' >> crlf.txt && rm gone.txt && mv old-name.txt new-name.txt"
    " && mkdir -p made/deeper && echo fresh > made/deeper/new.txt && chmod +x tool.sh"
    " && ln -sf crlf.txt link && echo noise > build.log"
)


def make_workspace(root: Path) -> None:
    (root / "crlf.txt").write_bytes(b"first\r\nsecond\r\n")
    (root / "gone.txt").write_text("to be deleted\n")
    (root / "old-name.txt").write_text("renamed\n")
    (root / "tool.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "tool.sh").chmod(0o644)
    (root / "private.txt").write_text("secret-ish\n")
    (root / "private.txt").chmod(0o600)
    (root / ".gitignore").write_text("*.log\n")


def hostile_git_config(repo: Path, home: Path) -> Path:
    """Hooks, an fsmonitor, filters and line-ending rules that would show (a marker file, or
    changed bytes) if anything toolbelt runs ever let git use them."""
    marker = repo.parent / "marker"
    script = f"#!/bin/sh\ntouch {marker}\ncat\n"
    hooks = repo / ".git" / "hooks"
    for name in ("pre-commit", "post-checkout", "post-index-change", "reference-transaction"):
        (hooks / name).write_text(script)
        (hooks / name).chmod(0o755)
    git(repo, "config", "core.fsmonitor", f"touch {marker}")
    git(repo, "config", "filter.evil.clean", f"touch {marker}; cat")
    git(repo, "config", "filter.evil.smudge", f"touch {marker}; cat")
    (home / ".gitconfig").write_text(
        f"[core]\n\tfsmonitor = touch {marker}\n\tautocrlf = true\n"
        f'[filter "evil"]\n\tclean = touch {marker}; cat\n\trequired = true\n'
    )
    (repo / ".gitattributes").write_text("* filter=evil text eol=lf\n")
    return marker


async def test_undo_in_a_git_repository_leaves_the_users_git_state_alone(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    make_workspace(repo)
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "start")
    git(repo, "branch", "topic")
    (repo / "stashed.txt").write_text("stash me\n")
    git(repo, "stash", "push", "-q", "-u", "-m", "mine")
    (repo / "crlf.txt").write_bytes(b"first\r\nsecond\r\nstaged\r\n")
    git(repo, "add", "crlf.txt")  # something staged: the user's index is not HEAD's
    marker = hostile_git_config(repo, Path(os.environ["HOME"]))
    work_before = tree_state(repo, skip=(".git",))
    git_before = digest_tree(repo / ".git")
    async with open_runtime(repo) as runtime:
        await call(runtime, "bash", command=MESSY)
        assert (repo / "new-name.txt").exists() and not (repo / "gone.txt").exists()
        [checkpoint] = await runtime.checkpoints.list()
        assert sorted((c.path, c.verb) for c in checkpoint.changes) == [
            ("crlf.txt", "modified"),
            ("gone.txt", "deleted"),
            ("link", "created"),
            ("made/deeper/new.txt", "created"),
            ("new-name.txt", "created"),
            ("old-name.txt", "deleted"),
            ("tool.sh", "modified"),
        ]
        outcome = await runtime.checkpoints.undo()
    assert outcome.removed == ("link", "made/deeper/new.txt", "new-name.txt")
    after = tree_state(repo, skip=(".git",))
    assert after.pop("build.log") == ("file", 0o644, b"noise\n")  # ignored: not snapshotted
    assert after == work_before
    assert digest_tree(repo / ".git") == git_before  # index, stash, refs, hooks, config
    assert not marker.exists()
    assert git(repo, "stash", "list").strip().endswith(": mine")
    assert git(repo, "branch", "--format=%(refname:short)").split() == ["main", "topic"]
    assert git(repo, "diff", "--cached", "--name-only").split() == ["crlf.txt"]


async def test_undo_in_a_directory_that_is_no_repository(tmp_path: Path) -> None:
    make_workspace(tmp_path)
    before = tree_state(tmp_path)
    async with open_runtime(tmp_path) as runtime:
        await call(runtime, "bash", command=MESSY)
        await runtime.checkpoints.undo()
        after_undo = tree_state(tmp_path)
        await runtime.checkpoints.redo()
        redone = tree_state(tmp_path)
    assert after_undo.pop("build.log")[2] == b"noise\n"
    assert after_undo == before
    assert redone["new-name.txt"] == ("file", 0o644, b"renamed\n")
    assert redone["crlf.txt"][2] == b"first\r\nsecond\r\nchanged\r\n"
    assert redone["link"][2] == b"crlf.txt" and "gone.txt" not in redone
    assert not (tmp_path / ".git").exists()


async def test_a_read_only_command_takes_no_snapshot(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    async with open_runtime(tmp_path) as runtime:
        await call(runtime, "bash", command="cat a.txt && ls -la && git status || true")
        store = runtime.checkpoints.store
        assert not store.layout.index.exists()  # no snapshot was ever taken
        await call(runtime, "bash", command="echo b > b.txt")
        assert store.layout.index.exists()
        assert [c.paths for c in await runtime.checkpoints.list()] == [("b.txt",)]


async def test_a_command_that_changes_nothing_leaves_no_checkpoint(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    async with open_runtime(tmp_path) as runtime:
        await call(runtime, "bash", command="touch a.txt && echo done > /dev/null")
        assert await runtime.checkpoints.list() == []


async def test_a_background_job_is_snapshotted_when_it_ends(tmp_path: Path) -> None:
    (tmp_path / "go").write_text("")
    async with open_runtime(tmp_path) as runtime:
        started = await call(
            runtime,
            "bash",
            command="while [ -e go ]; do sleep 0.05; done; echo made > job.txt",
            run_in_background=True,
        )
        [running] = await runtime.checkpoints.list()
        assert (running.call_id, running.state) == (started.call_id, "running")
        with pytest.raises(UndoError, match="is still running; undo it once it has ended"):
            await runtime.checkpoints.undo(started.call_id)
        (tmp_path / "go").unlink()  # not through toolbelt: the job's snapshot sees it too
        deadline = time.monotonic() + 30
        while (await runtime.checkpoints.list())[0].state == "running":
            assert time.monotonic() < deadline, "the job's after-snapshot never came"
            await anyio.sleep(0.05)
        [done] = await runtime.checkpoints.list()
        assert sorted((c.path, c.verb) for c in done.changes) == [
            ("go", "deleted"),
            ("job.txt", "created"),
        ]
        await runtime.checkpoints.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["go"]


async def test_files_over_the_size_limit_are_left_out_and_named(tmp_path: Path) -> None:
    (tmp_path / "small.txt").write_text("small\n")
    settings = Settings(checkpoints=CheckpointSettings(max_file_bytes=1000))
    async with open_runtime(tmp_path, settings) as runtime:
        await call(runtime, "bash", command="head -c 5000 /dev/zero > big.bin; echo x >> small.txt")
        [checkpoint] = await runtime.checkpoints.list()
        assert checkpoint.paths == ("small.txt",)
        assert checkpoint.unrecorded == ("big.bin",)
        outcome = await runtime.checkpoints.undo()
    assert outcome.describe().endswith(
        "restored small.txt. big.bin changed too but was over the snapshot size limit, so "
        "it is as the command left it."
    )
    assert (tmp_path / "small.txt").read_text() == "small\n"
    assert (tmp_path / "big.bin").stat().st_size == 5000
    assert CheckpointStore(tmp_path).history()[0].state == "undone"
