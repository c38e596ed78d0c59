"""``headersHelper``: a command whose output is the headers of a remote server's requests.

Claude Code's key for credentials that change (a short-lived token from a cloud CLI, a
password manager): the command runs at each connection, in ``/bin/sh``, and prints a JSON
object of header names to string values, which go over the entry's static ``headers``. It
starts a program, so it is treated like a stdio ``command``: a workspace's entry runs only
in a trusted workspace, and as pinned when it was trusted, with the workspace files it names
(``config.launches``, ``config.launch_files``); it runs in the workspace (the user's own
entries in the user's home), as a process tree that ends whole, within ``HELPER_TIMEOUT``
seconds. It learns which server asks from ``CLAUDE_CODE_MCP_SERVER_NAME`` and
``CLAUDE_CODE_MCP_SERVER_URL`` (Claude Code's names, so one helper serves both).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio

from toolbelt.mcp_client.config import ServerConfig
from toolbelt.procs.tree import ProcessTree

__all__ = ["HELPER_TIMEOUT", "HeadersHelperError", "helper_headers"]

HELPER_TIMEOUT = 10.0
_MAX_OUTPUT = 64 * 1024


class HeadersHelperError(Exception):
    """The helper failed: the server is not connected, and this says why."""


async def helper_headers(config: ServerConfig) -> dict[str, str]:
    """The headers ``config.headers_helper`` prints; ``HeadersHelperError`` when it fails,
    times out or prints anything but a JSON object of strings."""
    command = config.headers_helper
    if command is None:
        return {}
    env = {
        **os.environ,
        "CLAUDE_CODE_MCP_SERVER_NAME": config.name,
        "CLAUDE_CODE_MCP_SERVER_URL": config.url,
    }
    cwd = Path(config.cwd) if config.cwd else Path.home()
    tree = ProcessTree(["/bin/sh", "-c", command], cwd=cwd, env=env, grace=1.0)
    try:
        process = await tree.start()
    except OSError as exc:
        raise HeadersHelperError(f"its headersHelper could not start: {exc}") from exc
    output = b""
    try:
        with anyio.move_on_after(HELPER_TIMEOUT) as deadline:
            assert process.stdout is not None
            if process.stdin is not None:
                await process.stdin.aclose()
            async for chunk in process.stdout:
                output += chunk
                if len(output) > _MAX_OUTPUT:
                    raise HeadersHelperError("its headersHelper printed more than 64 KiB")
            await process.wait()
    finally:
        await tree.aclose()
    if deadline.cancelled_caught:
        raise HeadersHelperError(
            f"its headersHelper did not finish within {HELPER_TIMEOUT:g} s and was killed"
        )
    if process.returncode != 0:
        raise HeadersHelperError(f"its headersHelper exited with status {process.returncode}")
    try:
        headers = json.loads(output.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise HeadersHelperError(
            "its headersHelper must print a JSON object of header names to values"
        ) from exc
    if not isinstance(headers, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in headers.items()
    ):
        raise HeadersHelperError(
            "its headersHelper must print a JSON object of header names to string values"
        )
    return headers
