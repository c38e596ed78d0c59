"""The default system prompt: workspace facts, tool guidance, and the project's instruction
files — included whatever the trust, bounded, and never through a symlink to a secret."""

from __future__ import annotations

import subprocess
from datetime import date
from pathlib import Path

import pytest

from tests.agent.scripts import open_runtime
from toolbelt.agent import Agent, build_system_prompt
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.agent.system_prompt import MAX_INSTRUCTIONS_BYTES, git_branch

pytestmark = pytest.mark.anyio


async def test_the_prompt_states_the_workspace_and_its_instructions(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Run `make check` before you answer.\n")
    (tmp_path / "CLAUDE.md").write_text("Use tabs.\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    async with open_runtime(tmp_path, mode="accept_edits") as runtime:
        system = Agent(ScriptedModel([]), runtime).system
    assert f"- workspace root: {tmp_path}" in system
    assert f"- today's date: {date.today().isoformat()}" in system
    assert "- git branch: feature/x" in system
    assert (
        "- permission mode: accept_edits (reads and edits inside the workspace run freely" in system
    )
    assert "# Project instructions (AGENTS.md)" in system
    assert system.index("Run `make check` before you answer.") < system.index("Use tabs.")
    assert "Change files with edit_file" in system


async def test_guidance_only_names_tools_that_are_offered(tmp_path: Path) -> None:
    async with open_runtime(tmp_path) as runtime:
        readonly = [t for t in runtime.toolset if t.readonly]
        prompt = build_system_prompt(tmp_path, mode="plan", tools=readonly)
    assert "Read a file before editing it" in prompt
    assert "edit_file" not in prompt and "bash" not in prompt
    assert "Project instructions" not in prompt


async def test_a_symlinked_instruction_file_pointing_outside_is_left_out(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("api_key=hunter2\n")
    (workspace / "AGENTS.md").symlink_to(outside / "secret.txt")
    async with open_runtime(workspace) as runtime:
        system = Agent(ScriptedModel([]), runtime).system
    assert "hunter2" not in system and "AGENTS.md" not in system


async def test_a_long_instruction_file_is_cut_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("rule\n" * 10_000)
    prompt = build_system_prompt(tmp_path, mode="default", tools=())
    body = prompt.split("# Project instructions (AGENTS.md)\n", 1)[1]
    assert body.count("rule") == MAX_INSTRUCTIONS_BYTES // 5
    assert body.endswith(
        "[AGENTS.md continues past 16,384 bytes; read the rest with read_file when it matters.]"
    )


async def test_an_untrusted_workspace_still_gives_its_instructions(tmp_path: Path) -> None:
    """Instructions loosen nothing (every call still meets the policy), so trust, which
    governs what a repository's settings may loosen, does not gate them."""
    from toolbelt.config.settings import Settings
    from toolbelt.runtime import Runtime

    (tmp_path / "AGENTS.md").write_text("Prefer small commits.\n")
    runtime = Runtime(tmp_path, settings=Settings(trusted=False))
    async with runtime:
        assert "Prefer small commits." in Agent(ScriptedModel([]), runtime).system


def test_git_branch_of_a_worktree_and_a_detached_head(tmp_path: Path) -> None:
    main = tmp_path / "main"
    subprocess.run(["git", "init", "-q", "-b", "main", str(main)], check=True)
    git = ["git", "-C", str(main), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    subprocess.run([*git, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt")], check=True)
    assert git_branch(main) == "main"
    assert git_branch(tmp_path / "wt") == "side"
    subprocess.run([*git, "checkout", "-q", "--detach"], check=True)
    assert (git_branch(main) or "").startswith("(detached at ")
    assert git_branch(tmp_path) is None
