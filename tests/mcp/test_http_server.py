"""`toolbelt mcp --http`: the SDK's streamable HTTP client, and the HTTP safety rules."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client.streamable_http import streamable_http_client
from tests.mcp.test_stdio_server import alive

from mcp import ClientSession

pytestmark = pytest.mark.anyio


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolbelt.cli.main",
            "mcp",
            "--http",
            f"127.0.0.1:{port}",
            "--root",
            str(root),
            *args,
        ],
        env={**os.environ, **(env or {})},
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                return process, base
        except httpx.HTTPError:
            time.sleep(0.05)
    process.kill()
    raise AssertionError("the HTTP server did not become ready")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    process, base = start(tmp_path, "--mode", "bypass")
    yield base
    process.terminate()
    process.wait(20)


async def test_session_flow_with_progress_and_state(server: str, tmp_path: Path) -> None:
    messages: list[str] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async with streamable_http_client(f"{server}/mcp") as (read, write):
        async with ClientSession(read, write) as client:
            await client.initialize()
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"read_file", "bash", "grep"} <= names
            result = await client.call_tool(
                "bash", {"command": "echo one; sleep 0.3; echo two"}, progress_callback=progress
            )
            assert result.content[0].text == "one\ntwo"
            await client.call_tool("bash", {"command": "cd /tmp 2>/dev/null; export X=7"})
            second = await client.call_tool("bash", {"command": "echo $X"})
            assert second.content[0].text == "7"
    assert "".join(messages) == "one\ntwo\n"


def test_health_and_dns_rebinding_protection(server: str) -> None:
    assert httpx.get(f"{server}/livez").text == "ok"
    assert httpx.get(f"{server}/readyz").text == "ready"
    evil_host = httpx.post(f"{server}/mcp", headers={"Host": "evil.example"}, json={})
    assert evil_host.status_code == 403
    evil_origin = httpx.post(f"{server}/mcp", headers={"Origin": "http://evil.example"}, json={})
    assert evil_origin.status_code == 403
    no_session = httpx.post(
        f"{server}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    )
    assert no_session.status_code == 404


def test_bearer_token_from_the_environment(tmp_path: Path) -> None:
    process, base = start(tmp_path, env={"TOOLBELT_MCP_TOKEN": "s3cret-token"})
    try:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        assert httpx.post(f"{base}/mcp", json=init).status_code == 401
        ok = httpx.post(f"{base}/mcp", json=init, headers={"Authorization": "Bearer s3cret-token"})
        assert ok.status_code == 200
        assert ok.headers["mcp-session-id"]
    finally:
        process.terminate()
        process.wait(20)


def test_remote_bind_needs_allow_remote_and_a_token(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "toolbelt.cli.main", "mcp", "--root", str(tmp_path)]
    refused = subprocess.run(
        [*base, "--http", "0.0.0.0:0"], capture_output=True, text=True, timeout=30
    )
    assert refused.returncode == 2
    assert "only loopback addresses are allowed unless you pass --allow-remote" in refused.stderr
    no_token = subprocess.run(
        [*base, "--http", "0.0.0.0:0", "--allow-remote"],
        capture_output=True,
        text=True,
        timeout=30,
        env={k: v for k, v in os.environ.items() if k != "TOOLBELT_MCP_TOKEN"},
    )
    assert no_token.returncode == 2
    assert "--allow-remote needs a bearer token" in no_token.stderr


async def test_sigterm_ends_every_process_the_sessions_started(tmp_path: Path) -> None:
    process, base = start(tmp_path, "--mode", "bypass")
    try:
        async with streamable_http_client(f"{base}/mcp", terminate_on_close=False) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                await client.call_tool(
                    "bash", {"command": f"sleep 4646{os.getpid()}", "run_in_background": True}
                )
        assert alive(f"sleep 4646{os.getpid()}")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(20)
    with anyio.fail_after(10):
        while alive(f"sleep 4646{os.getpid()}"):
            await anyio.sleep(0.05)
