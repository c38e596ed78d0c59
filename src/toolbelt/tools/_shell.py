"""What the shell tools share: the session's sandbox, its persistent shells and background jobs.

Which shell a command runs in follows from the sandbox profile in the ``CommandAccess`` the
policy approved, which the executor hands to the run (``ToolContext.access``): one persistent
shell per profile (``shell_for``).
"""

from __future__ import annotations

from toolbelt.config.factory import session_protections
from toolbelt.core.access import SandboxProfile
from toolbelt.core.context import Session, ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.sandbox.sandbox import Sandbox, SandboxSettings
from toolbelt.shell.environment import command_environment
from toolbelt.shell.jobs import JobManager
from toolbelt.shell.output import spill_dir
from toolbelt.shell.readonly import CreateShell, GitShell, ReadOnlyShell
from toolbelt.shell.session import ShellSession
from toolbelt.tools._sandboxed import unconfined_shell

__all__ = [
    "NO_BACKGROUND_JOBS",
    "git_shell",
    "job_manager",
    "job_starter",
    "readonly_shell",
    "session_sandbox",
    "shell_for",
    "shell_session",
]

NO_BACKGROUND_JOBS = (
    "Background jobs are off in this session, as no later call could be tied to this one to "
    "read the job's output or stop it: run the command in the foreground instead (raise "
    "timeout_ms if it takes long)."
)


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


def shell_for(ctx: ToolContext, profile: SandboxProfile) -> ShellSession:
    """The session's persistent shell for ``profile``: unconfined (approved by the user), the
    read-only one, the create one, the git one, or the main shell of the workspace profile."""
    if profile == "unconfined":
        return unconfined_shell(ctx)
    if profile == "readonly":
        return readonly_shell(ctx)
    if profile == "create":
        return _shell_of_kind(ctx, CreateShell)
    if profile == "git":
        return git_shell(ctx)
    return shell_session(ctx)


def shell_session(ctx: ToolContext) -> ShellSession:
    """The session's shell, started in the session's cwd on first use."""
    return _shell_of_kind(ctx, ShellSession)


def readonly_shell(ctx: ToolContext) -> ShellSession:
    """The shell for commands that run without asking because they are read-only."""
    return _shell_of_kind(ctx, ReadOnlyShell)


def git_shell(ctx: ToolContext) -> ShellSession:
    """The shell for git commands that write the repository, approved by the user."""
    return _shell_of_kind(ctx, GitShell)


def _shell_of_kind(ctx: ToolContext, kind: type[ShellSession]) -> ShellSession:
    """One persistent shell of ``kind`` per session (each kind is its own sandbox profile),
    started in the session's cwd on first use."""
    session = ctx.session
    sandbox = session_sandbox(session)
    return session.resource(
        kind, lambda: kind(session.cwd, command_environment(), session.id, sandbox=sandbox)
    )


def job_manager(ctx: ToolContext) -> JobManager:
    """The session's background jobs."""
    sandbox = session_sandbox(ctx.session)
    return ctx.session.resource(JobManager, lambda: JobManager(ctx.session.id, sandbox=sandbox))


def job_starter(ctx: ToolContext) -> JobManager:
    """The session's background jobs, to start one: a ``ToolError`` telling the model to run
    the command in the foreground where the session has them off (``SessionConfig``)."""
    if not ctx.session.config.background_jobs:
        raise ToolError(NO_BACKGROUND_JOBS)
    return job_manager(ctx)
