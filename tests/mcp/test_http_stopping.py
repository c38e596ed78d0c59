"""`toolbelt mcp --http` stopping: from SIGTERM on, health checks answer 503 and new requests
are refused, while the call in flight still finishes and is answered."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import httpx
from tests.mcp.http_server import start
from tests.support.mcp_requests import INITIALIZE
from tests.support.waiting import wait_until


def test_health_says_stopping_from_sigterm_while_the_call_in_flight_finishes(
    tmp_path: Path,
) -> None:
    running = start(tmp_path, "--mode", "bypass")
    try:
        headers = {**running.headers, "Accept": "application/json, text/event-stream"}
        session = httpx.post(running.url, headers=headers, json=INITIALIZE).headers[
            "mcp-session-id"
        ]
        command = "touch started; while [ ! -e go ]; do sleep 0.02; done; echo finished"
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "bash", "arguments": {"command": command}},
        }
        answers: list[httpx.Response] = []
        caller = threading.Thread(
            target=lambda: answers.append(
                httpx.post(
                    running.url,
                    headers={**headers, "Mcp-Session-Id": session},
                    json=call,
                    timeout=60,
                )
            )
        )
        caller.start()
        wait_until((tmp_path / "started").exists, "the call to start")
        running.process.send_signal(signal.SIGTERM)
        live = httpx.get(f"{running.base}/livez")
        deadline = time.monotonic() + 20
        while live.status_code == 200 and time.monotonic() < deadline:  # the signal's delivery
            live = httpx.get(f"{running.base}/livez")
        assert (live.status_code, live.text) == (503, "stopping")
        ready = httpx.get(f"{running.base}/readyz")
        assert (ready.status_code, ready.text) == (503, "stopping")
        refused = httpx.post(running.url, headers=headers, json=INITIALIZE)
        assert refused.status_code == 503
        assert refused.json()["error"]["message"] == "The server is stopping."
        assert running.process.poll() is None  # still draining: the call is in flight
        (tmp_path / "go").touch()
        caller.join(60)
        assert '"text":"finished"' in answers[0].text.replace(" ", "")
        assert running.process.wait(20) == 0
    finally:
        (tmp_path / "go").touch()
        running.stop()
