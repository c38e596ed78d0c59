"""The session's code intelligence: its language servers and their settings, for the tools.

The settings come from the ``lsp`` section (``config.settings``), or from an ``LspSettings``
a library user provided to the session (``session.provide``); the servers run in the
session's sandbox. Both are created on first use: a session that never edits code never
starts a server.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from toolbelt.core.context import Session
from toolbelt.lsp.settings import DEFAULT_TIMEOUT, LspSettings
from toolbelt.tools._settings import session_settings

if TYPE_CHECKING:
    from toolbelt.lsp.service import CodeDiagnostics

__all__ = ["OFF_VARIABLE", "code_diagnostics", "diagnostics_enabled", "lsp_settings"]

OFF_VARIABLE = "TOOLBELT_DIAGNOSTICS"
"""``TOOLBELT_DIAGNOSTICS=0`` in the environment turns diagnostics after edits off, whatever
the settings say (a CI job, a test suite that checks edit results word for word)."""


def lsp_settings(session: Session) -> LspSettings:
    """The session's ``LspSettings``: provided, or read from its settings."""
    provided = session.peek(LspSettings)
    if provided is not None:
        return provided
    settings = session_settings(session)  # before the factory: it takes the session's lock
    return session.resource(
        LspSettings,
        lambda: LspSettings(
            diagnostics=settings.lsp_diagnostics is not False
            and os.environ.get(OFF_VARIABLE) != "0",
            timeout=settings.lsp_timeout or DEFAULT_TIMEOUT,
            servers=dict(settings.lsp_servers),
            trusted=settings.trusted,
        ),
    )


def diagnostics_enabled(session: Session) -> bool:
    return lsp_settings(session).diagnostics


def code_diagnostics(session: Session) -> CodeDiagnostics:
    """The session's diagnostics service (its servers start only when a file needs one)."""
    from toolbelt.lsp.service import CodeDiagnostics
    from toolbelt.tools._shell import session_sandbox

    existing = session.peek(CodeDiagnostics)
    if existing is not None:
        return existing
    settings, sandbox = lsp_settings(session), session_sandbox(session)  # resources of their
    return session.resource(  # own: made before, as the session's lock is held in a factory
        CodeDiagnostics, lambda: CodeDiagnostics(session.roots, settings, sandbox)
    )
