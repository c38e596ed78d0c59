"""``ProcessTree``, the one way toolbelt starts a process: however its block is left, nothing
the program started is left running — not a grandchild that double-forked into a session of
its own with its environment cleared — and every process of the tree carries the tree's run
id, which the watchdog's prefix starts."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from itertools import count
from pathlib import Path

import anyio
import pytest

from tests.support.processes import ended, live_pids
from toolbelt.procs.tree import ProcessTree, SyncProcessTree, run_leaf
from toolbelt.procs.watchdog import run_id_prefix

_numbers = count(1)
QUIET = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
"""No pipes: the sync form leaves them to its caller, and these tests read none."""


def tag() -> str:
    """A ``sleep`` argument no other test or run uses: the command lines that carry it are
    this test's processes."""
    return f"7{os.getpid()}{next(_numbers):03d}"


def escaping(sleep: str, pid_file: Path, *, then: str = "") -> str:
    """A script that starts ``sleep SLEEP`` double-forked, in a session of its own and with
    an empty environment (no mark, no group: only the anchor still holds it), waits until it
    runs, says ``ready``, then runs ``then`` (by default, sleeps itself)."""
    grandchild = f"env -i setsid /bin/sh -c 'echo $$ > {pid_file}; exec sleep {sleep}'"
    return (
        f"({grandchild} </dev/null >/dev/null 2>&1 &); "
        f"while [ ! -s {pid_file} ]; do :; done; echo ready; {then or f'exec sleep {sleep}'}"
    )


async def read_all(tree: ProcessTree) -> str:
    """All the program prints, to the end of its stdout."""
    assert tree.process.stdout is not None
    data = b""
    with anyio.fail_after(30):
        async for chunk in tree.process.stdout:
            data += chunk
    return data.decode()


async def until_ready(tree: ProcessTree) -> None:
    assert tree.process.stdout is not None
    said = b""
    with anyio.fail_after(30):
        while b"ready\n" not in said:
            said += await tree.process.stdout.receive()


def nothing_left(sleep: str, *pids: int) -> bool:
    """Whether ``pids`` and every process running ``sleep SLEEP`` have exited (a process
    killed a moment ago may still be on its way out: each gets a few seconds)."""
    return all(ended(pid) for pid in (*pids, *live_pids(f"sleep {sleep}")))


@pytest.mark.anyio
@pytest.mark.parametrize("leaving", ["normally", "by an error", "by a cancellation"])
async def test_leaving_the_block_ends_a_grandchild_that_escaped_group_and_mark(
    tmp_path: Path, leaving: str
) -> None:
    sleep, pid_file = tag(), tmp_path / "grandchild.pid"
    with anyio.CancelScope() as scope:
        try:
            async with ProcessTree(["/bin/sh", "-c", escaping(sleep, pid_file)]) as tree:
                await until_ready(tree)
                grandchild, anchor = int(pid_file.read_text()), tree.process.pid
                assert not ended(grandchild, within=0)
                assert os.getsid(grandchild) not in (os.getsid(0), anchor)
                assert b"TOOLBELT_RUN_ID" not in Path(f"/proc/{grandchild}/environ").read_bytes()
                if leaving == "by an error":
                    raise LookupError("the caller failed")
                if leaving == "by a cancellation":
                    scope.cancel()
                    await anyio.sleep_forever()
        except LookupError:
            pass
    assert scope.cancelled_caught == (leaving == "by a cancellation")
    assert nothing_left(sleep, grandchild, anchor)


@pytest.mark.anyio
async def test_a_program_that_exits_takes_what_it_left_with_it(tmp_path: Path) -> None:
    sleep, pid_file = tag(), tmp_path / "grandchild.pid"
    script = escaping(sleep, pid_file, then="exit 3")
    async with ProcessTree(["/bin/sh", "-c", script], stdin=subprocess.DEVNULL) as tree:
        assert await read_all(tree) == "ready\n"
        assert await tree.process.wait() == 3  # the program's status, through the anchor
    assert nothing_left(sleep, int(pid_file.read_text()))


