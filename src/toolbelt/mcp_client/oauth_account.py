"""A person's login to a remote MCP server: log in, log out, and what is kept meanwhile.

``log_in`` connects to the server with a person there (``oauth_login``): the server's 401
starts the SDK's flow — discovery, registration, the browser, the code, the tokens, which the
store keeps (``oauth_store``) — and the tools are listed once to show it worked. ``log_out``
forgets what the store kept and revokes the tokens (RFC 7009) where the authorization server
offers a ``revocation_endpoint``. ``login_status`` is what ``toolbelt mcp-servers`` shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from toolbelt.core.errors import ToolError
from toolbelt.mcp_client.config import ServerConfig
from toolbelt.mcp_client.http_connection import credential_store
from toolbelt.mcp_client.oauth_login import LOGIN_TIMEOUT, LoginFailed, login_handlers
from toolbelt.mcp_client.oauth_store import CredentialStore

__all__ = ["LoginOutcome", "log_in", "log_out", "login_port", "login_status"]


@dataclass(frozen=True, slots=True)
class LoginOutcome:
    """A finished login: how many tools the server offers, and until when the token holds."""

    tools: int
    expires_at: float | None
    refreshable: bool


def login_port(config: ServerConfig, asked: int | None) -> int:
    """The loopback port of a login: ``--callback-port``, else the entry's ``callbackPort``,
    else the one the kept registration was made with (its redirect URI must match), else any."""
    if asked is not None:
        return asked
    if config.oauth is not None and config.oauth.callback_port is not None:
        return config.oauth.callback_port
    client = CredentialStore(config.name, config.url).read().get("client")
    uris = client.get("redirect_uris") if isinstance(client, dict) else None
    for uri in uris if isinstance(uris, list) else ():
        parts = urlsplit(str(uri))
        if parts.hostname == "127.0.0.1" and parts.port:
            return parts.port
    return 0


async def log_in(
    config: ServerConfig,
    say: Callable[[str], None],
    *,
    port: int = 0,
    browser: bool = True,
) -> LoginOutcome:
    """Log in to ``config``'s server; ``LoginFailed`` saying why it did not work, ``OSError``
    when the loopback port cannot be had."""
    from toolbelt.mcp_client.failures import first_error
    from toolbelt.mcp_client.server import McpServerToolset

    try:
        async with login_handlers(say, port=port, browser=browser) as handlers:
            store = credential_store(config, handlers)
            await _forget_registration_for_another_redirect(store, handlers.redirect_uri)
            # a person takes longer than a server to start: the login's own clock applies
            patient = replace(config, start_timeout=LOGIN_TIMEOUT + config.start_timeout)
            server = McpServerToolset(patient, login=handlers)
            async with server:
                try:
                    await server.start()
                except ToolError:
                    raise LoginFailed(server.error or "the server could not be reached") from None
                tools = len(server.tools())
    except BaseExceptionGroup as group:  # the listener's task group wraps what failed
        raise first_error(group) from None
    record = store.read()
    expires_at = record.get("expires_at")
    tokens = _section(record, "tokens")
    return LoginOutcome(
        tools,
        float(expires_at) if isinstance(expires_at, int | float) else None,
        bool(tokens and tokens.get("refresh_token")),
    )


async def log_out(config: ServerConfig) -> str:
    """Forget the login to ``config``'s server and revoke its tokens where that is offered;
    returns what happened, as a sentence."""
    store = credential_store(config)
    async with store.locked():
        record = store.forget()
    tokens = _section(record, "tokens")
    if not tokens:
        return f"There was no login to `{config.name}` to forget."
    metadata = _section(record, "as_metadata")
    endpoint = metadata.get("revocation_endpoint")
    if not isinstance(endpoint, str):
        return (
            f"Logged out of `{config.name}`: its tokens are forgotten (its authorization server "
            "offers no revocation, so they stay valid there until they expire)."
        )
    client = _section(record, "client")
    failures = []
    for hint in ("refresh_token", "access_token"):
        if tokens.get(hint):
            problem = await _revoke(endpoint, str(tokens[hint]), hint, client)
            if problem:
                failures.append(problem)
    if failures:
        return (
            f"Logged out of `{config.name}`: its tokens are forgotten, but revoking them failed "
            f"({'; '.join(failures)})."
        )
    return f"Logged out of `{config.name}`: its tokens are forgotten and revoked."


def login_status(config: ServerConfig, state: str) -> str:
    """``none`` (nothing to log in to), ``needs-login``, ``logged-in (expires …)``, or the
    server's own state when it failed for another reason (``error``)."""
    if config.transport == "stdio" or config.oauth is None:
        return "none"
    if state == "needs-login":
        return "needs-login"
    record = CredentialStore(config.name, config.url).read()
    tokens = record.get("tokens")
    if not isinstance(tokens, dict):
        return "error" if state == "failed" else "none"
    expires_at = record.get("expires_at")
    refreshable = ", refreshable" if tokens.get("refresh_token") else ""
    if not isinstance(expires_at, int | float):
        return f"logged-in (no expiry{refreshable})"
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(expires_at))
    ended = "expired" if expires_at <= time.time() else "expires"
    return f"logged-in ({ended} {when}{refreshable})"


async def _forget_registration_for_another_redirect(store: CredentialStore, uri: str) -> None:
    """A registration made for another redirect URI is refused by the server at the token
    step: forget it (with its tokens) so the login registers again."""
    client = store.read().get("client")
    uris = client.get("redirect_uris") if isinstance(client, dict) else None
    if isinstance(uris, list) and uri not in uris:
        async with store.locked():
            store.forget()


def _section(record: dict[str, Any], key: str) -> dict[str, Any]:
    value = record.get(key)
    return value if isinstance(value, dict) else {}


async def _revoke(endpoint: str, token: str, hint: str, client: dict[str, Any]) -> str | None:
    """Revoke one token (RFC 7009); a problem as a clause, or None."""
    import httpx2

    data = {"token": token, "token_type_hint": hint}
    auth: httpx2.Auth | None = None
    secret = client.get("client_secret")
    if isinstance(secret, str) and client.get("token_endpoint_auth_method") != "client_secret_post":
        auth = httpx2.BasicAuth(str(client.get("client_id", "")), secret)
    else:
        data["client_id"] = str(client.get("client_id", ""))
        if isinstance(secret, str):
            data["client_secret"] = secret
    try:
        async with httpx2.AsyncClient(timeout=15, auth=auth) as http:
            answer = await http.post(endpoint, data=data)
    except httpx2.HTTPError as exc:
        return f"{hint}: {type(exc).__name__}"
    return None if answer.status_code == 200 else f"{hint}: HTTP {answer.status_code}"
