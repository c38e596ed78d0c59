"""An OAuth-protected MCP server with its own authorization server, for the login tests.

Run as ``python oauth_server.py PORT STATE_FILE``; it serves on 127.0.0.1 only:

- ``/mcp``: a minimal streamable-HTTP MCP server (plain JSON answers) with one tool,
  ``whoami``, which answers with the serial number of the access token it was called with
  (0 for the static key ``X-Api-Key: helper-key``, which also lets a request in).
  A request without a live token gets 401 with ``WWW-Authenticate: Bearer
  resource_metadata=…``;
- RFC 9728 protected-resource metadata and RFC 8414 authorization-server metadata;
- ``/register`` (dynamic client registration), ``/authorize`` (approves at once: a redirect
  to the client's ``redirect_uri`` with the code, ``state`` and ``iss``), ``/token``
  (authorization code with PKCE S256, and refresh tokens, which rotate: a refresh token is
  good once), ``/revoke``;
- ``/test/expire``: every access token issued so far expires now (as time would make them).

Settings from the environment: ``TOKEN_LIFETIME`` (seconds, default 3600), ``REFRESH_DELAY``
(seconds the token endpoint waits before answering a refresh, so that two clients refreshing
at once overlap). What happened is written to STATE_FILE as JSON after each request:
``authorizations``, ``refreshes``, ``refused_refreshes``, ``registrations``, ``revoked``,
``requests`` (each MCP request: its Host header and the serial of the token it carried).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

PORT = int(sys.argv[1])
STATE = Path(sys.argv[2])
BASE = f"http://127.0.0.1:{PORT}"
LIFETIME = int(os.environ.get("TOKEN_LIFETIME", "3600"))
REFRESH_DELAY = float(os.environ.get("REFRESH_DELAY", "0"))

state: dict[str, Any] = {
    "authorizations": 0,
    "refreshes": 0,
    "refused_refreshes": 0,
    "registrations": 0,
    "revoked": [],
    "requests": [],
}
codes: dict[str, dict[str, Any]] = {}
access: dict[str, dict[str, Any]] = {}  # token -> {serial, expires}
refresh: dict[str, bool] = {}  # refresh token -> still good
serials = iter(range(1, 1_000_000))


def save() -> None:
    temporary = STATE.with_suffix(".tmp")
    temporary.write_text(json.dumps(state))
    os.replace(temporary, STATE)


def issue() -> dict[str, Any]:
    token, renewal = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    access[token] = {"serial": next(serials), "expires": time.time() + LIFETIME}
    refresh[renewal] = True
    return {
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": LIFETIME,
        "refresh_token": renewal,
        "scope": "tools",
    }


async def resource_metadata(request: Request) -> Response:
    return JSONResponse(
        {"resource": f"{BASE}/mcp", "authorization_servers": [BASE], "scopes_supported": ["tools"]}
    )


async def server_metadata(request: Request) -> Response:
    return JSONResponse(
        {
            "issuer": BASE,
            "authorization_endpoint": f"{BASE}/authorize",
            "token_endpoint": f"{BASE}/token",
            "registration_endpoint": f"{BASE}/register",
            "revocation_endpoint": f"{BASE}/revoke",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }
    )


async def register(request: Request) -> Response:
    body = await request.json()
    state["registrations"] += 1
    save()
    client = {
        "client_id": f"client-{state['registrations']}",
        "redirect_uris": body.get("redirect_uris"),
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }
    return JSONResponse(client, status_code=201)


async def authorize(request: Request) -> Response:
    query = request.query_params
    if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
        return JSONResponse({"error": "invalid_request"}, status_code=400)
    code = secrets.token_urlsafe(12)
    codes[code] = {"challenge": query["code_challenge"], "redirect": query["redirect_uri"]}
    state["authorizations"] += 1
    save()
    answer = {"code": code, "state": query.get("state", ""), "iss": BASE}
    return RedirectResponse(f"{query['redirect_uri']}?{urlencode(answer)}", status_code=302)


async def token(request: Request) -> Response:
    form = await request.form()
    grant = form.get("grant_type")
    if grant == "authorization_code":
        found = codes.pop(str(form.get("code")), None)
        verifier = str(form.get("code_verifier", ""))
        digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
        if found is None or digest.decode().rstrip("=") != found["challenge"]:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        return JSONResponse(issue())
    if grant == "refresh_token":
        await asyncio.sleep(REFRESH_DELAY)
        presented = str(form.get("refresh_token"))
        if not refresh.get(presented):
            state["refused_refreshes"] += 1
            save()
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        refresh[presented] = False  # rotation: good once
        state["refreshes"] += 1
        save()
        return JSONResponse(issue())
    return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)


async def revoke(request: Request) -> Response:
    form = await request.form()
    state["revoked"].append(str(form.get("token_type_hint", "")))
    presented = str(form.get("token"))
    access.pop(presented, None)
    refresh.pop(presented, None)
    save()
    return Response(status_code=200)


async def expire(request: Request) -> Response:
    for entry in access.values():
        entry["expires"] = 0
    return Response(status_code=204)


def challenge() -> Response:
    where = f'Bearer resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"'
    return Response(status_code=401, headers={"WWW-Authenticate": where})


async def mcp(request: Request) -> Response:
    if request.method == "GET":
        return Response(status_code=405)
    if request.method == "DELETE":
        return Response(status_code=200)
    header = request.headers.get("authorization", "")
    presented = access.get(header.removeprefix("Bearer ").strip())
    live = presented is not None and presented["expires"] > time.time()
    serial = presented["serial"] if live and presented else None
    if request.headers.get("x-api-key") == "helper-key":  # the static key a headersHelper prints
        live, serial = True, 0
    state["requests"].append({"host": request.headers.get("host"), "token": serial})
    save()
    if not live:
        return challenge()
    message = await request.json()
    method, request_id = message.get("method"), message.get("id")
    if request_id is None:
        return Response(status_code=202)
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "oauth-fake", "version": "1"},
        }
    elif method == "tools/list":
        tool = {
            "name": "whoami",
            "description": "The token's serial.",
            "inputSchema": {"type": "object"},
        }
        result = {"tools": [tool]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": f"token #{serial}"}], "isError": False}
    else:
        result = {}
    return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": result})


app = Starlette(
    routes=[
        Route("/.well-known/oauth-protected-resource/mcp", resource_metadata),
        Route("/.well-known/oauth-protected-resource", resource_metadata),
        Route("/.well-known/oauth-authorization-server", server_metadata),
        Route("/register", register, methods=["POST"]),
        Route("/authorize", authorize),
        Route("/token", token, methods=["POST"]),
        Route("/revoke", revoke, methods=["POST"]),
        Route("/test/expire", expire, methods=["POST"]),
        Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
    ]
)

if __name__ == "__main__":
    save()
    uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning")
