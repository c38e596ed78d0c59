"""Building blocks for the provider tests: requests, tool results, a recorded retry policy,
and the turns of a conversation driven through a real SDK client against the loopback fake.

Every provider is checked on the same conversations (a turn that calls tools, the turn after
their results), so what differs between the tests is only what each provider's wire looks
like: the bodies the SDK sent and what the client made of the replies."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from toolbelt.core.content import ImageBlock, TextBlock, ToolOutput
from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.model import (
    Message,
    ModelClient,
    ModelEvent,
    ModelRequest,
    ToolResultsMessage,
    TurnComplete,
    UserMessage,
)
from toolbelt.providers.open import open_model
from toolbelt.providers.retry import RetryPolicy
from toolbelt.tools import builtin_toolset

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n-fake-image").decode()
TOOLS: tuple[Tool[Any], ...] = tuple(t for t in builtin_toolset() if t.name in ("read_file", "ls"))


def user(text: str, *, image: bool = False) -> UserMessage:
    blocks: tuple[TextBlock | ImageBlock, ...] = (TextBlock(text),)
    if image:
        blocks += (ImageBlock(PNG, "image/png"),)
    return UserMessage(blocks)


def request(*messages: Message, system: str = "Be brief.", max_tokens: int = 1000) -> ModelRequest:
    return ModelRequest(system, messages, TOOLS, max_tokens=max_tokens)


def result(
    call_id: str, tool: str, text: str, *, error: bool = False, image: bool = False
) -> ToolCallResult:
    blocks: tuple[TextBlock | ImageBlock, ...] = (TextBlock(text),)
    if image:
        blocks += (ImageBlock(PNG, "image/png"),)
    state = CallState.ERROR if error else CallState.SUCCESS
    return ToolCallResult(call_id, tool, state, ToolOutput(blocks, is_error=error))


@dataclass
class Sleeps:
    """A retry policy whose waits are recorded instead of slept."""

    waits: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)

    def policy(self, **limits: Any) -> RetryPolicy:
        return RetryPolicy(sleep=self, **limits)


async def run_turn(client: ModelClient, req: ModelRequest) -> tuple[list[ModelEvent], TurnComplete]:
    """Every event of one turn, and its final ``TurnComplete`` (which must come last, once)."""
    events = [event async for event in client.stream(req)]
    assert isinstance(events[-1], TurnComplete)
    assert sum(isinstance(e, TurnComplete) for e in events) == 1
    return events, events[-1]


@asynccontextmanager
async def model(spec: str, **options: Any) -> AsyncIterator[ModelClient]:
    """``open_model`` whose client is closed at the end (its connections with it)."""
    client = open_model(spec, **options)
    try:
        yield client
    finally:
        await client.aclose()


async def one_turn(req: ModelRequest, spec: str, **options: Any) -> TurnComplete:
    """Open ``spec``, run one turn, close the client: the turn's ``TurnComplete``."""
    async with model(spec, **options) as client:
        return (await run_turn(client, req))[1]


async def answer_calls(
    client: ModelClient, first: ModelRequest, done: TurnComplete, *results: ToolCallResult
) -> TurnComplete:
    """The turn after ``done``: ``first``'s messages, the model's reply and ``results``."""
    after = request(*first.messages, done.message, ToolResultsMessage(results))
    return (await run_turn(client, after))[1]


async def parallel_calls_answered(
    client: ModelClient, first: ModelRequest, ids: tuple[str, str]
) -> tuple[list[ModelEvent], TurnComplete, TurnComplete]:
    """Turn one, whose reply calls read_file and ls at once (ids ``ids``), then the turn after
    read_file answered with text and an image and ls with an error: turn one's events, its
    ``TurnComplete`` and the final one."""
    events, done = await run_turn(client, first)
    read, listed = ids
    final = await answer_calls(
        client,
        first,
        done,
        result(read, "read_file", "a picture", image=True),
        result(listed, "ls", "permission denied", error=True),
    )
    return events, done, final
