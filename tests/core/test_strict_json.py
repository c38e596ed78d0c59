"""Strict JSON: what json.loads lets through is refused with a message, never a crash."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.toolbelt_cli import TOOLBELT
from toolbelt.core.strict_json import StrictJsonError, strict_loads

_TOO_DEEP = (
    "the JSON is nested too deeply (more than 256 levels of arrays and objects); send a "
    "flatter value"
)
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
        ("[" * 100_000 + "]" * 100_000, _TOO_DEEP),
        ("[" * 257 + "]" * 257, _TOO_DEEP),  # orjson and the stdlib would both take it
        (b'{"a": ' * 1000 + b"1" + b"}" * 1000, _TOO_DEEP),
        (
            b'{"a":"x\xed\xa0\x80"}',
            "the text is not valid UTF-8 (byte 0xed at offset 7); send UTF-8 text",
        ),
        (b'["\xff"]', "the text is not valid UTF-8 (byte 0xff at offset 2); send UTF-8 text"),
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


def test_nesting_up_to_the_limit_and_brackets_in_strings_are_kept() -> None:
    deep = "[" * 256 + "]" * 256
    assert strict_loads(deep) == json.loads(deep)
    text = json.dumps({"code": "[" * 5000 + "{" * 5000})
    assert strict_loads(text.encode()) == json.loads(text)


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
    pages = "[" * 1000 + "]" * 1000  # orjson takes it; reading it later would recurse
    call = (
        '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "read_file", '
        f'"arguments": {{"path": "a.txt", "pages": {pages}}}}}}}\n'
    )
    ping = '{"jsonrpc": "2.0", "id": 3, "method": "ping"}\n'
    server = subprocess.Popen(
        [*TOOLBELT, "mcp", "--root", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(hostile + duplicate + call + ping)
    server.stdin.flush()
    replies = [json.loads(server.stdout.readline()) for _ in range(4)]
    server.stdin.close()
    assert server.wait(timeout=30) == 0
    deep = {"code": -32700, "message": f"Parse error: {_TOO_DEEP}"}
    twice = {"code": -32700, "message": "Parse error: the key 'id' appears twice in one object"}
    assert replies[0] == {"jsonrpc": "2.0", "id": None, "error": deep}
    assert replies[1] == {"jsonrpc": "2.0", "id": None, "error": twice}
    assert replies[2] == {"jsonrpc": "2.0", "id": None, "error": deep}
    assert replies[3]["id"] == 3
    assert server.stderr is not None
    assert "RecursionError" not in server.stderr.read()
