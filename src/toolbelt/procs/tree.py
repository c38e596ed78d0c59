"""Every process toolbelt starts, started and ended one way: ``ProcessTree``.

A program toolbelt starts — a shell, a background job, a hook, git, an MCP server — may start
others, and those may leave its process group (``setsid``), clear their environment
(``env -i``) and outlive it (a double fork, ``server &``): ending the one process toolbelt
started leaves them running. So each is started as a *tree*, by one recipe written here once:

- a run id (``watchdog.new_run_id``) in its environment (``ending.RUN_ID_VAR``), inherited by
  its descendants unless they clear it: what ``ending.end_run`` and, when toolbelt itself is
  killed, the watchdog find them by;
- an anchor at its root (``anchor``), a child subreaper that no process of the tree can leave:
  whatever clears the mark and leaves the group is still the anchor's descendant;
- a session of its own, led by the anchor: a terminal's Ctrl-C or hang-up reaches toolbelt,
  which ends the tree, rather than killing part of it behind toolbelt's back;
- a pidfd on the anchor from the moment it starts (``identity.Anchor``), so nothing is ever
  signalled by a number that may be another process's by now, and a place in ``reaper`` until
  the tree has ended, for an interpreter that exits without closing it;
- on leaving — normally, by an error or by a cancellation, shielded from the cancellation —
  the end: every process carrying the mark and every descendant of the anchor gets SIGTERM,
  a grace period, then what is left is frozen and killed (``ending.end_run``), and the anchor
  is reaped. An anchor that has exited with a status did that itself (``anchor``): nothing is
  left to look for.

``confine`` (a ``Confinement``; ``Sandbox.confinement`` makes one) starts the program inside
the OS sandbox: its argv is wrapped in the sandbox's launcher and its environment gets what
the sandbox needs. The wrapping happens inside the anchor, which stays outside the sandbox,
where it can see and end all that the confined program starts.

A *leaf* (``SyncProcessTree(..., leaf=True)``) is a program that starts no process of its own
— rg, git's config and ignore look-ups, the sandbox's probes — and runs too often for the
anchor's interpreter (~15 ms, where rg answers in a few): it has no anchor and no mark, a
process group of its own rather than a session (a new session is also a new scheduler
autogroup, a CPU share of its own: on a busy machine rg's threads ran ~1.5× longer in one),
and it is killed through its pidfd.

``ProcessTree`` is the async form, with anyio's ``Process`` (for code that streams the pipes);
``SyncProcessTree`` starts a ``subprocess.Popen``, for a caller that is not async (a background
job started by a synchronous call, the probes: ``run_leaf``), reads from a worker thread, or
needs a process group without a session, which anyio cannot start (every leaf).
The one process toolbelt starts otherwise is the watchdog (``watchdog``), which must outlive
toolbelt and is where run ids come from.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from typing import IO, Any, Generic, Protocol, TypeVar

import anyio
from anyio.abc import ByteReceiveStream, Process

from toolbelt.procs.anchor import anchored_argv, check_runnable
from toolbelt.procs.ending import RUN_ID_VAR, end_run, last_pid, marked_processes
from toolbelt.procs.identity import Anchor
from toolbelt.procs.reaper import forget, remember
from toolbelt.procs.watchdog import new_run_id

__all__ = ["GRACE", "Confinement", "ProcessTree", "SyncProcessTree", "run_leaf"]

GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL when a tree is ended, unless its owner says otherwise."""

Stream = int | IO[Any] | None
"""Where a child's stdin, stdout or stderr goes, as ``subprocess`` takes it."""

P = TypeVar("P", Process, "subprocess.Popen[bytes]")
"""The root process's type: anyio's (``ProcessTree``) or ``subprocess``'s (``SyncProcessTree``)."""

_GONE = (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError)


