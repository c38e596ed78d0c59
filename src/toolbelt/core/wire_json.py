"""JSON going out on a wire — MCP replies and the structured results in them — fast, and by the
stdlib's rules.

Encoding was a fifth of what a small file read cost over MCP: the reply holds the file's text
twice (the content block and ``structuredContent.text``), and the structured result made a
round trip through ``json`` of its own. orjson does both about five times faster, but where the
stdlib refuses it is lenient: it writes NaN and infinities as ``null``, and it cannot write an
integer beyond 64 bits or nest deeper than 254 levels. So orjson's output is taken unless it
may differ — it holds a ``null`` and the value a non-finite float, or orjson refused — and then
the stdlib does it, with the stdlib's result or error. The output is the same JSON either way
(numbers may be spelled differently: ``1e-5`` for ``1e-05``).
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

__all__ = ["dumps", "plain"]

_OPTIONS = orjson.OPT_NON_STR_KEYS
_PLAIN_OPTIONS = (
    orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
)
"""``plain`` writes dates and dataclasses as their ``str()``, as the stdlib's ``default=str``
does, rather than in orjson's own forms."""


def dumps(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON: what ``json.dumps(value, ensure_ascii=False,
    separators=(",", ":"), allow_nan=False).encode()`` returns, or the error it raises
    (``ValueError`` for a non-finite number, ``UnicodeEncodeError`` for a lone surrogate)."""
    try:
        data = orjson.dumps(value, option=_OPTIONS)
    except orjson.JSONEncodeError:
        data = None
    if data is None or (b"null" in data and _has_non_finite(value)):
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return text.encode()
    return data


def plain(value: Any) -> Any:
    """``value`` as plain JSON data, a copy: what ``json.loads(json.dumps(value, default=str))``
    returns (tuples become lists, keys strings, anything else its ``str()``; NaN stays NaN)."""
    try:
        data = orjson.dumps(value, default=str, option=_PLAIN_OPTIONS)
    except orjson.JSONEncodeError:
        data = None
    if data is None or (b"null" in data and _has_non_finite(value)):
        return json.loads(json.dumps(value, default=str))
    return orjson.loads(data)


def _has_non_finite(value: Any) -> bool:
    """Whether a NaN or an infinity is anywhere in ``value`` (orjson wrote it as ``null``)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False
