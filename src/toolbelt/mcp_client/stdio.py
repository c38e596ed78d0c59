"""The stdio transport to a server toolbelt starts: bounded reads, and no process left behind.

The SDK's own ``stdio_client`` joins every chunk onto the pending line (quadratic: a 190 MB
reply never finished in 90 s, research/mcpservers.md §2) and reads a line of any length. Here
a line is searched for its newline only in the bytes that arrived since the last look, and one
message may hold at most ``MAX_MESSAGE_BYTES``. A server that breaks the stdio contract — a
message past the cap, a line that is not JSON-RPC (the spec forbids anything else on stdout),
JSON nested past the parser's depth — is disconnected, and ``problem`` says why, for the error
the pending call returns; the next call starts it afresh. A tool listing that fails only
because some tools nest too deeply is the exception: those tools arrive marked unreadable
(``UNREADABLE_KEY``), the listing leaves them out with that reason and keeps the others.

The server is a process tree (``procs.tree``): under an anchor, in a session of its own, with
``TOOLBELT_RUN_ID`` in its environment, so closing ends its whole tree — the process group,
and whatever escaped it with ``setsid`` or a double fork, its environment cleared or not — the
way commands the bash tool ran are ended, and if toolbelt itself is killed (SIGKILL, the OOM
killer) its watchdog ends the server's tree too.
Its stderr is drained (a full pipe would block it) and its last lines kept for error messages.
A server the workspace's own file declares is started by the session's MCP runner
(``runners.runner``, the runner rule): inside the sandbox's workspace profile, the network off
unless the user's settings open it (``sandbox.mcpServers``), so a module of the workspace it
loads — which trust does not pin — runs with no more rights than a command has. The user's own
servers start unconfined, in the user's home.
It starts with ``PYTHONSAFEPATH=1`` unless its ``env`` sets it: with its cwd possibly in a
workspace, ``python -m srv`` would otherwise import the cwd's ``srv.py``. Its
``PATH`` keeps only absolute entries: a relative or empty one would find ``npx``/``node``/its
command in that cwd; a server the user configured outside the workspace also loses the entries
inside the workspace roots (an activated ``/abs/ws/.venv/bin``), where a sandboxed command may
plant its ``python3`` (``core.programs``). A server the workspace's own file declares (pinned
by trust) keeps them: it is the workspace's code.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
from anyio.abc import ByteReceiveStream, Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from toolbelt.core.programs import absolute_path, inside_workspace, outside_path
from toolbelt.mcp_client.config import ServerConfig
from toolbelt.mcp_client.metadata import MAX_DEPTH, depth, unusable
from toolbelt.runners.runner import Runner

__all__ = ["MAX_MESSAGE_BYTES", "UNREADABLE_KEY", "StdioConnection"]

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
_EXIT_GRACE = 2.0
_STDERR_KEPT = 2000
SAFE_PYTHON = {"PYTHONSAFEPATH": "1"}
"""Keeps the cwd off a Python server's ``sys.path`` (its config's ``env`` may override it)."""
UNREADABLE_KEY = "x-toolbelt-unreadable"
"""Marks, in a tool's input schema, a tool whose definition could not be read (and why)."""


