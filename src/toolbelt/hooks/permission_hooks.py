"""``PermissionRequest`` and ``Notification`` hooks around the person's prompts.

``HookedRequester`` wraps a door's requester: before a permission prompt is shown, the
PermissionRequest hooks may answer it (allow or deny); otherwise the Notification hooks are
told the session waits for the person, and the person is asked. A hook's "allow" answers only
an ordinary prompt: a forced one (a protected path, a dangerous command, an ask rule) is
always put to the person, as a PreToolUse hook's "allow" cannot skip it either.
``HookedUser`` tells the Notification hooks when a tool's question waits for the person.
"""

from __future__ import annotations

from toolbelt.core.permission import Answer, Approval, Ask, PermissionRequest, PermissionRequester
from toolbelt.core.user import Question, UserAnswer, UserChannel
from toolbelt.hooks.session_hooks import SessionHooks

__all__ = ["HookedRequester", "HookedUser"]


class HookedRequester(PermissionRequester):
    """``inner``, after the PermissionRequest and Notification hooks."""

    def __init__(self, inner: PermissionRequester, hooks: SessionHooks) -> None:
        self.inner = inner
        self.hooks = hooks

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        if self.hooks.configured("PermissionRequest"):
            identity = request.rule_identity  # Claude's names: the family (Bash, Read...)
            aliases = (identity.family, *identity.aliases)
            verdict = await self.hooks.permission_request(request.tool, request.arguments, aliases)
            if verdict is not None and not verdict.allow:
                return Answer(
                    Approval.DENY, f"A PermissionRequest hook denied this call: {verdict.message}"
                )
            if verdict is not None and not decision.forced:
                return Answer(Approval.ONCE)
        if self.hooks.configured("Notification"):
            who = f"Subagent {request.agent}: " if request.agent else ""
            await self.hooks.notification(
                f"{who}toolbelt needs your permission to use {request.tool}", "permission_prompt"
            )
        return await self.inner.ask(request, decision)


class HookedUser(UserChannel):
    """``inner``, telling the Notification hooks when a question waits for the person."""

    def __init__(self, inner: UserChannel, hooks: SessionHooks) -> None:
        self.inner = inner
        self.hooks = hooks

    async def ask(self, question: Question) -> UserAnswer:
        if self.hooks.configured("Notification"):
            await self.hooks.notification(
                f"toolbelt has a question for you: {question.prompt}", "elicitation_dialog"
            )
        return await self.inner.ask(question)

    async def show(self, message: str) -> None:
        await self.inner.show(message)
