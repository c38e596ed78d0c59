"""Build the permission policy for a session from a mode name (the CLI's and MCP's ``--mode``)."""

from __future__ import annotations

from toolbelt.core.context import Session
from toolbelt.core.errors import UsageError
from toolbelt.permissions.basic import WorkspacePolicy
from toolbelt.permissions.decision import PermissionPolicy

__all__ = ["MODES", "build_policy"]

MODES = ("default", "accept_edits", "plan", "bypass", "dont_ask")


def build_policy(session: Session, mode: str = "default") -> PermissionPolicy:
    """The policy for ``session`` in ``mode``; an unknown mode is a usage error."""
    if mode not in MODES:
        raise UsageError(f"Unknown permission mode {mode!r}; choose one of {', '.join(MODES)}.")
    policy = WorkspacePolicy(session.roots)
    policy.mode = mode
    return policy
