"""The file tools and the user's secrets (``~/.ssh``, ``~/.aws``, ``~/.netrc``...): the
sandbox hides them from commands, so read_file, grep, glob, ls and write_file must not be
the way around it — reading one asks in every mode (bypass too), listings leave them out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.toolbelt_cli import toolbelt

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- SECRETKEY"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY + "\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = SECRETKEY\n")
    (home / ".netrc").write_text("machine h login u password SECRETKEY\n")
    (home / "notes.txt").write_text("SECRETKEY is a word in my notes\n")
    (tmp_path / "ws").mkdir()
    return home


def call(home: Path, tool: str, args: dict[str, object], *extra: str) -> tuple[int, str]:
    out = toolbelt(
        "call",
        tool,
        json.dumps(args),
        "--root",
        str(home.parent / "ws"),
        *extra,
        env={"HOME": str(home), "COLUMNS": "200"},
    )
    return out.returncode, out.stdout + out.stderr


@pytest.mark.parametrize(
    "name",
    [
        ".ssh/id_rsa",
        ".aws/credentials",
        ".netrc",
        # other agents' MCP token stores, and toolbelt's own
        ".codex/.credentials.json",
        ".gemini/mcp-oauth-tokens.json",
        ".local/share/opencode/mcp-auth.json",
        ".mcp-auth/mcp-remote-0.1.29/abc_tokens.json",
        ".config/toolbelt/mcp-credentials/github-0123456789abcdef.json",
    ],
)
def test_read_file_of_a_secret_asks_even_in_bypass(home: Path, name: str) -> None:
    if not (home / name).exists():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text('{"access_token": "SECRETKEY"}\n')
    code, out = call(home, "read_file", {"path": str(home / name)}, "--mode", "bypass")
    assert code == 3
    assert "touches a protected path" in out
    assert "holds credentials the sandbox hides from commands" in out
    assert "SECRETKEY" not in out


def test_read_file_through_a_symlink_in_the_workspace_asks(home: Path) -> None:
    (home.parent / "ws" / "key").symlink_to(home / ".ssh" / "id_rsa")
    code, out = call(home, "read_file", {"path": "key"}, "--mode", "bypass")
    assert (code, "SECRETKEY" in out) == (3, False)


def test_the_user_can_still_approve_one_read(home: Path) -> None:
    code, out = call(home, "read_file", {"path": "~/.netrc"}, "--mode", "bypass", "--yes")
    assert code == 0
    assert "password SECRETKEY" in out


def test_write_file_to_a_secret_asks_even_in_bypass(home: Path) -> None:
    code, out = call(
        home, "write_file", {"path": str(home / ".netrc"), "content": "x\n"}, "--mode", "bypass"
    )
    assert (code, "touches a protected path" in out) == (3, True)
    assert (home / ".netrc").read_text() == "machine h login u password SECRETKEY\n"


def test_grep_of_home_leaves_the_secrets_out(home: Path) -> None:
    code, out = call(home, "grep", {"pattern": "SECRETKEY", "path": str(home)}, "--mode", "bypass")
    assert code == 0
    assert out.strip().splitlines() == ["Found 1 file", "notes.txt"]


def test_grep_content_of_home_shows_no_secret_line(home: Path) -> None:
    args = {"pattern": "SECRETKEY", "path": str(home), "output_mode": "content"}
    code, out = call(home, "grep", args, "--mode", "bypass")
    assert code == 0
    assert "notes.txt" in out
    assert "OPENSSH" not in out and "password" not in out and "aws_secret" not in out


def test_glob_and_ls_of_home_leave_the_secrets_out(home: Path) -> None:
    code, out = call(home, "glob", {"pattern": "**/*", "path": str(home)}, "--mode", "bypass")
    assert code == 0
    assert "notes.txt" in out
    assert ".ssh" not in out and ".aws" not in out and ".netrc" not in out
    code, out = call(home, "ls", {"path": str(home)}, "--mode", "bypass")
    assert code == 0
    assert "notes.txt" in out
    assert ".ssh" not in out and ".aws" not in out and ".netrc" not in out
