"""OAuth 2.1 for remote MCP servers, on the official SDK's providers, with what they lack.

The SDK's ``OAuthClientProvider`` (an ``httpx2.Auth``) does the protocol: protected-resource
metadata (RFC 9728) and authorization-server metadata with their fallbacks, dynamic client
registration and client ID metadata documents, PKCE, ``state`` and ``iss`` checks, scopes
from ``WWW-Authenticate`` and step-up on ``insufficient_scope``, ``resource`` (RFC 8707);
``ClientCredentialsOAuthProvider`` and ``PrivateKeyJWTOAuthProvider`` do the grants for
machines. toolbelt writes none of that again. ``_DurableTokens``, mixed into each, adds what
a tool that restarts every few minutes, beside other copies of itself, needs:

- **the expiry survives a restart**: the SDK loads stored tokens without their expiry, so an
  expired token counted as valid, drew a 401 and a whole browser login; here the absolute
  ``expires_at`` of the store (``oauth_store``) is restored, with the discovered metadata, so
  a refresh goes to the token endpoint discovery found;
- **refresh before expiry, and once more on a 401**: a token within ``REFRESH_MARGIN``
  seconds of its end is refreshed before the request goes; a 401 to a token that looked valid
  gets one refresh and one retry before anything else;
- **one refresh among many processes**: refreshing takes the store's lock and first re-reads
  it, so a token another process has just refreshed (rotating the refresh token) is used
  rather than spending a refresh token that is already gone;
- **no person mid-turn**: where nobody can log in (``toolbelt run``, ``toolbelt mcp``, a
  piped ``call``: ``may_ask`` False) a 401 that a refresh does not cure is handed back as it
  is — before the SDK would register a client or reach for a browser — with a
  ``LoginRequired`` noted for the connection (``ServerAnswers``): the request fails, the
  connection and the other requests go on, and the server shows as needing ``toolbelt
  mcp-servers login NAME``. A step-up (403 ``insufficient_scope``) is noted the same way, and
  the scope it wants is kept, so the next login asks for it;
- **a login is a new login**: with a person there, the stored tokens are not sent, so the
  server asks and the flow runs, for the scopes kept from a step-up too;
- ``authServerMetadataUrl``: the configured metadata document answers in place of the
  well-known ones.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.utils import (
    extract_field_from_www_auth,
    extract_scope_from_www_auth,
    union_scopes,
)
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    ProtectedResourceMetadata,
)
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER

from toolbelt.mcp_client.config import ServerConfig
from toolbelt.mcp_client.oauth_config import OAuthSettings
from toolbelt.mcp_client.oauth_store import CredentialStore

__all__ = [
    "REFRESH_MARGIN",
    "LoginHandlers",
    "LoginRequired",
    "build_provider",
    "login_command",
    "redirect_uri",
]

REFRESH_MARGIN = 60.0
"""Seconds before its expiry at which a token is refreshed rather than sent."""
_AS_METADATA_PATHS = (
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
)

# The SDK logs every failed flow with a traceback ("OAuth flow error"); toolbelt reports the
# failure itself, in one sentence, so with no logging configured nothing is printed twice.
logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())


def login_command(server: str) -> str:
    """What the person runs to log in to ``server``."""
    return f"toolbelt mcp-servers login {server}"


class LoginRequired(Exception):
    """The server needs a person to log in, and nobody can be asked here (noted on the
    connection's ``LoginNote``, not raised through the SDK's transport)."""

    def __init__(self, server: str, why: str) -> None:
        super().__init__(f"it needs a login ({why}): run `{login_command(server)}`")
        self.server = server
        self.why = why


class LoginNote:
    """Where a connection's provider notes that the server needs a login (the connection's
    ``ServerAnswers`` is one)."""

    login_required: LoginRequired | None = None


class LoginHandlers:
    """Where a login talks to the person: the SDK's redirect and callback handlers, and the
    redirect URI they listen on (``oauth_login`` makes them)."""

    def __init__(
        self,
        redirect_uri: str,
        redirect: Callable[[str], Awaitable[None]],
        callback: Callable[[], Awaitable[AuthorizationCodeResult]],
    ) -> None:
        self.redirect_uri = redirect_uri
        self.redirect = redirect
        self.callback = callback


def redirect_uri(port: int) -> str:
    """The loopback redirect URI on ``port`` (RFC 8252 §7.3)."""
    return f"http://127.0.0.1:{port}/callback"


class _DurableTokens(OAuthClientProvider):
    """The mix-in described in the module's docstring (set up by ``_keep``)."""

    _store: CredentialStore
    _server_name: str
    _may_ask: bool
    _metadata_url: str | None
    _note: LoginNote
    _fresh: bool

    def _keep(
        self,
        store: CredentialStore,
        server: str,
        note: LoginNote,
        *,
        may_ask: bool,
        fresh: bool,
        metadata_url: str | None,
    ) -> None:
        self._store = store
        self._server_name = server
        self._note = note
        self._may_ask = may_ask
        self._fresh = fresh
        self._metadata_url = metadata_url
        store.extra = self._discovered

    # -- restoring what the SDK forgets --------------------------------------------------

    async def _initialize(self) -> None:
        await super()._initialize()
        self._restore(self._store.read())
        if self._fresh:  # a login: the server is to ask, and the person to answer
            self.context.clear_tokens()

    def _restore(self, record: dict[str, Any]) -> None:
        expires_at = record.get("expires_at")
        if self.context.current_tokens is not None:
            stamped = isinstance(expires_at, int | float) and not isinstance(expires_at, bool)
            self.context.token_expiry_time = float(expires_at) if stamped else None  # type: ignore[arg-type]
        try:
            if self.context.oauth_metadata is None and isinstance(record.get("as_metadata"), dict):
                self.context.oauth_metadata = OAuthMetadata.model_validate(record["as_metadata"])
            prm = record.get("resource_metadata")
            if self.context.protected_resource_metadata is None and isinstance(prm, dict):
                resource = ProtectedResourceMetadata.model_validate(prm)
                self.context.protected_resource_metadata = resource
                self.context.auth_server_url = str(resource.authorization_servers[0])
        except (ValueError, IndexError):  # a record from another version: discover again
            self.context.oauth_metadata = None
            self.context.protected_resource_metadata = None

    def _discovered(self) -> dict[str, Any]:
        """The metadata to keep beside the tokens."""
        kept: dict[str, Any] = {}
        if self.context.oauth_metadata is not None:
            kept["as_metadata"] = self.context.oauth_metadata.model_dump(
                mode="json", exclude_none=True
            )
        if self.context.protected_resource_metadata is not None:
            prm = self.context.protected_resource_metadata
            kept["resource_metadata"] = prm.model_dump(mode="json", exclude_none=True)
        return kept

    async def _adopt_stored(self) -> None:
        """Take the stored tokens when another process stored newer ones."""
        stored = await self._store.get_tokens()
        current = self.context.current_tokens
        if stored is None or (current is not None and stored.access_token == current.access_token):
            return
        self.context.current_tokens = stored
        self._restore(self._store.read())

    def _expiring(self) -> bool:
        expiry = self.context.token_expiry_time
        return (
            self.context.current_tokens is not None
            and expiry is not None
            and time.time() >= expiry - REFRESH_MARGIN
        )

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        refreshed = await super()._handle_refresh_response(response)
        if not refreshed and response.status_code in (400, 401):  # invalid_grant: gone for good
            await self._store.drop_tokens()
        return refreshed

    # -- the flow ------------------------------------------------------------------------

    async def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        async with self.context.lock:
            if not self._initialized:
                await self._initialize()
            self.context.protocol_version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
        refreshed = False
        if self._expiring():
            refreshed = True
            async with self._store.locked(), self.context.lock:
                await self._adopt_stored()
                if self._expiring() and self.context.can_refresh_token():
                    answer = yield await self._refresh_token()
                    await self._handle_refresh_response(answer)
        sent = self._token()
        if sent is not None:
            request.headers["Authorization"] = f"Bearer {sent}"
        response = yield request
        if response.status_code == 401 and not refreshed and sent is not None:
            async with self._store.locked(), self.context.lock:
                await self._adopt_stored()
                if self._token() == sent and self.context.can_refresh_token():
                    answer = yield await self._refresh_token()
                    await self._handle_refresh_response(answer)
            fresh = self._token()
            if fresh is not None and fresh != sent:
                request.headers["Authorization"] = f"Bearer {fresh}"
                response = yield request
        step_up = (
            response.status_code == 403
            and extract_field_from_www_auth(response, "error") == "insufficient_scope"
        )
        if response.status_code != 401 and not step_up:
            return
        if not self._may_ask:  # the answer goes back as it is; the connection notes why
            if step_up:
                tokens = self.context.current_tokens
                granted = tokens.scope if tokens is not None else None
                wanted = union_scopes(granted, extract_scope_from_www_auth(response))
                await self._store.want_scope(wanted)
                why = "it asks for more access than was granted"
            elif sent:
                why = "the last one expired and could not be refreshed"
            else:
                why = "it answers 401 Unauthorized"
            self._note.login_required = LoginRequired(self._server_name, why)
            return
        # the SDK's own flow, handed the answer it would otherwise fetch again
        inner = super()._auth_flow(request)
        pending: httpx2.Response | None = response
        try:
            outgoing = await inner.__anext__()
            while True:
                if outgoing is request and pending is not None:
                    incoming, pending = pending, None
                else:
                    incoming = yield self._with_metadata_url(outgoing)
                outgoing = await inner.asend(incoming)
        except StopAsyncIteration:
            return
        finally:
            await inner.aclose()

    def _token(self) -> str | None:
        tokens = self.context.current_tokens
        return tokens.access_token if tokens is not None and tokens.access_token else None

    def _with_metadata_url(self, outgoing: httpx2.Request) -> httpx2.Request:
        """A request for the authorization server's well-known metadata, sent to the
        configured ``authServerMetadataUrl`` instead."""
        if self._metadata_url is None or not outgoing.url.path.startswith(_AS_METADATA_PATHS):
            return outgoing
        return httpx2.Request("GET", self._metadata_url, headers=outgoing.headers)


