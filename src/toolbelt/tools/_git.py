"""Run git for git_commit as ``git commit`` through the bash tool would run: in the sandbox.

git_commit is a program toolbelt starts on its own, and git runs programs of the
repository's: hooks (``.git/hooks``, or wherever ``core.hooksPath`` points — ``.githooks/``,
which a sandboxed command may write), the ``clean`` filters ``.gitattributes`` selects,
``core.fsmonitor``, a textconv driver for ``--stat``. So git starts through the session's git
runner (``runners.runner``, the runner rule): inside the sandbox's git profile — the
workspace writable, ``.git/`` writable but for its hooks and config, the user's secrets
hidden, the network as the commands' — with the environment commands get (credentials
removed). A trusted repository's hooks run, confined; a hook a command planted runs with no
more rights than that command had.

In an untrusted workspace the repository's program-starting config is also neutralised, with
the same overrides the bash tool applies (``shell.git_env``: hooks pointed at an empty place,
fsmonitor off, every driver the repositories define emptied, the pager, editor, credential
helper and signer made harmless), plus automatic gc and commit signing off. And what
*relocates* git is neutralised in every workspace: git runs with ``GIT_DIR`` and
``GIT_WORK_TREE`` set to the repository ``_git_place.locate`` found, so ``core.worktree``
cannot point the commit at another tree. Nothing here changes any config.

git runs as a process tree (``procs.tree``), like every program toolbelt starts: on a timeout
or a cancelled call, git and whatever its hooks started — detached children included — are
ended before the call returns.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

import anyio
from anyio.abc import ByteReceiveStream, Process

from toolbelt.core.errors import ToolError
from toolbelt.core.programs import program
from toolbelt.runners.runner import Runner
from toolbelt.shell.git_env import git_overrides, overrides_env
from toolbelt.tools._git_place import GitPlace

__all__ = ["GitResult", "GitRunner"]

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
        "GIT_CEILING_DIRECTORIES",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
        "GIT_CONFIG_PARAMETERS",  # `-c` values from a parent git (a hook running us)
    }
)
"""Environment that would point git at another repository than the one found here."""
_COMMIT_OVERRIDES = (("gc.auto", "0"), ("commit.gpgSign", "false"), ("tag.gpgSign", "false"))
"""Beyond the bash tool's overrides, for an untrusted repository: no automatic gc (it runs
hooks of its own), no signing with a program the repository chose."""


@dataclass(frozen=True, slots=True)
class GitResult:
    """Exit status and decoded output of one git invocation."""

    returncode: int
    stdout: str
    stderr: str


class GitRunner:
    """git in ``cwd`` on the repository ``place``, started by ``runner`` (None: unconfined),
    with the repository's program-starting config neutralised unless ``trusted``."""

    def __init__(
        self,
        cwd: Path,
        *,
        trusted: bool,
        place: GitPlace | None = None,
        runner: Runner | None = None,
        timeout: float = 120.0,
    ) -> None:
        self.cwd = cwd
        self.trusted = trusted
        self.place = place
        self.runner = runner if runner is not None else Runner("git")
        self.timeout = timeout
        self.notes: list[str] = []
        """What the sandbox undid after git ran (protected names a hook created)."""
        self._env: dict[str, str] | None = None

    async def run(self, *args: str, stdin: str | None = None) -> GitResult:
        """Run ``git args``; ToolError when git is missing or hangs (then git and every
        process its hooks started are ended, as on cancellation)."""
        git = program("git")
        if git is None:
            raise ToolError("git is not installed here; commit with the user's own tools.")
        return await self._spawn([git, *args], stdin, args[0])

    async def _environment(self) -> dict[str, str]:
        """What every git of this runner starts with (see the module's docstring)."""
        if self._env is not None:
            return self._env
        base = {k: v for k, v in os.environ.items() if k not in _LOCATION_VARIABLES}
        own = {
            "GIT_EDITOR": ":",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_LITERAL_PATHSPECS": "1",
            "GIT_PAGER": "cat",
            "LC_ALL": "C",
        }
        if self.place is not None:
            own.update(GIT_DIR=str(self.place.git_dir), GIT_WORK_TREE=str(self.place.top))
        if not self.trusted:
            found = await anyio.to_thread.run_sync(git_overrides, [self.cwd], base | own)
            own.update(overrides_env([*found, *_COMMIT_OVERRIDES]))  # after the scrub of KEYs
        self._env = self.runner.environment(base, own)
        return self._env

    async def _spawn(self, argv: list[str], stdin: str | None, command: str) -> GitResult:
        env = await self._environment()
        tree = self.runner.tree(argv, cwd=self.cwd, env=env, grace=1.0)
        try:
            # a timeout or a cancellation ends git, and all that its hooks started, first
            async with tree:
                with anyio.fail_after(self.timeout):
                    stdout, stderr = await _communicate(tree.process, (stdin or "").encode())
                    returncode = await tree.process.wait()
        except TimeoutError as exc:
            raise ToolError(
                f"git {command} did not finish within {self.timeout:g} s (a "
                "hook may be waiting for input) and was stopped; ask the user to commit by "
                "hand."
            ) from exc
        finally:
            self.notes += tree.notes
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
