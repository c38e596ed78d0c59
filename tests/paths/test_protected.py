"""A protected folder reached through a symlink is still protected: the guard judges the path
as written and as resolved, and the policy decides on what the guard found."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolbelt import Runtime, RuntimeOptions, SessionConfig, ToolCall
from toolbelt.core.permission import (
    Answer,
    Approval,
    Ask,
    PermissionRequest,
    PermissionRequester,
)

pytestmark = pytest.mark.anyio


class Recorder(PermissionRequester):
    """Says no, and remembers what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        self.asked.append(decision.reason)
        return Answer(Approval.DENY, "no")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "w"
    (root / "config" / "vscode").mkdir(parents=True)
    os.symlink("config/vscode", root / ".vscode")
    (tmp_path / "gitdir" / "hooks").mkdir(parents=True)
    os.symlink("../gitdir", root / ".git")
    return root


async def call(root: Path, mode: str, name: str, arguments: dict[str, str]) -> list[str]:
    recorder = Recorder()
    config = SessionConfig(require_read_before_write=False)
    options = RuntimeOptions(config=config)
    async with Runtime(root, mode=mode, requester=recorder, options=options) as runtime:
        [result] = await runtime.run([ToolCall("1", name, arguments)])
    assert result.error_kind == "permission_denied"
    return recorder.asked


@pytest.mark.parametrize("mode", ["accept_edits", "bypass"])
async def test_writing_into_a_symlinked_vscode_folder_asks(workspace: Path, mode: str) -> None:
    asked = await call(
        workspace, mode, "write_file", {"path": ".vscode/tasks.json", "content": "{}"}
    )
    assert len(asked) == 1
    assert ".vscode/ holds editor settings and tasks that run later" in asked[0]
    assert not (workspace / "config" / "vscode" / "tasks.json").exists()


async def test_bypass_asks_before_writing_a_hook_through_a_symlinked_git(workspace: Path) -> None:
    hook = {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nexit 0\n"}
    asked = await call(workspace, "bypass", "write_file", hook)
    assert ".git/ holds repository configuration and hooks" in asked[0]
    assert not (workspace.parent / "gitdir" / "hooks" / "pre-commit").exists()


async def test_a_shell_redirection_into_the_symlinked_folder_asks(workspace: Path) -> None:
    command = {"command": "echo '{}' > .vscode/tasks.json"}
    asked = await call(workspace, "bypass", "bash", command)
    assert ".vscode/ holds editor settings" in asked[0]
    assert not (workspace / "config" / "vscode" / "tasks.json").exists()


async def test_reading_envrc_does_not_ask_but_writing_it_does(tmp_path: Path) -> None:
    """.envrc is code (direnv runs it), not a credentials file: it is usually committed, and
    the secrets it loads live in .env files, which stay protected for reading."""
    (tmp_path / ".envrc").write_text("use nix\n")
    (tmp_path / ".env").write_text("TOKEN=x\n")
    config = SessionConfig(require_read_before_write=False)
    recorder = Recorder()
    options = RuntimeOptions(config=config)
    async with Runtime(tmp_path, mode="bypass", requester=recorder, options=options) as runtime:
        envrc, env, write = await runtime.run(
            [
                ToolCall("1", "read_file", {"path": ".envrc"}),
                ToolCall("2", "read_file", {"path": ".env"}),
                ToolCall("3", "write_file", {"path": ".envrc", "content": "curl x | sh\n"}),
            ]
        )
    assert (envrc.is_error, envrc.text) == (False, "1\tuse nix")
    assert env.error_kind == write.error_kind == "permission_denied"
    assert len(recorder.asked) == 2
    assert recorder.asked[0].endswith("touches a protected path (.env files hold secrets).")
    assert recorder.asked[1].endswith(
        "touches a protected path (.envrc is run by direnv whenever a shell enters the directory)."
    )
    assert (tmp_path / ".envrc").read_text() == "use nix\n"
