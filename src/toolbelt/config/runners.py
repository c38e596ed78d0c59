"""Which runner each kind of program toolbelt starts on its own gets in a session.

``session_runner(session, kind)`` is what git_commit, the command hooks and the workspace's
MCP servers call to start a program (``runners.runner``: the runner rule): the session's one
sandbox (``session_sandbox``, shared with the bash tool's shells, so its protected entries,
secrets and watch of created names are the same), with the policy the user's settings give
that kind (``sandbox.hooks``, ``sandbox.mcpServers``; git has none: it runs as ``git
commit`` through the bash tool would, in the git profile). ``standalone_runner`` is the same
for servers shared by many sessions (the HTTP door's), with a sandbox of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolbelt.config.protections import current_user_config, session_protections
from toolbelt.config.settings import Settings
from toolbelt.core.context import Session
from toolbelt.paths.protections import Protections
from toolbelt.runners.runner import Runner, RunnerKind
from toolbelt.sandbox.runner_policy import RunnerPolicy
from toolbelt.sandbox.sandbox import Sandbox, SandboxSettings
from toolbelt.shell.output import spill_dir

__all__ = ["runner_policy", "session_runner", "session_sandbox", "standalone_runner"]


def session_sandbox(session: Session) -> Sandbox:
    """The session's sandbox, from the ``SandboxSettings`` a door stored in the session
    (``session.resource(SandboxSettings, lambda: settings)``), else the default: ``auto``; it
    hides and keeps read-only what the session's ``Protections`` say."""
    sandbox = session.peek(Sandbox)
    if sandbox is not None:
        return sandbox
    settings = session.peek(SandboxSettings) or SandboxSettings()
    directory = spill_dir(session.id)
    protections = session_protections(session)  # not inside resource(): it holds the lock
    return session.resource(
        Sandbox,
        lambda: Sandbox(
            settings,
            session.roots,
            temp_dir=directory / "tmp",
            state_dir=directory,
            protections=protections,
        ),
    )


def runner_policy(settings: Settings | None, kind: RunnerKind) -> RunnerPolicy:
    """What the user's settings say of where ``kind`` runs (the default: confined, no
    network); git has no setting of its own."""
    if settings is None:
        return RunnerPolicy()
    if kind == "hook":
        return settings.hook_sandbox
    if kind in ("mcp", "lsp"):
        return settings.mcp_sandbox
    return RunnerPolicy()


def session_runner(session: Session, kind: RunnerKind, *, git_dirs: Sequence[Path] = ()) -> Runner:
    """How ``kind`` starts in ``session`` (see the module's docstring); ``git_dirs``: the git
    directories outside the roots git may write (a trusted linked worktree's)."""
    policy = runner_policy(session.peek(Settings), kind)
    return Runner(kind, session_sandbox(session), policy, tuple(git_dirs))


def standalone_runner(
    root: Path, kind: RunnerKind, *, sandbox: SandboxSettings | None, settings: Settings | None
) -> Runner:
    """A runner with a sandbox of its own over ``root`` (servers shared by every session of
    the HTTP door, which outlive any one session's sandbox)."""
    chosen = sandbox or SandboxSettings()
    directory = spill_dir(f"shared-{kind}-{abs(hash(str(root))):x}")
    own = Sandbox(
        chosen,
        [root],
        temp_dir=directory / "tmp",
        state_dir=directory,
        protections=Protections([root], user_config=current_user_config()),
    )
    return Runner(kind, own, runner_policy(settings, kind))
