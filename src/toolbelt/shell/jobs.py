"""Background jobs: commands that keep running after the call that started them returns.

Each job is its own ``bash -c`` (confined like the persistent shell when the session has a
sandbox), started as a process tree (``procs.tree``: under an anchor that keeps every process
the job starts its descendant, in a new session, marked with its own run id) whose anchor
lingers — a job's ``server &`` keeps running after ``bash`` exits. It writes its output
through a pipe into a 0600 file in the session's spill directory, held to 64 MiB
(``job_output``). ``bash_output`` reads what is new since the last read; ``kill_shell`` ends
the job's whole tree; closing the manager ends every job, so nothing outlives the toolbelt
session.
"""

from __future__ import annotations

import codecs
import os
import secrets
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import anyio

from toolbelt.core.errors import ToolError
from toolbelt.core.programs import program
from toolbelt.procs.ending import marked_processes
from toolbelt.procs.tree import SyncProcessTree
from toolbelt.sandbox.sandbox import Profile, Sandbox
from toolbelt.shell.job_output import TAIL_BYTES, CappedOutput
from toolbelt.shell.output import MAX_SPILL_BYTES, spill_dir

__all__ = ["Job", "JobManager", "JobStatus"]

SETTLE = 2.0
"""Seconds bash_output waits for an ended job's last output to reach its file."""


@dataclass
class JobStatus:
    """running, or exited with a code, or killed."""

    state: str
    exit_code: int | None = None

    def describe(self) -> str:
        if self.state == "exited":
            return f"exited with code {self.exit_code}"
        return self.state


@dataclass
class Job:
    """One background command."""

    id: str
    command: str
    tree: SyncProcessTree
    output_path: Path
    output: CappedOutput
    read_offset: int = 0
    killed: bool = False
    noticed: bool = False
    """The model was told what was dropped past the output's limit (told once it ended)."""
    settled: bool = False
    """bash_output waited, once, for the output of the ended job to be copied whole."""
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )

    @property
    def process(self) -> subprocess.Popen[bytes]:
        """The job's process (its anchor's: its exit status is the job's)."""
        return self.tree.process

    def status(self) -> JobStatus:
        code = self.process.poll()
        if code is None:
            return JobStatus("running")
        return JobStatus("killed" if self.killed else "exited", code)


class JobManager:
    """The background jobs of one toolbelt session."""

    def __init__(
        self,
        session_id: str,
        *,
        sandbox: Sandbox | None = None,
        output_limit: int = MAX_SPILL_BYTES,
        output_tail: int = TAIL_BYTES,
    ) -> None:
        self._session_id = session_id
        self._output_limit, self._output_tail = output_limit, output_tail
        self._sandbox = sandbox if sandbox is not None and sandbox.active else None
        self._jobs: dict[str, Job] = {}

    def start(
        self,
        command: str,
        cwd: Path,
        env: Mapping[str, str],
        *,
        profile: Profile | Literal["unconfined"] = "workspace",
    ) -> Job:
        """Start ``command`` in the background, confined by the sandbox ``profile`` the policy
        approved it for (``unconfined``: the user approved running it outside); returns at
        once."""
        job_id = f"bg-{secrets.token_hex(4)}"
        path = spill_dir(self._session_id) / f"{job_id}.out"
        argv = [program("bash") or "/bin/bash", "-c", command]
        sandbox = None if profile == "unconfined" else self._sandbox
        confine = None
        if sandbox is not None and profile != "unconfined":
            confine = sandbox.confinement(profile, cwd=cwd)
        output = CappedOutput(path, limit=self._output_limit, tail=self._output_tail)
        fd = output.start()
        tree = SyncProcessTree(
            argv,
            cwd=cwd,
            env=env,
            confine=confine,
            stdin=subprocess.DEVNULL,
            stdout=fd,
            stderr=subprocess.STDOUT,
            linger=True,  # a job's `server &` runs on
            grace=1.0,
        )
        try:
            process = tree.start()
        finally:
            os.close(fd)
        if sandbox is not None:
            sandbox.watch_job(process.poll)
        job = Job(job_id, command, tree, path, output)
        self._jobs[job_id] = job
        return job

    def get(self, job_id: str) -> Job:
        """The job called ``job_id``; a ToolError listing the known ids otherwise."""
        job = self._jobs.get(job_id)
        if job is None:
            known = ", ".join(self._jobs) or "none"
            raise ToolError(f"There is no background job {job_id!r}; known jobs: {known}.")
        return job

    async def settle(self, job: Job) -> None:
        """Once the job has ended, wait (once, at most ``SETTLE`` seconds) for its output to be
        copied whole: a leftover process may hold the pipe open longer."""
        if job.process.poll() is not None and not job.settled:
            job.settled = True
            await anyio.to_thread.run_sync(job.output.ended.wait, SETTLE)

    def read_new(self, job: Job, *, limit: int = 30_000) -> tuple[str, bool]:
        """Output written since the last read (at most ``limit`` bytes; True if more is left),
        with the output's notice where its head ends, if output past its limit was dropped."""
        ended = job.output.ended.is_set()  # before reading: the tail may land meanwhile
        notice, head_end = job.output.notice(), job.output.limit
        with open(job.output_path, "rb") as handle:
            handle.seek(job.read_offset)
            data = handle.read(limit + 1)
        more = len(data) > limit
        data = data[:limit]
        if not ended and job.read_offset + len(data) > head_end:  # the tail, written just now:
            data = data[: max(0, head_end - job.read_offset)]  # read with its notice next time
            more = True
        start, job.read_offset = job.read_offset, job.read_offset + len(data)
        if notice is None or job.noticed or not start <= head_end <= job.read_offset:
            return job.decoder.decode(data), more
        job.noticed = ended  # a running job's notice is repeated, updated
        cut = head_end - start
        head = job.decoder.decode(data[:cut], final=True)
        separator = "\n" if head and not head.endswith("\n") else ""
        return f"{head}{separator}{notice}\n{job.decoder.decode(data[cut:])}", more

    async def kill(self, job: Job) -> int:
        """End the job's process tree; returns how many processes were ended."""
        job.killed = job.process.poll() is None
        return await job.tree.aclose()

    def check_created(self) -> list[str]:
        """Notes for the protected names confined jobs created, which are removed now (see
        ``Sandbox.check_jobs``): called when a job is seen ended, and at close."""
        return self._sandbox.check_jobs() if self._sandbox is not None else []

    def running(self) -> list[Job]:
        """Jobs still running."""
        return [
            job
            for job in self._jobs.values()
            if job.process.poll() is None or marked_processes(job.tree.run_id)
        ]

    async def aclose(self) -> None:
        """End every job of the session; safe to call twice."""
        for job in list(self._jobs.values()):
            with anyio.CancelScope(shield=True):
                await self.kill(job)
        self.check_created()  # nothing a job made may outlive the session
