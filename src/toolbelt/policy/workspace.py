"""The simple default policy: the conservative baseline every door starts from.

``WorkspacePolicy`` lets calls with no outside effect and reads inside the workspace roots run;
everything else asks. The standard policy (``policy.policy``) adds modes, rules and protection.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolbelt.core.access import AccessKind
from toolbelt.core.permission import Allow, Ask, Decision, PermissionPolicy, PermissionRequest
from toolbelt.paths.containment import is_within_any

__all__ = ["WorkspacePolicy"]


class WorkspacePolicy(PermissionPolicy):
    """Reads inside the workspace and effect-free calls run; everything else asks."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self._roots = tuple(roots)

    def decide(self, request: PermissionRequest) -> Decision:
        access = request.access
        if access.kind is AccessKind.NONE:
            return Allow("no effect outside the session")
        if access.kind is AccessKind.READ and all(
            is_within_any(path, self._roots) for path in access.paths
        ):
            return Allow("read inside the workspace")
        what = access.summary or f"{request.tool} ({access.kind.value})"
        return Ask(f"{what} needs your approval.")
