"""The non-interactive permission requesters: what answers when no person is asked.

``AutoApprove`` answers yes (``--yes``); ``DenyRequests`` answers no with a message that says how
to allow the call — what a headless run without ``--yes`` needs, and the executor's default.
"""

from __future__ import annotations

from toolbelt.core.permission import Answer, Approval, Ask, PermissionRequest, PermissionRequester

__all__ = ["AutoApprove", "DenyRequests"]


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
