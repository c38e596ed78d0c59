"""Starting a language server or checker: the one place their processes are made.

A language server reads the whole workspace, and the workspace influences what it does — its
configuration, its plugins (a ``tsconfig.json`` names tsserver plugins from
``node_modules``), and for a server found in the workspace, its very code. So it runs like any
command the workspace can influence, as a ``procs.tree.ProcessTree``: under an anchor (a
subreaper, so nothing it starts escapes), in a session of its own, marked with a run id the
watchdog knows (nothing outlives toolbelt, even a SIGKILLed one), started shielded from
cancellation and ended whole however its owner leaves — and confined by the OS sandbox's
``analysis`` profile: the workspace readable, nothing of it writable, the user's secrets
hidden, no network. Its environment is the session's without credential-looking variables,
with a PATH that keeps only absolute entries, and, for a program that is not the workspace's
own, only those outside the workspace (a ``node`` planted in ``.venv/bin`` would otherwise
run). The sandbox's grants walk the file system, so the confined argv is made in a worker
thread before the tree starts, not on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
from anyio.abc import ByteReceiveStream, Process

from toolbelt.core.programs import absolute_path, outside_path
from toolbelt.procs.tree import Confinement, ProcessTree, Stream
from toolbelt.sandbox.sandbox import Sandbox
from toolbelt.shell.environment import command_environment

__all__ = ["communicate", "finish", "spawn_process"]

T = TypeVar("T")

_GONE = (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)


@dataclass(frozen=True, slots=True)
class _Wrapped:
    """A confinement whose argv was made beforehand (in a worker thread)."""

    argv: tuple[str, ...]
    wrapped: tuple[str, ...]
    confinement: Confinement

    def wrap(self, argv: Sequence[str]) -> list[str]:
        if tuple(argv) != self.argv:  # never another program under this one's wrapping
            return self.confinement.wrap(argv)
        return list(self.wrapped)

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        return self.confinement.environment(env)


async def spawn_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    sandbox: Sandbox | None,
    workspace_code: bool,
    stdin: Stream = subprocess.PIPE,
    stderr: Stream = subprocess.DEVNULL,
    grace: float = 1.0,
) -> ProcessTree:
    """Start ``argv`` as a confined process tree (see the module), its stdout piped; the
    caller ends it with ``aclose`` (SIGTERM, ``grace`` seconds, then SIGKILL, whole). Raises
    the ``OSError`` of a program that cannot start."""
    env = command_environment()
    trimmed = absolute_path if workspace_code else outside_path
    env["PATH"] = trimmed(env.get("PATH", os.defpath))
    env["PYTHONSAFEPATH"] = "1"
    command = tuple(argv)
    confine: Confinement | None = None
    confinement = None if sandbox is None else sandbox.confinement("analysis", cwd=cwd)
    if confinement is not None:
        wrapped = await anyio.to_thread.run_sync(confinement.wrap, command)
        confine = _Wrapped(command, tuple(wrapped), confinement)
    tree = ProcessTree(
        command,
        cwd=cwd,
        env=env,
        confine=confine,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=stderr,
        grace=grace,
    )
    await tree.start()
    return tree


async def communicate(process: Process, data: bytes) -> tuple[bytes, bytes]:
    """Write ``data`` to ``process``'s stdin and close it, and read its stdout and stderr to
    their end, all at once (a checker may answer before it has read everything)."""
    found: dict[str, bytes] = {}

    async def feed() -> None:
        assert process.stdin is not None
        with contextlib.suppress(*_GONE):  # it stopped reading: what it said is its answer
            async with process.stdin:
                await process.stdin.send(data)

    async def drain(name: str, stream: ByteReceiveStream | None) -> None:
        chunks: list[bytes] = []
        if stream is not None:
            with contextlib.suppress(*_GONE):
                async for chunk in stream:
                    chunks.append(chunk)
        found[name] = b"".join(chunks)

    async with anyio.create_task_group() as group:
        group.start_soon(feed)
        group.start_soon(drain, "out", process.stdout)
        group.start_soon(drain, "err", process.stderr)
    await process.wait()
    return found["out"], found["err"]


async def finish(work: Coroutine[Any, Any, T]) -> T:
    """``work`` run to its end even if the caller is cancelled meanwhile, and then the
    cancellation raised: the end of a server's tree must not stop half-way. (The language
    servers run on asyncio tasks, bounded by ``asyncio.timeout`` and ``Task.cancel``, which
    anyio's shields do not hold off: only a task of its own does.)"""
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled():
                raise
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()
