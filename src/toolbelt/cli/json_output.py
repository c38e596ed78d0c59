"""``--json`` output: exact into a pipe, and no terminal control into a terminal.

``json.dumps(..., ensure_ascii=False)`` escapes only U+0000–U+001F, so tool output holding a C1
control (U+009B is an 8-bit CSI, U+009D an OSC, honoured by terminals that take C1 in UTF-8), a
bidi override (U+202E reorders what the person reads) or DEL would reach the terminal raw, while
every other display path escapes them (``core.terminal_text.escape_for_terminal``). On a terminal
the same characters (``is_terminal_unsafe``) are written as JSON escapes (``\\u009b``) instead of
that function's Python-style ones, since the text must stay JSON: they decode to the same value.
Into a pipe or a file the text stays as it is, so a program reading it gets the exact characters
in readable UTF-8.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from toolbelt.core.terminal_text import is_terminal_unsafe

__all__ = ["print_json", "terminal_safe_json"]


def print_json(value: Any, *, out: TextIO | None = None, compact: bool = False) -> None:
    """Print ``value`` as indented JSON on ``out`` (stdout), escaped if it is a terminal;
    ``compact``: on one line (``stream-json``), flushed at once."""
    stream = sys.stdout if out is None else out
    if compact:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    else:
        text = json.dumps(value, indent=2, ensure_ascii=False)
    if stream.isatty():
        text = terminal_safe_json(text)
    print(text, file=stream, flush=compact)


def terminal_safe_json(text: str) -> str:
    """``text`` (JSON) with every control, format and unassigned character written as a JSON
    escape; outside strings JSON holds only ASCII punctuation, so the result is the same JSON."""
    if text.isprintable() or all(_safe(char) for char in text):
        return text
    return "".join(char if _safe(char) else _escape(char) for char in text)


def _safe(char: str) -> bool:
    return char in "\n\t " or not is_terminal_unsafe(char)


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
