"""``scripts/bootstrap`` on a fresh copy of the repository, on a machine without npm: it says
what it does step by step with the time each step took, sets up toolbelt itself (exit 0) and
says what the tests lack; ``scripts/test`` then stops at once saying the same, before linting.

npm is hidden by running with a PATH of links to every program on the real PATH except npm,
npx and node (as ``scripts/check-collection`` hides bubblewrap). Slow (about a minute with
pip's cache warm: the whole locked dev environment is installed into the copy's new .venv);
CI runs it, ``-m 'not slow'`` leaves it out.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = {"npm", "npx", "node", "nodejs", "corepack"}
PIP_CACHE = os.environ.get("PIP_CACHE_DIR") or str(
    Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "pip"
)


def path_without_npm(shadow: Path) -> str:
    shadow.mkdir()
    for entry in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(entry):
            continue
        for program in os.listdir(entry):
            if program not in HIDDEN and not os.path.lexists(shadow / program):
                (shadow / program).symlink_to(Path(entry) / program)
    return str(shadow)


def fresh_copy(where: Path) -> Path:
    """The repository's files as a clone has them (tracked and new, nothing ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            target = where / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return where


def test_bootstrap_without_npm_sets_up_toolbelt_and_says_what_the_tests_need(
    tmp_path: Path,
) -> None:
    repo = fresh_copy(tmp_path / "repo")
    env = {**os.environ, "PATH": path_without_npm(tmp_path / "bin"), "PIP_CACHE_DIR": PIP_CACHE}
    assert shutil.which("npm", path=env["PATH"]) is None
    assert shutil.which("python3", path=env["PATH"]) is not None

    def bootstrap() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["scripts/bootstrap"], cwd=repo, env=env, capture_output=True, text=True, timeout=800
        )

    first = bootstrap()
    assert first.returncode == 0, first.stdout + first.stderr
    toolbelt = repo / ".venv" / "bin" / "toolbelt"
    took = r"\(\d+ s\)"
    expected = [
        r"bootstrap: \[1/4\] virtual environment \.venv \.\.\. made with Python "
        rf"3\.\d+\.\d+ {took}",
        rf"bootstrap: \[2/4\] pip [\d.]+ from scripts/installer\.lock \.\.\. "
        rf"(installed over pip [\d.]+|already there) {took}",
        r"bootstrap: \[3/4\] dependencies from requirements\.lock, and toolbelt \(editable\) "
        rf"\.\.\. \d+ packages installed or updated {took}",
        r"bootstrap: \[4/4\] MCP Inspector and reference MCP servers into \.node/ \(npm ci\) "
        rf"\.\.\. skipped: npm is not installed {took}",
        r"bootstrap: toolbelt itself is ready; the test suite also needs npm \(Node\.js 18 or "
        r"newer\) for these outside MCP peers: install it, then run scripts/bootstrap again",
        rf"bootstrap: done in \d+ s\. The command: {re.escape(str(toolbelt))}",
        rf"bootstrap: for an MCP host, e\.g\. Claude Code: claude mcp add toolbelt -- "
        rf"{re.escape(str(toolbelt))} mcp \(more hosts in README\.md, \"Over MCP\"\)",
    ]
    lines = first.stdout.splitlines()
    assert len(lines) == len(expected), first.stdout
    for line, pattern in zip(lines, expected, strict=True):
        assert re.fullmatch(pattern, line), line
    assert first.stderr == ""

    called = subprocess.run(
        [str(toolbelt), "call", "think", '{"thought": "x"}'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (called.returncode, called.stdout) == (0, "Thought recorded.\n")

    again = bootstrap()
    assert again.returncode == 0
    assert "unchanged since the last run" in again.stdout.splitlines()[2]

    tested = subprocess.run(
        ["scripts/test"], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )
    assert (tested.returncode, tested.stdout) == (1, "")
    assert tested.stderr == (
        "scripts/test: the MCP Inspector and reference servers are missing from .node/ (they "
        "need npm); install Node.js 18 or newer with npm, run scripts/bootstrap again, then "
        "scripts/test (or run chosen tests: scripts/test tests/PATH)\n"
    )
