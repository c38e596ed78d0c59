"""JSON parsing that refuses what ``json.loads`` quietly lets through.

- Duplicate keys: ``{"path": "a", "path": "b"}`` means "b" to Python and "a" to a reader that
  keeps the first, so what a user approved and what runs could differ. Refused.
- ``NaN`` and ``Infinity``: not JSON; a number field would fail later with a worse message.
  Numbers too large for a float (``1e999``) are refused too: Python reads them as infinity,
  which no JSON reply can carry back.
- Lone UTF-16 surrogates (``"\\ud800"``): Python keeps them in the string, and the string
  then cannot be encoded as UTF-8 (a file, a command line, a reply). Refused.
- Nesting deeper than ``MAX_DEPTH``: no tool takes such a value, and the code that reads,
  validates or shows one (``json.dumps``, ``repr``, pydantic) recurses and would raise
  ``RecursionError`` deep inside a call. Refused here, whichever parser read it.
- Bytes that are not UTF-8 (raw surrogates ``\xed\xa0\x80`` included, which ``json.loads``
  lets through as lone surrogates). Refused.

Every refusal is a ``ValueError`` (``json.JSONDecodeError`` for syntax) with a message a model
can act on.

Speed: every MCP request crosses this parser, and the stdlib's with a Python hook per object
cost ~4 µs for a small request. orjson parses a message in ~0.4 µs and already refuses NaN,
infinite numbers, lone surrogates and deep nesting, but keeps the last of duplicate keys and
reads an integer beyond 64 bits as a float. So a message orjson accepts is taken from it only
when neither can have happened: as many keys parsed as there are places in the text where a
key can end (a quote, whitespace, a colon: every key ends so, so equal counts mean no key was
lost), and no float at all or no run of 19 digits (every integer fit in 64 bits). Anything
else — orjson's refusals included, so their messages stay the ones below — goes through the
stdlib parser.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

from toolbelt.core.errors import StrictJsonError

__all__ = ["StrictJsonError", "strict_loads"]


MAX_DEPTH = 256
"""Arrays and objects nested deeper than this are refused (the stdlib parser alone gives out
near 1,000 levels, orjson at 1,024, and what handles a value afterwards sooner)."""

FAST_LIMIT = 64 * 1024
"""Messages up to this size try orjson first; a larger one's count of keys (a walk in Python)
could cost more than the stdlib parse it saves."""


def strict_loads(text: str | bytes | bytearray) -> Any:
    """Parse ``text``; raise ``json.JSONDecodeError`` or ``StrictJsonError``."""
    value = _NOT_FAST
    if len(text) <= FAST_LIMIT:
        value = _fast_loads(text)
    if value is _NOT_FAST:
        try:
            value = json.loads(
                _utf8(text) if isinstance(text, bytes | bytearray) else text,
                object_pairs_hook=_unique_keys,
                parse_constant=_no_constant,
                parse_float=_float,
            )
        except RecursionError:
            raise _TOO_DEEP from None
        if _may_hold_surrogate(text):
            _no_lone_surrogate(value)  # only when one may be there: the walk costs time
    if _opened(text) > MAX_DEPTH and _depth(value) > MAX_DEPTH:  # a walk only when it may be
        raise _TOO_DEEP
    return value


_TOO_DEEP = StrictJsonError(
    f"the JSON is nested too deeply (more than {MAX_DEPTH} levels of arrays and objects); "
    "send a flatter value"
)


def _utf8(data: bytes | bytearray) -> str:
    """``data`` decoded as the stdlib parser would — but strictly: no lone surrogates."""
    try:
        return bytes(data).decode(json.detect_encoding(data))
    except UnicodeDecodeError as exc:
        raise StrictJsonError(
            f"the text is not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start}); send UTF-8 text"
        ) from None


def _opened(text: str | bytes | bytearray) -> int:
    """How many arrays and objects ``text`` may open (brackets in strings count too)."""
    if isinstance(text, str):
        return text.count("[") + text.count("{")
    return text.count(b"[") + text.count(b"{")


def _depth(value: Any) -> int:
    """How deep arrays and objects nest in a parsed value (walked without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        members = item.values() if type(item) is dict else item if type(item) is list else None
        if members is None:
            continue
        deepest = max(deepest, level)
        stack.extend((member, level + 1) for member in members)
    return deepest


_NOT_FAST = object()
_LONG_DIGITS = re.compile(rb"\d{19}")
_KEY_END = re.compile(rb'"[ \t\n\r]*:')


def _fast_loads(text: str | bytes | bytearray) -> Any:
    """The value orjson parses from ``text`` when it is surely the stdlib's, else ``_NOT_FAST``."""
    try:
        raw = text.encode() if isinstance(text, str) else text
        value = orjson.loads(raw)
    except (orjson.JSONDecodeError, UnicodeEncodeError):
        return _NOT_FAST  # the stdlib parser words the refusal
    keys, floats = _keys_and_floats(value)
    if keys != len(_KEY_END.findall(raw)):
        return _NOT_FAST  # a key may have been lost, or a string holds `":`
    if floats and _LONG_DIGITS.search(raw) is not None:
        return _NOT_FAST  # a float may have been an integer beyond 64 bits
    return value


def _keys_and_floats(value: Any) -> tuple[int, bool]:
    """How many keys the objects of a parsed value have, and whether it holds a float."""
    keys, floats, stack = 0, type(value) is float, [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            keys += len(item)
            item = item.values()
        elif type(item) is not list:
            continue
        for member in item:
            kind = type(member)
            if kind is dict or kind is list:
                stack.append(member)
            elif kind is float:
                floats = True
    return keys, floats


def _may_hold_surrogate(text: str | bytes | bytearray) -> bool:
    """Whether parsed ``text`` may hold a lone surrogate: it has a ``\\uD800``–``\\uDFFF``
    escape, or (a ``str``) non-ASCII characters. Bytes were decoded strictly (``_utf8``)."""
    if isinstance(text, bytes | bytearray):
        return _SURROGATE_ESCAPE_BYTES.search(text) is not None
    return not text.isascii() or _SURROGATE_ESCAPE.search(text) is not None


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


def _no_lone_surrogate(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise StrictJsonError(
                    "a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not "
                    "text; send valid Unicode"
                ) from None
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise StrictJsonError(f"the number {text[:40]} is too large; send a smaller number")
    return number


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise StrictJsonError(f"the key {key!r} appears twice in one object")
            seen.add(key)
    return result


def _no_constant(name: str) -> Any:
    raise StrictJsonError(f"{name} is not a JSON value; send a number or null")
