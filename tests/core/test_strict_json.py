"""Strict JSON: what json.loads lets through is refused with a message, never a crash."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.toolbelt_cli import TOOLBELT
from toolbelt.core.strict_json import StrictJsonError, strict_loads

_SURROGATE = (
    "a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not text; "
    "send valid Unicode"
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"path": "a", "path": "b"}', "the key 'path' appears twice in one object"),
        ('{"a": {"x": 1, "x": 2}}', "the key 'x' appears twice in one object"),
        ('{"limit": NaN}', "NaN is not a JSON value; send a number or null"),
        ('{"limit": -Infinity}', "-Infinity is not a JSON value; send a number or null"),
        ("[" * 100_000 + "]" * 100_000, "the JSON is nested too deeply"),
        ('{"id": 1e999}', "the number 1e999 is too large; send a smaller number"),
        (b"[-2.5E400]", "the number -2.5E400 is too large; send a smaller number"),
        ('{"a": "x\\ud800"}', _SURROGATE),
        (b'{"\\uDC00": 1}', _SURROGATE),
        ('["\\ud83d\\ud83d"]', _SURROGATE),  # two high halves are no pair
        ('["\ud800"]', _SURROGATE),  # already in the str, no escape
    ],
)
def test_refused(text: str | bytes, message: str) -> None:
    with pytest.raises(StrictJsonError) as info:
        strict_loads(text)
    assert str(info.value) == message


def test_ordinary_json_is_unchanged() -> None:
    text = '{"a": [1, 2.5, null, true, {"b": "ü"}], "c": {}}'
    assert strict_loads(text) == json.loads(text)


def test_surrogate_pairs_escaped_backslashes_and_large_finite_numbers_are_kept() -> None:
    text = b'["\\ud83d\\ude00", "\\\\ud800", 1e308, 123456789012345678901234567890]'
    assert strict_loads(text) == ["\U0001f600", "\\ud800", 1e308, 123456789012345678901234567890]


@pytest.mark.parametrize(
    "text",
    [
        b'{"path" : "a", "path"\n:"b"}',  # whitespace between a key and its colon
        b'{"note": "x\\": y", "path": "a", "path": "b"}',  # a string holding `":` as well
        '{"a": [{"k": 1}, {"k": 2, "k": 3}]}',  # deep in a list
    ],
)
def test_duplicates_are_refused_however_the_keys_are_written(text: str | bytes) -> None:
    with pytest.raises(StrictJsonError, match="appears twice in one object"):
        strict_loads(text)


def test_integers_beyond_64_bits_stay_exact_beside_floats() -> None:
    # a fast parser reads them as floats; the answer must be the integers that were sent
    text = b"[-9223372036854775809, 18446744073709551616, 0.5, 18446744073709551615]"
    assert strict_loads(text) == [-9223372036854775809, 18446744073709551616, 0.5, 2**64 - 1]
    assert all(type(n) is int for n in strict_loads(text)[::3])


def test_the_stdio_server_answers_a_hostile_line_and_keeps_serving(tmp_path: Path) -> None:
    hostile = "[" * 100_000 + "\n"
    duplicate = '{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "ping"}\n'
    ping = '{"jsonrpc": "2.0", "id": 3, "method": "ping"}\n'
    server = subprocess.Popen(
        [*TOOLBELT, "mcp", "--root", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(hostile + duplicate + ping)
    server.stdin.flush()
    replies = [json.loads(server.stdout.readline()) for _ in range(3)]
    server.stdin.close()
    assert server.wait(timeout=30) == 0
    deep = {"code": -32700, "message": "Parse error: the JSON is nested too deeply"}
    twice = {"code": -32700, "message": "Parse error: the key 'id' appears twice in one object"}
    assert replies[0] == {"jsonrpc": "2.0", "id": None, "error": deep}
    assert replies[1] == {"jsonrpc": "2.0", "id": None, "error": twice}
    assert replies[2]["id"] == 3
    assert server.stderr is not None
    assert "RecursionError" not in server.stderr.read()
