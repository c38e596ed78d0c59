"""``TextToolCallClient``: any ``ModelClient`` made to call tools through plain text.

For a model served without a tool parser, the request goes to the inner client with no native
tools: the tools are described in the system prompt the way the model's family was trained,
earlier calls are replayed as the text the model wrote, and results come back in the family's
result shape. The inner stream's text is parsed as it arrives: visible text streams on, calls
are announced and returned in ``TurnComplete`` with values coerced by each tool's schema. In
``auto`` mode the request keeps its native tools and only text calls the model wrote instead
are recognised.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from typing import Any

from toolbelt.core.content import ImageBlock, TextBlock
from toolbelt.providers.framing import neutralise_values
from toolbelt.providers.model import (
    AssistantMessage,
    Message,
    ModelClient,
    ModelEvent,
    ModelRequest,
    ProviderError,
    StopReason,
    TextDelta,
    ToolCallStarted,
    ToolResultsMessage,
    TurnComplete,
    UserMessage,
)
from toolbelt.providers.schema import neutral_schema
from toolbelt.providers.textcalls.family import Family
from toolbelt.providers.textcalls.registry import text_call_family
from toolbelt.providers.textcalls.stream import TextCallParser, new_call_id
from toolbelt.providers.untrusted import neutralised_request

__all__ = ["PROVIDER_DATA_KEY", "TextToolCallClient"]

PROVIDER_DATA_KEY = "text_tool_calls"
"""Where an assistant message keeps the exact text the model wrote (and the inner client's own
``provider_data`` under ``inner``), so history replays verbatim."""


class TextToolCallClient(ModelClient):
    """Wraps ``inner`` so its model's text tool calls (format ``family``) become calls."""

    def __init__(
        self,
        inner: ModelClient,
        family: str | Family,
        *,
        new_id: Callable[[], str] = new_call_id,
    ) -> None:
        self.inner = inner
        self.family = text_call_family(family) if isinstance(family, str) else family
        self.model = inner.model
        self.context_window = inner.context_window
        self._new_id = new_id

    @property
    def auto(self) -> bool:
        return self.family.name == "auto"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        schemas = {tool.name: neutral_schema(tool) for tool in request.tools}
        parser = TextCallParser(self.family, schemas, new_id=self._new_id)
        learn = getattr(self.inner, "learn_special_tokens", None)
        if learn is not None and not self.auto:
            await learn()  # the server's own tokens, before this request is neutralised
        inner_request = request if self.auto else self.text_request(request)
        raw: list[str] = []
        complete: TurnComplete | None = None
        events = self.inner.stream(inner_request)
        try:
            async for event in events:
                if isinstance(event, TextDelta):
                    raw.append(event.text)
                    for parsed in parser.feed(event.text):
                        if isinstance(parsed, TextDelta | ToolCallStarted):
                            yield parsed
                elif isinstance(event, ToolCallStarted):
                    yield event
                else:
                    complete = event
        finally:  # a cancelled turn closes the inner stream (and its connection) at once
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()
        if complete is None:
            raise ProviderError(
                f"{self.model} ended its stream without finishing the turn; try again",
                kind="server",
            )
        for parsed in parser.finish(natural_stop=complete.stop_reason != "max_tokens"):
            if isinstance(parsed, TextDelta | ToolCallStarted):
                yield parsed
        yield self._complete(complete, parser, "".join(raw))

    def _complete(self, inner: TurnComplete, parser: TextCallParser, raw: str) -> TurnComplete:
        message = inner.message
        if self.auto and not parser.calls and not parser.invalid:
            if parser.text == message.text:
                return inner
            # only markup was taken out (a Harmony channel header): the text the UI was shown
            return replace(inner, message=replace(message, text=parser.text))
        calls = (*message.tool_calls, *parser.calls)
        invalid = (*message.invalid_calls, *parser.invalid)
        provider_data: Mapping[str, Any] | None = message.provider_data
        if not self.auto:
            provider_data = {
                PROVIDER_DATA_KEY: {"family": self.family.name, "raw": raw},
                "inner": message.provider_data,
            }
        stop: StopReason = inner.stop_reason
        if calls or any(not call.truncated for call in invalid):
            stop = "tool_use"
        text_message = AssistantMessage(parser.text, calls, invalid, provider_data)
        return TurnComplete(text_message, inner.usage, stop)

    def text_request(self, request: ModelRequest) -> ModelRequest:
        """``request`` as the inner client receives it: no native tools, everything as text,
        untrusted text neutralised (the family's own markers frame it afterwards)."""
        request = neutralised_request(request)
        system = request.system
        if request.tools:
            tools = self.family.render_tools(request.tools)
            system = f"{system}\n\n{tools}" if system else tools
        messages: list[Message] = []
        for message in request.messages:
            converted = self._as_text(message)
            previous = messages[-1] if messages else None
            if isinstance(converted, UserMessage) and isinstance(previous, UserMessage):
                # results followed by the person's words: one user turn, as templates expect
                gap = (TextBlock("\n\n"),)
                messages[-1] = UserMessage((*previous.content, *gap, *converted.content))
            else:
                messages.append(converted)
        return replace(request, system=system, messages=tuple(messages), tools=())

    def _as_text(self, message: Message) -> Message:
        if isinstance(message, ToolResultsMessage):
            images = [
                block
                for result in message.results
                for block in result.output.content
                if isinstance(block, ImageBlock)
            ]
            text = self.family.render_results(message.results)
            return UserMessage((TextBlock(text), *images))
        if isinstance(message, AssistantMessage):
            return self._assistant_as_text(message)
        return message

    def _assistant_as_text(self, message: AssistantMessage) -> AssistantMessage:
        data = message.provider_data or {}
        saved = data.get(PROVIDER_DATA_KEY)
        if isinstance(saved, Mapping) and saved.get("family") == self.family.name:
            return AssistantMessage(str(saved.get("raw", "")), provider_data=data.get("inner"))
        # A turn from another format or provider: render its calls the way this family writes.
        parts = [message.text] if message.text else []
        if message.tool_calls:
            calls = [
                replace(c, arguments=neutralise_values(c.arguments)) for c in message.tool_calls
            ]
            parts.append(self.family.render_calls(calls))
        parts.extend(call.raw for call in message.invalid_calls if call.raw)
        inner_data = data.get("inner") if isinstance(saved, Mapping) else None
        return AssistantMessage("\n".join(parts), provider_data=inner_data)

    async def aclose(self) -> None:
        await self.inner.aclose()
