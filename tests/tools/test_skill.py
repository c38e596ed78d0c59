"""skill: SKILL.md folders from the user's config, a trusted workspace and .claude, with HOME in
a temporary directory."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from tests.support.toolbelt_cli import TOOLBELT_ARGS, toolbelt

from toolbelt.config.factory import build_policy, configure_session
from toolbelt.config.settings import Settings
from toolbelt.core.context import Session
from toolbelt.core.executor import Executor, ToolCall, ToolCallResult
from toolbelt.skills import expand_skill
from toolbelt.tools import builtin_toolset
from toolbelt.tools.skill import SkillTool

pytestmark = pytest.mark.anyio


def write_skill(base: Path, folder: str, text: str) -> Path:
    path = base / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path.parent


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return home


@pytest.fixture
def workspace(tmp_path: Path, home: Path) -> Path:
    root = tmp_path / "work"
    write_skill(
        home / ".config/toolbelt/skills",
        "release",
        "---\nname: release-notes\ndescription: Draft release notes\n  for a tag.\n"
        "allowed-tools: Bash(git log:*), read_file\n---\n"
        "Write notes for $1 since $2.\nAll arguments: $ARGUMENTS\n",
    )
    write_skill(
        root / ".toolbelt/skills",
        "review",
        "---\nname: review\ndescription: 'Review a diff: style, tests'\n---\n"
        "Review $ARGUMENTS carefully.\n",
    )
    write_skill(
        root / ".claude/skills",
        "lint-fix",
        "---\ndescription: Fix lint errors\nallowed-tools: [bash, edit_file]\n---\n"
        "Run the linter.\n",
    )
    write_skill(root / ".claude/skills", "broken", "---\nname: [unclosed\n---\nbody\n")
    return root


async def run_skill(root: Path, *, trusted: bool, **arguments: str) -> ToolCallResult:
    session = Session(root)
    settings = Settings(trusted=trusted)
    configure_session(session, settings)
    executor = Executor(
        builtin_toolset(), session, policy=build_policy(session, "default", settings=settings)
    )
    try:
        return await executor.run_one(ToolCall("s1", "skill", dict(arguments)))
    finally:
        await session.aclose()


def test_description_lists_skills_from_every_place_in_name_order(
    workspace: Path, home: Path
) -> None:
    description = SkillTool(workspace, trusted=True).description
    assert description.endswith(
        "\n\nAvailable skills:\n"
        "- lint-fix: Fix lint errors\n"
        "- release-notes: Draft release notes for a tag.\n"
        "- review: Review a diff: style, tests"
    )


def test_untrusted_workspace_skills_are_not_listed(workspace: Path, home: Path) -> None:
    description = SkillTool(workspace, trusted=False).description
    assert description.endswith(
        "\n\nAvailable skills:\n- release-notes: Draft release notes for a tag."
    )


async def test_user_skill_with_positional_arguments(workspace: Path, home: Path) -> None:
    result = await run_skill(
        workspace, trusted=False, name="release-notes", arguments='v1.4 "last tag"'
    )
    folder = home / ".config/toolbelt/skills/release"
    assert result.state.value == "success", result.text
    assert result.text == (
        f"Skill `release-notes` from {folder} (its other files are in that folder). It expects "
        "to use: Bash(git log:*), read_file.\n\n"
        'Write notes for v1.4 since last tag.\nAll arguments: v1.4 "last tag"'
    )
    assert result.output.structured == {
        "name": "release-notes",
        "folder": str(folder),
        "source": "user",
        "allowed_tools": ["Bash(git log:*)", "read_file"],
    }


async def test_trusted_workspace_skill_and_claude_skill(workspace: Path, home: Path) -> None:
    review = await run_skill(workspace, trusted=True, name="review", arguments="src/app.py")
    assert review.text.endswith("\n\nReview src/app.py carefully.")
    lint = await run_skill(workspace, trusted=True, name="lint-fix", arguments="src/")
    assert lint.text.endswith("\n\nRun the linter.\n\nARGUMENTS: src/")  # no placeholder: appended
    assert (
        lint.output.structured is not None
        and lint.output.structured["source"] == "workspace (claude)"
    )


async def test_unknown_or_untrusted_skill_names_the_available_ones(
    workspace: Path, home: Path
) -> None:
    result = await run_skill(workspace, trusted=False, name="review")
    assert result.state.value == "error"
    assert result.text == (
        "There is no skill named 'review'; available skills: release-notes. Call skill with one "
        "of those names."
    )


async def test_no_skills_installed_says_so(tmp_path: Path, home: Path) -> None:
    result = await run_skill(tmp_path, trusted=True, name="deploy")
    assert result.text == (
        "There is no skill named 'deploy': no skills are installed here, so do the task "
        "without one."
    )


def test_workspace_skill_symlinked_outside_is_skipped(tmp_path: Path, home: Path) -> None:
    root = tmp_path / "w"
    secret = tmp_path / "secret.md"
    secret.write_text("---\ndescription: private\n---\nsecret\n")
    (root / ".toolbelt/skills/leak").mkdir(parents=True)
    (root / ".toolbelt/skills/leak/SKILL.md").symlink_to(secret)
    assert "leak" not in SkillTool(root, trusted=True).description


def test_expand_keeps_dollar_amounts_and_fills_missing_positions() -> None:
    assert expand_skill("pay $10 to $1 and $2", "bob") == "pay $10 to bob and "


def test_cli_lists_skills_and_reports_broken_ones(workspace: Path, home: Path) -> None:
    env, unset = {"HOME": str(home)}, ["XDG_CONFIG_HOME"]
    command = ["skills", "--root", str(workspace)]
    untrusted = toolbelt(*command, env=env, unset=unset, check=True)
    assert untrusted.stdout == (
        "release-notes (user): Draft release notes for a tag.\n"
        f"    {home / '.config/toolbelt/skills/release'}\n"
        "The workspace is not trusted, so its .toolbelt/skills and .claude/skills were not read; "
        "trust it with `toolbelt trust` (or --trust-workspace for one run).\n"
    )
    trusted = toolbelt(*command, "--trust-workspace", "--json", env=env, unset=unset, check=True)
    listed = json.loads(trusted.stdout)
    assert [s["name"] for s in listed["skills"]] == ["lint-fix", "release-notes", "review"]
    assert listed["skipped"][0].startswith(
        f"{workspace / '.claude/skills/broken/SKILL.md'}: the frontmatter is not valid YAML"
    )


async def test_mcp_server_lists_and_runs_the_workspace_skills_of_its_root(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    from mcp.client.stdio import stdio_client

    from mcp import ClientSession, StdioServerParameters

    env = {key: value for key, value in os.environ.items() if key != "XDG_CONFIG_HOME"}
    params = StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--root", str(workspace), "--trust-workspace"],
        cwd=str(tmp_path),  # not the workspace: the listing must follow --root
        env={**env, "HOME": str(home)},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("skill", {"name": "review", "arguments": "app.py"})
    description = tools["skill"].description or ""
    assert description.endswith("- review: Review a diff: style, tests")
    assert result.is_error is False
    assert result.content[0].text.endswith("\n\nReview app.py carefully.")


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
async def test_a_workspace_skill_linked_to_a_secret_never_reaches_the_model(
    tmp_path: Path, home: Path, link: str
) -> None:
    """A trusted workspace's skill whose SKILL.md is a link to ``.env``: the secret's first
    line would be the skill's description in every request's tool list, and ``skill`` would
    return the whole file. The skills loader goes through the read policy, as read_file does."""
    from mcp.client.stdio import stdio_client

    from mcp import ClientSession, StdioServerParameters

    root = tmp_path / "work"
    (root / ".toolbelt/skills/leak").mkdir(parents=True)
    (root / ".env").write_text("API_KEY=sk-skill-secret\nOTHER=2\n")
    skill_file = root / ".toolbelt/skills/leak/SKILL.md"
    if link == "symlink":
        skill_file.symlink_to(root / ".env")
    else:
        os.link(root / ".env", skill_file)
    write_skill(root / ".toolbelt/skills", "fine", "---\ndescription: A fine skill\n---\nok\n")
    env = {key: value for key, value in os.environ.items() if key != "XDG_CONFIG_HOME"}
    env["HOME"] = str(home)
    args = ["-m", "toolbelt.cli.main", "mcp", "--root", str(root), "--trust-workspace"]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        leaked = await client.call_tool("skill", {"name": "leak"})
        fine = await client.call_tool("skill", {"name": "fine"})
    description = tools["skill"].description or ""
    assert "sk-skill-secret" not in description
    assert description.endswith("Available skills:\n- fine: A fine skill")
    assert leaked.is_error is True
    text = leaked.content[0].text  # type: ignore[union-attr]
    assert "sk-skill-secret" not in text
    assert text == (
        "There is no skill named 'leak'; available skills: fine. Call skill with one of those "
        "names."
    )
    assert fine.is_error is False
    listed = await anyio.run_process(
        [sys.executable, "-m", "toolbelt.cli.main", "skills", "--root", str(root),
         "--trust-workspace"],
        env=env, check=True,
    )  # fmt: skip
    shown = (listed.stdout + listed.stderr).decode()
    assert "sk-skill-secret" not in shown
    assert f"skipped {skill_file}: reading it asks (" in shown
