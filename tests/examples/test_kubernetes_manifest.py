"""The Kubernetes Job template (examples/kubernetes): its server starts as written — the
arguments are the real CLI's, the token comes from the environment (never the arguments),
readiness is /readyz — and its headless policy allows what its rules allow and denies what
would ask, with no prompt."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.support.toolbelt_cli import TOOLBELT

MANIFEST = Path(__file__).parents[2] / "examples" / "kubernetes" / "toolbelt-task-job.yaml"


def _documents() -> tuple[dict[str, Any], dict[str, Any]]:
    job, settings = list(yaml.safe_load_all(MANIFEST.read_text()))
    return job, settings


def test_the_job_runs_the_server_with_the_token_from_a_secret_and_readiness_on_readyz() -> None:
    job, _ = _documents()
    [container] = job["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["toolbelt", "mcp"]
    assert not any("token" in arg.lower() for arg in container["args"])
    [token] = [e for e in container["env"] if e["name"] == "TOOLBELT_MCP_TOKEN"]
    assert "secretKeyRef" in token["valueFrom"]
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "mcp"}
    assert container["livenessProbe"]["httpGet"] == {"path": "/livez", "port": "mcp"}
    assert {"name": "mcp", "containerPort": 8765} in container["ports"]


def test_the_job_arguments_serve_the_headless_policy(tmp_path: Path) -> None:
    job, settings = _documents()
    [container] = job["spec"]["template"]["spec"]["containers"]
    local = {"--http=0.0.0.0": "--http=127.0.0.1", "--port=8765": "--port=0"}
    args = [local.get(arg, arg) for arg in container["args"]]
    workspace = tmp_path / "work"
    (workspace / ".toolbelt").mkdir(parents=True)
    (workspace / ".toolbelt" / "settings.json").write_text(settings["data"]["settings.json"])
    args = [f"--root={workspace}" if arg == "--root=/work" else arg for arg in args]
    ready = tmp_path / "ready.json"
    process = subprocess.Popen(
        [*TOOLBELT, "mcp", *args, "--ready-file", str(ready)],
        env={**os.environ, "TOOLBELT_MCP_TOKEN": "k8s-secret-token"},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.02)
        url = json.loads(ready.read_text())["url"]
        assert httpx.get(url.removesuffix("/mcp") + "/readyz").text == "ready"
        headers = {
            "Authorization": "Bearer k8s-secret-token",
            "mcp-protocol-version": "2026-07-28",
            "accept": "application/json, text/event-stream",
        }
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}

        def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments, "_meta": meta},
            }
            answer = httpx.post(url, json=body, headers=headers, timeout=30)
            text = answer.text
            if answer.headers["content-type"].startswith("text/event-stream"):
                text = [line[6:] for line in text.splitlines() if line.startswith("data: ")][-1]
            result: dict[str, Any] = json.loads(text)["result"]
            return result

        written = call("write_file", {"path": "src/app.py", "content": "x = 1\n"})
        assert not written["isError"], written  # Edit(/**) in the ConfigMap allows it
        assert (workspace / "src" / "app.py").read_text() == "x = 1\n"
        outside = call("write_file", {"path": str(tmp_path / "elsewhere.txt"), "content": "x"})
        assert outside["isError"]  # it would ask: in dont_ask mode, denied, nobody prompted
        assert "dont_ask" in outside["content"][0]["text"]
        assert not (tmp_path / "elsewhere.txt").exists()
    finally:
        process.terminate()
        process.wait(20)
