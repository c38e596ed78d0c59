"""What the shell tools share: the session's sandbox, its persistent shells and background jobs."""

from __future__ import annotations

from dataclasses import replace

from toolbelt.core.context import Session, ToolContext
from toolbelt.policy.rules import HiddenReads
from toolbelt.sandbox.sandbox import Sandbox, SandboxSettings
from toolbelt.shell.environment import command_environment
from toolbelt.shell.jobs import JobManager
from toolbelt.shell.output import spill_dir
from toolbelt.shell.readonly import GitShell, ReadOnlyShell
from toolbelt.shell.session import ShellSession

__all__ = ["git_shell", "job_manager", "readonly_shell", "session_sandbox", "shell_session"]


def session_sandbox(session: Session) -> Sandbox:
    """The session's sandbox, from the ``SandboxSettings`` a door stored in the session
    (``session.resource(SandboxSettings, lambda: settings)``), else the default: ``auto``;
    the paths read-deny rules name (``HiddenReads``) are hidden with the user's secrets."""
    settings = session.peek(SandboxSettings) or SandboxSettings()
    denied = session.peek(HiddenReads)
    if denied is not None and denied.paths:
        settings = replace(settings, secrets=(*settings.secrets, *denied.paths))
    directory = spill_dir(session.id)
    return session.resource(
        Sandbox,
        lambda: Sandbox(settings, session.roots, temp_dir=directory / "tmp", state_dir=directory),
    )


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
