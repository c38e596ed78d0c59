"""Events: every change in a tool call's life, for UIs, logs and MCP progress.

A call is a small state machine::

    pending ──► permission_required ──► executing ──► success | error | aborted
        └──────────────────────────────────┴──────────► error | aborted

Terminal states are final and each yields exactly one result for the model. Every transition,
every progress message and every diff a tool produces is published as an event on the
executor's ``EventBus``; subscribers are plain callables and must not block.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = [
    "CallState",
    "DiffEvent",
    "Event",
    "EventBus",
    "EventSink",
    "ProgressEvent",
    "StateEvent",
]


class CallState(StrEnum):
    """Where a tool call is in its life; the last four are terminal."""

    PENDING = "pending"
    PERMISSION_REQUIRED = "permission_required"
    EXECUTING = "executing"
    SUCCESS = "success"
    ERROR = "error"
    ABORTED = "aborted"
    NEEDS_INPUT = "needs_input"
    """The call did not run: the user's answer comes with a retry of the same call (MCP's
    ``input_required``); neither a success nor an error."""

    @property
    def terminal(self) -> bool:
        """True for success, error, aborted and needs_input: no further change can follow."""
        return self in (
            CallState.SUCCESS,
            CallState.ERROR,
            CallState.ABORTED,
            CallState.NEEDS_INPUT,
        )


@dataclass(frozen=True, slots=True)
class StateEvent:
    """A call moved to a new state (``detail`` carries e.g. the permission prompt's reason)."""

    call_id: str
    tool: str
    state: CallState
    at: float = field(default_factory=time.time)
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """A running tool reports progress: a line of output, a file count, a fraction done."""

    call_id: str
    tool: str
    message: str
    fraction: float | None = None
    data: Mapping[str, Any] | None = None
    at: float = field(default_factory=time.time)


@dataclass(frozen=True, slots=True)
class DiffEvent:
    """A tool changed (or proposes to change) a file; ``hunks`` follow the unified-diff shape."""

    call_id: str
    tool: str
    path: str
    unified: str
    hunks: tuple[Mapping[str, Any], ...] = ()
    at: float = field(default_factory=time.time)


Event = StateEvent | ProgressEvent | DiffEvent
EventSink = Callable[[Event], None]


class EventBus:
    """Fan-out of events to subscribers; a failing subscriber never breaks a tool call.

    A subscriber may name the kinds of event it takes (the MCP server takes only progress);
    ``wants`` tells an emitter whether anyone takes a kind, so the executor builds no state
    event on a path where nobody listens for one — three per call otherwise."""

    def __init__(self) -> None:
        self._subscribers: list[tuple[EventSink, tuple[type[Any], ...] | None]] = []
        self._takes_all = False
        self._kinds: frozenset[type[Any]] = frozenset()

    def subscribe(
        self, sink: EventSink, *, kinds: tuple[type[Any], ...] | None = None
    ) -> Callable[[], None]:
        """Add ``sink`` (for the events of ``kinds`` only, when given); returns a function
        that removes it again."""
        entry = (sink, kinds)
        self._subscribers.append(entry)
        self._taken_changed()

        def unsubscribe() -> None:
            if entry in self._subscribers:
                self._subscribers.remove(entry)
                self._taken_changed()

        return unsubscribe

    def wants(self, kind: type[Any]) -> bool:
        """Whether any subscriber takes events of ``kind`` (emitting one nobody takes is a
        no-op, so an emitter may skip building it)."""
        return self._takes_all or kind in self._kinds

    def emit(self, event: Event) -> None:
        """Deliver ``event`` to every subscriber that takes it, swallowing their exceptions
        (they are UIs)."""
        for sink, kinds in tuple(self._subscribers):
            if kinds is not None and not isinstance(event, kinds):
                continue
            try:
                sink(event)
            except Exception:
                continue

    def _taken_changed(self) -> None:
        self._takes_all = any(kinds is None for _, kinds in self._subscribers)
        self._kinds = frozenset(kind for _, kinds in self._subscribers for kind in kinds or ())
