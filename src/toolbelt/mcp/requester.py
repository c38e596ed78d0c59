"""Ask the MCP client's user for permission — by elicitation when the client supports it.

The request shows what the call touches (command, paths, URL) and the diff for writes — or,
for a call with none of these (another MCP server's tool), its arguments — and
offers: allow once, allow for this session, always allow (written to settings.local.json;
not offered, with the reason, where it could not be kept), deny. A client without the
elicitation capability cannot ask anyone, so the call is denied at once with a message that
says how to allow it; nothing ever hangs waiting.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol

from toolbelt.core.access import AccessKind
from toolbelt.core.display import shown_arguments
from toolbelt.core.permission import (
    Answer,
    Approval,
    Ask,
    NeedsInput,
    PermissionRequest,
    PermissionRequester,
)
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.paths.containment import is_within
from toolbelt.policy.policy import allow_rules

if TYPE_CHECKING:
    from toolbelt.core.context import Session
    from toolbelt.mcp.inflight import InFlightCall

__all__ = ["ClientChannel", "ElicitationRequester"]


class ClientChannel(Protocol):
    """What the requester needs of the connection it asks through (``McpServer`` is one);
    a protocol, so the requester does not import the server that uses it."""

    client_capabilities: dict[str, Any]
    """What the client declared at ``initialize``."""

    protocol_version: str
    """The revision agreed at ``initialize`` ("" before it)."""

    session: Session
    """The session the calls run in (its root anchors the rules a refusal suggests)."""

    def inflight(self, call_id: str) -> InFlightCall | None:
        """The record of the running call the executor knows as ``call_id``, if any."""

    async def log(self, level: str, text: str) -> None:
        """Send a log message at ``level`` (shown if the client's log level admits it)."""

    async def request(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float,  # noqa: ASYNC109 - the client's deadline to answer
        route: Any = None,
    ) -> dict[str, Any]:
        """Send a request to the client and wait for its result."""


CHOICES = {
    "allow_once": Approval.ONCE,
    "allow_session": Approval.SESSION,
    "allow_always": Approval.ALWAYS,
    "deny": Approval.DENY,
}


class ElicitationRequester(PermissionRequester):
    """Permission prompts through ``elicitation/create``."""

    def __init__(self, server: ClientChannel, *, timeout: float = 120.0) -> None:
        self._server = server
        self._timeout = timeout
        self.session_approvals = True
        """False where requests carry no client identity (stateless HTTP): "allow for this
        session" would then allow every client, so it is neither offered nor accepted."""

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        call = self._server.inflight(request.call_id)
        modern = call.modern if call is not None else None
        capabilities = modern if modern is not None else self._server.client_capabilities
        if "elicitation" not in capabilities:
            how = self._how_to_allow(request, decision)
            return Answer(Approval.DENY, f"{decision.reason} {how}")
        params = _elicitation(request, decision, session_choice=self.session_approvals)
        if call is not None and modern is not None:
            answer = call.take_answer("permission")
            if answer is None:  # ask by returning input_required; the client retries
                call.ask_by_retry("permission", params)
                raise NeedsInput("Waiting for the user's answer.")
            return _to_answer(answer, session_choice=self.session_approvals, decision=decision)
        route = call.route if call is not None else None
        result = await self._server.request(
            "elicitation/create", params, timeout=self._timeout, route=route
        )
        return _to_answer(result, session_choice=self.session_approvals, decision=decision)

    def _how_to_allow(self, request: PermissionRequest, decision: Ask) -> str:
        """The settings entry that would allow this very call, and the modes that would.

        A command run outside the sandbox is asked about every time, whatever the rules and
        the mode say, so the model is told to stay in the sandbox instead; a question no allow
        rule skips (a protected path, an ask rule) gets the policy's ``remedy`` alone; no mode
        skips a forced question (a dangerous command), so none is offered for it."""
        cannot = "This MCP client cannot ask the user (it does not support elicitation)"
        command = request.access.command
        if command is not None and command.outside_sandbox is not None:
            return (
                f"{cannot}, and no rule or mode allows running outside the sandbox; retry "
                'without "sandbox": false, or leave this step to the user.'
            )
        if decision.remedy:  # no allow rule skips it (a protected path, an ask rule...)
            return f"{cannot}; {decision.remedy}."
        # `./x` rules are anchored where the session started: the workspace root
        rules = allow_rules(request, cwd=self._server.session.root)
        entry = json.dumps({"permissions": {"allow": rules}})
        access, roots = request.access, self._server.session.roots
        edits_inside = access.kind is AccessKind.WRITE and all(
            any(is_within(path, root) for root in roots) for path in access.paths
        )
        mode = "accept_edits or bypass" if edits_inside else "bypass"
        modes = "" if decision.forced else f" or start `toolbelt mcp` with --mode {mode}"
        return (
            f"{cannot}; to allow this call, add {entry} to .toolbelt/settings.json in the "
            f"workspace (which must be trusted: `toolbelt trust`){modes}."
        )


def _elicitation(
    request: PermissionRequest, decision: Ask, *, session_choice: bool
) -> dict[str, Any]:
    choices = list(CHOICES) if decision.remember else ["allow_once", "deny"]
    if not session_choice:
        choices = [choice for choice in choices if choice != "allow_session"]
    if decision.no_always:
        choices = [choice for choice in choices if choice != "allow_always"]
    return {
        "mode": "form",
        "message": _message(request, decision),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "decision": {"type": "string", "title": "Decision", "enum": choices},
                "reason": {"type": "string", "title": "Reason for the model (optional)"},
            },
            "required": ["decision"],
        },
    }


def _to_answer(result: dict[str, Any], *, session_choice: bool, decision: Ask) -> Answer:
    action = result.get("action")
    content = result.get("content") or {}
    if action != "accept":
        why = "declined" if action == "decline" else "did not answer"
        return Answer(Approval.DENY, f"The user {why}; the call was not run.")
    approval = CHOICES.get(str(content.get("decision")), Approval.DENY)
    if approval is Approval.ALWAYS and decision.no_always:
        approval = Approval.SESSION  # not offered: a forged choice gets no more than a session
    if approval is Approval.SESSION and not session_choice:
        approval = Approval.ONCE  # a client that forges the choice gets this call only
    reason = str(content.get("reason") or "")
    if approval is Approval.DENY:
        return Answer(approval, f"The user denied this call: {reason}" if reason else "")
    return Answer(approval)


def _message(request: PermissionRequest, decision: Ask) -> str:
    access = request.access
    lines = [f"toolbelt wants to run `{request.tool}`: {escape_for_terminal(decision.reason)}"]
    if decision.no_always and decision.remember:
        lines.append(f"(No always-allow: {decision.no_always}.)")
    if access.command and access.command.text:
        lines.append(f"Command: {escape_for_terminal(access.command.text)}")
    if access.url:
        lines.append(f"URL: {escape_for_terminal(access.url)}")
    lines += [f"Path: {escape_for_terminal(str(path))}" for path in access.paths]
    if access.preview:
        preview = access.preview if len(access.preview) < 4000 else access.preview[:4000] + "\n…"
        lines.append(f"Change:\n{escape_for_terminal(preview, newlines=True)}")
    arguments = shown_arguments(access, request.arguments)
    if arguments is not None:
        lines.append(f"Arguments:\n{arguments}")
    return "\n".join(lines)
