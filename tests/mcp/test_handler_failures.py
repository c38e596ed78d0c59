"""A handler that fails in a way nobody foresaw answers its own request with an internal error
(-32603, traceback on stderr) and the connection's task group, shared by every request, goes on.

No input reaches such a failure any more (the envelope check refuses malformed messages), so
the failure is injected into the real ``McpServer`` here.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolbelt.core.executor import ToolCall
from toolbelt.mcp.envelope import encode_message
from toolbelt.mcp.server import McpServer, Outgoing
from toolbelt.runtime import Runtime

pytestmark = pytest.mark.anyio

PING = {"jsonrpc": "2.0", "id": 8, "method": "ping"}
PONG = {"jsonrpc": "2.0", "id": 8, "result": {}}  # a session-era ping: no 2026-07-28 field


def internal_error(request_id: int, method: str) -> dict[str, Any]:
    text = f"Internal error in {method}: RuntimeError; the request was not carried out."
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": text}}


async def test_a_tool_call_that_raises_is_answered_and_the_next_request_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    send, receive = anyio.create_memory_object_stream[Outgoing](math.inf)
    server = McpServer(functools.partial(Runtime, tmp_path), send)

    async def broken(call: ToolCall) -> Any:
        raise RuntimeError("the executor broke")

    monkeypatch.setattr(server.runtime, "run_one", broken)
    params = {"name": "think", "arguments": {"thought": "x"}}
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    try:
        async with anyio.create_task_group() as group:
            await server.handle(call, group)
            failed, _ = await receive.receive()
            await server.handle(PING, group)
            pong, _ = await receive.receive()
    finally:
        await server.aclose()
        send.close()
        receive.close()
    assert failed == internal_error(7, "tools/call")
    assert pong == PONG
    err = capsys.readouterr().err
    assert "toolbelt mcp: tools/call (id 7) failed:" in err
    assert "RuntimeError: the executor broke" in err


async def test_a_method_that_raises_is_answered_and_the_next_request_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    send, receive = anyio.create_memory_object_stream[Outgoing](math.inf)
    server = McpServer(functools.partial(Runtime, tmp_path), send)
    answer = server._immediate

    def broken_list(method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "tools/list":
            raise RuntimeError("the registry broke")
        return answer(method, params)

    monkeypatch.setattr(server, "_immediate", broken_list)
    try:
        async with anyio.create_task_group() as group:
            await server.handle({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}, group)
            failed, _ = await receive.receive()
            await server.handle(PING, group)
            pong, _ = await receive.receive()
    finally:
        await server.aclose()
        send.close()
        receive.close()
    assert failed == internal_error(6, "tools/list")
    assert pong == PONG
    assert "RuntimeError: the registry broke" in capsys.readouterr().err


def test_a_reply_with_no_json_form_goes_out_as_an_internal_error_for_its_request() -> None:
    cannot = [{"x": math.inf}, {"x": math.nan}, {"text": "\ud800"}]
    text = "Internal error: the reply could not be encoded as JSON."
    for result in cannot:
        line = encode_message({"jsonrpc": "2.0", "id": 3, "result": result})
        error = {"code": -32603, "message": text}
        assert json.loads(line) == {"jsonrpc": "2.0", "id": 3, "error": error}
    ok = encode_message({"jsonrpc": "2.0", "id": "a", "result": {"text": "é"}})
    assert ok == '{"jsonrpc":"2.0","id":"a","result":{"text":"é"}}'.encode()
