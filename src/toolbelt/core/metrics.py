"""Per-tool metrics: how many calls ended how, and how long they took (seed 001's "metrics").

Kept in memory by the executor; cheap enough to record on every call (a dict lookup and an
append to a bounded deque) so nobody has to switch it on.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

from toolbelt.core.events import CallState

__all__ = ["ExecutorMetrics", "ToolMetrics"]

_KEEP_DURATIONS = 1000


@dataclass(slots=True)
class ToolMetrics:
    """Outcome counts and recent durations of one tool."""

    outcomes: Counter[str] = field(default_factory=Counter)
    durations: deque[float] = field(default_factory=lambda: deque(maxlen=_KEEP_DURATIONS))

    @property
    def calls(self) -> int:
        """Calls recorded, whatever their outcome."""
        return sum(self.outcomes.values())

    @property
    def median_duration(self) -> float:
        """Median of the most recent durations, in seconds (0.0 before any call)."""
        import statistics  # fractions, decimal and random come with it: only when asked

        return statistics.median(self.durations) if self.durations else 0.0


class ExecutorMetrics:
    """Metrics for every tool an executor ran."""

    def __init__(self) -> None:
        self.tools: dict[str, ToolMetrics] = {}

    def record(self, tool: str, state: CallState, error_kind: str | None, duration: float) -> None:
        """Count one finished call; the outcome is the error kind, or the state on success."""
        metrics = self.tools.get(tool)
        if metrics is None:
            metrics = self.tools[tool] = ToolMetrics()
        metrics.outcomes[error_kind or state.value] += 1
        metrics.durations.append(duration)

    def summary(self) -> dict[str, dict[str, object]]:
        """A JSON-ready view: per tool, its outcome counts and median duration in ms."""
        return {
            name: {
                "calls": m.calls,
                "outcomes": dict(sorted(m.outcomes.items())),
                "median_ms": round(m.median_duration * 1000, 3),
            }
            for name, m in sorted(self.tools.items())
        }
