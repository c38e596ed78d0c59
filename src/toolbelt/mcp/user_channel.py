"""The user channel over MCP: a tool's questions become one ``elicitation/create`` form.

A tool asks through ``ctx.user`` (``core.user``); over MCP the questions go to the client's
user as one elicitation form (``question_form``), or as the tool's own form schema. Before
2026-07-28 the request travels on the stream of the call that asked and the answer comes
back on it; in the stateless 2026-07-28 era the call ends ``input_required`` carrying the form,
and the client's retry carries the answer (as for a permission prompt). A client without
form elicitation cannot ask anyone: the tool gets a ``ToolError`` telling the model to carry
on without asking. ``show`` sends a ``notice`` log message, seen when the client's log level
admits notices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolbelt.core.errors import ToolError
from toolbelt.core.permission import NeedsInput
from toolbelt.core.user import Question, UserAnswer, UserChannel
from toolbelt.mcp.inflight import InFlightCall
from toolbelt.mcp.question_form import answers_from_form, question_form
from toolbelt.mcp.requester import ClientChannel

__all__ = ["ElicitationUser", "can_fill_forms"]

CANNOT_ASK = (
    "This MCP client cannot ask the user a question in the middle of a call ({why}); decide "
    "with what you know and say which assumption you made."
)
INPUT_KEY = "question"
"""The key of the answer a 2026-07-28 retry carries (permission prompts use their own)."""
MODERN = "2026-07-28"


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
        if question.schema is None:
            return (await self.ask_all([question]))[0]
        params = {"mode": "form", "message": question.prompt, "requestedSchema": question.schema}
        result = await self._elicit(params)
        if result.get("action") != "accept":
            return UserAnswer("decline" if result.get("action") == "decline" else "cancel")
        content: dict[str, Any] = result.get("content") or {}
        return UserAnswer("accept", str(content.get("answer", "")), content)

    async def ask_all(self, questions: Sequence[Question]) -> list[UserAnswer]:
        if not questions:
            return []
        if any(question.schema is not None for question in questions):
            return await super().ask_all(questions)  # a tool's own forms go one by one
        call = self._call()
        modern = call.modern if call is not None else None
        protocol = MODERN if modern is not None else self._server.protocol_version
        params = question_form(questions, protocol=protocol)
        return answers_from_form(questions, await self._elicit(params))

    async def _elicit(self, params: dict[str, Any]) -> Mapping[str, Any]:
        """The client's reply to the form ``params`` (``{}``: no answer in time)."""
        call = self._call()
        modern = call.modern if call is not None else None
        capabilities = modern if modern is not None else self._server.client_capabilities
        if not can_fill_forms(capabilities):
            raise ToolError(CANNOT_ASK.format(why="it does not support elicitation"))
        if call is not None and modern is not None:
            answer = call.take_answer(INPUT_KEY)
            if answer is None:  # ask by ending the call input_required; the client retries
                call.ask_by_retry(INPUT_KEY, params)
                raise NeedsInput("Waiting for the user's answers.")
            return answer
        route = call.route if call is not None else None
        return await self._server.request(
            "elicitation/create", params, timeout=self._timeout, route=route
        )

    def _call(self) -> InFlightCall | None:
        """The record of the call that asks (None outside a call)."""
        return None if self._call_id is None else self._server.inflight(self._call_id)

    async def show(self, message: str) -> None:
        await self._server.log("notice", message)


def can_fill_forms(capabilities: Mapping[str, Any]) -> bool:
    """Whether a client with ``capabilities`` accepts form elicitation: an empty
    ``elicitation`` object means forms (2025-06-18), else ``form`` must be listed."""
    elicitation = capabilities.get("elicitation")
    if not isinstance(elicitation, Mapping):
        return False
    return not elicitation or "form" in elicitation
