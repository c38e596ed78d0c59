"""What the shell tools share: the session's persistent shell and its background jobs."""

from __future__ import annotations

from toolbelt.core.context import ToolContext
from toolbelt.shell.environment import command_environment
from toolbelt.shell.jobs import JobManager
from toolbelt.shell.session import ShellSession

__all__ = ["job_manager", "shell_session"]


def shell_session(ctx: ToolContext) -> ShellSession:
    """The session's shell, started in the session's cwd on first use."""
    session = ctx.session
    return session.resource(
        ShellSession, lambda: ShellSession(session.cwd, command_environment(), session.id)
    )


def job_manager(ctx: ToolContext) -> JobManager:
    """The session's background jobs."""
    return ctx.session.resource(JobManager, lambda: JobManager(ctx.session.id))
