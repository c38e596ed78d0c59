"""The simple default policy and the non-interactive requesters.

``WorkspacePolicy`` is the conservative baseline every door starts from: calls with no outside
effect and reads inside the workspace roots run; everything else asks. ``AutoApprove`` answers
yes (``--yes``), ``DenyRequests`` answers no with a message that says how to allow the call —
what a headless run without ``--yes`` needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolbelt.core.access import AccessKind
from toolbelt.permissions.decision import (
    Allow,
    Answer,
    Approval,
    Ask,
    Decision,
    PermissionPolicy,
    PermissionRequest,
    PermissionRequester,
)

__all__ = ["AutoApprove", "DenyRequests", "WorkspacePolicy", "is_within"]


def is_within(path: Path, root: Path) -> bool:
    """Separator-aware containment on resolved paths: ``/w`` never contains ``/w-evil``."""
    return path == root or root in path.parents


class WorkspacePolicy(PermissionPolicy):
    """Reads inside the workspace and effect-free calls run; everything else asks."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self._roots = tuple(roots)

    def decide(self, request: PermissionRequest) -> Decision:
        access = request.access
        if access.kind is AccessKind.NONE:
            return Allow("no effect outside the session")
        if access.kind is AccessKind.READ and all(
            any(is_within(path, root) for root in self._roots) for path in access.paths
        ):
            return Allow("read inside the workspace")
        what = access.summary or f"{request.tool} ({access.kind.value})"
        return Ask(f"{what} needs your approval.")


class AutoApprove(PermissionRequester):
    """Approves every request once (the CLI's ``--yes``)."""

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        return Answer(Approval.ONCE)


class DenyRequests(PermissionRequester):
    """Denies every request, telling the model how a person could allow it: ``hint`` for an
    ordinary question, ``forced_hint`` for one no mode skips (a dangerous command), and for
    one no allow rule skips either (``Ask.remedy``: a protected path...) ``once_hint``
    followed by that remedy — never a rule or a mode that would not work."""

    def __init__(
        self, hint: str = "", *, forced_hint: str | None = None, once_hint: str = ""
    ) -> None:
        self._hint = hint
        self._forced_hint = hint if forced_hint is None else forced_hint
        self._once_hint = once_hint

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        hint = self._forced_hint if decision.forced else self._hint
        if decision.remedy:
            once = self._once_hint
            hint = f"{once}, or {decision.remedy}" if once else decision.remedy
        reason = f"{decision.reason} No one could be asked"
        reason += f"; {hint}." if hint else "."
        return Answer(Approval.DENY, reason)
