"""A refusal for a protected path says what the user can really do: no allow rule and no mode
skips that question, so neither is suggested (they never worked), through the real command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.config.test_trust import toolbelt
from tests.test_cli_settings import user_settings

BY_HAND = (
    "leave this step to the user, who can do it by hand (no allow rule or mode skips the "
    "question for a protected path)."
)
GIT = ".git/ holds repository configuration and hooks that git runs later"
CALLS = [
    ("write_file", {"path": ".git/config", "content": "x\n"}, "create .git/config (+1 -0)", GIT),
    (
        "bash",
        {"command": "echo x > .vscode/settings.json"},
        "`echo x > .vscode/settings.json`",
        ".vscode/ holds editor settings and tasks that run later",
    ),
    ("read_file", {"path": ".env"}, "read .env", ".env files hold secrets"),
]


@pytest.mark.parametrize("mode", ["default", "accept_edits", "bypass"])
@pytest.mark.parametrize(("tool", "arguments", "what", "why"), CALLS)
def test_a_protected_path_refusal_suggests_what_works(
    tmp_path: Path, mode: str, tool: str, arguments: dict[str, str], what: str, why: str
) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    (work / ".env").write_text("TOKEN=1\n")
    user_settings(home, {"allow": ["Edit", "Read", "Bash"]})  # rules for all: still asked
    args = ("call", tool, json.dumps(arguments), "--mode", mode, "--sandbox", "off")
    refused = toolbelt(*args, cwd=work, home=home)
    assert refused.returncode == 3
    assert refused.stdout == (
        f"{what} touches a protected path ({why}). No one could be asked; re-run with --yes "
        f"to approve it, or {BY_HAND}\n"
    )
    assert not (work / ".git").exists() and not (work / ".vscode").exists()


def test_dont_ask_mode_says_the_same(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    write = json.dumps({"path": ".git/hooks/pre-commit", "content": "x\n"})
    refused = toolbelt("call", "write_file", write, "--mode", "dont_ask", cwd=work, home=home)
    assert refused.returncode == 3
    assert refused.stdout == (
        f"create .git/hooks/pre-commit (+1 -0) touches a protected path ({GIT}). The "
        "permission mode is dont_ask, so anything that would ask is denied; run with another "
        f"--mode to be asked, or {BY_HAND}\n"
    )


def test_a_dangerous_command_is_offered_a_rule_but_no_mode(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    command = json.dumps({"command": "rm -rf build"})
    refused = toolbelt("call", "bash", command, "--mode", "bypass", cwd=work, home=home)
    assert refused.returncode == 3
    assert refused.stdout == (
        "`rm -rf build` is potentially dangerous (rm deletes files). No one could be asked; "
        "re-run with --yes to approve it, or add an allow rule to "
        f"{home / '.config' / 'toolbelt' / 'settings.json'} (no --mode skips this question); "
        "this workspace is not trusted, so the allow rules in its .toolbelt/settings.json are "
        "ignored until you run `toolbelt trust`.\n"
    )
    user_settings(home, {"allow": ["Bash(rm -rf build)"]})  # and the rule does work
    assert (
        toolbelt("call", "bash", command, "--mode", "bypass", cwd=work, home=home).returncode == 0
    )
