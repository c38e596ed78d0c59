"""`toolbelt mcp` killed with SIGKILL leaves no process behind: shell, foreground command,
background job (and what escaped its group with setsid), and the watchdog that ends them."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.stdio import stdio_client
from tests.support.toolbelt_cli import TOOLBELT_ARGS
from tests.support.waiting import wait_until_async

from mcp import ClientSession, StdioServerParameters
from toolbelt.sandbox.landlock import abi_version

pytestmark = pytest.mark.anyio

LANDLOCK = pytest.param(
    "landlock", marks=pytest.mark.skipif(abi_version() < 1, reason="no Landlock here")
)


def _stat(pid: int) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None


def _processes() -> dict[int, list[bytes]]:
    """Every live process: pid → its /proc stat fields after the name."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and fields[0] != b"Z":
                found[int(entry)] = fields
    return found


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _tree(root: int) -> dict[int, bytes]:
    """``root`` and its descendants, with their start times (a reused pid is not theirs)."""
    table = _processes()
    tree = {root}
    grew = True
    while grew:
        more = {pid for pid, fields in table.items() if int(fields[1]) in tree} - tree
        grew = bool(more)
        tree |= more
    return {pid: table[pid][19] for pid in tree if pid in table}


def _still_running(tree: dict[int, bytes]) -> list[str]:
    left = []
    for pid, started in tree.items():
        fields = _stat(pid)
        if fields is not None and fields[0] != b"Z" and fields[19] == started:
            left.append(f"{pid}: {_cmdline(pid)}")
    return left


def _watchdog_of(pid: int) -> int:
    """The watchdog covering ``pid``: its argument is the prefix of ``pid``'s run id."""
    with open(f"/proc/{pid}/environ", "rb") as handle:
        run_id = dict(v.split(b"=", 1) for v in handle.read().split(b"\0") if b"=" in v)[
            b"TOOLBELT_RUN_ID"
        ].decode()
    prefix = run_id.split("-")[0] + "-"
    (watchdog,) = [
        p
        for p in _processes()
        if "toolbelt.procs.watchdog" in _cmdline(p) and _cmdline(p).endswith(f" {prefix} ")
    ]
    return watchdog


async def _call_ignoring_the_end(client: ClientSession, command: str) -> None:
    try:
        await client.call_tool("bash", {"command": command})
    except Exception:  # the server dies mid-call: the connection closes under the call
        return


@pytest.mark.parametrize("sandbox", [LANDLOCK, "off"])
async def test_sigkill_of_the_server_ends_every_process_it_started(
    tmp_path: Path, sandbox: str
) -> None:
    tag = f"{os.getpid()}{len(sandbox)}"  # sleeps no other test (or test run) starts
    job, escaped, foreground = f"9100{tag}", f"9200{tag}", f"9300{tag}"
    server_args = ["mcp", "--root", str(tmp_path), "--mode", "bypass", "--sandbox", sandbox]
    params = StdioServerParameters(
        command=sys.executable, args=[*TOOLBELT_ARGS, *server_args], cwd=str(tmp_path)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        started = await client.call_tool(
            "bash",
            {
                "command": f"setsid sleep {escaped} & sleep {job}; echo done",
                "run_in_background": True,
            },
        )
        assert started.is_error is False, started.content
        async with anyio.create_task_group() as group:
            group.start_soon(_call_ignoring_the_end, client, f"sleep {foreground}")
            sleeps = [f"sleep {n}" for n in (job, escaped, foreground)]
            await wait_until_async(
                lambda: all(any(s in _cmdline(pid) for pid in _processes()) for s in sleeps),
                "the sleeps to start",
            )
            (server,) = [
                pid
                for pid, fields in _processes().items()
                if int(fields[1]) == os.getpid() and "toolbelt.cli.main mcp" in _cmdline(pid)
            ]
            tree = _tree(server)
            # the setsid escapee belongs to the tree, re-parented or not
            marked = _processes().items()
            tree.update({p: f[19] for p, f in marked if any(s in _cmdline(p) for s in sleeps)})
            watchdog = _watchdog_of(next(p for p, _ in marked if f"sleep {job}" in _cmdline(p)))
            tree[watchdog] = _processes()[watchdog][19]
            assert len(tree) >= 7, tree  # server, watchdog, shell, job, three sleeps
            os.kill(server, signal.SIGKILL)
            try:
                await wait_until_async(lambda: not _still_running(tree), "the server's tree to end")
            finally:
                for pid in tree:  # a failed run leaves nothing either
                    if _still_running({pid: tree[pid]}):
                        os.kill(pid, signal.SIGKILL)
            group.cancel_scope.cancel()
