"""Which wire era a request speaks, and its result as that era writes it.

The server speaks two eras at once: the session era (2024-11-05 … 2025-11-25: ``initialize``,
then requests in that session) and the stateless 2026-07-28 era (each request names its
version in ``_meta``; every result carries ``resultType``, and lists carry ``ttlMs`` and
``cacheScope``). A field of one era is a stranger to the other's clients: the TypeScript SDK's
client (inside many MCP hosts) validates an empty result strictly, so a ``ping`` answered
``{"resultType": "complete"}`` in a 2025-11-25 session fails there. So the handlers build the
modern result, and what goes out to a session-era request is that result without the modern
fields — decided here, once, for every method.
"""

from __future__ import annotations

from typing import Any

from toolbelt.mcp.revisions import META_VERSION, MODERN_VERSIONS

__all__ = ["MODERN_ONLY", "in_era", "is_modern"]

MODERN_ONLY = ("resultType", "ttlMs", "cacheScope")
"""Result fields only the 2026-07-28 era has."""


def is_modern(method: str, params: dict[str, Any], *, stateless: bool) -> bool:
    """Whether a request speaks the 2026-07-28 era: it names that version in ``_meta``, it is
    ``server/discover`` (that era's handshake), or it reached a stateless server (the HTTP
    door routes a request there by its version header)."""
    meta = params.get("_meta") or {}
    return stateless or method == "server/discover" or meta.get(META_VERSION) in MODERN_VERSIONS


def in_era(result: dict[str, Any], *, modern: bool) -> dict[str, Any]:
    """``result`` (built in the modern form) as the request's era writes it."""
    if modern:
        return result
    return {key: value for key, value in result.items() if key not in MODERN_ONLY}
