"""The raw JSON-RPC requests the MCP server tests send without an SDK client.

Tests of the doors (HTTP guards, sessions, limits, malformed input) speak the wire directly, so
that what they check is the server's answer to exactly these bytes; the handshake they open
with is the same everywhere.
"""

from __future__ import annotations

from typing import Any

__all__ = ["INITIALIZE"]

INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
"""A session-era ``initialize`` (revision 2025-11-25, no client capabilities)."""
