"""The notifications the server sends unasked: a call's progress, log messages, a grown tool
list.

Each is a JSON-RPC message built from what the server knows at that moment; building them here
keeps the server to deciding when to send and on which stream, and keeps the one rule about
log levels (which messages a client's chosen level lets through) in one place.
"""

from __future__ import annotations

from typing import Any

from toolbelt.core.events import ProgressEvent
from toolbelt.mcp.inflight import InFlightCall

__all__ = ["LOG_LEVELS", "list_changed_message", "log_message", "progress_message"]

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""The syslog levels of ``logging/setLevel``, least severe first (their order is the filter)."""


def progress_message(call: InFlightCall, event: ProgressEvent) -> dict[str, Any]:
    """The ``notifications/progress`` for ``event`` of ``call`` (which asked for progress),
    numbered after the ones already sent."""
    params: dict[str, Any] = {
        "progressToken": call.progress_token,
        "progress": call.next_progress(),
        "message": event.message,
    }
    if event.fraction is not None:
        params.update(progress=event.fraction, total=1.0)
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}


def list_changed_message() -> dict[str, Any]:
    """Sent when tool_search loaded tools, so the client lists them again."""
    return {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


def log_message(level: str, text: str, threshold: Any) -> dict[str, Any] | None:
    """The ``notifications/message`` for ``text`` at ``level``, or None when ``threshold`` (a
    level the client chose; None: it asked for no logs) holds it back."""
    if threshold not in LOG_LEVELS or LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):
        return None
    params = {"level": level, "logger": "toolbelt", "data": text}
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
