"""What a client chooses cannot grow the HTTP door without bound or get an unchecked answer:
idempotency keys (their length, and the arguments a kept call would hold), the tool names
``/metrics`` counts calls under, and paths the door does not serve. Through the real server
on 127.0.0.1, with its token."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from tests.mcp.http_server import HttpServer, start
from tests.mcp.test_http_memory import rss

pytestmark = pytest.mark.anyio

MODERN = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28"}
MIB = 1024 * 1024


def _call(name: str, arguments: dict[str, Any], request_id: int = 1, **meta: str) -> Any:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = {f"toolbelt/{k}": v for k, v in meta.items()}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _message(response: httpx.Response) -> Any:
    text = response.text
    if response.headers["content-type"].startswith("text/event-stream"):
        text = [line[6:] for line in text.splitlines() if line.startswith("data: ")][-1]
    return json.loads(text)


@pytest.fixture
def server(tmp_path: Path) -> Any:
    running = start(tmp_path, "--mode", "bypass")
    yield running
    running.stop()


def test_an_idempotency_key_too_long_to_keep_is_refused_and_nothing_runs(
    server: HttpServer, tmp_path: Path
) -> None:
    with httpx.Client(timeout=30, headers={**server.headers, **MODERN}) as http:
        body = _call("bash", {"command": "echo run >> runs.txt"}, idempotencyKey="k" * 256)
        refused = _message(http.post(server.url, json=body))
        kept = _call("bash", {"command": "echo ok"}, idempotencyKey="k" * 255)
        accepted = _message(http.post(server.url, json=kept))
    assert refused["error"] == {
        "code": -32602,
        "message": "The idempotency key is 256 characters long; send one of at most 255 "
        "(a UUID, for instance).",
    }
    assert not (tmp_path / "runs.txt").exists()
    assert accepted["result"]["content"][0]["text"].strip() == "ok"


async def test_keyed_calls_do_not_keep_their_arguments(server: HttpServer) -> None:
    """A kept answer is remembered by a digest of its call: six keyed calls of 12 MiB leave
    the server's memory where it was (it held all 72 MiB for ten minutes), and a retry of
    each still gets the first answer."""
    async with httpx.AsyncClient(timeout=60, headers={**server.headers, **MODERN}) as http:
        warm = await http.post(server.url, json=_call("think", {"thought": "warm up"}))
        assert _message(warm)["result"]["content"][0]["text"] == "Thought recorded."
        baseline = rss(server.process.pid)
        big = {"thought": "x" * (12 * MIB)}
        for i in range(6):
            answer = await http.post(
                server.url, json=_call("think", big, i, idempotencyKey=f"k{i}")
            )
            assert _message(answer)["result"]["content"][0]["text"] == "Thought recorded."
        with anyio.fail_after(15):
            while rss(server.process.pid) > baseline + 30 * MIB:
                await anyio.sleep(0.1)
        retried = await http.post(server.url, json=_call("think", big, 9, idempotencyKey="k0"))
        other = await http.post(
            server.url, json=_call("think", {"thought": "y"}, 10, idempotencyKey="k0")
        )
    assert _message(retried)["result"]["content"][0]["text"] == "Thought recorded."
    assert _message(other)["error"]["message"].startswith(
        "The idempotency key 'k0' was already used for another call (think with other"
    )


def test_made_up_tool_names_add_no_metric_series(server: HttpServer) -> None:
    with httpx.Client(timeout=30, headers={**server.headers, **MODERN}) as http:
        for i in range(3):
            failed = _message(http.post(server.url, json=_call(f"made_up_{i}", {})))
            assert "made_up" in json.dumps(failed)
        http.post(server.url, json=_call("think", {"thought": "a"}))
        scraped = http.get(f"{server.base}/metrics").text
    counted: dict[str, float] = {}
    for family in text_string_to_metric_families(scraped):
        for sample in family.samples:
            if sample.name == "toolbelt_calls_total":
                tool = sample.labels["tool"]
                counted[tool] = counted.get(tool, 0) + sample.value
    assert counted == {"(unknown)": 3, "think": 1}
    assert "made_up" not in scraped


@pytest.mark.parametrize(("method", "path"), [("GET", "/metrics/"), ("POST", "/mcp/")])
def test_a_path_the_door_does_not_serve_gets_404_never_a_redirect(
    server: HttpServer, method: str, path: str
) -> None:
    headers = {**server.headers, "host": "evil.example", "content-type": "application/json"}
    answer = httpx.request(method, f"{server.base}{path}", headers=headers, content=b"{}")
    assert (answer.status_code, answer.headers.get("location")) == (404, None)