class _AuthorizationCode(_DurableTokens):
    """The authorization-code grant with PKCE (a person logs in once)."""


class _ClientCredentials(_DurableTokens, ClientCredentialsOAuthProvider):
    """client_credentials with a client secret."""


class _PrivateKeyJwt(_DurableTokens, PrivateKeyJWTOAuthProvider):
    """client_credentials with a signed JWT (RFC 7523)."""


def build_provider(
    config: ServerConfig,
    store: CredentialStore,
    note: LoginNote,
    handlers: LoginHandlers | None = None,
) -> httpx2.Auth | None:
    """The OAuth provider for ``config`` (None when its ``oauth`` is off), its tokens in
    ``store``. With ``handlers`` a person is there to log in; without them a server that
    needs one is noted on ``note``. The machine grants need nobody either way."""
    oauth = config.oauth
    if oauth is None:
        return None
    if oauth.grant == "client_credentials":
        provider: _DurableTokens = _machine_provider(config, store, oauth)
        may_ask = True
    else:
        uri = (
            handlers.redirect_uri
            if handlers is not None
            else redirect_uri(oauth.callback_port or 0)
        )
        metadata = OAuthClientMetadata(
            client_name="toolbelt",
            redirect_uris=[uri],  # type: ignore[list-item]  # pydantic parses the string
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            scope=oauth.scopes,
        )
        kept = store.read().get("wanted_scope")
        scopes = oauth.scopes or (kept if isinstance(kept, str) else None)
        redirect = None
        if handlers is not None:
            redirect = _with_scopes(handlers.redirect, scopes, replace=oauth.scopes is not None)
        provider = _AuthorizationCode(
            config.url,
            metadata,
            store,
            redirect_handler=redirect,
            callback_handler=handlers.callback if handlers is not None else None,
            client_metadata_url=oauth.client_metadata_url,
        )
        may_ask = handlers is not None
    provider._keep(
        store,
        config.name,
        note,
        may_ask=may_ask,
        fresh=handlers is not None and oauth.grant == "authorization_code",
        metadata_url=oauth.auth_server_metadata_url,
    )
    return provider