class StdioConnection:
    """One run of a stdio server: ``open()`` yields the SDK session's stream pair."""

    def __init__(
        self,
        server: ServerConfig,
        *,
        max_message: int = MAX_MESSAGE_BYTES,
        runner: Runner | None = None,
    ) -> None:
        """``runner`` starts the server (None: unconfined, as the user's own servers are)."""
        self._server = server
        self._runner = runner if runner is not None else Runner("mcp")
        self.confined = self._runner.confined
        """Whether the server runs inside the sandbox (for what its failures say)."""
        self._max = max_message
        self.problem: str | None = None
        """Why toolbelt disconnected the server, when it did (a broken contract)."""
        self.pid: int | None = None
        self._stderr: deque[str] = deque(maxlen=20)
        self.ended = anyio.Event()
        """Set when the server's output ends (it exited, or was disconnected)."""

    @property
    def stderr_tail(self) -> str:
        """The end of what the server wrote to stderr (for "it exited" errors)."""
        return "".join(self._stderr)[-_STDERR_KEPT:].strip()

    @asynccontextmanager
    async def open(
        self,
    ) -> AsyncIterator[
        tuple[
            MemoryObjectReceiveStream[SessionMessage | Exception],
            MemoryObjectSendStream[SessionMessage],
        ]
    ]:
        server = self._server
        env = self._runner.environment({**get_default_environment(), **SAFE_PYTHON}, server.env)
        trimmed = absolute_path if inside_workspace(server.source) else outside_path
        env["PATH"] = trimmed(env.get("PATH", os.defpath))  # see the module's docstring
        cwd = Path(server.cwd) if server.cwd else Path.cwd()
        tree = self._runner.tree(
            [server.command, *server.args], cwd=cwd, env=env, grace=_EXIT_GRACE
        )
        process = await tree.start()
        self.pid = process.pid
        incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)
        try:
            async with anyio.create_task_group() as group:
                assert process.stdout is not None
                assert process.stderr is not None
                group.start_soon(self._read, process.stdout, incoming_send)
                group.start_soon(self._write, process, outgoing_receive)
                group.start_soon(self._drain_stderr, process.stderr)
                try:
                    yield incoming, outgoing
                finally:
                    group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await _ask_to_leave(process)
                await tree.aclose()
                for stream in (incoming, incoming_send, outgoing, outgoing_receive):
                    await stream.aclose()

    async def _read(
        self, stdout: ByteReceiveStream, sink: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        buffer = bytearray()
        try:
            await self._read_lines(stdout, sink, buffer)
        finally:
            self.ended.set()

    async def _read_lines(
        self,
        stdout: ByteReceiveStream,
        sink: MemoryObjectSendStream[SessionMessage | Exception],
        buffer: bytearray,
    ) -> None:
        async with sink:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
                while True:
                    chunk = await stdout.receive()
                    searched = len(buffer)
                    buffer += chunk
                    start = 0
                    end = buffer.find(b"\n", searched)
                    while end >= 0:
                        line = bytes(buffer[start:end])
                        start = end + 1
                        if line.strip() and not await self._deliver(line, sink):
                            return
                        end = buffer.find(b"\n", start)
                    del buffer[:start]
                    if len(buffer) > self._max:
                        self.problem = (
                            f"sent a message larger than {self._max // (1024 * 1024)} MB, the "
                            "most toolbelt accepts"
                        )
                        return

    async def _deliver(
        self, line: bytes, sink: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> bool:
        if len(line) > self._max:
            self.problem = (
                f"sent a message larger than {self._max // (1024 * 1024)} MB, the most "
                "toolbelt accepts"
            )
            return False
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except (ValueError, RecursionError):
            contained = _without_unreadable_tools(line)
            if contained is None:
                self.problem = _diagnose(line)
                return False
            message = contained
        try:
            await sink.send(SessionMessage(message))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return False
        return True

    async def _write(
        self, process: Process, source: MemoryObjectReceiveStream[SessionMessage]
    ) -> None:
        assert process.stdin is not None
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with source:
                async for message in source:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(data.encode() + b"\n")

    async def _drain_stderr(self, stderr: ByteReceiveStream) -> None:
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
            while True:
                chunk = await stderr.receive()
                self._stderr.append(chunk[-_STDERR_KEPT:].decode("utf-8", "replace"))


async def _ask_to_leave(process: Process) -> None:
    """Close the server's stdin and give it a moment to leave by itself (the stdio way to end
    a server) before its tree is ended."""
    if process.stdin is not None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    with anyio.move_on_after(_EXIT_GRACE):
        await process.wait()


def _without_unreadable_tools(line: bytes) -> types.JSONRPCMessage | None:
    """A tool listing that failed to parse only because some tools nest too deeply, with
    each such tool reduced to its name and the reason (the listing leaves it out and keeps
    the others); None for any other message that does not parse."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    result = data.get("result") if isinstance(data, dict) else None
    tools = result.get("tools") if isinstance(result, dict) else None
    if not isinstance(result, dict) or not isinstance(tools, list):
        return None
    kept = []
    for tool in tools:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        why = unusable(tool.get("inputSchema"))
        if why is None and depth(tool) > MAX_DEPTH + 2:
            why = f"its definition nests more than {MAX_DEPTH} levels deep"
        if why is not None:
            tool = {"name": tool["name"], "inputSchema": {"type": "object", UNREADABLE_KEY: why}}
        kept.append(tool)
    result["tools"] = kept
    try:
        return types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except (ValueError, RecursionError):
        return None


def _diagnose(line: bytes) -> str:
    """Why ``line`` is not a message (only for a line that failed to parse: the slow path)."""
    try:
        json.loads(line)
    except RecursionError:
        return "sent JSON nested too deeply to read"
    except ValueError:
        shown = line[:60].decode("utf-8", "replace")
        return f"wrote a line that is not JSON ({shown!r})"
    return "sent JSON that is not a JSON-RPC message"
