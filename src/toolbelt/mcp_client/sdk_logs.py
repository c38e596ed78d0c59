"""The MCP SDK's log records, as toolbelt's own one-line messages.

The SDK logs what a remote server got wrong with ``logger.exception``: a hostile server's
unreadable message printed a pydantic traceback on toolbelt's stderr, and one per message
(issue #32). toolbelt reports such failures itself, in the error of the call they concern
(``sse_guard``, ``failures``), so the SDK's loggers (``mcp.*``, and the session's, named
``client``) stop propagating to the root logger and get one handler instead: a warning or
worse becomes one line on stderr, ``toolbelt: MCP: <what the SDK said> (<the error, first
line>)``, without a traceback, and each distinct message is shown at most ``REPEATS`` times.
Debug and info records are dropped unless the application configured those loggers itself.
"""

from __future__ import annotations

import logging
import sys
from collections import Counter

__all__ = ["REPEATS", "quiet_sdk_loggers"]

REPEATS = 3
_SDK_LOGGERS = ("mcp", "client")


class _OneLine(logging.Handler):
    """Writes a record as one line, each distinct message ``REPEATS`` times at most."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        key = f"{record.name}:{record.msg}"
        self.seen[key] += 1
        if self.seen[key] > REPEATS:
            return
        try:
            text = record.getMessage()
        except (TypeError, ValueError):
            text = str(record.msg)
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            first = (str(exc).strip().splitlines() or [""])[0]
            text += f" ({type(exc).__name__}: {first})"
        if self.seen[key] == REPEATS:
            text += " (repeated messages like this one are not shown)"
        line = " ".join(text.split())[:500]
        try:
            sys.stderr.write(f"toolbelt: MCP: {line}\n")
        except (OSError, ValueError):
            return


_handler = _OneLine()


def quiet_sdk_loggers() -> None:
    """Route the SDK's loggers to ``_OneLine`` (once; a logger the application gave handlers
    of its own is left alone)."""
    for name in _SDK_LOGGERS:
        logger = logging.getLogger(name)
        if _handler in logger.handlers or logger.handlers:
            continue
        logger.addHandler(_handler)
        logger.propagate = False
