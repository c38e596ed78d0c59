"""Authorizing a call: the policy's decision combined with a PreToolUse hook's, and the user
asked when the decision is to ask.

The orchestration is always approve → run → report: ``authorize`` returns when the call may
run and raises ``PermissionDeniedError`` — a sentence for the model — when it may not: denied
by a rule or a hook, refused by the user, or no answer within the prompt's timeout. An answer
that approves for the session or always is remembered by the policy, unless the question was
one that must be asked every time.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import anyio

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.errors import PermissionDeniedError
from toolbelt.core.events import CallState, EventBus, StateEvent
from toolbelt.core.permission import (
    Allow,
    Answer,
    Approval,
    Ask,
    Decision,
    Deny,
    PermissionPolicy,
    PermissionRequest,
    PermissionRequester,
)
from toolbelt.core.rule_identity import FILE_READ

__all__ = ["authorize", "read_allowed", "with_hook"]


async def authorize(
    request: PermissionRequest,
    decision: Decision,
    *,
    policy: PermissionPolicy,
    requester: PermissionRequester,
    events: EventBus,
    timeout: float,  # noqa: ASYNC109 - how long the user has to answer, not the caller's deadline
) -> Answer | None:
    """Return when ``decision`` (asking through ``requester`` if need be) lets the call run:
    the user's approving answer, or None when the call runs without a prompt."""
    match decision:
        case Allow():
            return None
        case Deny(reason=reason):
            raise PermissionDeniedError(reason)
        case Ask() as ask:
            if policy.why_no_always and not ask.no_always:
                ask = replace(ask, no_always=policy.why_no_always)
            events.emit(
                StateEvent(
                    request.call_id, request.tool, CallState.PERMISSION_REQUIRED, detail=ask.reason
                )
            )
            answer = None
            with anyio.move_on_after(timeout):
                answer = await requester.ask(request, ask)
            if answer is None:
                raise PermissionDeniedError(
                    f"No answer to the permission prompt within {timeout:g} s,"
                    " so the call was denied; ask the user before trying again."
                )
            if not answer.allowed:
                reason = answer.reason or "The user denied this call."
                raise PermissionDeniedError(
                    f"{reason} Do not retry the same call; ask the user how to proceed."
                    if not answer.reason
                    else reason
                )
            if answer.approval in (Approval.SESSION, Approval.ALWAYS) and ask.remember:
                policy.remember(request, answer)
            return answer


def with_hook(decision: Decision, hook: str | None, reason: str) -> Decision:
    """Combine the policy's decision with a PreToolUse hook's: deny > ask > allow."""
    if hook == "deny":
        return Deny(reason or "A PreToolUse hook blocked this call.")
    if isinstance(decision, Deny):
        return decision
    if hook == "ask" and isinstance(decision, Allow):
        return Ask(
            reason or "A PreToolUse hook asks for approval of this call.",
            forced=True,
            remedy="leave this step to the user (a PreToolUse hook asks for it, whatever the "
            "rules and the mode say)",
        )
    if hook == "allow" and isinstance(decision, Ask) and not decision.forced:
        return Allow(reason or "allowed by a PreToolUse hook")
    return decision


def read_allowed(policy: PermissionPolicy, path: Path) -> bool:
    """Whether read_file of ``path`` would run without asking (what output may quote)."""
    access = Access(AccessKind.READ, paths=(path,), summary=f"read {path}")
    request = PermissionRequest(
        "", "read_file", {"path": str(path)}, access, readonly=True, identity=FILE_READ
    )
    return isinstance(policy.decide(request), Allow)
