"""A server's question (MCP elicitation) put to the person through our user channel.

The question goes to the channel of the call that is waiting on the server — the person the
model is working for — and a session without a person (``NoUser``) declines, so the server can
go on without an answer instead of waiting for one that never comes.

Which call asks is not always known: over stdio a question carries no link to our request,
and the SDK's client does not pass on the one streamable HTTP has (the transport reads it, the
elicitation callback's context holds only the question's own id). The HTTP door shares one
connection per server between all its sessions, so two people's calls can be in flight on it
at once. A question is therefore put only to a person it can be for: while every call in flight
on the connection belongs to one session (one person, however many calls), to that session's
latest call; while calls of several sessions are in flight, to nobody: the server gets
"decline" rather than one person reading, or answering, another's question.
"""

from __future__ import annotations

from collections.abc import Sequence

import mcp_types as types

from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.user import NoUser, Question, UserChannel

__all__ = ["ask_person", "asked_person"]


def asked_person(callers: Sequence[ToolContext]) -> UserChannel:
    """Whom a question from the server goes to, given the calls in flight on its connection
    (oldest first): the latest one's person when they all belong to one session, else nobody
    (``NoUser``, so the question is declined)."""
    sessions = {id(caller.session) for caller in callers}
    return callers[-1].user if len(sessions) == 1 else NoUser()


async def ask_person(
    server: str, user: UserChannel, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """The person's answer to ``params`` as an ``ElicitResult``."""
    if isinstance(params, types.ElicitRequestURLParams):
        question = Question(
            f"The MCP server `{server}` asks you to open {params.url}: {params.message}",
            choices=("open", "decline"),
        )
    else:
        question = Question(
            f"The MCP server `{server}` asks: {params.message}", schema=params.requested_schema
        )
    try:
        answer = await user.ask(question)
    except ToolError:  # nobody is there to answer
        return types.ElicitResult(action="decline")
    if not answer.accepted:
        return types.ElicitResult(action=answer.action)
    if isinstance(params, types.ElicitRequestURLParams):
        return types.ElicitResult(action="accept" if answer.text == "open" else "decline")
    return types.ElicitResult(action="accept", content=dict(answer.data))
