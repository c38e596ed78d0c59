"""An MCP server over the older SSE transport, on 127.0.0.1 only, that wants a bearer token.

``python sse_server.py PORT TOKEN``: the mcp SDK's ``MCPServer`` with one ``echo`` tool behind
a check of the ``Authorization`` header, so a test sees configured headers arrive.
"""

from __future__ import annotations

import sys

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

server = MCPServer("sse-fake")


@server.tool()
def echo(text: str) -> str:
    """Say it back."""
    return f"sse: {text}"


def guarded(app: ASGIApp, token: str) -> ASGIApp:
    async def check(scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        if scope["type"] == "http" and headers.get(b"authorization") != f"Bearer {token}".encode():
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await app(scope, receive, send)

    return check


if __name__ == "__main__":
    port, token = int(sys.argv[1]), sys.argv[2]
    app = guarded(server.sse_app(host="127.0.0.1"), token)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
