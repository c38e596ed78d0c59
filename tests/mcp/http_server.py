"""Start the real `toolbelt mcp --http` and connect the real MCP clients to it, token included."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from tests.support.toolbelt_cli import TOOLBELT
from tests.support.waiting import wait_until

from mcp import Client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class HttpServer:
    process: subprocess.Popen[bytes]
    base: str
    port: int
    token: str | None
    token_file: str | None = None

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def http_client(self, **kwargs: Any) -> httpx2.AsyncClient:
        """The httpx2 client the MCP SDK's transport uses, sending the token."""
        return create_mcp_http_client(headers=self.headers, **kwargs)

    def transport(self, **kwargs: Any) -> Any:
        """The SDK's streamable HTTP transport, authenticated."""
        return streamable_http_client(self.url, http_client=self.http_client(), **kwargs)

    def client(self, **kwargs: Any) -> Client:
        """The official ``mcp.Client`` (default mode: auto, i.e. the 2026-07-28 era)."""
        return Client(self.transport(), **kwargs)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(20)
        if self.process.stderr is not None:
            self.process.stderr.close()
        if self.token_file is not None:
            os.unlink(self.token_file)


def start(
    root: Path,
    *args: str,
    env: dict[str, str] | None = None,
    auth: bool = True,
    stderr: Any = None,
) -> HttpServer:
    """The server on a free port; with a token from a file (``--token-file``) unless ``auth``
    is False (then ``--no-auth``)."""
    port = free_port()
    token: str | None = None
    name: str | None = None
    extra: list[str] = ["--no-auth"]
    if auth:
        token = f"test-token-{os.urandom(8).hex()}"
        handle, name = tempfile.mkstemp(prefix="toolbelt-test-token-")
        os.write(handle, token.encode())
        os.close(handle)
        extra = ["--token-file", name]
    process = subprocess.Popen(
        [
            *TOOLBELT,
            "mcp",
            "--http",
            f"127.0.0.1:{port}",
            "--root",
            str(root),
            *extra,
            *args,
        ],
        env={**os.environ, **(env or {})},
        stderr=stderr,
    )
    base = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        try:
            return httpx.get(f"{base}/readyz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return process.poll() is not None  # it ended: no use waiting

    try:
        wait_until(ready, "the HTTP server to be ready")
    except AssertionError:
        process.kill()
        raise
    assert process.poll() is None, f"the HTTP server ended at start (exit {process.returncode})"
    return HttpServer(process, base, port, token, name)
