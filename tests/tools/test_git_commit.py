"""git_commit in temporary repositories, through the executor."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.support.processes import alive
from tests.tools.helpers import Requester, call_once

from toolbelt.config.settings import Settings
from toolbelt.core.context import Session
from toolbelt.core.errors import ToolError
from toolbelt.core.executor import ToolCallResult
from toolbelt.policy.rules import parse_rule
from toolbelt.tools._git import GitRunner
from toolbelt.tools.git_commit import DEFAULT_TRAILER

pytestmark = pytest.mark.anyio


def git(repo: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check)
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test Person")
    git(root, "config", "user.email", "test@example.test")
    (root / "a.txt").write_text("one\n")
    (root / "b.txt").write_text("one\n")
    git(root, "add", "a.txt", "b.txt")
    git(root, "commit", "-q", "-m", "start")
    return root


async def commit(
    root: Path,
    arguments: dict[str, Any],
    *,
    trusted: bool = False,
    trailer: str | None = None,
    mode: str = "bypass",
    allow: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
    approve: bool = True,
) -> tuple[ToolCallResult, Requester]:
    session = Session(root)
    settings = Settings(
        allow=[parse_rule(r) for r in allow],
        deny=[parse_rule(r) for r in deny],
        trusted=trusted,
        commit_trailer=trailer,
    )
    return await call_once(
        session, "git_commit", arguments, mode=mode, settings=settings, approve=approve
    )


async def test_commits_listed_paths_with_trailer_sha_and_stat(repo: Path) -> None:
    (repo / "a.txt").write_text("one\ntwo\n")
    (repo / "b.txt").write_text("changed but not listed\n")
    (repo / "new.txt").write_text("new\n")
    result, _ = await commit(
        repo, {"message": "Add two\n\nBody line.", "paths": ["a.txt", "new.txt"]}
    )
    assert result.state.value == "success", result.text
    sha = git(repo, "rev-parse", "HEAD").strip()
    assert result.text == (
        f"Committed {sha[:12]} on main: Add two\n"
        " a.txt   | 1 +\n new.txt | 1 +\n 2 files changed, 2 insertions(+)"
    )
    assert result.output.structured == {
        "sha": sha,
        "branch": "main",
        "stat": result.text.split("\n", 1)[1],
    }
    assert (
        git(repo, "log", "-1", "--format=%B") == f"Add two\n\nBody line.\n\n{DEFAULT_TRAILER}\n\n"
    )
    assert git(repo, "status", "--porcelain") == " M b.txt\n"


async def test_without_paths_stages_tracked_changes_only(repo: Path) -> None:
    (repo / "a.txt").unlink()
    (repo / "b.txt").write_text("two\n")
    (repo / "untracked.txt").write_text("x\n")
    result, _ = await commit(repo, {"message": "Tidy"}, trailer="")
    assert result.state.value == "success", result.text
    assert git(repo, "log", "-1", "--format=%B") == "Tidy\n\n"
    assert git(repo, "show", "--name-status", "--format=", "HEAD") == "D\ta.txt\nM\tb.txt\n"
    assert git(repo, "status", "--porcelain") == "?? untracked.txt\n"


async def test_configured_trailer_joins_an_existing_trailer_block(repo: Path) -> None:
    (repo / "a.txt").write_text("x\n")
    message = "Fix\n\nSigned-off-by: Test Person <test@example.test>"
    result, _ = await commit(
        repo, {"message": message}, trailer="Co-authored-by: Bot <bot@example.test>"
    )
    assert result.state.value == "success", result.text
    assert git(repo, "log", "-1", "--format=%B") == (
        "Fix\n\nSigned-off-by: Test Person <test@example.test>\n"
        "Co-authored-by: Bot <bot@example.test>\n\n"
    )


async def test_nothing_to_commit_is_refused(repo: Path) -> None:
    before = git(repo, "rev-parse", "HEAD")
    result, _ = await commit(repo, {"message": "Nothing"})
    assert result.state.value == "error"
    assert result.text == (
        "There is nothing to commit: no changes to tracked files are staged. Make the change "
        "first, or list new files in `paths`."
    )
    assert git(repo, "rev-parse", "HEAD") == before


async def test_detached_head_is_refused(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    (repo / "a.txt").write_text("x\n")
    result, _ = await commit(repo, {"message": "Detached"})
    assert result.text.startswith("HEAD is detached (not on a branch)")
    assert git(repo, "status", "--porcelain") == " M a.txt\n"  # nothing was staged either


async def test_merge_in_progress_is_refused(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "a.txt").write_text("other\n")
    git(repo, "commit", "-q", "-am", "other")
    git(repo, "checkout", "-q", "main")
    (repo / "a.txt").write_text("main\n")
    git(repo, "commit", "-q", "-am", "main")
    git(repo, "merge", "-q", "other", check=False)  # conflicts: the merge stays in progress
    result, _ = await commit(repo, {"message": "Merge"})
    assert result.text == (
        "A merge is in progress in this repository; finish or abort it (or ask the user) before "
        "committing."
    )


async def test_path_outside_the_workspace_is_refused(repo: Path) -> None:
    result, requester = await commit(
        repo, {"message": "x", "paths": ["../elsewhere.txt"]}, mode="default"
    )
    assert (
        result.text == "'../elsewhere.txt' is outside the workspace; commit only workspace files."
    )
    assert requester.asked == []


def _hook(path: Path, marker: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho ran >> '{marker}'\n")
    path.chmod(0o755)


async def test_trusted_repository_hooks_run(repo: Path) -> None:
    marker = repo / "hook-ran"  # in the workspace: the hook runs in the sandbox's git profile
    _hook(repo / ".git/hooks/pre-commit", marker)
    (repo / "a.txt").write_text("x\n")
    result, _ = await commit(repo, {"message": "Hooked"}, trusted=True)
    assert result.state.value == "success", result.text
    assert marker.read_text() == "ran\n"


async def test_trusted_repository_hook_can_stop_the_commit(repo: Path) -> None:
    hook = repo / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint failed: a.txt' >&2\nexit 1\n")
    hook.chmod(0o755)
    (repo / "a.txt").write_text("x\n")
    result, _ = await commit(repo, {"message": "Blocked"}, trusted=True)
    assert result.text == "git could not commit: lint failed: a.txt"


async def test_untrusted_repository_runs_none_of_its_programs(repo: Path, tmp_path: Path) -> None:
    marker = repo / "program-ran"  # where the sandbox would let it write: the overrides hold
    _hook(repo / ".git/hooks/pre-commit", marker)
    _hook(repo / ".git/hooks/post-commit", marker)
    _hook(tmp_path / "evil-hooks/pre-commit", marker)
    _hook(tmp_path / "evil-hooks/commit-msg", marker)
    _hook(tmp_path / "fsmonitor", marker)
    _hook(tmp_path / "clean-filter", marker)
    _hook(tmp_path / "signer", marker)
    git(repo, "config", "core.hooksPath", str(tmp_path / "evil-hooks"))
    git(repo, "config", "core.fsmonitor", str(tmp_path / "fsmonitor"))
    git(repo, "config", "filter.Sneaky.clean", str(tmp_path / "clean-filter"))
    git(repo, "config", "filter.Sneaky.required", "true")
    git(repo, "config", "gpg.program", str(tmp_path / "signer"))
    git(repo, "config", "commit.gpgSign", "true")
    (repo / ".gitattributes").write_text("*.txt filter=Sneaky\n")
    (repo / "a.txt").write_text("plain\n")
    result, _ = await commit(repo, {"message": "Safe", "paths": ["a.txt", ".gitattributes"]})
    assert result.state.value == "success", result.text
    assert not marker.exists()
    assert git(repo, "show", "HEAD:a.txt") == "plain\n"
    assert git(repo, "config", "--local", "core.hooksPath") == f"{tmp_path / 'evil-hooks'}\n"


async def test_default_mode_asks_and_bash_rules_apply(repo: Path) -> None:
    (repo / "a.txt").write_text("x\n")
    denied, requester = await commit(repo, {"message": "Ask me"}, mode="default", approve=False)
    assert requester.asked == [
        ("git_commit", "git commit (all tracked changes): Ask me runs a command.")
    ]
    assert denied.state.value == "error"
    allowed, requester = await commit(
        repo, {"message": "Allowed"}, mode="default", allow=("Bash(git commit:*)",)
    )
    assert allowed.state.value == "success" and requester.asked == []
    (repo / "a.txt").write_text("y\n")
    refused, _ = await commit(repo, {"message": "No"}, mode="bypass", deny=("Bash(git commit:*)",))
    assert refused.text.startswith("the rule `Bash(git commit:*)` denies this call.")


async def test_a_hanging_hook_is_stopped_with_everything_it_started(repo: Path) -> None:
    tag = f"sleep 4{os.getpid()}"
    hook = repo / ".git/hooks/pre-commit"
    hook.write_text(f"#!/bin/sh\n( {tag} & ) \n{tag}\n")  # one detached child, one waited for
    hook.chmod(0o755)
    (repo / "a.txt").write_text("x\n")
    git_runner = GitRunner(repo, trusted=True, timeout=1.0)
    await git_runner.run("add", "-u")
    with pytest.raises(ToolError) as caught:
        await git_runner.run("commit", "-q", "-F", "-", stdin="Hangs\n")
    assert str(caught.value).startswith("git commit did not finish within 1 s (a hook may be")
    assert not alive(tag)
    assert git(repo, "log", "-1", "--format=%s") == "start\n"


async def test_a_sandbox_that_cannot_keep_gits_code_read_only_refuses_in_one_sentence(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Landlock without user namespaces can only keep .git/ read-only as a whole: git_commit
    says so and how to go on, rather than git's own "unable to create index.lock"."""
    from toolbelt.runners import runner
    from toolbelt.sandbox.landlock import abi_version

    if abi_version() < 1:
        pytest.skip("needs Landlock")
    monkeypatch.setattr(runner, "namespaces_work", lambda: False)
    (repo / "a.txt").write_text("x\n")
    result, _ = await commit(repo, {"message": "No mounts"})
    assert result.text == (
        "The sandbox here cannot let git write .git/ while keeping its hooks and config "
        "read-only (this machine allows no user namespaces and has no bubblewrap); run `git "
        'commit` through bash with "sandbox": false and a justification (the user will be '
        "asked), or ask the user to commit."
    )
    assert git(repo, "log", "-1", "--format=%s") == "start\n"
