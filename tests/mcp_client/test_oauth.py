"""Logging in to an OAuth-protected MCP server, and what toolbelt keeps and does with the tokens.

Against ``oauth_server.py`` — a real HTTP server on 127.0.0.1 with its own authorization server
(discovery, registration, PKCE, rotating refresh tokens, revocation) that writes down what it
was asked — through the real ``toolbelt`` command, each call a process of its own, as a
person would run them. The "browser" is ``follow_redirects.py`` given as ``BROWSER`` (the
authorization server approves at once), or the person pasting the address back.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.mcp.http_server import free_port

HERE = Path(__file__).resolve().parent
SERVER = HERE / "oauth_server.py"
FOLLOW = HERE.parent / "support" / "follow_redirects.py"


@dataclass
class OAuthServer:
    process: subprocess.Popen[bytes]
    port: int
    state_file: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def state(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.state_file.read_text())
        return data

    def expire_tokens(self) -> None:
        httpx.post(f"http://127.0.0.1:{self.port}/test/expire", timeout=10)


def start_server(tmp_path: Path, **env: str) -> OAuthServer:
    port = free_port()
    state = tmp_path / f"oauth-state-{port}.json"
    process = subprocess.Popen(
        [sys.executable, str(SERVER), str(port), str(state)],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource", timeout=1)
            return OAuthServer(process, port, state)
        except httpx.HTTPError:
            time.sleep(0.05)
    process.kill()
    raise AssertionError("the OAuth test server did not start")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[OAuthServer]:
    running = start_server(tmp_path)
    yield running
    running.process.terminate()
    running.process.wait(10)


def configure(workspace: Path, entry: dict[str, Any], name: str = "conf") -> None:
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {name: entry}}))


def toolbelt(
    workspace: Path, *args: str, browser: bool = True, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BROWSER": f"{sys.executable} {FOLLOW} %s" if browser else "false"}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "toolbelt.cli.main",
            *args,
            "--root",
            str(workspace),
            "--trust-workspace",
        ],
        env=env,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=120,
    )


def log_in(workspace: Path, name: str = "conf") -> subprocess.CompletedProcess[str]:
    done = toolbelt(workspace, "mcp-servers", "login", name)
    assert done.returncode == 0, done.stderr
    return done


def whoami(workspace: Path, name: str = "conf") -> str:
    return toolbelt(workspace, "call", f"mcp__{name}__whoami", "{}", "--yes").stdout.strip()


def record(user_config: Path) -> tuple[Path, dict[str, Any]]:
    [path] = (user_config / "mcp-credentials").glob("*.json")
    return path, json.loads(path.read_text())


def rewrite(path: Path, change: dict[str, Any]) -> None:
    """Change the kept record as time would have (the file stays private)."""
    data = json.loads(path.read_text())
    data.update(change)
    path.write_text(json.dumps(data))
    path.chmod(0o600)


NEEDS_LOGIN = (
    "The MCP server `conf` needs a login before its tools can be used: ask the user to run "
    "`toolbelt mcp-servers login conf`, and continue without it meanwhile."
)


def test_a_server_answering_401_needs_a_login_and_no_browser_opens(
    server: OAuthServer, workspace: Path
) -> None:
    configure(workspace, {"type": "http", "url": server.url})
    listed = toolbelt(workspace, "mcp-servers")
    assert listed.stdout.split("\t")[:3] == ["conf", "needs-login", "0 tools"]
    assert listed.stdout.rstrip().endswith(
        "it needs a login (it answers 401 Unauthorized): run `toolbelt mcp-servers login conf`"
    )
    called = toolbelt(workspace, "call", "mcp__conf__whoami", "{}", "--yes")
    assert called.stdout.strip() == NEEDS_LOGIN
    as_json = json.loads(toolbelt(workspace, "mcp-servers", "--json").stdout)
    assert (as_json[0]["state"], as_json[0]["auth"]) == ("needs-login", "needs-login")
    # nothing was registered and nobody was sent to a browser
    assert (server.state()["registrations"], server.state()["authorizations"]) == (0, 0)


def test_login_keeps_the_tokens_private_and_the_tools_work(
    server: OAuthServer, workspace: Path, user_config: Path
) -> None:
    configure(workspace, {"type": "http", "url": server.url})
    done = log_in(workspace)
    assert done.stdout.startswith("Logged in to `conf` (1 tool); the token expires ")
    assert done.stdout.rstrip().endswith(", and is refreshed by itself.")
    assert f"  http://127.0.0.1:{server.port}/authorize?response_type=code" in done.stderr
    directory = user_config / "mcp-credentials"
    path, kept = record(user_config)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (kept["url"], kept["issuer"]) == (server.url, f"http://127.0.0.1:{server.port}")
    assert kept["expires_at"] > time.time() + 3000  # absolute, an hour from the login
    assert [p.name for p in directory.iterdir() if p.name.startswith(".")] == []  # no leftovers
    assert whoami(workspace) == "token #1"
    listed = toolbelt(workspace, "mcp-servers").stdout
    assert listed.split("\t")[1].startswith("running, logged-in (expires ")
    assert listed.split("\t")[1].endswith(", refreshable)")


def test_the_login_address_can_be_pasted_back(server: OAuthServer, workspace: Path) -> None:
    configure(workspace, {"type": "http", "url": server.url})
    command = [
        sys.executable,
        "-m",
        "toolbelt.cli.main",
        "mcp-servers",
        "login",
        "conf",
        "--no-browser",
        "--root",
        str(workspace),
        "--trust-workspace",
    ]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdin is not None and process.stderr is not None
    address = ""
    while not address:
        line = process.stderr.readline()
        assert line, "the login ended without printing its address"
        if line.startswith("  http"):
            address = line.strip()
    # the person's browser, elsewhere, ends on the redirect address (which cannot load there)
    redirect = httpx.get(address, follow_redirects=False, timeout=10).headers["location"]
    assert redirect.startswith("http://127.0.0.1:")
    process.stdin.write(redirect + "\n")
    process.stdin.flush()
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    assert out.startswith("Logged in to `conf` (1 tool)")
    assert whoami(workspace) == "token #1"


def test_an_expired_token_is_refreshed_without_a_browser_after_a_restart(
    server: OAuthServer, workspace: Path, user_config: Path
) -> None:
    configure(workspace, {"type": "http", "url": server.url})
    log_in(workspace)
    path, _ = record(user_config)
    server.expire_tokens()
    rewrite(path, {"expires_at": time.time() - 60})  # an hour later
    assert whoami(workspace) == "token #2"
    state = server.state()
    assert (state["authorizations"], state["refreshes"]) == (1, 1)
    _, kept = record(user_config)
    assert kept["expires_at"] > time.time() + 3000
    # a token the server stopped taking early (its clock, a revocation) is refreshed once too
    server.expire_tokens()
    assert whoami(workspace) == "token #3"
    assert (server.state()["authorizations"], server.state()["refreshes"]) == (1, 2)


def test_a_rotated_refresh_token_is_shared_by_two_processes_refreshing_at_once(
    tmp_path: Path, workspace: Path, user_config: Path
) -> None:
    slow = start_server(tmp_path, REFRESH_DELAY="1.0")  # both processes reach the refresh
    try:
        configure(workspace, {"type": "http", "url": slow.url})
        log_in(workspace)
        path, _ = record(user_config)
        slow.expire_tokens()
        rewrite(path, {"expires_at": time.time() - 60})
        command = [
            sys.executable,
            "-m",
            "toolbelt.cli.main",
            "call",
            "mcp__conf__whoami",
            "{}",
            "--yes",
            "--root",
            str(workspace),
            "--trust-workspace",
        ]
        first, second = (
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)
        )
        answers = sorted(process.communicate(timeout=120)[0].strip() for process in (first, second))
        assert answers == ["token #2", "token #2"]  # one refresh, used by both
        state = slow.state()
        assert (state["refreshes"], state["refused_refreshes"]) == (1, 0)
    finally:
        slow.process.terminate()
        slow.process.wait(10)


def test_a_changed_url_or_name_never_gets_the_old_token(
    server: OAuthServer, workspace: Path
) -> None:
    configure(workspace, {"type": "http", "url": server.url})
    log_in(workspace)
    moved = f"http://localhost:{server.port}/mcp"  # another URL, however close
    configure(workspace, {"type": "http", "url": moved})
    assert toolbelt(workspace, "call", "mcp__conf__whoami", "{}", "--yes").stdout.strip() == (
        NEEDS_LOGIN
    )
    configure(workspace, {"type": "http", "url": server.url}, name="other")
    assert "`other` needs a login" in whoami(workspace, "other")
    sent = [request for request in server.state()["requests"] if request["token"] is not None]
    assert {request["host"] for request in sent} == {f"127.0.0.1:{server.port}"}


def test_logout_forgets_and_revokes(
    server: OAuthServer, workspace: Path, user_config: Path
) -> None:
    configure(workspace, {"type": "http", "url": server.url})
    log_in(workspace)
    done = toolbelt(workspace, "mcp-servers", "logout", "conf")
    assert done.stdout.strip() == "Logged out of `conf`: its tokens are forgotten and revoked."
    assert server.state()["revoked"] == ["refresh_token", "access_token"]
    assert list((user_config / "mcp-credentials").glob("*.json")) == []
    assert toolbelt(workspace, "mcp-servers").stdout.split("\t")[1] == "needs-login"


def test_claude_codes_entry_with_oauth_headers_helper_and_unknown_keys_loads(
    server: OAuthServer, workspace: Path
) -> None:
    helper = workspace / "headers.sh"
    helper.write_text('#!/bin/sh\necho "{\\"X-Api-Key\\": \\"helper-$KEY_PART\\"}"\n')
    helper.chmod(0o755)
    entry = {
        "type": "http",
        "url": server.url,
        "oauth": {"clientId": "pre", "callbackPort": free_port(), "scopes": "tools"},
        "headersHelper": "KEY_PART=key ./headers.sh",
        "alwaysLoad": True,
    }
    configure(workspace, entry)
    listed = toolbelt(workspace, "tools", "--json")
    assert listed.returncode == 0
    names = [tool["name"] for tool in json.loads(listed.stdout)]
    assert "read_file" in names and "mcp__conf__whoami" in names
    assert listed.stderr == (
        f"toolbelt: {workspace / '.mcp.json'}: `mcpServers.conf.alwaysLoad` is not a key "
        "toolbelt knows, so it was ignored.\n"
    )
    assert whoami(workspace) == "token #0"  # the helper's header let it in


def test_a_failing_headers_helper_says_why(server: OAuthServer, workspace: Path) -> None:
    configure(workspace, {"type": "http", "url": server.url, "headersHelper": "echo nope; exit 3"})
    listed = toolbelt(workspace, "mcp-servers")
    assert listed.stdout.split("\t")[1] == "failed"
    assert listed.stdout.rstrip().endswith("its headersHelper exited with status 3")


def test_a_headers_helper_changed_after_trust_does_not_run_until_trusted_again(
    server: OAuthServer, workspace: Path, tmp_path: Path
) -> None:
    helper, marker = workspace / "headers.sh", tmp_path / "changed-helper-ran"
    helper.write_text('#!/bin/sh\necho \'{"X-Api-Key": "helper-key"}\'\n')
    helper.chmod(0o755)
    configure(workspace, {"type": "http", "url": server.url, "headersHelper": "./headers.sh"})
    trust = subprocess.run(
        [sys.executable, "-m", "toolbelt.cli.main", "trust", str(workspace)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert trust.returncode == 0, trust.stderr

    def stored_trust_call() -> subprocess.CompletedProcess[str]:  # no --trust-workspace
        return subprocess.run(
            [sys.executable, "-m", "toolbelt.cli.main", "call", "mcp__conf__whoami", "{}", "--yes"],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert stored_trust_call().stdout.strip() == "token #0"
    helper.write_text(f"#!/bin/sh\ntouch {marker}\necho '{{}}'\n")  # a pull rewrites it
    changed = stored_trust_call()
    assert changed.returncode == 2
    assert f"the MCP server `conf` in {workspace / '.mcp.json'} (its file {helper})" in (
        changed.stderr
    )
    assert not marker.exists()


def test_a_401_with_oauth_off_names_the_status_and_what_to_do(
    server: OAuthServer, workspace: Path
) -> None:
    configure(workspace, {"type": "http", "url": server.url, "oauth": False})
    listed = toolbelt(workspace, "mcp-servers")
    assert listed.stdout.split("\t")[1] == "failed"
    assert listed.stdout.rstrip().endswith(
        "it answered 401 Unauthorized (OAuth is off for it: give it credentials in `headers` "
        "or `headersHelper`)"
    )
