"""A fleet of toolbelt sandboxes on Ray: one Ray actor per sandbox, a batch of scripted episodes.

Each sandbox is a Ray actor that owns one ``toolbelt mcp --port 0`` server in a workspace of its
own, its commands under the OS sandbox (``--sandbox auto``), started as a fleet starts it: the
token in ``$TOOLBELT_MCP_TOKEN`` (never argv), the bound URL read from ``--ready-file``, and
``--max-lifetime`` as the dead-man's switch. The server dies with its actor (the parent-death
signal), so a killed actor leaves no server behind.

The driver runs a batch of scripted episodes — each writes a module, edits it, runs it and reads
the result back, through ``toolbelt.RemoteToolset`` — with one worker per sandbox. A sandbox that
crashes mid-episode (``--crash-after K`` kills one on purpose) is replaced by a new actor and the
episode runs again on the new one (a workspace does not survive its sandbox): the batch loses
nothing. Reported: episodes done and failed, sandboxes replaced, episodes/s and calls/s.

Usage: ``python examples/ray_fleet.py --sandboxes 4 --episodes 40 [--crash-after 5]``; needs
``pip install 'agent-toolbelt[fleet]'`` (Ray). Ray runs locally here (``ray.init()`` starts a
one-machine cluster); on a cluster, ``ray.init(address="auto")`` and the same code places the
sandboxes on its nodes.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray

import toolbelt

READY_TIMEOUT = 60.0
LIFETIME = 3600.0
"""Each server's ``--max-lifetime``: it stops by itself if the driver forgets it."""


def _die_with_parent() -> None:
    """In the server's child process: SIGTERM when the actor's process dies (Linux)."""
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Sandbox:
    """One task sandbox: a workspace and the toolbelt server that serves it."""

    def __init__(self, lifetime: float) -> None:
        self.workspace = Path(tempfile.mkdtemp(prefix="toolbelt-sandbox-"))
        ready = self.workspace.parent / f"{self.workspace.name}.ready.json"
        self.token = secrets.token_urlsafe(32)
        served = ["--root", str(self.workspace), "--mode", "bypass", "--sandbox", "auto"]
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "toolbelt",
                "mcp",
                "--port",
                "0",
                "--ready-file",
                str(ready),
                *served,
                "--max-lifetime",
                str(lifetime),
            ],
            env={**os.environ, "TOOLBELT_MCP_TOKEN": self.token},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )
        deadline = time.monotonic() + READY_TIMEOUT
        while not ready.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the toolbelt server did not become ready")
            time.sleep(0.02)
        self.url = json.loads(ready.read_text())["url"]

    def address(self) -> tuple[str, str, int]:
        """(URL, token, the server's pid)."""
        return self.url, self.token, self.process.pid

    def crash(self) -> None:
        """Kill the server as a crash would (for the demonstration)."""
        self.process.kill()


@dataclass
class Tally:
    done: int = 0
    failed: list[str] = field(default_factory=list)
    replaced: int = 0
    calls: int = 0
    servers: list[int] = field(default_factory=list)


class SandboxLost(Exception):
    """The sandbox's server went away during an episode."""


async def episode(runtime: toolbelt.Runtime, number: int, tally: Tally) -> None:
    """One scripted episode: write a module, edit it, run it, read the answer back."""
    remote = runtime.toolset

    async def call(name: str, arguments: dict[str, Any]) -> str:
        [result] = await runtime.run([toolbelt.ToolCall(f"e{number}-{name}", name, arguments)])
        tally.calls += 1
        lost = isinstance(remote, toolbelt.RemoteToolset) and remote.server.state != "running"
        if result.is_error and lost:  # the connection died with the sandbox
            raise SandboxLost(result.text)
        if result.is_error:
            raise RuntimeError(f"{name}: {result.text}")
        return result.text

    module = f"episode_{number}.py"
    await call("write_file", {"path": module, "content": f"ANSWER = {number}\nprint(ANSWER)\n"})
    old, new = f"ANSWER = {number}", f"ANSWER = {number * 2}"
    await call("edit_file", {"path": module, "old_string": old, "new_string": new})
    await call("bash", {"command": f"python3 {module} > out_{number}.txt"})
    text = await call("read_file", {"path": f"out_{number}.txt"})
    if str(number * 2) not in text:
        raise RuntimeError(f"episode {number} read {text!r}")


