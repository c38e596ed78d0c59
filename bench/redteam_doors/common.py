"""Shared helpers for the red-team cases: private HOME, a server on 127.0.0.1, raw HTTP."""

from __future__ import annotations

import http.client
import json
import os
import pathlib
import subprocess
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
TB = str(REPO / ".venv" / "bin" / "toolbelt")
RESULTS: list[tuple[str, str, str, str]] = []  # (class, case, verdict, detail)


def record(cls, case, ok, detail=""):
    verdict = "note" if ok is None else "held" if ok else "FINDING"
    RESULTS.append((cls, case, verdict, detail))
    print(f"[{verdict:7}] {cls:10} {case}: {detail}"[:400], flush=True)


def private_env(base: pathlib.Path, **extra):
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TOOLBELT", "XDG_", "ANTHROPIC", "OPENAI"))
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local/state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local/share"),
    )
    env.update(extra)
    return env


class Server:
    def __init__(self, base, args=(), env_extra=None, token_env="s3cr3t-TOKEN-abcdef0123456789"):
        self.base = pathlib.Path(base)
        self.ws = self.base / "ws"
        self.ws.mkdir(parents=True, exist_ok=True)
        (self.ws / "hello.txt").write_text("hello\n")
        self.ready = self.base / "ready.json"
        extra = dict(env_extra or {})
        if token_env:
            extra["TOOLBELT_MCP_TOKEN"] = token_env
        self.token = token_env
        self.env = private_env(self.base, **extra)
        self.stderr = open(self.base / "stderr.log", "wb")
        self.proc = subprocess.Popen(
            [
                TB,
                "mcp",
                "--port",
                "0",
                "--ready-file",
                str(self.ready),
                "--root",
                str(self.ws),
                "--mode",
                "bypass",
                "--sandbox",
                "off",
                *args,
            ],
            env=self.env,
            cwd=self.ws,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.stderr,
        )
        deadline = time.monotonic() + 30
        while not self.ready.exists():
            if self.proc.poll() is not None:
                raise RuntimeError("server died: " + (self.base / "stderr.log").read_text())
            if time.monotonic() > deadline:
                raise RuntimeError("no ready file")
            time.sleep(0.05)
        self.info = json.loads(self.ready.read_text())
        from urllib.parse import urlsplit

        u = urlsplit(self.info["url"])
        self.host, self.port = u.hostname, u.port
        if token_env is None and self.info.get("token_file"):
            self.token = pathlib.Path(self.info["token_file"]).read_text().strip()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()

    def hdrs(self, **kw):
        h = {
            "Host": f"127.0.0.1:{self.port}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {self.token}",
        }
        for k, v in kw.items():
            k = k.replace("_", "-")
            if v is None:
                h.pop(k, None)
            else:
                h[k] = v
        return h

    def req(self, method, path="/mcp", body=None, headers=None, timeout=20):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        c.request(method, path, body=data, headers=headers if headers is not None else self.hdrs())
        r = c.getresponse()
        out = r.read()
        c.close()
        return r.status, dict(r.getheaders()), out

    def init(self, version="2025-11-25"):
        st, h, b = self.req(
            "POST",
            body={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "rt", "version": "0"},
                },
            },
        )
        sid = {k.lower(): v for k, v in h.items()}.get("mcp-session-id")
        self.req(
            "POST",
            body={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=self.hdrs(**{"Mcp-Session-Id": sid}),
        )
        return sid


def sse_result(body: bytes):
    """The JSON-RPC messages in a body (plain JSON or SSE)."""
    text = body.decode(errors="replace")
    if text.lstrip().startswith("{"):
        return [json.loads(text)]
    return [json.loads(l[5:]) for l in text.splitlines() if l.startswith("data:")]
