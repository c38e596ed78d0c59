"""``GET /metrics``: what a fleet's monitoring scrapes from each per-task server.

In Prometheus' text format, written by ``prometheus_client`` into a registry of the server's
own (never the process-wide default one, which an embedding application may own):

- ``toolbelt_calls_total{tool,state}``: finished tool calls by tool and final state
  (``success``, ``error``, ``aborted``, ``needs_input``; ``cancelled`` for a call whose
  client cancelled it or went away); a name the server serves no tool under counts as
  ``(unknown)``, so clients cannot add series without end;
- ``toolbelt_call_seconds{tool}``: a histogram of how long calls took, from the request's
  arrival to its answer;
- ``toolbelt_calls_in_flight``, ``toolbelt_sessions``: what the server holds now;
- ``process_resident_memory_bytes`` and the rest of ``prometheus_client``'s process
  collector (CPU seconds, open files, start time).

Imported only by the HTTP door, which already imports starlette and uvicorn.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CONTENT_TYPE_LATEST as CONTENT_TYPE
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)

__all__ = ["CONTENT_TYPE", "ServerMetrics"]

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
"""Seconds: a trivial call takes well under a millisecond, a test suite run by bash minutes."""


class ServerMetrics:
    """The server's metrics, fed by every session's ``McpServer`` (``CallObserver``)."""

    def __init__(self, sessions: Callable[[], int]) -> None:
        self.registry = CollectorRegistry()
        self._calls = Counter(
            "toolbelt_calls",
            "Tool calls answered, by tool and final state.",
            ["tool", "state"],
            registry=self.registry,
        )
        self._seconds = Histogram(
            "toolbelt_call_seconds",
            "Time from a tools/call's arrival to its answer.",
            ["tool"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self._in_flight = Gauge(
            "toolbelt_calls_in_flight", "Tool calls running now.", registry=self.registry
        )
        sessions_gauge = Gauge(
            "toolbelt_sessions", "MCP sessions open now.", registry=self.registry
        )
        sessions_gauge.set_function(lambda: float(sessions()))
        ProcessCollector(registry=self.registry)

    def started(self) -> None:
        """A tool call arrived."""
        self._in_flight.inc()

    def finished(self, tool: str, state: str, seconds: float) -> None:
        """A tool call was answered (or cancelled) after ``seconds``."""
        self._in_flight.dec()
        self._calls.labels(tool, state).inc()
        self._seconds.labels(tool).observe(seconds)

    def text(self) -> bytes:
        """The exposition, in Prometheus' text format."""
        return generate_latest(self.registry)
