"""Strict JSON: what json.loads lets through is refused with a message, never a crash."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolbelt.core.strict_json import StrictJsonError, strict_loads


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"path": "a", "path": "b"}', "the key 'path' appears twice in one object"),
        ('{"a": {"x": 1, "x": 2}}', "the key 'x' appears twice in one object"),
        ('{"limit": NaN}', "NaN is not a JSON value; send a number or null"),
        ('{"limit": -Infinity}', "-Infinity is not a JSON value; send a number or null"),
        ("[" * 100_000 + "]" * 100_000, "the JSON is nested too deeply"),
    ],
)
def test_refused(text: str, message: str) -> None:
    with pytest.raises(StrictJsonError) as info:
        strict_loads(text)
    assert str(info.value) == message


def test_ordinary_json_is_unchanged() -> None:
    text = '{"a": [1, 2.5, null, true, {"b": "ü"}], "c": {}}'
    assert strict_loads(text) == json.loads(text)


def test_the_stdio_server_answers_a_hostile_line_and_keeps_serving(tmp_path: Path) -> None:
    hostile = "[" * 100_000 + "\n"
    duplicate = '{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "ping"}\n'
    ping = '{"jsonrpc": "2.0", "id": 3, "method": "ping"}\n'
    server = subprocess.Popen(
        [sys.executable, "-m", "toolbelt.cli.main", "mcp", "--root", str(tmp_path)],
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
    parse_error = {"code": -32700, "message": "Parse error"}
    assert replies[0] == {"jsonrpc": "2.0", "id": None, "error": parse_error}
    assert replies[1] == {"jsonrpc": "2.0", "id": None, "error": parse_error}
    assert replies[2]["id"] == 3
    assert server.stderr is not None
    assert "RecursionError" not in server.stderr.read()
