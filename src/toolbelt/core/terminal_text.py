"""Text toolbelt did not write, made safe to show on a terminal: one escape form everywhere.

A command, a path, a model's justification or a tool's output can carry characters that act
on the terminal instead of being read: ``\\r`` and ``ESC[2K`` rewrite the line the user reads
(``…| sh #\\r\\x1b[2K  command: ls -la`` shows only the fake part), a C1 control (U+009B, the
one-byte CSI) starts an escape sequence on terminals that take C1 in UTF-8, bidirectional
overrides reorder the line, zero-width and unassigned characters hide parts of it. Every such
character — Unicode's control, format, surrogate, private-use and unassigned categories and the
line and paragraph separators — is shown as Python writes it in a string literal: ``\\r``,
``\\n``, ``\\t``, ``\\x1b``, ``\\u202e``, ``\\U000f0000``. One form, so a reader learns it once
and a literal backslash in a command (``grep 'a\\.b'``) still reads as typed.

JSON written to a terminal keeps JSON's own ``\\u`` escapes (``cli.json_output``): it must stay
JSON. It escapes the same characters (``is_terminal_unsafe``).
"""

from __future__ import annotations

import unicodedata

__all__ = ["UNSAFE_CATEGORIES", "escape_for_terminal", "has_terminal_control", "is_terminal_unsafe"]

UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a terminal may act on or that hide text: controls, formats (bidi
overrides, zero-width characters), surrogates, private use, unassigned, line and paragraph
separators."""

_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}


def is_terminal_unsafe(char: str) -> bool:
    """Whether ``char`` must not reach a terminal as it is."""
    return unicodedata.category(char) in UNSAFE_CATEGORIES


def has_terminal_control(text: str) -> bool:
    """Whether ``text`` holds any character ``escape_for_terminal`` would escape."""
    return not text.isprintable() and any(is_terminal_unsafe(char) for char in text)


def escape_for_terminal(
    text: str, *, newlines: bool = False, tabs: bool = False, limit: int | None = None
) -> str:
    """``text`` with every unsafe character escaped (``newlines`` and ``tabs`` kept if asked: a
    multi-line answer keeps its layout, never its escape sequences), cut to at most ``limit``
    characters with a closing ``…`` (never inside an escape) when one is given."""
    if text.isprintable():
        pieces = list(text) if limit is not None and len(text) > limit else [text]
    else:
        pieces = [
            char
            if (char == "\n" and newlines)
            or (char == "\t" and tabs)
            or not is_terminal_unsafe(char)
            else _escape(char)
            for char in text
        ]
    return _cut(pieces, limit)


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _cut(pieces: list[str], limit: int | None) -> str:
    whole = "".join(pieces)
    if limit is None or len(whole) <= limit:
        return whole
    kept: list[str] = []
    size = 0
    for piece in pieces:
        if size + len(piece) > limit - 1:
            break
        kept.append(piece)
        size += len(piece)
    return "".join(kept) + "…"
