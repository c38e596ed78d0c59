"""When and how long to wait before asking a provider again.

Rate limits (429), overloads (Anthropic's 529, 503) and server errors (5xx) are worth another
try; everything else is not. A server's ``retry-after`` (seconds or an HTTP date) or
``retry-after-ms`` is honoured; otherwise the wait doubles from ``base_delay`` up to
``max_delay``, with jitter so that many clients do not come back at once. Retries stop after
``max_attempts`` requests or when the next wait would push the total past ``max_total_wait``
— a server asking for ten minutes gets a clear error instead of a frozen agent. The waiting
goes through ``sleep`` (``anyio.sleep``), so cancelling the task stops it at once.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

import anyio

__all__ = ["RetryPolicy", "retry_after_seconds"]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How many times and how long a client may retry one turn."""

    max_attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_total_wait: float = 120.0
    sleep: Callable[[float], Awaitable[None]] = field(default=anyio.sleep)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before attempt ``attempt + 1`` (``attempt`` counts from 1)."""
        if retry_after is not None:
            return max(0.0, retry_after)
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return ceiling * (0.5 + random.random() / 2)


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The wait a response asks for, from ``retry-after-ms`` or ``retry-after``; None if absent.

    ``retry-after`` is either a number of seconds or an HTTP date (RFC 9110 §10.2.3).
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
