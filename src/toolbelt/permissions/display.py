"""Text from a tool call made safe to show in a permission prompt.

A command, a path or a model-written description can carry control characters: ``\\r`` and
``ESC[2K`` rewrite the line a user reads (``…| sh #\\r\\x1b[2K  command: ls -la`` shows only the
fake part), bidirectional overrides reorder it, zero-width characters hide parts of it. Every
such character is shown as a visible escape (``\\r``, ``\\x1b``, ``\\u202e``), so what the user
approves is what runs.
"""

from __future__ import annotations

import unicodedata

__all__ = ["visible"]

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
