"""`toolbelt mcp --http` as a fleet's per-task server: `--port 0` with `--ready-file`, the token
from the environment (and gone from it), `/metrics`, `--idle-exit`, `--max-lifetime`, and a
retried call with an idempotency key running once."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from tests.mcp.http_server import start
from tests.support.toolbelt_cli import TOOLBELT
from tests.support.waiting import wait_until

pytestmark = pytest.mark.anyio

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


def _serve(root: Path, ready: Path, *args: str, token: str | None = "t0k-fleet") -> Any:
    env = {**os.environ}
    if token is not None:
        env["TOOLBELT_MCP_TOKEN"] = token
    return subprocess.Popen(
        [
            *TOOLBELT,
            "mcp",
            "--port",
            "0",
            "--ready-file",
            str(ready),
            "--root",
            str(root),
            *args,
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )


def _call(url: str, token: str, name: str, arguments: dict[str, Any], **headers: str) -> Any:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": MODERN},
    }
    answer = httpx.post(
        url,
        json=body,
        headers={
            "Authorization": f"Bearer {token}",
            "mcp-protocol-version": "2026-07-28",
            "accept": "application/json, text/event-stream",
            **headers,
        },
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    text = answer.text
    if answer.headers["content-type"].startswith("text/event-stream"):
        text = next(line[6:] for line in text.splitlines() if line.startswith("data: "))
    return json.loads(text)


def test_port_0_writes_the_bound_url_to_the_ready_file_and_removes_it_on_stop(
    tmp_path: Path,
) -> None:
    ready = tmp_path / "ready.json"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    process = _serve(workspace, ready)
    try:
        wait_until(ready.exists, "the ready file")
        written = json.loads(ready.read_text())
        assert written["pid"] == process.pid
        assert written["token_file"] is None  # the token came from the environment
        assert written["url"].startswith("http://127.0.0.1:")
        assert written["url"].endswith("/mcp")
        assert not written["url"].endswith(":0/mcp")
        base = written["url"].removesuffix("/mcp")
        assert httpx.get(f"{base}/readyz").text == "ready"  # written once serving
        reply = _call(written["url"], "t0k-fleet", "think", {"thought": "hello"})
        assert reply["result"]["content"][0]["text"] == "Thought recorded."
        # the token was taken out of the environment: neither inherited nor left in the block
        # /proc shows, which any process of the same user could read
        assert b"t0k-fleet" not in Path(f"/proc/{process.pid}/environ").read_bytes()
        assert b"t0k-fleet" not in Path(f"/proc/{process.pid}/cmdline").read_bytes()
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ready.json")]
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
        assert not ready.exists()
    finally:
        process.kill()
        process.wait()


def test_port_0_without_a_token_makes_one_for_the_run_and_removes_it(tmp_path: Path) -> None:
    ready = tmp_path / "ready.json"
    process = _serve(tmp_path, ready, token=None)
    try:
        wait_until(ready.exists, "the ready file")
        written = json.loads(ready.read_text())
        token_file = Path(written["token_file"])
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        port = written["url"].rsplit(":", 1)[1].removesuffix("/mcp")
        assert token_file.name == f"mcp-{port}.token"
        token = token_file.read_text().strip()
        reply = _call(written["url"], token, "think", {"thought": "hi"})
        assert not reply["result"]["isError"]
        refused = httpx.post(written["url"], json={}, headers={"Authorization": "Bearer no"})
        assert refused.status_code == 401
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
        assert not token_file.exists()  # a port chosen afresh has no saved clients
    finally:
        process.kill()
        process.wait()


def test_idle_exit_stops_the_server_once_no_request_comes(tmp_path: Path) -> None:
    ready = tmp_path / "ready.json"
    process = _serve(tmp_path, ready, "--idle-exit", "1.5")
    try:
        wait_until(ready.exists, "the ready file")
        url = json.loads(ready.read_text())["url"]
        base = url.removesuffix("/mcp")
        began = time.monotonic()
        for _ in range(3):  # requests keep it alive; health checks do not count
            _call(url, "t0k-fleet", "think", {"thought": "still here"})
            httpx.get(f"{base}/readyz")
            time.sleep(0.5)
        assert process.poll() is None
        assert process.wait(30) == 0
        assert time.monotonic() - began >= 1.5 + 1.0
        assert process.stderr is not None
        assert "stopping: no request came for 1.5 s (--idle-exit)" in process.stderr.read()
        assert not ready.exists()
    finally:
        process.kill()
        process.wait()


def test_max_lifetime_stops_a_busy_server(tmp_path: Path) -> None:
    ready = tmp_path / "ready.json"
    process = _serve(tmp_path, ready, "--max-lifetime", "2")
    try:
        wait_until(ready.exists, "the ready file")
        url = json.loads(ready.read_text())["url"]
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError, AssertionError):  # stopped meanwhile
                _call(url, "t0k-fleet", "think", {"thought": "busy"})
            time.sleep(0.1)
        assert process.wait(1) == 0
        assert process.stderr is not None
        assert "stopping: it has served 2 s (--max-lifetime)" in process.stderr.read()
    finally:
        process.kill()
        process.wait()


def test_fleet_options_need_http(tmp_path: Path) -> None:
    base = [*TOOLBELT, "mcp", "--root", str(tmp_path)]
    stdio = subprocess.run([*base, "--idle-exit", "5"], capture_output=True, text=True, timeout=30)
    assert stdio.returncode == 2
    assert "--idle-exit applies to the HTTP server; add --http (or --port)." in stdio.stderr
    twice = subprocess.run(
        [*base, "--http", "127.0.0.1:9", "--port", "0"], capture_output=True, text=True, timeout=30
    )
    assert twice.returncode == 2
    assert "names a port and so does --port; give the port once" in twice.stderr
    both = subprocess.run(
        [*base, "--port", "0", "--token-file", str(tmp_path / "t")],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "TOOLBELT_MCP_TOKEN": "x"},
    )
    assert both.returncode == 2
    assert "given twice, in $TOOLBELT_MCP_TOKEN and by --token-file" in both.stderr


def test_metrics_count_calls_by_tool_and_state(tmp_path: Path) -> None:
    running = start(tmp_path)
    try:
        modern = {"mcp-protocol-version": "2026-07-28"}
        for _ in range(2):
            _call(running.url, running.token or "", "think", {"thought": "a"}, **modern)
        failed = _call(running.url, running.token or "", "read_file", {"path": "absent"})
        assert failed["result"]["isError"]
        assert httpx.get(f"{running.base}/metrics").status_code == 401
        scraped = httpx.get(f"{running.base}/metrics", headers=running.headers)
        assert scraped.headers["content-type"].startswith("text/plain; version=")
        samples = {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(scraped.text)
            for sample in family.samples
        }
        assert samples[("toolbelt_calls_total", (("state", "success"), ("tool", "think")))] == 2
        assert samples[("toolbelt_calls_total", (("state", "error"), ("tool", "read_file")))] == 1
        assert samples[("toolbelt_call_seconds_count", (("tool", "think"),))] == 2
        assert samples[("toolbelt_call_seconds_bucket", (("le", "+Inf"), ("tool", "think")))] == 2
        assert samples[("toolbelt_calls_in_flight", ())] == 0
        assert samples[("toolbelt_sessions", ())] == 1  # the stateless one
        assert samples[("process_resident_memory_bytes", ())] > 10 * 2**20
    finally:
        running.stop()


async def test_a_retry_with_the_same_idempotency_key_runs_once(tmp_path: Path) -> None:
    running = start(tmp_path, "--mode", "bypass")
    command = "echo run >> runs.txt; touch started; while [ ! -e go ]; do sleep 0.02; done; echo ok"
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "bash", "arguments": {"command": command}, "_meta": MODERN},
    }
    headers = {
        **running.headers,
        "mcp-protocol-version": "2026-07-28",
        "accept": "application/json, text/event-stream",
        "idempotency-key": "episode-1-step-3",
    }
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            async with client.stream("POST", running.url, json=body, headers=headers) as response:
                assert response.status_code == 200
                with anyio.fail_after(20):
                    while not (tmp_path / "started").exists():
                        await anyio.sleep(0.02)
            # the connection dropped before the answer; the client retries with the same key
            async with anyio.create_task_group() as group:
                retried: list[httpx.Response] = []

                async def retry() -> None:
                    retried.append(await client.post(running.url, json=body, headers=headers))

                group.start_soon(retry)
                await anyio.sleep(0.3)  # the retry waits for the first run, it does not start one
                (tmp_path / "go").touch()
            again = await client.post(running.url, json=body, headers=headers)  # after the end
            other = {**body, "params": {**body["params"], "arguments": {"command": "echo other"}}}
            reused = await client.post(running.url, json=other, headers=headers)
        answers = [_data(retried[0]), _data(again)]
        assert [a["id"] for a in answers] == [7, 7]
        assert [a["result"]["content"][0]["text"].strip() for a in answers] == ["ok", "ok"]
        assert (tmp_path / "runs.txt").read_text() == "run\n"  # ran once for three requests
        assert _data(reused)["error"]["code"] == -32602
        assert "was already used for another call" in _data(reused)["error"]["message"]
    finally:
        running.stop()


def _data(response: httpx.Response) -> Any:
    text = response.text
    if response.headers["content-type"].startswith("text/event-stream"):
        text = next(line[6:] for line in text.splitlines() if line.startswith("data: "))
    return json.loads(text)


def test_a_kept_answer_is_replayed_in_the_era_of_the_retry(tmp_path: Path) -> None:
    """A call first answered on the stateless 2026-07-28 wire and retried, same key, inside a
    2025-11-25 session: the retry gets the same answer without the modern-only fields (the
    TypeScript SDK's session-era client rejects them), and it did not run again."""
    running = start(tmp_path, "--mode", "bypass")
    arguments = {"command": "echo run >> runs.txt; echo ok"}
    keyed = {**running.headers, "idempotency-key": "episode-2-step-1"}
    try:
        with httpx.Client(timeout=30) as client:
            first = _call(running.url, running.token or "", "bash", arguments, **keyed)
            assert first["result"]["resultType"] == "complete"
            session_era = {
                **running.headers,
                "mcp-protocol-version": "2025-11-25",
                "accept": "application/json, text/event-stream",
            }
            hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
            hello["clientInfo"] = {"name": "retrier", "version": "1"}
            opened = client.post(
                running.url,
                json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
                headers=session_era,
            )
            session = {**session_era, "mcp-session-id": opened.headers["mcp-session-id"]}
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert client.post(running.url, json=done, headers=session).status_code == 202
            call = {"name": "bash", "arguments": arguments}
            retry = {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": call}
            again = _data(
                client.post(
                    running.url,
                    json=retry,
                    headers={**session, "idempotency-key": "episode-2-step-1"},
                )
            )
        assert again["id"] == 8
        assert again["result"]["content"] == first["result"]["content"]
        assert "resultType" not in again["result"]
        assert (tmp_path / "runs.txt").read_text() == "run\n"
    finally:
        running.stop()
