"""One malformed JSON-RPC message gets its own error and nothing else happens: through the
real `toolbelt mcp`, on stdio and over HTTP, the next request (and another session) is served.

Before the envelope check, ``"params": [1]`` on a tools/call raised inside the HTTP server's
task group: every later request of every session got 503 and other sessions' shells died.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.mcp.http_server import start
from tests.support.mcp_requests import INITIALIZE
from tests.support.toolbelt_cli import TOOLBELT

pytestmark = pytest.mark.anyio


PARSE, INVALID, PARAMS = -32700, -32600, -32602
ID = "The request id must be a string or an integer"
NOT_OBJECT = '"params" must be an object; omit it when there is nothing to send.'
TC = "Invalid params for tools/call: "
INIT_PARAMS = "Invalid params for initialize: "
CANCEL = "Invalid params for notifications/cancelled: "
CALL = '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":'

CASES: list[tuple[str, int, Any, str]] = [
    # the line sent, the error code, the reply's id, the start of the error message
    (CALL + "[1]}", PARAMS, 5, TC + NOT_OBJECT),
    (CALL + '"x"}', PARAMS, 5, TC + NOT_OBJECT),
    (CALL + "null}", PARAMS, 5, TC + NOT_OBJECT),
    (CALL + '{"name":"think","arguments":[1]}}', PARAMS, 5, TC + '"arguments" must be an object.'),
    (
        CALL + '{"name":"think","arguments":{"thought":"x"},"_meta":[1]}}',
        PARAMS,
        5,
        TC + '"_meta" must be an object.',
    ),
    (
        CALL + '{"name":"think","arguments":{"thought":"x"},"_meta":{"progressToken":[1]}}}',
        PARAMS,
        5,
        TC + '"_meta.progressToken"',
    ),
    (
        CALL + '{"name":["think"],"arguments":{}}}',
        PARAMS,
        5,
        TC + '"name" must be the name of a tool',
    ),
    (
        CALL + '{"name":"think","arguments":{"thought":"\\ud800"}}}',
        PARSE,
        None,
        "Parse error: a string holds a lone UTF-16 surrogate",
    ),
    (
        '{"jsonrpc":"2.0","id":1e999,"method":"ping"}',
        PARSE,
        None,
        "Parse error: the number 1e999 is too large",
    ),
    ('{"jsonrpc":"2.0","id":1.5,"method":"ping"}', INVALID, None, ID),
    ('{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID, None, ID),
    ('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', INVALID, None, ID),
    ('{"jsonrpc":"2.0","id":[6],"method":"ping"}', INVALID, None, ID),
    ('{"jsonrpc":"2.0","id":null,"method":"ping"}', INVALID, None, ID),
    ('{"jsonrpc":"1.0","id":6,"method":"ping"}', INVALID, 6, 'Set "jsonrpc" to "2.0".'),
    ('{"id":6,"method":"ping"}', INVALID, 6, 'Set "jsonrpc" to "2.0".'),
    ('{"jsonrpc":"2.0","id":6,"method":7}', INVALID, 6, 'The "method" must be a string.'),
    (
        '{"jsonrpc":"2.0","id":6,"method":"tools/list","params":"x"}',
        PARAMS,
        6,
        f"Invalid params for tools/list: {NOT_OBJECT}",
    ),
    (
        '{"jsonrpc":"2.0","id":6,"method":"initialize","params":[1]}',
        PARAMS,
        6,
        INIT_PARAMS + NOT_OBJECT,
    ),
    (
        '{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"capabilities":[1]}}',
        PARAMS,
        6,
        INIT_PARAMS + '"capabilities" must be an object.',
    ),
    (
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}',
        PARAMS,
        None,
        CANCEL + NOT_OBJECT,
    ),
    (
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}',
        PARAMS,
        None,
        CANCEL + '"requestId"',
    ),
    (
        '{"jsonrpc":"2.0","id":99,"result":[1]}',
        INVALID,
        None,
        'A response\'s "result" or "error" must be an object.',
    ),
    ("[1]", INVALID, None, "Send one JSON-RPC message, a JSON object"),
]


def assert_refused(reply: dict[str, Any], code: int, request_id: Any, text: str) -> None:
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] == request_id
    assert reply["error"]["code"] == code
    assert reply["error"]["message"].startswith(text), reply["error"]["message"]


def ping(request_id: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "ping"}


def think(request_id: str) -> dict[str, Any]:
    params = {"name": "think", "arguments": {"thought": "still here"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def test_stdio_answers_each_malformed_line_with_its_error_and_serves_the_next(
    tmp_path: Path,
) -> None:
    lines = [json.dumps(INITIALIZE)]
    for number, (line, *_) in enumerate(CASES):
        lines += [line, json.dumps(ping(f"after-{number}"))]
    lines.append(json.dumps(think("last")))
    done = subprocess.run(
        [*TOOLBELT, "mcp", "--root", str(tmp_path)],
        input="".join(line + "\n" for line in lines).encode(),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]  # valid JSON
    assert len(replies) == 2 + 2 * len(CASES)
    for number, (_, code, request_id, text) in enumerate(CASES):
        assert_refused(replies[1 + 2 * number], code, request_id, text)
        assert replies[2 + 2 * number] == {
            "jsonrpc": "2.0",
            "id": f"after-{number}",
            "result": {},
        }
    assert replies[-1]["id"] == "last"
    assert replies[-1]["result"]["content"][0]["text"] == "Thought recorded."
    assert b"Traceback" not in done.stderr


async def test_http_answers_each_malformed_request_alone_and_other_sessions_keep_their_shell(
    tmp_path: Path,
) -> None:
    (tmp_path / "sub").mkdir()
    server = start(tmp_path, "--mode", "bypass")
    accept = {"accept": "application/json, text/event-stream"}
    try:
        async with httpx.AsyncClient(timeout=30, headers=server.headers) as http:

            async def open_session() -> dict[str, str]:
                opened = await http.post(server.url, json=INITIALIZE)
                return {"mcp-session-id": opened.headers["mcp-session-id"], **accept}

            async def rpc(message: dict[str, Any], session: dict[str, str]) -> dict[str, Any]:
                answer = await http.post(server.url, json=message, headers=session)
                assert answer.status_code == 200, answer.text
                if answer.headers["content-type"].startswith("text/event-stream"):
                    data = [line for line in answer.text.splitlines() if line.startswith("data:")]
                    return dict(json.loads(data[-1].removeprefix("data:")))
                return dict(answer.json())

            first, other = await open_session(), await open_session()
            cd = {"name": "bash", "arguments": {"command": "cd sub"}}
            moved = await rpc(
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": cd}, other
            )
            assert moved["result"]["isError"] is False
            for number, (line, code, request_id, text) in enumerate(CASES):
                refused = await http.post(
                    server.url,
                    content=line.encode(),
                    headers={**first, "content-type": "application/json"},
                )
                assert refused.status_code == (400 if request_id is None else 200), line
                assert_refused(refused.json(), code, request_id, text)
                pong = await rpc(ping(f"after-{number}"), first)
                assert pong["result"] == {}, line
            assert (await rpc(think("a"), first))["result"]["isError"] is False
            assert (await rpc(think("b"), other))["result"]["isError"] is False
            pwd = {"name": "bash", "arguments": {"command": "pwd"}}
            where = await rpc(
                {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": pwd}, other
            )
            assert f"{tmp_path / 'sub'}" in where["result"]["content"][0]["text"]
            assert (await http.get(f"{server.base}/readyz")).text == "ready"
    finally:
        server.stop()