def preregistered_client(oauth: OAuthSettings, redirect: str) -> OAuthClientInformationFull | None:
    """The client configured for the server (``oauth.clientId``), for the store to answer."""
    if oauth.client_id is None or oauth.grant != "authorization_code":
        return None
    method = oauth.token_endpoint_auth_method or (
        "client_secret_basic" if oauth.client_secret else "none"
    )
    return OAuthClientInformationFull(
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        redirect_uris=[redirect],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method=method,
    )


def _machine_provider(
    config: ServerConfig, store: CredentialStore, oauth: OAuthSettings
) -> _DurableTokens:
    client_id = oauth.client_id or ""
    with warnings.catch_warnings():  # `issuer` is optional in toolbelt's configuration
        warnings.simplefilter("ignore")
        if oauth.private_key_file is not None:
            key = _read_key(oauth.private_key_file)
            signer = SignedJWTParameters(
                issuer=client_id,
                subject=client_id,
                signing_key=key,
                signing_algorithm=_algorithm(key),
            )
            return _PrivateKeyJwt(
                config.url,
                store,
                client_id,
                signer.create_assertion_provider(),
                scope=oauth.scopes,
                issuer=oauth.issuer,
            )
        return _ClientCredentials(
            config.url,
            store,
            client_id,
            oauth.client_secret or "",
            token_endpoint_auth_method=oauth.token_endpoint_auth_method or "client_secret_basic",
            scope=oauth.scopes,
            issuer=oauth.issuer,
        )


def _read_key(path: str) -> str:
    from pathlib import Path

    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"its private key file {path} cannot be read ({exc.strerror})") from exc


def _algorithm(pem: str) -> str:
    """The JWS algorithm a PEM private key signs with: ES256/384/512 for EC keys by curve,
    EdDSA for Ed25519, RS256 for RSA."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    key = load_pem_private_key(pem.encode(), password=None)
    if isinstance(key, ec.EllipticCurvePrivateKey):
        return {256: "ES256", 384: "ES384", 521: "ES512"}.get(key.curve.key_size, "ES256")
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return "EdDSA"
    return "RS256"


def _with_scopes(
    redirect: Callable[[str], Awaitable[None]], scopes: str | None, *, replace: bool
) -> Callable[[str], Awaitable[None]]:
    """The redirect handler, the authorization URL asking for ``scopes``: instead of what
    discovery chose (``replace``: the configured ones), or as well (a step-up's)."""
    if scopes is None:
        return redirect

    async def handler(url: str) -> None:
        parts = urlsplit(url)
        query = parse_qsl(parts.query)
        chosen = next((value for key, value in query if key == "scope"), None)
        asked = scopes if replace else union_scopes(chosen, scopes)
        query = [(key, value) for key, value in query if key != "scope"]
        query.append(("scope", asked or ""))
        await redirect(urlunsplit(parts._replace(query=urlencode(query))))

    return handler
