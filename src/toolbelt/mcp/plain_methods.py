"""The results of the MCP requests that run no tool: the handshake, discovery, the tool list,
the log level.

They are pure functions of what the connection agreed and what the runtime holds, so they are
built here and the server keeps only the dispatch and the state they change (the client's
capabilities, the agreed revision, the log level). A request they cannot serve raises
``MethodError`` carrying its JSON-RPC error, which the server answers with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolbelt.config.settings import Settings
from toolbelt.core.context import Session
from toolbelt.core.registry import Toolset
from toolbelt.mcp.notifications import LOG_LEVELS
from toolbelt.mcp.revisions import META_SERVER_INFO, MODERN_VERSIONS, SUPPORTED_VERSIONS
from toolbelt.toolsearch.listing import listed_tools

__all__ = [
    "MethodError",
    "agreed_version",
    "checked_log_level",
    "discover_result",
    "initialize_result",
    "tools_list_result",
]


class MethodError(Exception):
    """A request the server cannot serve; ``error`` is its JSON-RPC error object."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.error = {"code": code, "message": message}


def agreed_version(asked: Any) -> str:
    """The revision to speak: the client's when the server knows it, else the newest."""
    return asked if asked in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[0]


def initialize_result(version: str, list_changes: bool, root: Path | None) -> dict[str, Any]:
    """The ``initialize`` result for the agreed ``version`` (``root`` None: the workspace will
    be the client's first root, ``mcp.roots``)."""
    return {
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": list_changes}, "logging": {}},
        "serverInfo": {"name": "toolbelt", "title": "toolbelt", "version": _version()},
        "instructions": _instructions(root),
    }


def discover_result(list_changes: bool, root: Path) -> dict[str, Any]:
    """The 2026-07-28 ``server/discover`` result: what ``initialize`` told, without a session."""
    return {
        "supportedVersions": list(MODERN_VERSIONS),
        "capabilities": {"tools": {"listChanged": list_changes}, "logging": {}},
        "instructions": _instructions(root),
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {META_SERVER_INFO: {"name": "toolbelt", "version": _version()}},
    }


def tools_list_result(toolset: Toolset, session: Session, settings: Settings) -> dict[str, Any]:
    """The ``tools/list`` result: with tool search, our tools, tool_search and what it loaded
    (``toolsearch.listing``). resultType, ttlMs and cacheScope are required on the 2026-07-28
    wire and ignored before."""
    from toolbelt.providers.formats import mcp_tool  # with the first listing

    listed = listed_tools(toolset, session, settings)
    tools = [mcp_tool(tool) for tool in listed]
    return {"tools": tools, "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}


def checked_log_level(level: Any) -> str:
    """``logging/setLevel``'s level, or the error naming the levels there are."""
    if level not in LOG_LEVELS:
        raise MethodError(-32602, f"Unknown log level {level!r}; use one of {LOG_LEVELS}.")
    return str(level)


def _instructions(root: Path | None) -> str:
    where = f"the workspace {root}" if root is not None else "the workspace your first root names"
    return f"Coding tools for {where}: read, search, edit files and run commands."


def _version() -> str:
    from toolbelt.core.distribution import installed_version

    return installed_version()
