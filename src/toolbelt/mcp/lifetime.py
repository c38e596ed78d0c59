"""The per-task server's dead-man's switches: ``--idle-exit`` and ``--max-lifetime``.

A fleet's orchestrator can die, lose a sandbox's address or forget to stop it; a server left
behind holds a workspace, its shells and memory. Managed sandboxes answer that with a TTL; a
toolbelt server carries its own: it stops by itself once no MCP request came for
``idle_exit`` seconds (health checks and ``/metrics`` do not count, a call in flight keeps it
alive), or once it has served ``max_lifetime`` seconds. Either way it stops as on SIGTERM:
health checks answer 503, new requests are refused, calls in flight finish, then it exits 0.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio

__all__ = ["Activity", "watch_lifetime"]


@dataclass
class Activity:
    """When the server last received an MCP request."""

    last: float = field(default_factory=time.monotonic)

    def seen(self) -> None:
        """A request arrived."""
        self.last = time.monotonic()


async def watch_lifetime(
    activity: Activity,
    inflight: Callable[[], int],
    stop: Callable[[], None],
    *,
    idle_exit: float | None,
    max_lifetime: float | None,
) -> None:
    """Call ``stop`` once the server was idle ``idle_exit`` seconds or has lived
    ``max_lifetime`` seconds (None: no such limit); returns at once when neither is set."""
    if idle_exit is None and max_lifetime is None:
        return
    born = time.monotonic()
    limits = [x for x in (idle_exit, max_lifetime) if x is not None]
    period = max(0.05, min(1.0, min(limits) / 10))
    while True:
        await anyio.sleep(period)
        now = time.monotonic()
        if max_lifetime is not None and now - born >= max_lifetime:
            why = f"it has served {max_lifetime:g} s (--max-lifetime)"
            break
        if idle_exit is not None and not inflight() and now - activity.last >= idle_exit:
            why = f"no request came for {idle_exit:g} s (--idle-exit)"
            break
    print(f"toolbelt mcp: stopping: {why}", file=sys.stderr, flush=True)
    stop()
