"""JSON on the wire: orjson's speed, never a reply the stdlib would not have written."""

from __future__ import annotations

import datetime
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from toolbelt.core.wire_json import dumps, plain


@dataclass
class _Point:
    x: int


def _stdlib(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


WRITABLE = [
    {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": 'é\n\t"x"'}]}},
    {"id": None, "error": {"code": -32603, "message": "null"}},
    {"big": 2**64, "small": -(2**63) - 1},  # beyond orjson's 64 bits
    {1: "a", "b": (1, 2.5, None)},  # a key that is no string, a tuple
    {"deep": json.loads("[" * 300 + "]" * 300)},  # deeper than orjson nests
]


@pytest.mark.parametrize("value", WRITABLE)
def test_dumps_writes_the_json_the_stdlib_writes(value: Any) -> None:
    assert json.loads(dumps(value)) == json.loads(_stdlib(value))


@pytest.mark.parametrize(
    ("value", "refusal", "message"),
    [
        # orjson would write a NaN as null, here beside a real null
        ({"x": None, "y": [1.5, math.nan]}, ValueError, "Out of range float values"),
        ({"x": [None, {"y": -math.inf}]}, ValueError, "Out of range float values"),
        ({"text": "\ud800"}, UnicodeEncodeError, "surrogates not allowed"),
    ],
)
def test_dumps_refuses_what_the_stdlib_refuses(
    value: Any, refusal: type[Exception], message: str
) -> None:
    with pytest.raises(refusal, match=message):
        _stdlib(value)
    with pytest.raises(refusal, match=message):
        dumps(value)


def test_plain_is_the_stdlib_round_trip() -> None:
    when = datetime.datetime(2026, 1, 2, 3, 4, 5)
    value = {
        "path": Path("/a/b"),
        "when": when,
        "point": _Point(1),
        "pair": (1, (2, 3)),
        7: None,
        "big": 2**70,
    }
    assert plain(value) == json.loads(json.dumps(value, default=str))
    assert plain(value)["when"] == "2026-01-02 03:04:05"


def test_plain_keeps_a_nan_for_the_reply_to_refuse() -> None:
    copied = plain({"ratio": math.nan, "note": None})
    assert math.isnan(copied["ratio"])
    assert copied["note"] is None
