"""The one way toolbelt starts a program that may run the workspace's code: ``Runner.tree``.

git (for git_commit), command hooks, the workspace's MCP stdio servers and, when they come,
language servers are programs toolbelt starts on its own, and each may run code a sandboxed
command could have written: a hook in ``.githooks/`` that ``core.hooksPath`` names, the
``node_modules/.bin/prettier`` a formatter hook's ``npx`` finds, the ``conftest.py`` a
``pytest`` hook imports, a module an MCP server loads. Started unconfined, such a program
turns a command that needed no prompt into code running with the user's full rights — the
sandbox only delays it. So each of them is started here, inside the sandbox (the runner
rule, docs/permissions.md):

- in the profile of what it is — the git profile for git (``.git/`` writable but for what
  makes git run programs), the workspace profile for the others — with the network as the
  runner's policy says (off unless the user's settings open it: ``RunnerPolicy``);
- with the environment commands get (``shell.environment``: credentials removed, the
  sandbox's private ``TMPDIR``), plus what the caller adds on purpose (a hook's
  ``TOOLBELT_PROJECT_DIR``, a server entry's own ``env``);
- watched, while it runs, as a confined background job is (``Sandbox.watch_job``): a
  protected name it creates anywhere in the workspace (``.vscode/``, ``sub/.git/hooks``) is
  moved aside when it ends, and the notes saying so are the tree's ``notes``.

A runner whose policy says ``confined=False`` (the user's own choice, in the user's settings
only), or a session without a sandbox (``--sandbox off``, or no backend on this machine),
starts the program as before: unconfined, with the caller's environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from anyio.abc import Process

from toolbelt.procs.tree import ProcessTree
from toolbelt.sandbox.backends import namespaces_work
from toolbelt.sandbox.runner_policy import Network, RunnerPolicy
from toolbelt.sandbox.sandbox import Profile, Sandbox
from toolbelt.shell.environment import command_environment

__all__ = ["RUNNER_NAMES", "Runner", "RunnerKind", "RunnerTree"]

RunnerKind = Literal["git", "hook", "mcp", "lsp"]
RUNNER_NAMES: dict[RunnerKind, str] = {
    "git": "git",
    "hook": "a hook",
    "mcp": "an MCP server",
    "lsp": "a language server",
}
"""How a note names what created a protected entry."""


@dataclass(frozen=True, slots=True)
class Runner:
    """How programs of one ``kind`` start: inside ``sandbox`` with ``policy``, or unconfined
    when ``sandbox`` is None (no backend) or the policy says so."""

    kind: RunnerKind
    sandbox: Sandbox | None = None
    policy: RunnerPolicy = field(default_factory=RunnerPolicy)
    git_dirs: tuple[Path, ...] = ()
    """For git: git directories outside the roots it may write but for their code."""

    @property
    def confined(self) -> bool:
        """Whether what this runner starts runs inside the sandbox."""
        return self.sandbox is not None and self.sandbox.active and self.policy.confined

    @property
    def git_writable(self) -> bool:
        """Whether git started by this runner can write its repository: unconfined, or in a
        sandbox that can keep ``.git/``'s code read-only while the rest is written (a mount
        namespace: bubblewrap, or Landlock where user namespaces work)."""
        if not self.confined or self.sandbox is None:
            return True
        return self.sandbox.backend == "bwrap" or namespaces_work()

    @property
    def profile(self) -> Profile:
        return "git" if self.kind == "git" else "workspace"

    def environment(
        self, base: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """The environment a program of this runner starts with: ``base`` (this process's by
        default) without its credentials when confined, then ``extra`` as given."""
        source = os.environ if base is None else base
        env = command_environment(source) if self.confined else dict(source)
        return {**env, **(extra or {})}

    def tree(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        **options: Any,
    ) -> RunnerTree:
        """``argv`` as a process tree (``procs.tree``; ``options`` are its own) started in
        ``cwd`` with ``env`` (see ``environment``), confined when this runner is."""
        sandbox = self.sandbox if self.confined else None
        confine = None
        network: Network = self.policy.network
        if sandbox is not None:
            confine = sandbox.confinement(
                self.profile,
                cwd=cwd,
                network=None if self.kind == "git" else network,
                git_dirs=self.git_dirs,
            )
        return RunnerTree(argv, sandbox=sandbox, by=RUNNER_NAMES[self.kind], cwd=cwd,
                          env=env, confine=confine, **options)  # fmt: skip


class RunnerTree(ProcessTree):
    """A ``ProcessTree`` that, confined, is watched as a job while it runs: the protected
    names it created are moved aside when it ends, and ``notes`` say where."""

    def __init__(
        self, argv: Sequence[str], *, sandbox: Sandbox | None, by: str, **options: Any
    ) -> None:
        super().__init__(argv, **options)
        self._sandbox = sandbox
        self._by = by
        self._failed = False
        self.notes: list[str] = []
        """What the sandbox undid once the tree ended (protected names it created)."""

    async def start(self) -> Process:
        """Start the tree, watched from before its first instruction (a baseline taken after
        would accept what it made first)."""
        if self._sandbox is not None:
            self._sandbox.watch_job(self._poll)
        try:
            return await super().start()
        except BaseException:
            self._failed = True
            self._check()
            raise

    def _poll(self) -> int | None:
        """The job's exit status for the sandbox's watch: None while it may still run."""
        if self._failed:
            return -1
        return None if self._process is None else self._process.returncode

    async def aclose(self, *, marked: str | None = None, grace: float | None = None) -> int:
        found = await super().aclose(marked=marked, grace=grace)
        self._check()
        return found

    def _check(self) -> None:
        """Once ended: move aside the protected names made while it ran, and say so."""
        if self._sandbox is not None:
            self.notes += self._sandbox.check_jobs(by=self._by)
            self._sandbox = None
