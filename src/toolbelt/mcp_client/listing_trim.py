"""A remote server's tool list cut to ``MAX_TOOLS`` before the SDK reads it.

The SDK validates a ``tools/list`` answer three times over on the event loop (the transport's
JSON-RPC parse, the revision's result schema, the result model): about 1.5 s for 20,000 small
tools and 7 s for 100,000, during which every other server and call in the process waits, and
the start-up timeout cannot fire. Moving that into a thread would not help: the parsers are C
code holding the GIL. So the HTTP client (``http_limits``) hands the raw answer to a
``tools/list`` request — a JSON body, or the events of a stream — to ``trimmed_listing``, in a
worker thread, which keeps the first ``MAX_TOOLS`` tools and notes how many were left out, and
the first ``MAX_NAMED`` of their names, under ``LEFT_OUT`` in the result's ``_meta``
(``tool_listing.past_the_cap`` tells the user; a stdio server's list is
cut after the SDK read it). What the SDK then reads is small.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["LEFT_OUT", "MAX_NAMED", "MAX_TOOLS", "trimmed_events", "trimmed_listing"]

MAX_TOOLS = 1000
"""Tools taken from one server at the most (past a few hundred, tool search serves them)."""
MAX_NAMED = 20
"""Tools left out past ``MAX_TOOLS`` that the note about them names."""

LEFT_OUT = "io.toolbelt/leftOut"
"""``_meta`` key of a trimmed listing: ``{"count": N, "names": [...]}``."""


def trimmed_listing(body: bytes) -> bytes:
    """``body`` (a JSON-RPC answer to ``tools/list``) with at most ``MAX_TOOLS`` tools; as it
    was when it has no more, or is not such an answer (the SDK reports what is wrong)."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return body
    if not _trim(message):
        return body
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()


def trimmed_events(body: bytes) -> bytes:
    """An event stream's bytes with every ``message`` event's listing trimmed."""
    events = body.replace(b"\r\n", b"\n").split(b"\n\n")
    return b"\n\n".join(_trimmed_event(event) for event in events)


def _trimmed_event(event: bytes) -> bytes:
    lines = event.split(b"\n")
    data = [line[5:].removeprefix(b" ") for line in lines if line.startswith(b"data:")]
    if not data:
        return event
    trimmed = trimmed_listing(b"\n".join(data))
    kept = [line for line in lines if not line.startswith(b"data:")]
    return b"\n".join([*kept, b"data: " + trimmed.replace(b"\n", b"")])


def _trim(message: Any) -> bool:
    result = message.get("result") if isinstance(message, dict) else None
    if not isinstance(result, dict):
        return False
    tools = result.get("tools")
    if not isinstance(tools, list) or len(tools) <= MAX_TOOLS:
        return False
    rest = tools[MAX_TOOLS:]
    names = [tool.get("name") for tool in rest[:MAX_NAMED] if isinstance(tool, dict)]
    meta = result.get("_meta")
    left_out = {"count": len(rest), "names": names}
    result["_meta"] = {**(meta if isinstance(meta, dict) else {}), LEFT_OUT: left_out}
    result["tools"] = tools[:MAX_TOOLS]
    return True
