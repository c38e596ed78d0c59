"""The permission requester of the framework integrations: the framework asks the user, not
toolbelt.

pydantic-ai and the OpenAI Agents SDK each have their own way of putting a call to the user
before it runs (deferred tool approvals, run interruptions). Their integrations answer
toolbelt's permission prompts with what that round decided: a call the user approved there runs
approved once; any other call the policy asks about does not run (``NeedsInput``) and goes back
to the framework to be asked about.
"""

from __future__ import annotations

from toolbelt.core.permission import (
    Answer,
    Approval,
    Ask,
    NeedsInput,
    PermissionRequest,
    PermissionRequester,
)

__all__ = ["ApprovedCalls"]


class ApprovedCalls(PermissionRequester):
    """Answers a permission prompt with the approval the framework brought for the call, or
    defers the call (``NeedsInput``) until the application has asked its user."""

    def __init__(self) -> None:
        self.approved: set[str] = set()
        """Ids of the calls running now that the user approved in the framework."""

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        if request.call_id in self.approved:
            return Answer(Approval.ONCE)
        raise NeedsInput(decision.reason)
