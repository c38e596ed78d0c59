"""``toolbelt mcp-servers login|logout NAME``: a person logs in to a remote MCP server.

Only here does toolbelt open a browser: ``toolbelt run``, ``toolbelt mcp`` and a piped ``call``
report a server that needs a login and go on without it. The login prints the address it
opens (always), opens it through Python's ``webbrowser`` (so ``BROWSER`` is honoured) unless
``--no-browser``, and takes the answer from the loopback redirect or from a pasted address.
"""

from __future__ import annotations

import sys
import time

import anyio

from toolbelt.cli.notices import print_notices
from toolbelt.core.errors import UsageError
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.mcp_client.config import ServerConfig
from toolbelt.runtime import Runtime

__all__ = ["configured_server", "log_in_command", "log_out_command"]


def configured_server(root: str, name: str, *, trust_workspace: bool) -> ServerConfig | int:
    """The entry ``name`` as the workspace's configuration has it, or the exit status after
    saying why there is none (2)."""
    try:
        runtime = Runtime(root, trusted=True if trust_workspace else None)
    except UsageError as exc:
        return _fail(str(exc))
    print_notices(runtime)
    config = runtime.mcp_config
    servers = config.servers if config is not None else ()
    found = next((server for server in servers if server.name == name), None)
    if found is not None:
        return found
    if config is not None:
        for path, off, why in config.disabled:
            if off == name:
                return _fail(f"the MCP server `{name}` in {path} is turned off: {why}.")
        for path, changed, _ in config.changed:
            if changed == name:
                return _fail(
                    f"the MCP server `{name}` in {path} changed since you trusted the workspace; "
                    f"review it, then run `toolbelt trust {config.root}`."
                )
        if config.ignored:
            return _fail(
                f"no MCP server `{name}` is configured for you; the workspace's own servers are "
                "not read until it is trusted (`toolbelt trust`, or `--trust-workspace`)."
            )
    known = ", ".join(f"`{server.name}`" for server in servers) or "none"
    return _fail(f"no MCP server `{name}` is configured; the configured ones: {known}.")


def log_in_command(
    root: str,
    name: str,
    *,
    trust_workspace: bool,
    browser: bool,
    callback_port: int | None,
) -> int:
    """Log in to ``name``; 0 when logged in, 1 when the login failed, 2 for bad usage."""
    from toolbelt.mcp_client.oauth_account import log_in, login_port
    from toolbelt.mcp_client.oauth_login import LoginFailed

    server = configured_server(root, name, trust_workspace=trust_workspace)
    if isinstance(server, int):
        return server
    if server.transport == "stdio":
        return _fail(f"`{name}` is a stdio server: there is no login to it.")
    if server.oauth is None:
        return _fail(
            f'OAuth is off for `{name}` ("oauth": false); give it credentials in `headers` or '
            "`headersHelper` instead."
        )
    if server.oauth.grant == "client_credentials":
        return _fail(
            f"`{name}` logs in by itself (client_credentials): there is nothing to do by hand."
        )

    def say(text: str) -> None:
        print(escape_for_terminal(text, newlines=True), file=sys.stderr, flush=True)

    port = login_port(server, callback_port)
    try:
        outcome = anyio.run(lambda: log_in(server, say, port=port, browser=browser))
    except OSError as exc:
        return _fail(
            f"cannot listen on 127.0.0.1 port {port} for the login's redirect ({exc.strerror}); "
            "free it or choose another with --callback-port.",
            status=1,
        )
    except LoginFailed as exc:
        return _fail(f"the login to `{name}` failed: {exc}.", status=1)
    expiry = ""
    if outcome.expires_at is not None:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(outcome.expires_at))
        expiry = f"; the token expires {when}"
        expiry += ", and is refreshed by itself" if outcome.refreshable else ""
    tools = "1 tool" if outcome.tools == 1 else f"{outcome.tools} tools"
    print(f"Logged in to `{escape_for_terminal(name)}` ({tools}){expiry}.")
    return 0


def log_out_command(root: str, name: str, *, trust_workspace: bool) -> int:
    """Forget (and revoke) the login to ``name``."""
    from toolbelt.mcp_client.oauth_account import log_out

    server = configured_server(root, name, trust_workspace=trust_workspace)
    if isinstance(server, int):
        return server
    if server.transport == "stdio":
        return _fail(f"`{name}` is a stdio server: there is no login to it.")
    print(escape_for_terminal(anyio.run(log_out, server)))
    return 0


def _fail(text: str, *, status: int = 2) -> int:
    print(f"toolbelt: {escape_for_terminal(text)}", file=sys.stderr)
    return status
