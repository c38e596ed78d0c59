"""Who may talk to the HTTP door: Host, Origin, Content-Type and the bearer token.

A web page can make the browser send requests to 127.0.0.1, so loopback alone protects
nothing. Each request must:

- name this server in its Host header, port included (DNS rebinding: a page on
  ``evil.example`` rebound to 127.0.0.1 still sends ``Host: evil.example``);
- if it carries an Origin (browsers always do on a cross-origin POST), name exactly this
  server's scheme, host and port — another local port is another web site;
- POST with ``Content-Type: application/json``, which a browser cannot send cross-origin
  without a CORS preflight that this server never answers (``text/plain``, form and
  multipart bodies are refused before they are read);
- carry ``Authorization: Bearer <token>`` unless the server was started with ``--no-auth``
  (compared in constant time; never taken from the query string).

A request without the token, or with a wrong one, gets 401 with a ``WWW-Authenticate: Bearer``
challenge (RFC 6750) whose ``error_description`` names the token file: without the challenge a
client that speaks MCP's OAuth flow starts OAuth discovery and tells the person about OAuth,
not about the file that holds the token.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["LOCAL_HOSTS", "Guard"]

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


@dataclass(frozen=True)
class Guard:
    """The checks for one server, bound to the address it listens on."""

    host: str
    port: int
    token: str | None
    remote: bool = False
    """Bound to a non-loopback address (``--allow-remote``, which requires the token)."""
    token_source: Path | None = None
    """The file the token comes from, named in the 401 challenge (None: not named)."""

    def refusal(self, method: str, headers: Mapping[str, str]) -> tuple[int, str] | None:
        """``(HTTP status, reason)`` when the request must be refused, else None."""
        get = headers.get
        if not self._host_allowed((get("host") or "").lower()):
            return 403, "Host not allowed"
        origin = get("origin")
        if origin is not None and not self._origin_allowed(origin.lower()):
            return 403, "Origin not allowed"
        if self.token is not None:
            given = get("authorization") or ""
            if not secrets.compare_digest(given.encode(), f"Bearer {self.token}".encode()):
                return 401, self._token_help(sent=bool(given)) + "\n"
        if method == "POST":
            kind = (get("content-type") or "").split(";", 1)[0].strip().lower()
            if kind != "application/json":
                return 415, "Send the JSON-RPC message with Content-Type: application/json"
        return None

    def challenge(self, headers: Mapping[str, str]) -> str:
        """The ``WWW-Authenticate`` value of a 401: the scheme, and the help as the error
        description (``invalid_token`` only when a token was sent: RFC 6750 §3.1)."""
        sent = bool(headers.get("authorization"))
        # a quoted-string of RFC 6750's characters only: no quote, no backslash, printable ASCII
        help_text = "".join(
            c if " " <= c <= "~" and c not in '"\\' else "?" for c in self._token_help(sent=sent)
        )
        error = 'error="invalid_token", ' if sent else ""
        return f'Bearer realm="toolbelt", {error}error_description="{help_text}"'

    def _token_help(self, *, sent: bool) -> str:
        what = "Wrong bearer token" if sent else "Missing bearer token"
        where = f"the token in {self.token_source}" if self.token_source else "the server's token"
        return f"{what}: send {where} as the header 'Authorization: Bearer TOKEN'"

    def _names(self) -> set[str]:
        return {*LOCAL_HOSTS, self.host.lower()} if not self.remote else {self.host.lower()}

    def _host_allowed(self, host: str) -> bool:
        if self.remote:
            return True  # a remote bind is protected by the token; any name may reach it
        name, port = _split_host(host)
        return name in self._names() and port == self.port

    def _origin_allowed(self, origin: str) -> bool:
        parts = urlsplit(origin)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return False
        name = parts.hostname or ""
        if ":" in name:
            name = f"[{name}]"
        allowed = name in self._names() or name.strip("[]") in self._names()
        return parts.scheme == "http" and allowed and port == self.port and not parts.username


def _split_host(host: str) -> tuple[str, int]:
    """``name:port`` from a Host header; the port is 80 when absent, -1 when malformed."""
    if host.startswith("["):
        name, _, rest = host.partition("]")
        name += "]"
        port_text = rest.removeprefix(":") if rest.startswith(":") else ("" if not rest else "x")
    else:
        name, _, port_text = host.partition(":")
    if not port_text:
        return name, 80
    return (name, int(port_text)) if port_text.isdigit() else (name, -1)
