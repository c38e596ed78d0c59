"""The MCP protocol revisions the server speaks, and the ``_meta`` keys of the stateless era.

Both doors read them before any handler runs: HTTP must tell a 2026-07-28 request (no
session, the version and the client's capabilities in each request's ``_meta``) from a
session-era one to know whether to route it through a session at all, so the list cannot live
inside the server that a session holds.
"""

from __future__ import annotations

__all__ = [
    "META_CAPABILITIES",
    "META_LOG_LEVEL",
    "META_SERVER_INFO",
    "META_VERSION",
    "MODERN_VERSIONS",
    "SUPPORTED_VERSIONS",
]

SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""The session-era revisions agreed at ``initialize``, newest first (the default)."""
MODERN_VERSIONS = ("2026-07-28",)
"""The stateless era: no initialize; each request carries its version and the client's
capabilities in ``_meta``; the server asks the user with an ``input_required`` result."""
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
