"""Peers measured side by side: Alan Code (in-process, in its own venv) and MCP servers
(Claude Code's ``claude mcp serve``, the reference filesystem server) over stdio.

Installed by ``../shared/bench/install-peers .peers``; absent peers are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / ".peers"
T = TypeVar("T")


def claude_available() -> bool:
    return (PEERS / "claude-mcp").exists() and (
        PEERS / "node_modules/@anthropic-ai/claude-code/bin/claude.exe"
    ).exists()


def filesystem_server_available() -> bool:
    return (PEERS / "node_modules/.bin/mcp-server-filesystem").exists()


class AlanCode:
    """Alan Code's tools, called in-process inside its venv through a tiny worker."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process

    @classmethod
    def start(cls, cwd: Path) -> AlanCode | None:
        python = PEERS / "alancode/bin/python"
        if not python.exists():
            return None
        process = subprocess.Popen(
            [str(python), str(Path(__file__).with_name("alan_worker.py")), str(cwd)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={"HOME": str(PEERS / "alan-home"), "PATH": f"{PEERS / 'venv/bin'}:/usr/bin:/bin"},
        )
        return cls(process)

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps({"tool": tool, "args": args}) + "\n")
        self.process.stdin.flush()
        reply: dict[str, Any] = json.loads(self.process.stdout.readline())
        return reply

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


class McpPeer:
    """An MCP server over stdio, driven by the official SDK client on a private event loop."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self._env = env
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._command, self._cwd = command, cwd
        self._stack: Any = None
        self.session: Any = None
        self._run(self._open())

    @classmethod
    def claude(cls, cwd: Path) -> McpPeer:
        return cls([str(PEERS / "claude-mcp")], cwd)

    @classmethod
    def filesystem(cls, root: Path) -> McpPeer:
        return cls([str(PEERS / "node_modules/.bin/mcp-server-filesystem"), str(root)], root)

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout=300)

    async def _open(self) -> None:
        from contextlib import AsyncExitStack

        from mcp.client.stdio import stdio_client

        from mcp import ClientSession, StdioServerParameters

        self._stack = AsyncExitStack()
        params = StdioServerParameters(
            command=self._command[0], args=self._command[1:], cwd=str(self._cwd), env=self._env
        )
        read, write = await self._stack.enter_async_context(stdio_client(params))
        self.session = await self._stack.enter_async_context(ClientSession(read, write))
        await self.session.initialize()

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        return self._run(self.session.call_tool(tool, args))

    def close(self) -> None:
        with contextlib.suppress(Exception):  # a peer's shutdown must not fail the bench
            self._run(self._stack.aclose())
        self._loop.call_soon_threadsafe(self._loop.stop)
