"""What the real ``toolbelt`` command tells a person about their configuration: refusals that
agree with the settings in force, one notice per line, a "changed since you trusted" notice
once per change, a broken MCP file that warns without stopping the built-in tools, misspelt
settings keys, and a base URL that is not a model server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.toolbelt_cli import toolbelt_run

THINK = ("call", "think", '{"thought": "x"}')


def toolbelt(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real command, without a terminal, in the test's private home (``conftest``)."""
    return subprocess.run(
        [sys.executable, "-m", "toolbelt.cli.main", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        timeout=60,
    )


def user_config() -> Path:
    directory = Path(os.environ["XDG_CONFIG_HOME"]) / "toolbelt"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".toolbelt").mkdir(parents=True)
    return root


def test_an_untrusted_workspaces_own_allow_rule_is_not_advised(workspace: Path) -> None:
    """The rule is already in the workspace's file: the refusal says why it did not apply."""
    settings = workspace / ".toolbelt" / "settings.json"
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(git push)"]}}))
    done = toolbelt("call", "bash", '{"command": "git push"}', cwd=workspace)
    assert done.returncode == 3
    assert done.stdout == (
        "`git push` is potentially dangerous (git push changes a remote repository). No one "
        "could be asked; re-run with --yes to approve it, or add an allow rule to "
        f"{user_config() / 'settings.json'} (no --mode skips this question); this workspace "
        "is not trusted, so the allow rules in its .toolbelt/settings.json are ignored until "
        "you run `toolbelt trust`.\n"
    )
    assert "add an allow rule to .toolbelt/settings.json" not in done.stdout + done.stderr


def test_a_trusted_workspace_is_still_advised_its_own_settings_file(workspace: Path) -> None:
    done = toolbelt("call", "bash", '{"command": "git push"}', "--trust-workspace", cwd=workspace)
    assert done.returncode == 3
    assert done.stdout.endswith(
        "No one could be asked; re-run with --yes to approve it, or add an allow rule to "
        ".toolbelt/settings.json (no --mode skips this question).\n"
    )


def test_each_notice_has_a_line_of_its_own(workspace: Path) -> None:
    (workspace / ".toolbelt" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(make)"]}})
    )
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": "x"}}}))
    done = toolbelt(*THINK, cwd=workspace)
    assert (done.returncode, done.stdout) == (0, "Thought recorded.\n")
    assert done.stderr.splitlines() == [
        f"toolbelt: this workspace is not trusted, so its settings may only restrict; ignored "
        f"{workspace / '.toolbelt' / 'settings.json'}: 1 allow rule. Trust it with `toolbelt "
        "trust` (or `--trust-workspace` for one run).",
        f"toolbelt: this workspace is not trusted, so the MCP servers in "
        f"{workspace / '.mcp.json'} were not started (they would run programs it names). "
        "Trust it with `toolbelt trust` (or `--trust-workspace` for one run).",
    ]


def test_the_changed_since_trusted_notice_is_shown_once_per_change(workspace: Path) -> None:
    mcp = workspace / ".mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"tool": {"command": "tool-v1"}}}))
    assert toolbelt("trust", str(workspace), cwd=workspace).returncode == 0
    mcp.write_text(json.dumps({"mcpServers": {"tool": {"command": "tool-v2"}}}))
    notice = (
        f"toolbelt: the MCP server `tool` in {mcp} changed since you trusted {workspace} (or "
        f"were added since), so they were not started; review them, then run `toolbelt trust "
        f"{workspace}` to approve them as they are now.\n"
    )
    first, again = toolbelt(*THINK, cwd=workspace), toolbelt(*THINK, cwd=workspace)
    assert (first.returncode, first.stdout, first.stderr) == (0, "Thought recorded.\n", notice)
    assert (again.returncode, again.stdout, again.stderr) == (0, "Thought recorded.\n", "")
    mcp.write_text(json.dumps({"mcpServers": {"tool": {"command": "tool-v3"}}}))
    changed_again = toolbelt(*THINK, cwd=workspace)
    assert changed_again.stderr == notice  # a new change is told once more
    assert toolbelt(*THINK, cwd=workspace).stderr == ""


def test_a_broken_user_mcp_file_warns_and_the_builtins_still_work(workspace: Path) -> None:
    broken = user_config() / "mcp.json"
    broken.write_text('{"mcpServers": {')
    done = toolbelt(*THINK, cwd=workspace)
    assert (done.returncode, done.stdout) == (0, "Thought recorded.\n")
    assert done.stderr == (
        f"toolbelt: {broken}: not accepted as JSON (Expecting property name enclosed in double "
        "quotes: line 1 column 17 (char 16)); its MCP servers were skipped until it is fixed.\n"
    )


def test_a_broken_entry_is_skipped_alone(workspace: Path) -> None:
    servers = {"bad": {"args": 1}, "good": {"command": sys.executable, "args": ["-c", "0"]}}
    (user_config() / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    done = toolbelt("mcp-servers", "--json", cwd=workspace)
    assert done.returncode == 0
    assert [server["name"] for server in json.loads(done.stdout)] == ["good"]
    assert done.stderr.startswith(f"toolbelt: {user_config() / 'mcp.json'}: `mcpServers.bad")
    assert done.stderr.endswith("; the MCP server `bad` was skipped until it is fixed.\n")


def test_a_misspelt_settings_key_is_named_with_the_closest_key(workspace: Path) -> None:
    settings = user_config() / "settings.json"
    settings.write_text(
        json.dumps({"permisions": {"deny": ["Bash(rm:*)"]}, "model": "x", "sandbx": {}})
    )
    done = toolbelt(*THINK, cwd=workspace)
    assert (done.returncode, done.stdout) == (0, "Thought recorded.\n")
    assert done.stderr.splitlines() == [  # `model` is Claude Code's: passed over silently
        f"toolbelt: {settings}: `permisions` is not a settings key, so it was ignored; did you "
        "mean `permissions`?",
        f"toolbelt: {settings}: `sandbx` is not a settings key, so it was ignored; did you "
        "mean `sandbox`?",
    ]


class _NotAModelServer(BaseHTTPRequestHandler):
    """A plain web server: POST is not implemented (501, with the stdlib's HTML page)."""

    requests: list[str] = []

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        self.requests.append(f"{self.command} {self.path} {code}")


@pytest.fixture
def web_server() -> Iterator[tuple[str, list[str]]]:
    requests: list[str] = []
    handler = type("Handler", (_NotAModelServer,), {"requests": requests})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.mark.parametrize(
    ("model", "label", "variable", "path", "tail"),
    [
        (
            "openai:gpt-test",
            "OpenAI",
            "OPENAI_BASE_URL",
            "/v1/chat/completions",
            "; an OpenAI-compatible server's usually ends in /v1",
        ),
        ("anthropic:claude-test", "Anthropic", "ANTHROPIC_BASE_URL", "/v1/v1/messages", ""),
    ],
)
def test_a_base_url_that_is_no_model_server_fails_at_once_in_one_sentence(
    model: str,
    label: str,
    variable: str,
    path: str,
    tail: str,
    web_server: tuple[str, list[str]],
    tmp_path: Path,
) -> None:
    url, requests = web_server
    done = toolbelt_run(
        "say hi", "--model", model, "--base-url", url, "--root", str(tmp_path), home=tmp_path
    )
    assert done.stderr == (
        f"toolbelt: {url}, the {label} base URL, is not a model server: it answered 501 Not "
        f"Implemented with an HTML page; point it at the server's API (set {variable} or pass "
        f"--base-url{tail}).\n"
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert requests == [f"POST {path} 501"]  # asked once: not retried
