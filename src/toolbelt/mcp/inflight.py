"""One record per ``tools/call`` the MCP server is running: everything that lives as long as it.

A call in flight has a cancel scope (``notifications/cancelled``, a closed HTTP stream), the
route its messages take (its progress, the questions it asks the user and its answer go on
its request's stream), the progress token the client gave and how many notifications went out,
the era it came in (a 2026-07-28 request carries the client's capabilities itself), the user's
answer a retried call brought, and — in that era — the question it must be answered with
instead of a result. Kept in one object, created when the request arrives and dropped when it
is answered, none of it can outlive the call or be left behind in a map of its own.

The permission requester and the user channel reach a call's record through ``ClientChannel``
(``mcp.requester``) by the executor's call id, never through the server itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import anyio

__all__ = ["InFlightCall", "InputRequest", "call_fingerprint"]


@dataclass(frozen=True, slots=True)
class InputRequest:
    """The question a 2026-07-28 call is answered with (``input_required``) instead of a result."""

    key: str
    """The name of the answer the client sends back in ``inputResponses``."""
    elicitation: dict[str, Any]
    """The ``elicitation/create`` parameters: the form the client shows its user."""


@dataclass(slots=True)
class InFlightCall:
    """A ``tools/call`` from its arrival to its answer."""

    request_id: Any
    """The id the answer carries, which is also the route of every message of the call (over
    HTTP the server-wide key the door gave the request, not the client's own id)."""
    call_id: str
    """The executor's id for the call (``server.call_id_of``): progress events and permission
    requests name the call by it."""
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    progress_token: Any = None
    """The client's ``progressToken``; None when it asked for no progress."""
    progress_sent: int = 0
    modern: dict[str, Any] | None = None
    """The capabilities a 2026-07-28 request carried in its ``_meta``; None in the session era."""
    fingerprint: tuple[str, str] | None = None
    """2026-07-28: the tool name and the arguments as the client sent them
    (``call_fingerprint``), so a retry's answer is accepted only for the very call that asked."""
    answer: tuple[str, dict[str, Any]] | None = None
    """The user's answer a retried 2026-07-28 call carried and the key it was asked under
    (``permission``, or a tool's ``question``), until whoever asked takes it."""
    input_request: InputRequest | None = None
    """Set when the call must be answered with ``input_required`` (the 2026-07-28 way to ask)."""

    @property
    def route(self) -> Any:
        """What the outbox routes the call's messages by."""
        return self.request_id

    def take_answer(self, key: str) -> dict[str, Any] | None:
        """The answer the retried call carried for ``key``, once."""
        if self.answer is None or self.answer[0] != key:
            return None
        answer, self.answer = self.answer[1], None
        return answer

    def ask_by_retry(self, key: str, elicitation: dict[str, Any]) -> None:
        """Answer this call with ``input_required`` carrying ``elicitation``; the client
        retries it with the user's answer under ``key``."""
        self.input_request = InputRequest(key, elicitation)

    def next_progress(self) -> int:
        """The number of the next progress notification (1, 2, ...)."""
        self.progress_sent += 1
        return self.progress_sent


def call_fingerprint(name: str, arguments: Any) -> tuple[str, str]:
    """A tool name and arguments as one comparable value (key order does not matter)."""
    return name, json.dumps(arguments, sort_keys=True)
