"""JSON parsing that refuses what ``json.loads`` quietly lets through.

- Duplicate keys: ``{"path": "a", "path": "b"}`` means "b" to Python and "a" to a reader that
  keeps the first, so what a user approved and what runs could differ. Refused.
- ``NaN`` and ``Infinity``: not JSON; a number field would fail later with a worse message.
- Nesting deep enough to exhaust the interpreter's stack: ``json.loads`` raises
  ``RecursionError``, which would crash a server loop. Turned into an ordinary error.

Every refusal is a ``ValueError`` (``json.JSONDecodeError`` for syntax) with a message a model
can act on.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["StrictJsonError", "strict_loads"]


class StrictJsonError(ValueError):
    """Valid-looking JSON that is refused (duplicate key, NaN, too deep)."""


def strict_loads(text: str | bytes) -> Any:
    """Parse ``text``; raise ``json.JSONDecodeError`` or ``StrictJsonError``."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except RecursionError:
        raise StrictJsonError("the JSON is nested too deeply") from None


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