class Confinement(Protocol):
    """How to start a program inside the OS sandbox (``Sandbox.confinement`` makes one)."""

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """``argv`` started confined (the sandbox's launcher, then ``argv``)."""
        ...

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` as the confined program needs it (its private temporary directory)."""
        ...


class _Recipe(Generic[P]):
    """What both forms share: the options, the argv and environment a tree starts with, its
    hold on the root process, and its end."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        confine: Confinement | None = None,
        stdin: Stream = subprocess.PIPE,
        stdout: Stream = subprocess.PIPE,
        stderr: Stream = subprocess.PIPE,
        pass_fds: Sequence[int] = (),
        grace: float = GRACE,
        linger: bool = False,
        report_child: bool = False,
        leaf: bool = False,
    ) -> None:
        """``env``: the environment (``os.environ`` by default), which the tree's mark is added
        to; ``confine``: see the module's docstring; ``grace``: seconds between SIGTERM and
        SIGKILL at the end; ``linger``: the anchor waits for what the program left to end by
        itself (a background job's ``server &``) instead of ending it when the program exits;
        ``report_child`` (``ProcessTree``): learn the pid of the program the anchor runs
        (``child_pid``), which ``end_leftovers`` spares; ``leaf`` (``SyncProcessTree``): see
        the module's docstring."""
        if not argv:
            raise ValueError("A process tree needs a program to run.")
        self.argv = list(argv)
        self.cwd = cwd
        self.grace = grace
        self.leaf = leaf
        self.run_id = "" if leaf else new_run_id()
        """The mark every process of the tree carries in its environment ("" for a leaf)."""
        self.child_pid = 0
        """With ``report_child``: the pid of the program the anchor runs (0 until it is known)."""
        self._env = env
        self._confine = confine
        self._streams = (stdin, stdout, stderr)
        self._pass_fds = tuple(pass_fds)
        self._linger = linger
        self._report = report_child
        self._process: P | None = None
        self._handle: Anchor | None = None
        self._ended = False

    @property
    def process(self) -> P:
        """The root process: the anchor, whose pipes and exit status are the program's (or
        the leaf itself)."""
        if self._process is None:
            raise RuntimeError("The process tree has not been started.")
        return self._process

    def _launch(self, report: int | None = None) -> tuple[list[str], dict[str, Any]]:
        """The argv to start, confined, marked and anchored as the recipe says, and the options
        ``subprocess.Popen`` and ``anyio.open_process`` both take for it. Raises the ``OSError``
        starting the program itself would (the anchor always starts)."""
        argv, env = self.argv, self._env
        if self._confine is not None:
            argv = self._confine.wrap(argv)
            env = self._confine.environment(os.environ if env is None else env)
        stdin, stdout, stderr = self._streams
        options = {"stdin": stdin, "stdout": stdout, "stderr": stderr, "cwd": self.cwd}
        if self.leaf:
            return argv, {**options, "env": env, "pass_fds": self._pass_fds}
        marked = dict(os.environ if env is None else env)
        check_runnable(self.argv[0], marked, self.cwd)
        marked[RUN_ID_VAR] = self.run_id
        fds = self._pass_fds if report is None else (*self._pass_fds, report)
        argv = anchored_argv(argv, linger=self._linger, report=report)
        return argv, {**options, "env": marked, "pass_fds": fds, "start_new_session": True}

    def _hold(self, pid: int) -> None:
        """Take the root by a pidfd, before anything may reap it, and register the tree."""
        self._handle = Anchor(pid)
        remember(self._handle, self.run_id)

    def _left_anything(self, returncode: int | None) -> bool:
        """Whether ending the tree may find a process: not once the root has exited — an
        anchor that exited with a status had ended, or with ``linger`` outwaited, all below
        it; one killed by a signal may have left orphans, which the mark still finds."""
        if returncode is None:
            return True
        return not self.leaf and returncode < 0

    def _end_tree(self, marked: str | None, grace: float) -> int:
        """Blocking: end every process of the tree but the anchor (see ``ending.end_run``), or
        kill the leaf; how many were found."""
        if self.leaf:
            return int(self._handle is not None and self._handle.send(signal.SIGKILL))
        run_id = self.run_id if marked is None else marked
        return end_run(run_id, grace=grace, anchor=self._handle)

    def _release(self) -> None:
        if self._handle is not None:
            forget(self._handle)
            self._handle.close()


class ProcessTree(_Recipe[Process]):
    """A program started as a tree (see the module's docstring), with anyio's ``Process``.

    ``async with ProcessTree(argv, …) as tree:`` starts it (``tree.process``) and, however the
    block is left, ends the whole tree before going on. ``start`` and ``aclose`` do the same
    for a tree that outlives one block (a shell session's).
    """

    async def start(self) -> Process:
        """Start the tree; the ``OSError`` of a program that cannot start is raised."""
        if self.leaf:
            raise ValueError(
                "A leaf needs a process group without a session, which anyio cannot start; "
                "use SyncProcessTree for it."
            )
        # Shielded: a start cut short by a cancellation would leave a tree nobody ends.
        with anyio.CancelScope(shield=True):
            report, reported = os.pipe() if self._report else (-1, -1)
            try:
                argv, options = self._launch(reported if self._report else None)
                self._process = await anyio.open_process(argv, **options)
            except BaseException:
                if self._report:
                    os.close(report)
                raise
            finally:
                if self._report:
                    os.close(reported)
            self._hold(self._process.pid)
            if self._report:
                try:
                    line = await anyio.to_thread.run_sync(os.read, report, 32)
                finally:
                    os.close(report)
                self.child_pid = int(line) if line.strip().isdigit() else 0
        return self.process

    async def __aenter__(self) -> ProcessTree:
        await self.start()
        return self

    async def __aexit__(self, *error: object) -> None:
        await self.aclose()

    async def aclose(self, *, marked: str | None = None, grace: float | None = None) -> int:
        """End the whole tree and reap its anchor; how many processes were found to end.

        Unless the anchor has exited with a status, every process below it and every one
        marked with ``marked`` (the tree's own run id by default; "" for none: a shell whose
        mark only tells the watchdog where it is, its commands carrying marks of their own)
        gets SIGTERM, up to ``grace`` seconds, then what is left is frozen and killed. What the
        pipes still hold is read and dropped (asyncio's ``wait`` waits for their end). Shielded
        from cancellation; safe to call twice.
        """
        process = self._process
        if process is None or self._ended:
            return 0
        self._ended = True
        grace = self.grace if grace is None else grace
        with anyio.CancelScope(shield=True):
            found = 0
            if self._left_anything(process.returncode):
                found = await anyio.to_thread.run_sync(self._end_tree, marked, grace)
            with anyio.move_on_after(grace):
                for pipe in (process.stdout, process.stderr):
                    await _drop_rest(pipe)
                await process.wait()
            if process.returncode is None and self._handle is not None:
                self._handle.send(signal.SIGKILL)  # the anchor, once nothing is left below it
                with anyio.move_on_after(grace):
                    await process.wait()
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
                    with contextlib.suppress(*_GONE):
                        await stream.aclose()
            self._release()
        return found

    async def end_leftovers(self, run_id: str, *, since: int) -> None:
        """End what one run inside the tree left behind — a command the shell ran, marked with
        ``run_id``, begun when ``ending.last_pid()`` was ``since`` — and whatever else is below
        the anchor, sparing the reported child (the shell itself).

        Usually nothing is left, and a look at the /proc entries newer than ``since`` (~0.1 ms)
        says so; only then does a worker thread wait out the grace period while the leftovers
        are stopped.
        """
        after = last_pid()
        if after == since:  # no process was started at all
            return
        floor = since if after > since else 0  # 0: the pid counter wrapped
        handle = self._handle
        root = handle.pid if handle is not None and handle.alive() else None
        spare = (self.child_pid,)
        # a moving pid counter: something may still be forking (a scan can miss a process that
        # forks and exits over and over; end_run chases the new pids)
        if (
            marked_processes(run_id, newer_than=floor, group=root, spare=spare, root=root)
            or last_pid() != after
        ):
            await anyio.to_thread.run_sync(
                lambda: end_run(
                    run_id, grace=self.grace, newer_than=floor, anchor=handle, spare=spare
                )
            )


class SyncProcessTree(_Recipe["subprocess.Popen[bytes]"]):
    """A program started as a tree, or as a leaf, with ``subprocess.Popen``.

    ``start`` returns at once; ``close`` (blocking) or ``aclose`` (from async code) ends the
    tree. As a context manager it is ended on leaving the block.
    """

    def start(self) -> subprocess.Popen[bytes]:
        """Start the tree; the ``OSError`` of a program that cannot start is raised."""
        if self._report:
            raise ValueError("Only a ProcessTree reports its child's pid; use one for this.")
        argv, options = self._launch()
        if self.leaf:
            options["process_group"] = 0  # a group of its own, no session: see the docstring
        self._process = subprocess.Popen(argv, **options)
        self._hold(self._process.pid)
        return self._process

    def __enter__(self) -> SyncProcessTree:
        self.start()
        return self

    def __exit__(self, *error: object) -> None:
        self.close()

    async def wait(self) -> int:
        """Wait until the root has exited — on its pidfd, so no worker thread waits — and reap
        it; its exit status."""
        process = self.process
        fd = self._handle.fileno() if self._handle is not None else None
        if process.poll() is None and fd is not None:
            await anyio.wait_readable(fd)
        return process.wait()

    def kill(self) -> None:
        """Kill a leaf now without waiting (from a timer on the event loop: a search's time
        budget); ``close`` reaps it. A tree is ended by ``close``: killing its anchor first
        would hand its orphans to init."""
        if not self.leaf:
            raise TypeError("A process tree is ended with close(), not killed at its root.")
        if self._handle is not None:
            self._handle.send(signal.SIGKILL)

    def close(self, *, marked: str | None = None, grace: float | None = None) -> int:
        """Blocking: end the whole tree (as ``ProcessTree.aclose``) or kill the leaf, and reap
        the root; how many processes were found to end. Safe to call twice. The pipes are the
        caller's to close (``communicate`` does): a worker thread may still be reading one."""
        process = self._process
        if process is None or self._ended:
            return 0
        self._ended = True
        grace = self.grace if grace is None else grace
        found = self._end_tree(marked, grace) if self._left_anything(process.poll()) else 0
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            if self._handle is not None:
                self._handle.send(signal.SIGKILL)
            process.wait()
        self._release()
        return found

    async def aclose(self, *, marked: str | None = None, grace: float | None = None) -> int:
        """``close`` from async code, shielded from cancellation: in a worker thread when
        there is anything to wait for."""
        process = self._process
        if process is None or not self._left_anything(process.poll()):
            return self.close(marked=marked, grace=grace)
        found = 0
        with anyio.CancelScope(shield=True):
            found = await anyio.to_thread.run_sync(lambda: self.close(marked=marked, grace=grace))
        return found


def run_leaf(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run a leaf to its end with its output captured, as ``subprocess.run`` would: raises
    ``OSError`` when it cannot start and ``subprocess.TimeoutExpired`` (once it is killed and
    reaped) when it outlasts ``timeout`` seconds."""
    stdin = subprocess.DEVNULL if input is None else subprocess.PIPE
    with SyncProcessTree(argv, cwd=cwd, env=env, stdin=stdin, leaf=True) as tree:
        out, err = tree.process.communicate(input, timeout=timeout)
    return subprocess.CompletedProcess(list(argv), tree.process.returncode, out, err)


async def _drop_rest(pipe: ByteReceiveStream | None) -> None:
    """Read ``pipe`` to its end, dropping what it holds: asyncio sees a child's end only once
    its pipes have ended, and stops reading one whose unread data filled its buffer."""
    if pipe is not None:
        with contextlib.suppress(*_GONE):
            while True:
                await pipe.receive()
