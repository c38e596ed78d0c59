"""One model reply, streamed: its events passed on as they come, its visible text kept so a
cancelled reply still leaves what the model said, and the iterator always closed."""

from __future__ import annotations

from collections.abc import Callable

from toolbelt.providers.model import (
    ModelClient,
    ModelRequest,
    ProviderError,
    TextDelta,
    ToolCallStarted,
    TurnComplete,
)

__all__ = ["stream_reply"]


async def stream_reply(
    model: ModelClient,
    request: ModelRequest,
    emit: Callable[[TextDelta | ToolCallStarted], None],
    text: list[str],
) -> TurnComplete:
    """Stream ``request``, emitting every event but the last and appending the text deltas
    to ``text``; raises ``ProviderError`` when the stream ends without a ``TurnComplete``."""
    events = model.stream(request)
    try:
        async for event in events:
            if isinstance(event, TurnComplete):
                return event
            if isinstance(event, TextDelta):
                text.append(event.text)
            emit(event)
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()
    raise ProviderError(
        f"The stream from {model.model} ended before the turn was complete; try again.",
        kind="server",
    )