async def worker(
    sandbox_class: Any,
    queue: asyncio.Queue[int],
    tally: Tally,
    crash_after: int | None,
) -> None:
    """Run episodes on one sandbox over one connection; replace the sandbox when it crashes,
    and run the episode it lost again on the new one."""
    while not queue.empty():
        sandbox = sandbox_class.remote(LIFETIME)
        url, token, pid = await sandbox.address.remote()
        tally.servers.append(pid)
        remote = toolbelt.RemoteToolset(url, token=token, retries=2, call_timeout=120)
        number: int | None = None
        try:
            async with toolbelt.Runtime(tempfile.gettempdir(), toolset=remote) as runtime:
                while not queue.empty():
                    number = queue.get_nowait()
                    if crash_after is not None and tally.done >= crash_after:
                        crash_after = None
                        await sandbox.crash.remote()  # the demonstration: a sandbox dies
                    try:
                        await episode(runtime, number, tally)
                        tally.done += 1
                    except RuntimeError as exc:
                        tally.failed.append(f"episode {number}: {exc}")
                    number = None
        except (toolbelt.ConnectionLostError, SandboxLost):
            tally.replaced += 1
            if number is not None:
                queue.put_nowait(number)  # the batch loses nothing: it runs on the next one
        finally:
            ray.kill(sandbox)  # its server dies with it


async def run_batch(sandboxes: int, episodes: int, crash_after: int | None, cpus: float) -> Tally:
    sandbox_class = ray.remote(num_cpus=cpus)(Sandbox)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for number in range(1, episodes + 1):
        queue.put_nowait(number)
    tally = Tally()
    await asyncio.gather(
        *(
            worker(sandbox_class, queue, tally, crash_after if index == 0 else None)
            for index in range(sandboxes)
        )
    )
    return tally


def still_running(pids: list[int], *, within: float) -> list[int]:
    """The servers still running once ``within`` seconds have passed (a server stops in a
    moment after its actor is gone: it finishes what it was doing, then exits)."""
    deadline = time.monotonic() + within
    while True:
        left = [pid for pid in pids if _alive(pid)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to read its status has stopped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandboxes", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--crash-after", type=int, default=None, metavar="K")
    parser.add_argument(
        "--cpus-per-sandbox",
        type=float,
        default=0.25,
        help="the CPUs Ray reserves for each sandbox (a real task wants about 1)",
    )
    args = parser.parse_args(argv)
    ray.init(num_cpus=max(2, os.cpu_count() or 2), include_dashboard=False, log_to_driver=False)
    started = time.perf_counter()
    try:
        tally = asyncio.run(
            run_batch(args.sandboxes, args.episodes, args.crash_after, args.cpus_per_sandbox)
        )
    finally:
        ray.shutdown()
    elapsed = time.perf_counter() - started
    left = still_running(tally.servers, within=30.0)
    print(f"sandboxes: {args.sandboxes} (Ray actors), replaced after a crash: {tally.replaced}")
    print(f"episodes: {tally.done} done, {len(tally.failed)} failed, of {args.episodes}")
    print(f"throughput: {tally.done / elapsed:.2f} episodes/s, {tally.calls / elapsed:.1f} calls/s")
    print(f"servers left running: {len(left)}")
    for failure in tally.failed:
        print(f"failed: {failure}")
    return 0 if tally.done == args.episodes and not left else 1


if __name__ == "__main__":
    sys.exit(main())
