"""What ``toolbelt run`` prints: one stderr line per tool call as it ends, a note when the
loop stopped short of an answer, and ``--json``'s whole transcript with usage."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from toolbelt.agent import AgentEvent, AgentResult, ModelTurn
from toolbelt.cli.commands import result_as_json
from toolbelt.core.content import ContentBlock
from toolbelt.core.events import CallState, StateEvent
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.providers.model import AssistantMessage, Message, ModelToolCall, Usage, UserMessage

__all__ = [
    "ActivityLog",
    "duration",
    "stop_note",
    "target_of",
    "tool_call_json",
    "transcript_json",
    "usage_json",
]

_TARGET_KEYS = ("path", "command", "pattern", "url", "id", "query", "thought", "description")
_MAX_TARGET = 80


class ActivityLog:
    """Writes ``name target: state (time)`` for each call when it reaches a final state: the
    time it ran (a wait for the person's approval does not count) and, for a refusal or an
    error, the first line of why. ``show`` runs each write (``TerminalOwner.show`` where the
    stream is the terminal a prompt may be waiting on: the line waits for the answer)."""

    def __init__(
        self, stream: TextIO, show: Callable[[Callable[[], None]], None] | None = None
    ) -> None:
        self.stream = stream
        self._show = show
        self._targets: dict[str, str] = {}
        self._started: dict[str, float] = {}

    def handle(self, event: AgentEvent) -> None:
        if isinstance(event, ModelTurn):
            for call in event.message.tool_calls:
                self._targets[call.id] = target_of(call.arguments)
            for invalid in event.message.invalid_calls:
                self._targets[invalid.id] = "(malformed call)"
        elif isinstance(event, StateEvent):
            if event.state in (CallState.PENDING, CallState.EXECUTING):
                self._started[event.call_id] = event.at
            elif event.state.terminal:
                seconds = max(0.0, event.at - self._started.pop(event.call_id, event.at))
                target = self._targets.pop(event.call_id, "")
                name = escape_for_terminal(event.tool)
                line = f"{name} {target}" if target else name
                why = ""
                if event.detail.strip():
                    why = f" — {escape_for_terminal(event.detail.strip().splitlines()[0])[:200]}"
                self._write(f"{line}: {event.state.value} ({duration(seconds)}){why}\n")

    def _write(self, text: str) -> None:
        def write() -> None:
            self.stream.write(text)
            self.stream.flush()

        if self._show is None:
            write()
        else:
            self._show(write)


def target_of(arguments: Mapping[str, Any]) -> str:
    """What a call acts on, for a one-line log: its path, command, pattern or URL."""
    for key in _TARGET_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            text = escape_for_terminal(value)
            return text if len(text) <= _MAX_TARGET else text[: _MAX_TARGET - 1] + "…"
    return ""


def stop_note(result: AgentResult, *, max_turns: int) -> str | None:
    """One line for standard error when the loop ended without the model's final answer."""
    notes = {
        "max_turns": f"stopped after {max_turns} turns (--max-turns); the task may be unfinished",
        "malformed_calls": "stopped: the model kept making tool calls that could not run",
        "max_tokens": "the model's reply was cut off by its output token limit",
        "refusal": "the model refused the task",
        "cancelled": "cancelled",
    }
    return notes.get(result.stop)


def transcript_json(result: AgentResult, *, model: str) -> dict[str, Any]:
    """The whole run for ``--json``: the answer, why it stopped, usage, cost, turns and
    every message (tool results as ``toolbelt call --json`` shows them)."""
    return {
        "model": model,
        "text": result.text,
        "stop": result.stop,
        "usage": usage_json(result.usage),
        "cost_usd": result.cost,
        "turns": [
            {
                "usage": usage_json(turn.usage),
                "cost_usd": turn.cost,
                "stop_reason": turn.stop_reason,
                "tool_calls": turn.tool_calls,
                "invalid_calls": turn.invalid_calls,
            }
            for turn in result.turns
        ],
        "messages": [_message(message) for message in result.messages],
    }


def _message(message: Message) -> dict[str, Any]:
    if isinstance(message, UserMessage):
        return {"role": "user", "content": [_block(block) for block in message.content]}
    if isinstance(message, AssistantMessage):
        return {
            "role": "assistant",
            "text": message.text,
            "tool_calls": [tool_call_json(call) for call in message.tool_calls],
            "invalid_calls": [
                {"id": c.id, "name": c.name, "raw": c.raw, "problem": c.problem}
                for c in message.invalid_calls
            ],
        }
    return {"role": "tool", "results": [result_as_json(r) for r in message.results]}


def _block(block: ContentBlock) -> dict[str, Any]:
    if block.type == "text":
        return {"type": "text", "text": block.text}
    return {"type": "image", "mime_type": block.mime_type, "data": block.data}


def tool_call_json(call: ModelToolCall) -> dict[str, Any]:
    """A call the model made, as the JSON outputs show it (a transcript's, a turn event's)."""
    return {"id": call.id, "name": call.name, "arguments": dict(call.arguments)}


def usage_json(usage: Usage) -> dict[str, int]:
    """The token counts under their field names (``input_tokens``, ``cache_read_tokens`` …)."""
    return dataclasses.asdict(usage)


def duration(seconds: float) -> str:
    """``12 ms`` under ten seconds, ``12.3 s`` above."""
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"
