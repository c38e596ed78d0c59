"""The conversation an agent carries from turn to turn and from run to run, with a running
estimate of its size in tokens (``context_guard``'s bytes / 4, corrected by what the provider
reports after each turn).

Whoever keeps the conversation elsewhere (the session's JSONL file) follows it through
``observers``: each change — a message appended, an unanswered prompt replaced by the merged
one, the whole transcript replaced by a compaction — is told as it happens, so what is saved is
what the model will be sent."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from toolbelt.agent.context_guard import message_tokens
from toolbelt.core.content import ContentBlock, TextBlock
from toolbelt.providers.model import Message, Usage, UserMessage

__all__ = ["Change", "Transcript", "TranscriptObserver"]

Change = Literal["append", "replace_last", "reset"]
"""``append``: one message added; ``replace_last``: the last message replaced (a prompt merged
into the one left unanswered); ``reset``: every message replaced (compaction, ``/clear``)."""

TranscriptObserver = Callable[[Change, Sequence[Message]], None]


class Transcript:
    """The messages so far and how many tokens they take."""

    def __init__(self, messages: Sequence[Message] = ()) -> None:
        self.messages: list[Message] = list(messages)
        self._estimate = sum(map(message_tokens, self.messages))
        self._reported = 0  # prompt + reply tokens of the last turn, as the provider counted
        self._estimate_at_report = 0
        self.observers: list[TranscriptObserver] = []
        """Told of every change, in order (``Change``)."""

    def add_prompt(self, prompt: str | Sequence[ContentBlock]) -> None:
        """Append the user's prompt; a prompt that was never answered (the run was cancelled,
        or the provider failed) takes this one in, so user and assistant turns alternate."""
        blocks = (TextBlock(prompt),) if isinstance(prompt, str) else tuple(prompt)
        previous = self.messages[-1] if self.messages else None
        if isinstance(previous, UserMessage):
            self.messages.pop()
            self._estimate -= message_tokens(previous)
            merged = UserMessage((*previous.content, *blocks))
            self.messages.append(merged)
            self._estimate += message_tokens(merged)
            self._tell("replace_last", (merged,))
            return
        self.append(UserMessage(blocks))

    def append(self, message: Message) -> None:
        """Add ``message`` and its estimated tokens."""
        self.messages.append(message)
        self._estimate += message_tokens(message)
        self._tell("append", (message,))

    def reset(self, messages: Sequence[Message]) -> None:
        """Replace the whole conversation (a compaction's summary and the turns it kept, or
        nothing for a fresh start); the provider's last count no longer applies."""
        self.messages = list(messages)
        self._estimate = sum(map(message_tokens, self.messages))
        self._reported = 0
        self._estimate_at_report = 0
        self._tell("reset", tuple(self.messages))

    def _tell(self, change: Change, messages: Sequence[Message]) -> None:
        for observer in self.observers:
            observer(change, messages)

    def report(self, usage: Usage) -> None:
        """What the provider counted for the turn just appended (prompt and reply)."""
        self._reported = (
            usage.input_tokens
            + usage.cache_read_tokens
            + usage.cache_write_tokens
            + usage.output_tokens
        )
        self._estimate_at_report = self._estimate

    def tokens(self) -> int:
        """Tokens the messages take: the estimate, or the provider's last count plus the
        estimate of what came since, whichever is larger (the count includes the system
        prompt and tools, so it is the more pessimistic when the estimate runs low)."""
        since = self._estimate - self._estimate_at_report
        return max(self._estimate, self._reported + since)
