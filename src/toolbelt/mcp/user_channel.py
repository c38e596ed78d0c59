"""The user channel over MCP: a tool's question becomes an ``elicitation/create`` form.

A tool asks through ``ctx.user`` (``core.user``); over MCP the question goes to the client's
user as an elicitation on the stream of the call that asked, with the choices as an enum or
the tool's own form schema. A client without the elicitation capability, or a call in the
stateless 2026-07-28 era (where the server cannot send a request in the middle of a call),
cannot ask anyone: the tool gets a ``ToolError`` telling the model to carry on without asking.
``show`` sends a ``notice`` log message, seen when the client's log level admits notices.
"""

from __future__ import annotations

from typing import Any

from toolbelt.core.errors import ToolError
from toolbelt.core.user import Question, UserAnswer, UserChannel
from toolbelt.mcp.requester import ClientChannel

__all__ = ["ElicitationUser"]

CANNOT_ASK = (
    "This MCP client cannot ask the user a question in the middle of a call ({why}); decide "
    "with what you know and say which assumption you made."
)


class ElicitationUser(UserChannel):
    """Questions as elicitation forms, messages as log notices."""

    def __init__(
        self, server: ClientChannel, *, call_id: str | None = None, timeout: float = 300.0
    ) -> None:
        self._server = server
        self._call_id = call_id
        self._timeout = timeout

    def for_call(self, call_id: str) -> UserChannel:
        return ElicitationUser(self._server, call_id=call_id, timeout=self._timeout)

    async def ask(self, question: Question) -> UserAnswer:
        call = self._server.inflight(self._call_id) if self._call_id is not None else None
        if call is not None and call.modern is not None:
            raise ToolError(CANNOT_ASK.format(why="the stateless protocol has no such request"))
        if "elicitation" not in self._server.client_capabilities:
            raise ToolError(CANNOT_ASK.format(why="it does not support elicitation"))
        params = {"mode": "form", "message": question.prompt, "requestedSchema": _form(question)}
        route = call.route if call is not None else None
        result = await self._server.request(
            "elicitation/create", params, timeout=self._timeout, route=route
        )
        action = result.get("action")
        if action != "accept":
            return UserAnswer("decline" if action == "decline" else "cancel")
        content: dict[str, Any] = result.get("content") or {}
        return UserAnswer("accept", str(content.get("answer", "")), content)

    async def show(self, message: str) -> None:
        await self._server.log("notice", message)


def _form(question: Question) -> dict[str, Any]:
    if question.schema is not None:
        return dict(question.schema)
    answer: dict[str, Any] = {"type": "string", "title": "Answer"}
    if question.choices:
        answer["enum"] = list(question.choices)
    return {"type": "object", "properties": {"answer": answer}, "required": ["answer"]}
