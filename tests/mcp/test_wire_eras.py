"""Every reply in the wire era its request speaks: no field of another era.

The handlers build each result in the 2026-07-28 form (``resultType`` on every result, ``ttlMs``
and ``cacheScope`` on lists); a session-era request (2025-11-25 and before) must get none of
those. The TypeScript SDK's client — inside many MCP hosts — validates an empty result
strictly, so a ``ping`` answered ``{"resultType": "complete"}`` in a 2025-11-25 session is an
error there. Checked per method and era, through that client (node) and Python's, on stdio and
HTTP.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.message import SessionMessage
from tests.mcp.http_server import start

from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = ROOT / ".node" / "node_modules"
TS_CLIENT = ROOT / "tests" / "support" / "node" / "ts_client.cjs"
MODERN_ONLY = {"resultType", "ttlMs", "cacheScope"}
METHODS = ["ping", "tools/list", "tools/call", "logging/setLevel"]


def ts_sdk() -> Path:
    if (NODE_MODULES / "@modelcontextprotocol" / "sdk").is_dir():
        return NODE_MODULES
    if os.environ.get("CI"):
        pytest.fail("the TypeScript MCP SDK is missing; scripts/bootstrap installs it in .node/")
    pytest.skip("the TypeScript MCP SDK is missing (run scripts/bootstrap)")


def run_ts_client(*args: str) -> dict[str, dict[str, Any]]:
    env = {**os.environ, "NODE_PATH": str(ts_sdk())}
    done = subprocess.run(
        ["node", str(TS_CLIENT), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=True,
    )
    return {step["step"]: step for step in json.loads(done.stdout)}


def test_typescript_sdk_client_over_stdio_accepts_every_reply(tmp_path: Path) -> None:
    server = [sys.executable, "-m", "toolbelt.cli.main", "mcp", "--root", str(tmp_path)]
    steps = run_ts_client("stdio", *server)
    failed = {name: step["error"] for name, step in steps.items() if not step["ok"]}
    assert failed == {}
    assert steps["ping"]["result"] == {}
    assert steps["tools/call"]["result"]["content"] == [
        {"type": "text", "text": "Thought recorded."}
    ]
    assert "think" in steps["tools/list"]["result"]


def test_typescript_sdk_client_over_http_accepts_every_reply(tmp_path: Path) -> None:
    ts_sdk()
    running = start(tmp_path)
    try:
        steps = run_ts_client("http", running.url, running.token or "")
    finally:
        running.stop()
    failed = {name: step["error"] for name, step in steps.items() if not step["ok"]}
    assert failed == {}
    assert steps["ping"]["result"] == {}
    assert steps["tools/call"]["result"]["isError"] is False


@asynccontextmanager
async def recorded(transport: Any, seen: list[dict[str, Any]]) -> AsyncIterator[Any]:
    """``transport``'s streams, every message the server sends kept in ``seen`` as sent."""
    async with transport as (read, write):
        send, receive = anyio.create_memory_object_stream[Any](100)

        async def pump() -> None:
            async with send:
                async for item in read:
                    if isinstance(item, SessionMessage):
                        seen.append(item.message.model_dump(by_alias=True, exclude_none=True))
                    await send.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            yield receive, write
            group.cancel_scope.cancel()


async def python_results(transport: Any, mode: str) -> dict[str, dict[str, Any]]:
    """The raw result of each method, by method, through the Python SDK's client (``ping``
    and ``logging/setLevel`` are session-era methods: asked in ``legacy`` mode only)."""
    seen: list[dict[str, Any]] = []
    results: dict[str, dict[str, Any]] = {}
    async with Client(recorded(transport, seen), mode=mode) as client:

        async def ask(method: str, request: Any) -> None:
            before = len(seen)
            await request
            replies = [message for message in seen[before:] if "result" in message]
            results[method] = replies[-1]["result"]

        if mode == "legacy":
            with warnings.catch_warnings():  # the SDK marks it removed in 2026-07-28
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await ask("ping", client.send_ping())
        await ask("tools/list", client.list_tools())
        await ask("tools/call", client.call_tool("think", {"thought": "hi"}))
        if mode == "legacy":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await ask("logging/setLevel", client.set_logging_level("info"))
    return results


@pytest.mark.anyio
async def test_python_sdk_session_era_replies_carry_no_modern_field(tmp_path: Path) -> None:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "toolbelt.cli.main", "mcp", "--root", str(tmp_path)]
    )
    results = await python_results(stdio_client(server), "legacy")
    leaked = {method: sorted(MODERN_ONLY & set(result)) for method, result in results.items()}
    assert leaked == {method: [] for method in METHODS}
    assert results["ping"] == {}
    assert results["logging/setLevel"] == {}
    assert results["tools/call"]["isError"] is False


@pytest.mark.anyio
async def test_python_sdk_modern_era_replies_carry_its_fields(tmp_path: Path) -> None:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "toolbelt.cli.main", "mcp", "--root", str(tmp_path)]
    )
    results = await python_results(stdio_client(server), "auto")
    assert results["tools/call"]["resultType"] == "complete"
    listed = results["tools/list"]
    assert (listed["resultType"], listed["ttlMs"], listed["cacheScope"]) == (
        "complete",
        0,
        "private",
    )


@pytest.mark.anyio
async def test_python_sdk_over_http_session_era_replies_carry_no_modern_field(
    tmp_path: Path,
) -> None:
    running = start(tmp_path)
    try:
        results = await python_results(running.transport(), "legacy")
    finally:
        running.stop()
    leaked = {method: sorted(MODERN_ONLY & set(result)) for method, result in results.items()}
    assert leaked == {method: [] for method in METHODS}
    assert results["ping"] == {}
