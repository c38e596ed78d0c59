"""A server's question (MCP elicitation) put to the person through our user channel.

The question goes to the channel of the call that is waiting on the server — the person the
model is working for — and a session without a person (``NoUser``) declines, so the server can
go on without an answer instead of waiting for one that never comes.
"""

from __future__ import annotations

import mcp_types as types

from toolbelt.core.errors import ToolError
from toolbelt.core.user import Question, UserChannel

__all__ = ["ask_person"]


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
