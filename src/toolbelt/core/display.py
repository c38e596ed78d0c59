"""Text from a tool call made safe to show in a permission prompt.

A command, a path or a model-written description can carry control characters: ``\\r`` and
``ESC[2K`` rewrite the line a user reads (``…| sh #\\r\\x1b[2K  command: ls -la`` shows only the
fake part), bidirectional overrides reorder it, zero-width characters hide parts of it. Every
such character is shown as a visible escape (``\\r``, ``\\x1b``, ``\\u202e``), so what the user
approves is what runs.

A call whose access shows nothing of itself — no command, path, URL or diff: another MCP
server's tool, a user's own tool — is shown by its arguments (``shown_arguments``), bounded,
so a person never approves ``send`` without seeing whom it sends what.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from typing import Any

from toolbelt.core.access import Access

__all__ = ["MAX_SHOWN_ARGUMENTS", "shown_arguments", "visible"]

MAX_SHOWN_ARGUMENTS = 2000

_NAMED = {"\r": "\\r", "\t": "\\t", "\n": "\\n", "\x1b": "\\x1b", "\\": "\\"}


def visible(text: str, *, newlines: bool = False, tabs: bool = False) -> str:
    """``text`` with every control and format character escaped (``newlines`` and ``tabs``
    kept if asked: a multi-line answer keeps its layout, never its escape sequences)."""
    if text.isprintable() and "\\" not in text:
        return text
    out = []
    for char in text:
        if (char == "\n" and newlines) or (char == "\t" and tabs):
            out.append(char)
        elif char in _NAMED and char != "\\":
            out.append(_NAMED[char])
        elif unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def shown_arguments(access: Access, arguments: Mapping[str, Any]) -> str | None:
    """The call's arguments as indented JSON, escaped and cut at ``MAX_SHOWN_ARGUMENTS`` with
    a note, for a prompt whose access shows no command, path, URL or diff; None otherwise."""
    if (access.command and access.command.text) or access.url or access.paths or access.preview:
        return None
    text = json.dumps(dict(arguments), ensure_ascii=False, indent=2, default=str)
    if len(text) > MAX_SHOWN_ARGUMENTS:
        left = len(text) - MAX_SHOWN_ARGUMENTS
        text = f"{text[:MAX_SHOWN_ARGUMENTS]}\n… ({left:,} more characters not shown)"
    return visible(text, newlines=True)
