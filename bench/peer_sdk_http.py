"""The MCP SDK's reference server over streamable HTTP, with the two cheap tools the soak
benchmark calls (think, todo_read): the peer `bench_http_soak` measures toolbelt against.

Usage: ``python bench/peer_sdk_http.py PORT`` (127.0.0.1 only).
"""

from __future__ import annotations

import logging
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("sdk-peer")


@server.tool()
def think(thought: str) -> str:
    """Record a thought."""
    return "Thought recorded."


@server.tool()
def todo_read() -> str:
    """The todo list."""
    return "No todos."


if __name__ == "__main__":
    logging.disable(logging.INFO)  # no per-request access log: toolbelt writes none either
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
