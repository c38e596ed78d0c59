"""``toolbelt mcp``: serve the tools to an MCP client over stdio."""

from __future__ import annotations

import sys

import anyio

from toolbelt.core.context import Session
from toolbelt.core.errors import UsageError

__all__ = ["serve_mcp"]


def serve_mcp(*, root: str, mode: str, add_dirs: list[str]) -> int:
    """Run the stdio MCP server until the client disconnects; 2 on a bad workspace."""
    try:
        session = Session(root, add_dirs=add_dirs)
    except UsageError as exc:
        print(f"toolbelt: {exc}", file=sys.stderr)
        return 2
    from toolbelt.mcp.stdio import serve_stdio

    anyio.run(lambda: serve_stdio(session, mode=mode))
    return 0
