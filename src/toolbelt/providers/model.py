"""The one interface every model client speaks, and the neutral transcript it carries.

The agent loop drives Anthropic Messages, OpenAI Chat Completions, OpenAI Responses, Gemini,
any OpenAI-compatible server, and open models whose tool calls arrive as plain text, through
``ModelClient.stream(request)``. The transcript is kept in toolbelt's own terms (user text and
images, an assistant turn with its parsed tool calls, the executor's ``ToolCallResult``s) so the
loop never branches on a provider; each client converts it to its wire format on every request,
and keeps what a provider needs replayed verbatim (thinking signatures, Responses reasoning
items, Gemini thought signatures) in ``AssistantMessage.provider_data``.

A stream yields ``TextDelta`` and ``ToolCallStarted`` as they arrive and ends with exactly one
``TurnComplete`` holding the whole assistant message, the turn's usage and why it stopped. A
provider failure raises ``ProviderError`` whose message tells the user what to fix. Nothing here
imports a provider SDK.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from toolbelt.core.content import ContentBlock
from toolbelt.core.errors import ProviderError, ProviderErrorKind
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool

__all__ = [
    "AssistantMessage",
    "InvalidToolCall",
    "Message",
    "ModelClient",
    "ModelEvent",
    "ModelRequest",
    "ModelToolCall",
    "ProviderError",
    "ProviderErrorKind",
    "StopReason",
    "TextDelta",
    "ToolCallStarted",
    "ToolResultsMessage",
    "ToolSearchSide",
    "TurnComplete",
    "Usage",
    "UserMessage",
]

ToolSearchSide = Literal["toolbelt", "provider"]
"""Who runs the search over deferred tools in a provider's native form: toolbelt's
``tool_search`` (exact names first, ``select:``), or the provider's own search."""

StopReason = Literal[
    "end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn", "other"
]
"""Why a turn ended, in one vocabulary for every provider. ``pause_turn``: the provider paused
a long turn of its own server tools (Anthropic's tool search); sending the transcript, which
ends with the paused turn, again lets it go on."""


@dataclass(frozen=True, slots=True)
class UserMessage:
    """What the person (or the loop on their behalf) says: text and images."""

    content: tuple[ContentBlock, ...]
    role: Literal["user"] = "user"


@dataclass(frozen=True, slots=True)
class ModelToolCall:
    """A call the model made whose arguments parsed into an object."""

    id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class InvalidToolCall:
    """A call the model tried to make that must not run: arguments that are not a JSON object,
    a text call that does not parse, a call cut off by ``max_tokens`` (``truncated``).

    The loop answers it with an error result whose text is ``problem`` — one sentence naming
    what was wrong and the shape that works — so the transcript stays well formed and the model
    can correct itself.
    """

    id: str
    name: str
    raw: str
    problem: str
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """One assistant turn: its visible text, its calls, and what the provider needs replayed."""

    text: str
    tool_calls: tuple[ModelToolCall, ...] = ()
    invalid_calls: tuple[InvalidToolCall, ...] = ()
    provider_data: Mapping[str, Any] | None = None
    """Opaque per-provider items sent back unchanged with the next request (never shown)."""
    role: Literal["assistant"] = "assistant"


@dataclass(frozen=True, slots=True)
class ToolResultsMessage:
    """The answers to one assistant turn's calls, one per call, in the calls' order."""

    results: tuple[ToolCallResult, ...]
    role: Literal["tool"] = "tool"


Message = UserMessage | AssistantMessage | ToolResultsMessage


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens one turn (or a sum of turns) used; cache figures where the provider reports them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @classmethod
    def summed(cls, usages: Iterable[Usage]) -> Usage:
        """The tokens of several turns together (a run's, a session's, a subagent's)."""
        total = cls()
        for usage in usages:
            total = total + usage
        return total


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """Everything one turn needs: the system prompt, the transcript so far, the tools offered."""

    system: str
    messages: tuple[Message, ...]
    tools: tuple[Tool[Any], ...] = ()
    max_tokens: int = 8192
    temperature: float | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    """Provider-specific extras a caller opts into (e.g. reasoning effort); clients ignore
    keys they do not know."""
    deferred_tools: tuple[Tool[Any], ...] = ()
    """Every tool held back behind ``tool_search`` (loaded or not, in catalog order), when
    the provider's native form of deferral is wanted. A client with one (Anthropic Messages,
    OpenAI Responses) sends them marked ``defer_loading`` — or lets its search hand them over —
    so the provider keeps them out of the prompt until a search finds them; every other client
    ignores this, since ``tools`` already holds ``tool_search`` and what it loaded (the proxy
    form)."""
    tool_search: ToolSearchSide = "toolbelt"
    """Whose search finds ``deferred_tools`` in the native form."""


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the assistant's visible text, as it streams."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """A tool call's name is known (its arguments are still streaming): for UIs."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class TurnComplete:
    """The last event of every successful stream."""

    message: AssistantMessage
    usage: Usage
    stop_reason: StopReason


ModelEvent = TextDelta | ToolCallStarted | TurnComplete


class ModelClient(ABC):
    """One model at one provider, able to stream a turn; cancel by cancelling the task."""

    model: str
    """The name as the user gave it, ``provider:model``."""
    context_window: int
    """Tokens the model accepts in one request, for the loop's overflow guard."""

    @abstractmethod
    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Send ``request`` and yield its events; the last is one ``TurnComplete``.

        Retries of rate limits and overloads happen inside (honouring ``retry-after``); what
        cannot be retried raises ``ProviderError``.
        """

    async def aclose(self) -> None:  # noqa: B027 - clients without connections close nothing
        """Close the client's connections."""
