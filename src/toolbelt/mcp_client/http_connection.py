"""The HTTP client one remote MCP server (``http`` or ``sse``) is reached through.

Everything the connection sends before its first message is decided here, so the transports
(``transports``) only choose the SDK's client: the entry's static headers, what its
``headersHelper`` prints over them, the OAuth provider that adds (and refreshes, and when a
person is there obtains) the bearer token, the bound on what a response may hold
(``http_limits``), and a note of the server's last refusal (``ServerAnswers``): the SDK turns
a 401 into "Server returned an error response", and the person should read "answered 401
Unauthorized" and what to do about it.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx2

from toolbelt.mcp_client.config import ServerConfig
from toolbelt.mcp_client.headers_helper import helper_headers
from toolbelt.mcp_client.http_limits import capped_client
from toolbelt.mcp_client.oauth_provider import (
    LoginHandlers,
    LoginNote,
    build_provider,
    preregistered_client,
    redirect_uri,
)
from toolbelt.mcp_client.oauth_store import CredentialStore

__all__ = ["HttpSetup", "ServerAnswers", "credential_store", "http_setup"]


class ServerAnswers(LoginNote):
    """The last refusal the server's own endpoint answered with (status and reason), and
    whether that was because it needs a login (``login_required``, from the OAuth provider)."""

    def __init__(self) -> None:
        self.refusal: tuple[int, str] | None = None
        self.login_required = None

    def describe(self) -> str | None:
        """The refusal as a clause ("it answered 401 Unauthorized"), or None."""
        if self.refusal is None:
            return None
        status, reason = self.refusal
        return f"it answered {status} {reason}".rstrip()


class _Noting(httpx2.AsyncBaseTransport):
    """Plain HTTP, noting each error status the server's endpoint answers with."""

    def __init__(self, endpoint: str, answers: ServerAnswers) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._endpoint = httpx2.URL(endpoint).copy_with(query=None, fragment=None)
        self._answers = answers

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if request.url.copy_with(query=None, fragment=None) == self._endpoint:
            ok = response.status_code < 400
            self._answers.refusal = None if ok else (response.status_code, response.reason_phrase)
            if ok:
                self._answers.login_required = None
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


@dataclass(frozen=True, slots=True)
class HttpSetup:
    """What a connection to one remote server is made with."""

    headers: dict[str, str]
    auth: httpx2.Auth | None
    answers: ServerAnswers
    endpoint: str

    def client(
        self,
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        """The capped, noting client (also the SDK's ``httpx_client_factory``)."""
        return capped_client(
            headers=headers if headers is not None else self.headers,
            timeout=timeout,
            auth=auth if auth is not None else self.auth,
            inner=_Noting(self.endpoint, self.answers),
        )


def credential_store(
    config: ServerConfig, handlers: LoginHandlers | None = None
) -> CredentialStore:
    """The store of ``config``'s login (with its configured client, if it has one)."""
    oauth = config.oauth
    uri = (
        handlers.redirect_uri
        if handlers
        else redirect_uri(oauth.callback_port or 0 if oauth else 0)
    )
    client = preregistered_client(oauth, uri) if oauth is not None else None
    return CredentialStore(config.name, config.url, preregistered=client)


async def http_setup(
    config: ServerConfig, answers: ServerAnswers, handlers: LoginHandlers | None = None
) -> HttpSetup:
    """The headers (static, then the helper's), the OAuth provider (``handlers``: a person can
    log in) and the noting transport of one connection; ``HeadersHelperError`` from the
    helper."""
    headers = {**config.headers, **await helper_headers(config)}
    auth = build_provider(config, credential_store(config, handlers), answers, handlers)
    return HttpSetup(headers, auth, answers, config.url)
