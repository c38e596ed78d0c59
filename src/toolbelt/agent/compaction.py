"""Make room in a long conversation: older turns summarised by the model and replaced.

When the transcript nears the model's window (``Agent(compact_at=0.8)``: that share of it) —
or on request (``Agent.compact``, the chat's ``/compact [focus]``) — the turns before a cut are
sent to the same model with the same system prompt and tools (so the provider's prompt cache
still holds them) and one more user message asking for a summary. The transcript becomes:

1. one user message: the summary, the list of files the calls changed (taken from the calls,
   not the model's memory) and every request the user made, verbatim (a later compaction
   carries them over, never summarises them);
2. the most recent turns, kept whole when the compaction was automatic (up to
   ``KEEP_SHARE`` of the window), cut where an assistant turn begins so every call keeps its
   answer.

The system prompt and the tools are not touched, so the cached prefix of every later request
stays the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolbelt.agent.context_guard import message_tokens
from toolbelt.core.content import TextBlock
from toolbelt.core.events import CallState
from toolbelt.core.tool import Tool
from toolbelt.providers.model import (
    AssistantMessage,
    Message,
    ModelClient,
    ModelRequest,
    ProviderError,
    ToolResultsMessage,
    TurnComplete,
    Usage,
    UserMessage,
)

__all__ = [
    "KEEP_SHARE",
    "Compacted",
    "CompactionPlan",
    "closed_transcript",
    "files_changed",
    "plan_compaction",
    "summarise",
]

KEEP_SHARE = 0.1
"""An automatic compaction keeps the latest turns whole up to this share of the window."""
SUMMARY_MARK = "[This conversation was compacted. Summary of the earlier part:]"
REQUEST_MARK = "[A request of the user, verbatim:]"
_WRITING_TOOLS = ("write_file", "edit_file", "multi_edit", "notebook_edit")

INSTRUCTION = """\
Summarise the conversation so far for yourself, to continue the work from the summary alone: \
the earlier messages will be removed. Write plain prose and lists, no tool calls. Keep:
- what the user asked for and every constraint or preference they stated;
- the decisions made and why, and approaches tried that failed;
- the files read and changed, with what matters about each (names, functions, line numbers);
- errors met and how they were resolved;
- what is still open: the next step and the remaining tasks.
Be specific and complete rather than short."""

Trigger = Literal["auto", "manual"]


@dataclass(frozen=True, slots=True)
class Compacted:
    """A compaction happened (an ``Agent.stream`` event, also returned by ``compact``)."""

    trigger: Trigger
    tokens_before: int
    tokens_after: int
    summary: str
    usage: Usage
    cost: float | None


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """What to summarise and what to keep."""

    older: tuple[Message, ...]
    kept: tuple[Message, ...]


def plan_compaction(messages: Sequence[Message], keep_tokens: int) -> CompactionPlan | None:
    """Where to cut: the longest tail starting at an assistant turn that fits in
    ``keep_tokens`` is kept; None when nothing before it is left to summarise."""
    cut = len(messages)
    size = 0
    for index in range(len(messages) - 1, 0, -1):
        size += message_tokens(messages[index])
        if size > keep_tokens:
            break
        if isinstance(messages[index], AssistantMessage):
            cut = index
    older = tuple(messages[:cut])
    if not older or (len(older) == 1 and _is_summary(older[0])):
        return None
    return CompactionPlan(older, tuple(messages[cut:]))


async def summarise(
    model: ModelClient,
    *,
    system: str,
    tools: tuple[Tool[Any], ...],
    plan: CompactionPlan,
    focus: str | None,
    max_tokens: int,
) -> tuple[UserMessage, TurnComplete]:
    """The summary message that replaces ``plan.older``, and the turn that wrote it."""
    instruction = INSTRUCTION
    if focus:
        instruction += f"\nPay particular attention to: {focus}"
    request = ModelRequest(
        system=system,
        messages=(*closed_transcript(plan.older), UserMessage((TextBlock(instruction),))),
        tools=tools,
        max_tokens=max_tokens,
    )
    complete: TurnComplete | None = None
    events = model.stream(request)
    try:
        async for event in events:
            if isinstance(event, TurnComplete):
                complete = event
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()
    if complete is None or not complete.message.text.strip():
        raise ProviderError(
            f"{model.model} returned no summary, so the conversation was not compacted; "
            "try /compact again or /clear to start afresh.",
            kind="server",
        )
    return summary_message(complete.message.text.strip(), plan.older), complete


def summary_message(summary: str, older: Sequence[Message]) -> UserMessage:
    """The user message standing for ``older``: the summary, the files changed, the requests."""
    text = f"{SUMMARY_MARK}\n\n{summary}"
    changed = files_changed(older)
    if changed:
        text += "\n\nFiles changed so far: " + ", ".join(changed)
    text += (
        "\n\nThe user's requests follow verbatim. Continue the work from here: the earlier "
        "messages are gone, so read a file again before editing it."
    )
    requests = [TextBlock(f"{REQUEST_MARK}\n{r}") for r in user_requests(older)]
    return UserMessage((TextBlock(text), *requests))


def user_requests(messages: Sequence[Message]) -> list[str]:
    """What the user asked, in order: their prompts' text, and the requests an earlier
    summary carried."""
    found: list[str] = []
    for message in messages:
        if not isinstance(message, UserMessage):
            continue
        texts = [b.text for b in message.content if isinstance(b, TextBlock)]
        if _is_summary(message):
            found += [
                t.removeprefix(REQUEST_MARK + "\n") for t in texts if t.startswith(REQUEST_MARK)
            ]
        elif texts:
            found.append("\n".join(texts))
    return found


def _is_summary(message: Message) -> bool:
    return (
        isinstance(message, UserMessage)
        and bool(message.content)
        and isinstance(message.content[0], TextBlock)
        and message.content[0].text.startswith(SUMMARY_MARK)
    )


def files_changed(messages: Sequence[Message]) -> list[str]:
    changed: dict[str, None] = {}
    for message in messages:
        if isinstance(message, ToolResultsMessage):
            for result in message.results:
                path = (result.arguments or {}).get("path")
                if (
                    result.tool in _WRITING_TOOLS
                    and result.state is CallState.SUCCESS
                    and isinstance(path, str)
                ):
                    changed[path] = None
    return list(changed)


def closed_transcript(messages: Sequence[Message]) -> tuple[Message, ...]:
    """``messages`` ending where a user message may follow: an assistant turn whose calls
    have no answers yet (a compaction between a reply and its results never happens, but a
    cut transcript must still be valid) is dropped."""
    out = list(messages)
    while out and isinstance(out[-1], AssistantMessage) and out[-1].tool_calls:
        out.pop()
    return tuple(out)
