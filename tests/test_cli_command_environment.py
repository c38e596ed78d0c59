"""Credentials in toolbelt's environment never reach a command: ``env`` runs without asking
(read-only, even in plan mode), so what it would print is scrubbed before bash starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.toolbelt_cli import toolbelt
from toolbelt.shell.environment import command_environment, is_secret

LEAKS = {
    "DATABASE_URL": "postgres://u:PW1@db.internal/app",
    "OPENAI_KEY": "sk-leak2",
    "NPM_CONFIG__AUTH": "leak3",
    "DOCKER_AUTH_CONFIG": '{"auths":"leak4"}',
    "SLACK_WEBHOOK": "https://hooks.example/leak5",
    "SSH_AUTH_SOCK": "/tmp/agent.leak6",
    "GITHUB_TOKEN": "ghp_leak7",
    "HTTPS_PROXY": "http://proxyuser:leak8@proxy.internal:3128",
    "MY_SESSION": "leak9",
    "npm_config_//registry.example/:_authToken": "leak10",
}
KEPT = {
    "GIT_AUTHOR_NAME": "Ann Author",
    "XAUTHORITY": "/home/u/.Xauthority",
    "TOKENIZERS_PARALLELISM": "false",
    "XDG_SESSION_TYPE": "wayland",
    "PLAIN_URL": "https://example.org/path?q=1",
    "LANG": "C.UTF-8",
}


def run_env(tmp_path: Path, extra: dict[str, str]) -> str:
    out = toolbelt(
        "call",
        "bash",
        '{"command": "env"}',
        "--mode",
        "plan",
        env={**LEAKS, **KEPT, **extra},
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_env_in_plan_mode_prints_no_credential(tmp_path: Path) -> None:
    printed = run_env(tmp_path, {})
    for n in range(1, 11):
        assert f"leak{n}" not in printed and "PW1" not in printed
    for name, value in KEPT.items():
        assert f"{name}={value}\n" in printed
    assert "TOOLBELT=1\n" in printed


def test_toolbelt_keep_env_passes_named_variables_on_purpose(tmp_path: Path) -> None:
    printed = run_env(tmp_path, {"TOOLBELT_KEEP_ENV": "OPENAI_KEY, DATABASE_URL"})
    assert "OPENAI_KEY=sk-leak2\n" in printed
    assert "DATABASE_URL=postgres://u:PW1@db.internal/app\n" in printed
    assert "leak3" not in printed


@pytest.mark.parametrize(
    ("name", "value", "secret"),
    [
        ("AWS_ACCESS_KEY_ID", "x", True),
        ("PGPASSWORD", "x", True),
        ("DB_PASS", "x", True),
        ("GOOGLE_APPLICATION_CREDENTIALS", "/k.json", True),
        ("SENTRY_DSN", "https://publickey@o1.ingest.example/1", True),
        ("REDIS", "redis://:pw@localhost:6379", True),
        ("MONGO", "mongodb+srv://u:p@cluster/db", True),
        ("PATH", "/usr/bin:/bin", False),
        ("HOME", "/home/u", False),
        ("PWD", "/w", False),
        ("EMAIL", "me@example.org", False),
        ("GIT_SSH_URL", "git@host:repo.git", False),
    ],
)
def test_the_rule(name: str, value: str, secret: bool) -> None:
    assert is_secret(name, value) is secret


def test_keep_overrides_and_toolbelt_is_set() -> None:
    env = command_environment({"A_TOKEN": "t", "B_TOKEN": "u", "PATH": "/bin"}, keep=["A_TOKEN"])
    assert env == {"A_TOKEN": "t", "PATH": "/bin", "TOOLBELT": "1"}
