"""An ``http``/``sse`` entry's ``oauth`` key, in Claude Code's spelling, checked and expanded.

``"oauth": false`` turns OAuth off (for a server that takes a static header); without the key
it is on, and starts when the server answers 401. The object takes Claude Code's keys —
``clientId``, ``clientSecret``, ``callbackPort``, ``scopes``, ``authServerMetadataUrl`` — and,
for machines with no person to log in, toolbelt's ``grant: "client_credentials"`` with
``clientSecret`` or ``privateKeyJwt`` (a PEM key file: its algorithm follows from the key) and
``issuer`` (the authorization server the credentials belong to; the secret goes nowhere else),
and ``clientMetadataUrl`` (a client ID metadata document, used in place of registering where
the authorization server supports them).

A secret never sits in a file a repository commits: ``clientSecret`` is accepted only as
``${VAR}`` (expanded from the environment), and ``privateKeyJwt`` names a file, not a key.
Unknown keys inside the object are ignored with a warning, as at the entry's level.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from toolbelt.core.errors import SettingsError

__all__ = ["OAuthSettings", "parse_oauth"]

Grant = Literal["authorization_code", "client_credentials"]
_KEYS = frozenset(
    {
        "clientId",
        "clientSecret",
        "callbackPort",
        "scopes",
        "authServerMetadataUrl",
        "grant",
        "privateKeyJwt",
        "issuer",
        "tokenEndpointAuthMethod",
        "clientMetadataUrl",
    }
)


@dataclass(frozen=True, slots=True)
class OAuthSettings:
    """How toolbelt logs in to one server (the defaults: discovery, registration, a browser)."""

    client_id: str | None = None
    client_secret: str | None = None
    callback_port: int | None = None
    """The loopback port of the redirect (None: any free one, unless ``--callback-port``)."""
    scopes: str | None = None
    """Space-separated scopes to ask for (None: what the server's challenge names)."""
    auth_server_metadata_url: str | None = None
    """Where the authorization server's metadata is, when its discovery is not standard."""
    grant: Grant = "authorization_code"
    private_key_file: str | None = None
    issuer: str | None = None
    token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post"] | None = None
    client_metadata_url: str | None = None
    """A client ID metadata document (an https URL with a path) to use as the client ID where
    the authorization server supports them, instead of registering."""


_ONLY_VARIABLE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}")


def parse_oauth(
    where: str,
    raw: Any,
    expand: Callable[[str, str], str],
    warn: Callable[[str], None],
) -> OAuthSettings | None:
    """The ``oauth`` value of an entry at ``where`` (``path: `mcpServers.NAME``): None for
    ``false``; ``expand(where, text)`` expands ``${VAR}``; ``warn`` takes what was ignored."""
    if raw is False:
        return None
    if raw is None or raw is True:
        return OAuthSettings()
    if not isinstance(raw, dict):
        raise SettingsError(f"{where}.oauth` must be an object, or false to turn OAuth off.")
    for key in raw:
        if key not in _KEYS:
            warn(f"{where}.oauth.{key}` is not a key toolbelt knows, so it was ignored.")
    secret = raw.get("clientSecret")
    if secret is not None and (not isinstance(secret, str) or not _ONLY_VARIABLE.fullmatch(secret)):
        raise SettingsError(
            f"{where}.oauth.clientSecret` must name an environment variable, "
            '"${MY_SECRET}", never hold the secret itself (config files get shared).'
        )
    grant = raw.get("grant", "authorization_code")
    if grant not in ("authorization_code", "client_credentials"):
        raise SettingsError(
            f'{where}.oauth.grant` must be "authorization_code" or "client_credentials".'
        )
    settings = OAuthSettings(
        client_id=_text(where, raw, "clientId", expand),
        client_secret=expand(f"{where}.oauth.clientSecret", secret) if secret else None,
        callback_port=_port(where, raw.get("callbackPort")),
        scopes=_scopes(where, raw.get("scopes")),
        auth_server_metadata_url=_https(where, raw, "authServerMetadataUrl", expand),
        grant=grant,
        private_key_file=_text(where, raw, "privateKeyJwt", expand),
        issuer=_text(where, raw, "issuer", expand),
        token_endpoint_auth_method=_auth_method(where, raw.get("tokenEndpointAuthMethod")),
        client_metadata_url=_https(where, raw, "clientMetadataUrl", expand),
    )
    document = settings.client_metadata_url
    if document is not None and (
        not document.startswith("https://") or urlsplit(document).path in ("", "/")
    ):
        raise SettingsError(
            f"{where}.oauth.clientMetadataUrl` must be an https:// URL with a path, "
            f"not {document!r}."
        )
    if grant == "client_credentials":
        if settings.client_id is None:
            raise SettingsError(f"{where}.oauth.clientId` is needed for client_credentials.")
        if (settings.client_secret is None) == (settings.private_key_file is None):
            raise SettingsError(
                f"{where}.oauth` needs one of `clientSecret` and `privateKeyJwt` for "
                "client_credentials."
            )
    return settings


def _text(
    where: str, raw: Mapping[str, Any], key: str, expand: Callable[[str, str], str]
) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise SettingsError(f"{where}.oauth.{key}` must be a non-empty string.")
    return expand(f"{where}.oauth.{key}", value)


def _https(
    where: str, raw: Mapping[str, Any], key: str, expand: Callable[[str, str], str]
) -> str | None:
    value = _text(where, raw, key, expand)
    loopback = value is not None and value.startswith(("http://127.0.0.1", "http://localhost"))
    if value is not None and not value.startswith("https://") and not loopback:
        raise SettingsError(f"{where}.oauth.{key}` must be an https:// URL, not {value!r}.")
    return value


def _port(where: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise SettingsError(f"{where}.oauth.callbackPort` must be a port number, 1 to 65535.")
    return value


def _scopes(where: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return " ".join(value) or None
    if isinstance(value, str):
        return " ".join(value.split()) or None
    raise SettingsError(f"{where}.oauth.scopes` must be a string of space-separated scopes.")


def _auth_method(
    where: str, value: Any
) -> Literal["client_secret_basic", "client_secret_post"] | None:
    if value is None:
        return None
    if value == "client_secret_basic":
        return "client_secret_basic"
    if value == "client_secret_post":
        return "client_secret_post"
    raise SettingsError(
        f'{where}.oauth.tokenEndpointAuthMethod` must be "client_secret_basic" or '
        '"client_secret_post".'
    )