def test_the_sync_form_ends_the_tree_on_leaving_its_block(tmp_path: Path) -> None:
    sleep, pid_file = tag(), tmp_path / "grandchild.pid"
    with SyncProcessTree(["/bin/sh", "-c", escaping(sleep, pid_file)], **QUIET) as tree:
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text().strip():
            assert tree.process.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        grandchild = int(pid_file.read_text())
        assert not ended(grandchild, within=0)
    assert nothing_left(sleep, grandchild, tree.process.pid)


@pytest.mark.anyio
async def test_every_process_of_the_tree_carries_its_own_run_id() -> None:
    script = 'echo "$TOOLBELT_RUN_ID $$"; /bin/sh -c \'echo "$TOOLBELT_RUN_ID"\''
    trees = []
    for _ in range(2):
        tree = ProcessTree(["/bin/sh", "-c", script], stdin=subprocess.DEVNULL, report_child=True)
        async with tree:
            program, grandchild = (await read_all(tree)).splitlines()
        assert program == f"{tree.run_id} {tree.child_pid}"
        assert grandchild == tree.run_id
        trees.append(tree)
    assert trees[0].run_id != trees[1].run_id
    assert all(t.run_id.startswith(run_id_prefix()) for t in trees)  # what the watchdog ends


class Wrapped:
    """A confinement standing in for the sandbox's: a launcher in front, a variable set."""

    def wrap(self, argv: Sequence[str]) -> list[str]:
        return ["/usr/bin/env", "CONFINED=yes", *argv]

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        return {**env, "TMPDIR": "/confined/tmp"}


@pytest.mark.anyio
async def test_a_confinement_runs_inside_the_anchor_and_keeps_the_mark() -> None:
    script = 'echo "$CONFINED $TMPDIR $TOOLBELT_RUN_ID"; read -r _'
    async with ProcessTree(["/bin/sh", "-c", script], confine=Wrapped()) as tree:
        assert tree.process.stdout is not None and tree.process.stdin is not None
        with anyio.fail_after(30):
            said = (await tree.process.stdout.receive()).decode()
        assert said.split() == ["yes", "/confined/tmp", tree.run_id]
        anchor = Path(f"/proc/{tree.process.pid}")
        assert b"toolbelt.procs.anchor" in (anchor / "cmdline").read_bytes()
        assert b"CONFINED=" not in (anchor / "environ").read_bytes()  # outside the launcher
        await tree.process.stdin.send(b"done\n")


@pytest.mark.anyio
async def test_a_program_that_cannot_start_raises_and_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        await ProcessTree([str(tmp_path / "missing")]).start()
    with pytest.raises(FileNotFoundError):
        SyncProcessTree(["no-such-program-" + tag()]).start()


def test_a_leaf_that_outlasts_its_timeout_is_killed_and_reaped() -> None:
    sleep = tag()
    with pytest.raises(subprocess.TimeoutExpired):
        run_leaf(["sleep", sleep], timeout=0.2)
    assert live_pids(f"sleep {sleep}") == []  # reaped, not even a zombie


def test_a_leaf_has_a_group_of_its_own_and_no_anchor_or_mark() -> None:
    sleep = tag()
    with SyncProcessTree(["sleep", sleep], leaf=True, **QUIET) as tree:
        pid = tree.process.pid
        assert os.getpgid(pid) == pid  # a terminal's Ctrl-C reaches toolbelt, not the leaf
        assert os.getsid(pid) == os.getsid(0)  # no session: no scheduler autogroup of its own
        parent = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1]
        assert int(parent) == os.getpid()  # no anchor between
        mark = f"TOOLBELT_RUN_ID={run_id_prefix()}".encode()
        assert mark not in Path(f"/proc/{pid}/environ").read_bytes()
        assert tree.run_id == ""
        with pytest.raises(TypeError):
            SyncProcessTree(["true"]).kill()  # only a leaf is killed at its root
    assert tree.process.returncode == -signal.SIGKILL
    assert live_pids(f"sleep {sleep}") == []
