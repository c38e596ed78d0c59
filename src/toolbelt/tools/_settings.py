"""The settings a session was built with, for tools that read their own keys (web_fetch,
git_commit, skill): ``configure_session`` stores them on the session; without them (a library
user who passed none) nothing is loosened and trust is the stored answer for the workspace."""

from __future__ import annotations

from toolbelt.config.settings import Settings
from toolbelt.config.trust import is_trusted
from toolbelt.core.context import Session

__all__ = ["session_settings"]


def session_settings(session: Session) -> Settings:
    """The session's settings, or empty ones whose ``trusted`` is the workspace's trust."""
    settings = session.peek(Settings)
    if settings is not None:
        return settings
    return session.resource(Settings, lambda: Settings(trusted=is_trusted(session.root)))
