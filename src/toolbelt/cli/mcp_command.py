"""``toolbelt mcp``: serve the tools to an MCP client over stdio or streamable HTTP."""

from __future__ import annotations

import ipaddress
import os
import sys
from pathlib import Path

import anyio

from toolbelt.cli.sandbox_option import configure_sandbox
from toolbelt.cli.trust_command import load_and_warn
from toolbelt.core.context import Session
from toolbelt.core.errors import UsageError
from toolbelt.permissions.factory import build_policy

__all__ = ["serve_mcp"]

TOKEN_ENV = "TOOLBELT_MCP_TOKEN"


def serve_mcp(
    *,
    root: str,
    mode: str | None,
    add_dirs: list[str],
    http: str | None = None,
    allow_remote: bool = False,
    token_file: str | None = None,
    trust_workspace: bool = False,
    sandbox: str | None = None,
) -> int:
    """Run the server until the client disconnects (stdio) or SIGTERM (HTTP)."""
    trusted = True if trust_workspace else None
    try:
        session = Session(root, add_dirs=add_dirs)
        settings = load_and_warn(session.root, trusted)
        build_policy(session, mode, settings=settings)  # a bad mode or directory fails here
        secrets = [Path(token_file).resolve()] if token_file else []
        sandboxing = configure_sandbox(session, settings, sandbox, secrets=secrets)
        if http is None:
            from toolbelt.mcp.stdio import serve_stdio

            anyio.run(lambda: serve_stdio(session, mode=mode, trusted=trusted))
            return 0
        host, port = _address(http)
        token = _token(token_file)
        if not _loopback(host):
            if not allow_remote:
                raise UsageError(
                    f"Refusing to listen on {host}: only loopback addresses are allowed unless "
                    "you pass --allow-remote (with a bearer token)."
                )
            if token is None:
                raise UsageError(
                    f"--allow-remote needs a bearer token: put it in a file (--token-file) or in "
                    f"${TOKEN_ENV}; it is never accepted on the command line."
                )
    except UsageError as exc:
        print(f"toolbelt: {exc}", file=sys.stderr)
        return 2
    import uvicorn

    from toolbelt.mcp.http import HttpOptions, build_app

    options = HttpOptions(
        session.root, mode, host, port, tuple(add_dirs), token, trusted, sandboxing
    )
    uvicorn.run(build_app(options), host=host, port=port, log_level="warning", lifespan="on")
    return 0


def _address(value: str) -> tuple[str, int]:
    """``HOST:PORT``, or just ``PORT`` for 127.0.0.1."""
    if value.isdigit():
        return "127.0.0.1", int(value)
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--http wants HOST:PORT (for example 127.0.0.1:8765), not {value!r}.")
    return host.strip("[]"), int(port)


def _token(token_file: str | None) -> str | None:
    if token_file is not None:
        text = Path(token_file).read_text(encoding="utf-8").strip()
        if not text:
            raise UsageError(f"The token file {token_file} is empty.")
        return text
    value = os.environ.pop(TOKEN_ENV, None)  # never handed on to commands the tools run
    return value.strip() if value else None


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
