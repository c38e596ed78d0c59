"""Run git on the workspace's repository without letting an untrusted repository run programs.

A repository's own config (``.git/config`` and what it includes) is written by whoever made the
repository, and several keys there are commands git runs during ``add`` and ``commit``:
``core.fsmonitor`` on every index read, hooks (``.git/hooks`` or ``core.hooksPath``), the
``clean``/``process`` filters ``.gitattributes`` selects, a signing program, an external diff
or textconv driver for ``--stat``. In an untrusted workspace each of them is overridden for the
invocation (``-c``, never written): fsmonitor off, hooks pointed at an empty place, every
filter the repository itself defines emptied (filters from the user's own config, such as
git-lfs, keep working), signing off when the repository names its own signer. A trusted
repository's git runs as configured — its hooks run. Nothing here changes any config.

git runs as an async child in a session of its own, marked like every command toolbelt starts
(``shell.procs``): on a timeout or a cancelled call, git and whatever its hooks started —
detached children included — are ended before the call returns.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import anyio
from anyio.abc import ByteReceiveStream, Process

from toolbelt.core.errors import ToolError
from toolbelt.core.programs import program
from toolbelt.procs.anchor import anchored_argv
from toolbelt.procs.ending import RUN_ID_VAR, sweep
from toolbelt.procs.identity import Anchor
from toolbelt.procs.watchdog import new_run_id

__all__ = ["GitResult", "GitRunner"]

_REPO_SCOPES = ("local", "worktree", "command")
_FILTER_KEY = re.compile(r"filter\.(.+)\.(clean|smudge|process|required)")
_SIGNER_KEY = re.compile(r"gpg\.(?:[^.]+\.)?program|gpg\.ssh\.defaultkeycommand")
_KEEP_BYTES = 256 * 1024
_LOCATION_VARIABLES = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_COMMON_DIR",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
        "GIT_CONFIG_PARAMETERS",  # `-c` values from a parent git (a hook running us)
    }
)
"""Environment that would point git at another repository than the workspace's."""


@dataclass(frozen=True, slots=True)
class GitResult:
    """Exit status and decoded output of one git invocation."""

    returncode: int
    stdout: str
    stderr: str


class GitRunner:
    """git in ``cwd``, with the repository's program-starting config neutralised unless trusted."""

    def __init__(self, cwd: Path, *, trusted: bool, timeout: float = 120.0) -> None:
        self.cwd = cwd
        self.trusted = trusted
        self.timeout = timeout
        self._overrides: list[str] | None = None

    async def run(self, *args: str, stdin: str | None = None) -> GitResult:
        """Run ``git <overrides> args``; ToolError when git is missing or hangs (then git and
        every process its hooks started are ended, as on cancellation)."""
        return await self._spawn([*await self._neutralising(), *args], stdin, args[0])

    async def _neutralising(self) -> list[str]:
        if self.trusted:
            return []
        if self._overrides is None:
            overrides = ["core.fsmonitor=false", f"core.hooksPath={os.devnull}", "gc.auto=0"]
            overrides += await self._repository_programs()
            self._overrides = [part for key in overrides for part in ("-c", key)]
        return self._overrides

    async def _repository_programs(self) -> list[str]:
        """Overrides for the filters and signer that the repository's own config defines."""
        listed = await self._spawn(
            [
                "-c",
                "core.fsmonitor=false",
                "config",
                "--show-scope",
                "--includes",
                "--null",
                "--get-regexp",
                r"^(filter\..*|gpg\..*program|gpg\.ssh\.defaultkeycommand)$",
            ],
            None,
            "config",
        )
        overrides: list[str] = []
        fields = listed.stdout.split("\0")  # scope NUL key LF value NUL, repeated
        for scope, entry in zip(fields[0::2], fields[1::2], strict=False):
            key = entry.split("\n", 1)[0]
            if scope not in _REPO_SCOPES:
                continue
            filter_key = _FILTER_KEY.fullmatch(key)
            if filter_key is not None:
                value = "false" if filter_key.group(2) == "required" else ""
                overrides.append(f"{key}={value}")
            elif _SIGNER_KEY.fullmatch(key.lower()):
                overrides.append("commit.gpgSign=false")
        return list(dict.fromkeys(overrides))

    async def _spawn(self, args: list[str], stdin: str | None, command: str) -> GitResult:
        run_id = new_run_id()
        env = {k: v for k, v in os.environ.items() if k not in _LOCATION_VARIABLES}
        env.update(
            GIT_EDITOR=":",
            GIT_TERMINAL_PROMPT="0",
            GIT_LITERAL_PATHSPECS="1",
            GIT_PAGER="cat",
            LC_ALL="C",
        )
        env[RUN_ID_VAR] = run_id  # hooks' children inherit it, so a sweep finds them all
        git = program("git")
        if git is None:
            raise ToolError("git is not installed here; commit with the user's own tools.")
        process = await anyio.open_process(
            anchored_argv([git, *args]), cwd=self.cwd, env=env, start_new_session=True
        )
        anchor = Anchor(process.pid)  # its pid is another process's once it is reaped
        try:
            with anyio.fail_after(self.timeout):
                stdout, stderr = await _communicate(process, (stdin or "").encode())
                returncode = await process.wait()
        except BaseException as exc:  # timeout or cancellation: end git and its hooks first
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(lambda: sweep(run_id, grace=1.0, anchor=anchor))
                await process.aclose()
            if isinstance(exc, TimeoutError):
                raise ToolError(
                    f"git {command} did not finish within {self.timeout:g} s (a "
                    "hook may be waiting for input) and was stopped; ask the user to commit by "
                    "hand."
                ) from exc
            raise
        return GitResult(
            returncode, stdout.decode(errors="replace"), stderr.decode(errors="replace")
        )


async def _communicate(process: Process, data: bytes) -> tuple[bytes, bytes]:
    """Feed ``data`` to stdin and read both outputs (each kept to its last 256 KB)."""
    outputs: list[bytearray] = [bytearray(), bytearray()]

    async def drain(stream: ByteReceiveStream | None, into: bytearray) -> None:
        if stream is None:
            return
        async for chunk in stream:
            into += chunk
            del into[: max(0, len(into) - _KEEP_BYTES)]

    async with anyio.create_task_group() as group:
        group.start_soon(drain, process.stdout, outputs[0])
        group.start_soon(drain, process.stderr, outputs[1])
        if process.stdin is not None:
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.send(data)
            await process.stdin.aclose()
    return bytes(outputs[0]), bytes(outputs[1])
