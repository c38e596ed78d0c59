"""Starting and ending a language server or checker: the one place their processes are made.

A language server reads the whole workspace, and the workspace influences what it does — its
configuration, its plugins (a ``tsconfig.json`` names tsserver plugins from
``node_modules``), and for a server found in the workspace, its very code. So it runs like any
command the workspace can influence: under an anchor (``procs.anchor``: a subreaper, so nothing
it starts escapes), in a session of its own, marked with a run id the watchdog knows (nothing
outlives toolbelt, even a SIGKILLed one), and under the OS sandbox's ``analysis`` profile —
the workspace readable, nothing of it writable, the user's secrets hidden, no network. Its
environment is the session's without credential-looking variables, with a PATH that keeps
only absolute entries, and, for a program that is not the workspace's own, only those outside
the workspace (a ``node`` planted in ``.venv/bin`` would otherwise run). This follows
``shell.jobs`` (until ``procs.tree.ProcessTree`` lands, which this one function will then use).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio

from toolbelt.core.programs import absolute_path, outside_path
from toolbelt.procs.anchor import anchored_argv
from toolbelt.procs.ending import RUN_ID_VAR, end_run
from toolbelt.procs.identity import Anchor
from toolbelt.procs.reaper import forget, remember
from toolbelt.procs.watchdog import new_run_id
from toolbelt.sandbox.sandbox import Sandbox
from toolbelt.shell.environment import command_environment

__all__ = ["ServerProcess", "end_process", "spawn_process"]


@dataclass(slots=True)
class ServerProcess:
    """A started server (or checker): the anchor toolbelt holds, and its run id."""

    process: asyncio.subprocess.Process
    anchor: Anchor
    run_id: str


async def spawn_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    sandbox: Sandbox | None,
    workspace_code: bool,
    stdin: int | None = asyncio.subprocess.PIPE,
    stderr: int | None = asyncio.subprocess.DEVNULL,
) -> ServerProcess:
    """Start ``argv`` confined (see the module), its stdin and stdout piped."""
    run_id = new_run_id()
    env = command_environment()
    trimmed = absolute_path if workspace_code else outside_path
    env["PATH"] = trimmed(env.get("PATH", os.defpath))
    env["PYTHONSAFEPATH"] = "1"
    command = list(argv)
    if sandbox is not None and sandbox.active:
        # the grants walk the file system: off the event loop
        command = await anyio.to_thread.run_sync(lambda: sandbox.wrap(command, "analysis", cwd=cwd))
        env = sandbox.environment(env)
    process = await asyncio.create_subprocess_exec(
        *anchored_argv(command),
        stdin=stdin,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
        cwd=cwd,
        env={**env, RUN_ID_VAR: run_id},
        start_new_session=True,
    )
    anchor = Anchor(process.pid)
    remember(anchor, run_id)
    return ServerProcess(process, anchor, run_id)


async def end_process(server: ServerProcess, *, grace: float = 1.0) -> None:
    """End the process's whole tree (SIGTERM, ``grace`` seconds, then SIGKILL); safe twice."""
    with anyio.CancelScope(shield=True):
        if server.process.stdin is not None:
            with contextlib.suppress(OSError, RuntimeError):
                server.process.stdin.close()
        await anyio.to_thread.run_sync(
            lambda: end_run(server.run_id, grace=grace, anchor=server.anchor)
        )
        with contextlib.suppress(ProcessLookupError):
            await server.process.wait()
        for stream in (server.process.stdout, server.process.stderr):
            if stream is not None:  # read to the end: the pipes close with their transport
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(stream.read(), 1.0)
        forget(server.anchor)
        server.anchor.close()
