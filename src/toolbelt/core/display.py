"""A tool call's arguments shown in a permission prompt when nothing else shows the call.

A call whose access shows nothing of itself — no command, path, URL or diff: another MCP
server's tool, a user's own tool — is shown by its arguments (``shown_arguments``), bounded and
escaped for the terminal (``core.terminal_text``), so a person never approves ``send`` without
seeing whom it sends what.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolbelt.core.access import Access
from toolbelt.core.terminal_text import escape_for_terminal

__all__ = ["MAX_SHOWN_ARGUMENTS", "shown_arguments"]

MAX_SHOWN_ARGUMENTS = 2000


def shown_arguments(access: Access, arguments: Mapping[str, Any]) -> str | None:
    """The call's arguments as indented JSON, escaped and cut at ``MAX_SHOWN_ARGUMENTS`` with
    a note, for a prompt whose access shows no command, path, URL or diff; None otherwise."""
    if (access.command and access.command.text) or access.url or access.paths or access.preview:
        return None
    text = json.dumps(dict(arguments), ensure_ascii=False, indent=2, default=str)
    if len(text) > MAX_SHOWN_ARGUMENTS:
        left = len(text) - MAX_SHOWN_ARGUMENTS
        text = f"{text[:MAX_SHOWN_ARGUMENTS]}\n… ({left:,} more characters not shown)"
    return escape_for_terminal(text, newlines=True)
