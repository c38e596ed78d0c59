"""The common CLIs' credential files (gh, npm, yarn, cargo, RubyGems, Terraform, Maven, Vault,
the other coding agents' logins, shell histories...) are secrets like ``~/.ssh``: a sandboxed
command cannot read them and read_file asks for them, while what builds read beside them
(``~/.cargo/registry``, ``~/.npm``, ``~/.m2/repository``) stays readable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.toolbelt_cli import toolbelt
from toolbelt.sandbox.landlock import abi_version

CREDENTIALS = [
    ".config/gh/hosts.yml",
    ".npmrc",
    ".yarnrc.yml",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".terraform.d/credentials.tfrc.json",
    ".m2/settings.xml",
    ".vault-token",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".config/glab-cli/config.yml",
    ".bash_history",
]
BUILD_FILES = [".cargo/registry/index.txt", ".npm/_cacache/index.txt", ".m2/repository/a.pom"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for n, name in enumerate(CREDENTIALS):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"TOKEN-{n:02d}\n")
    for name in BUILD_FILES:
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"BUILD {name}\n")
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
        env={"HOME": str(home)},
        cwd=home.parent / "ws",
        timeout=120,
    )
    return out.returncode, out.stdout + out.stderr


@pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)")
def test_a_sandboxed_script_reads_no_credential_file_but_the_build_caches(home: Path) -> None:
    reader = "".join(f'cat "$HOME/{name}" 2>/dev/null; ' for name in CREDENTIALS + BUILD_FILES)
    (home.parent / "ws" / "r.sh").write_text(reader + "echo END\n")
    code, out = call(home, "bash", {"command": "sh r.sh"}, "--yes")  # approved: workspace profile
    assert code == 0, out
    assert "END" in out
    assert [name for n, name in enumerate(CREDENTIALS) if f"TOKEN-{n:02d}" in out] == []
    assert [name for name in BUILD_FILES if f"BUILD {name}" not in out] == []


@pytest.mark.parametrize("name", [".config/gh/hosts.yml", ".npmrc", ".codex/auth.json"])
def test_read_file_of_a_credential_file_asks_even_in_bypass(home: Path, name: str) -> None:
    code, out = call(home, "read_file", {"path": str(home / name)}, "--mode", "bypass")
    assert code == 3
    assert "holds credentials the sandbox hides from commands" in out
    assert "TOKEN-" not in out


def test_read_file_of_a_build_cache_beside_a_credential_file_does_not_ask(home: Path) -> None:
    path = str(home / ".cargo/registry/index.txt")
    code, out = call(home, "read_file", {"path": path}, "--mode", "bypass")
    assert (code, "BUILD .cargo/registry/index.txt" in out) == (0, True)
