"""Build the permission policy for a session from a mode name (the CLI's and MCP's ``--mode``)."""

from __future__ import annotations

from typing import cast

from toolbelt.core.context import Session
from toolbelt.core.errors import UsageError
from toolbelt.permissions.paths import protected_reason
from toolbelt.permissions.policy import Mode, RuleMatcher, ToolbeltPolicy

__all__ = ["MODES", "build_policy"]

MODES = ("default", "accept_edits", "plan", "bypass", "dont_ask")


def build_policy(
    session: Session, mode: str = "default", *, rules: RuleMatcher | None = None
) -> ToolbeltPolicy:
    """The standard policy for ``session`` in ``mode``; an unknown mode is a usage error."""
    if mode not in MODES:
        raise UsageError(f"Unknown permission mode {mode!r}; choose one of {', '.join(MODES)}.")
    return ToolbeltPolicy(
        mode=cast(Mode, mode), roots=session.roots, rules=rules, protected=protected_reason
    )
