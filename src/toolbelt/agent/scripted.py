"""``ScriptedModel``: a ModelClient that plays back replies written in advance, for tests.

Each reply is an ``AssistantMessage`` or a function of the request that returns one (sync or
async — an async one can wait on an event, to cancel a run at a chosen point). It streams the
text as one ``TextDelta``, a ``ToolCallStarted`` per call, then ``TurnComplete`` with the
reply's usage; every request is kept in ``requests`` so a test can check what the model saw.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

from toolbelt.providers.model import (
    AssistantMessage,
    ModelClient,
    ModelEvent,
    ModelRequest,
    StopReason,
    TextDelta,
    ToolCallStarted,
    TurnComplete,
    Usage,
)

__all__ = ["Reply", "ScriptedModel"]

_USAGE = Usage(input_tokens=100, output_tokens=10)

Reply = (
    AssistantMessage
    | Callable[[ModelRequest], AssistantMessage]
    | Callable[[ModelRequest], Awaitable[AssistantMessage]]
)


class ScriptedModel(ModelClient):
    """Answers each request with the next scripted reply."""

    def __init__(
        self,
        replies: Sequence[Reply],
        *,
        usage: Usage = _USAGE,
        context_window: int = 200_000,
        stop_reason: StopReason | None = None,
        model: str = "scripted:model",
    ) -> None:
        """``stop_reason`` None reports ``tool_use`` for a reply with calls, else ``end_turn``."""
        self.replies = list(replies)
        self.usage = usage
        self.context_window = context_window
        self.stop_reason = stop_reason
        self.model = model
        self.requests: list[ModelRequest] = []
        self.closed = False

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        if not self.replies:
            raise AssertionError(f"no scripted reply left for request {len(self.requests)}")
        reply = self.replies.pop(0)
        if not isinstance(reply, AssistantMessage):
            produced = reply(request)
            reply = await produced if inspect.isawaitable(produced) else produced
        if reply.text:
            yield TextDelta(reply.text)
        for call in reply.tool_calls:
            yield ToolCallStarted(call.id, call.name)
        calls = reply.tool_calls or reply.invalid_calls
        stop = self.stop_reason or ("tool_use" if calls else "end_turn")
        yield TurnComplete(reply, self.usage, stop)

    async def aclose(self) -> None:
        self.closed = True
