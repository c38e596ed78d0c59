"""The script a fake provider plays: one ``Reply`` per request, as plain data.

A reply is written once, provider-neutral, and the server renders it in the wire format of
the endpoint the SDK called. Scripts are JSON-able (``Reply.from_dict``), so a test can write
them to a file for a ``toolbelt run`` subprocess.

Example: ``{"text": "Reading it.", "calls": [{"name": "read_file", "arguments": {"path":
"a.txt"}}]}`` then ``{"text": "Done."}``. A reply with ``status`` (429, 529, 500, 404) is an
error; ``headers`` go with it (``{"retry-after": "2"}``). ``arguments`` given as a string are
sent verbatim (to script invalid JSON); ``stop: "max_tokens"`` cuts the turn off; ``hang``
streams the first text and then holds the connection open until the client drops it;
``stream_error`` fails an Anthropic stream after it started.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Reply", "ScriptedCall"]


@dataclass(frozen=True)
class ScriptedCall:
    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    text: str = ""
    calls: tuple[ScriptedCall, ...] = ()
    stop: str | None = None
    """``end_turn``, ``tool_use`` or ``max_tokens``; by default ``tool_use`` iff there are calls."""
    input_tokens: int = 100
    output_tokens: int = 20
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    thinking: str | None = None
    """Reasoning to send before the answer, with ``signature`` (what must be replayed)."""
    signature: str = "c2lnbmF0dXJl"
    status: int = 200
    error: str = "scripted failure"
    headers: Mapping[str, str] = field(default_factory=dict)
    hang: bool = False
    chat_quirk: str | None = None
    """Chat Completions only, how some compatible servers stream calls: ``repeat_id_name`` (id
    and name in every fragment) or ``name_late`` (id and arguments before the name)."""
    provider_items: tuple[Mapping[str, Any], ...] = ()
    """Items of the provider's own sent before the text and calls, as the API writes them:
    Anthropic content blocks (a ``server_tool_use``, whose ``input`` streams as JSON deltas;
    a ``tool_search_tool_result``), Responses output items (a ``tool_search_call``)."""
    stream_error: str | None = None
    """Anthropic only: an error type (``overloaded_error``) sent as an ``event: error`` frame
    right after ``message_start``, inside a 200 stream, as the API does under load."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reply:
        fields = dict(data)
        fields["calls"] = tuple(ScriptedCall(**call) for call in fields.get("calls", ()))
        fields["provider_items"] = tuple(fields.get("provider_items", ()))
        return cls(**fields)

    @property
    def stop_reason(self) -> str:
        return self.stop or ("tool_use" if self.calls else "end_turn")

    def call_id(self, index: int, prefix: str) -> str:
        call = self.calls[index]
        return call.id or f"{prefix}{index + 1}"

    def raw_arguments(self, index: int) -> str:
        import json

        arguments = self.calls[index].arguments
        return arguments if isinstance(arguments, str) else json.dumps(arguments)
