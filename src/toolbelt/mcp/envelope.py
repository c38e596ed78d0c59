"""The one boundary every incoming JSON-RPC message crosses before any handler sees it.

Handlers read ``params.get(...)``, key dictionaries by request id and hand ``arguments`` to
the executor; a list where an object belongs, or an id that cannot be a dictionary key, used
to raise deep inside a task and take the whole server down with it. Here the shape of a
message is checked once, for both doors (stdio and HTTP), so a malformed message gets its
JSON-RPC error and nothing else happens:

- ``jsonrpc`` is exactly ``"2.0"``; ``id`` is a string or an integer (MCP forbids null);
- a request or notification has a string ``method``; ``params`` and ``params._meta`` are
  objects when present;
- a response (no ``method``) answers an id of ours with an object ``result`` or ``error``;
- the params each method reads have the types it reads them as (``tools/call``'s ``name`` is
  a string and its ``arguments`` an object, ``notifications/cancelled`` names a request id...).
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import Any

from toolbelt.core import wire_json

__all__ = [
    "PARSE_ERROR",
    "InvalidMessage",
    "check_message",
    "encode_message",
    "error_reply",
    "internal_error_reply",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

_OBJECT_PARAMS: dict[str, tuple[str, ...]] = {
    "initialize": ("capabilities", "clientInfo"),
    "tools/call": ("arguments", "inputResponses"),
}
"""Params each method reads as objects (absent is fine)."""
_STRING_PARAMS: dict[str, tuple[str, ...]] = {
    "initialize": ("protocolVersion",),
}


class InvalidMessage(Exception):
    """A message refused at the boundary; ``reply`` is the JSON-RPC error to send back."""

    def __init__(self, code: int, text: str, request_id: str | int | None) -> None:
        super().__init__(text)
        self.reply = error_reply(request_id, code, text)


def error_reply(request_id: str | int | None, code: int, text: str) -> dict[str, Any]:
    """A JSON-RPC error response."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}


def internal_error_reply(request_id: Any, method: Any, exc: Exception) -> dict[str, Any]:
    """The JSON-RPC internal error for a request whose handler failed; the traceback goes to
    stderr, for whoever runs the server, and the client is told the request alone failed."""
    print(f"toolbelt mcp: {method} (id {request_id!r}) failed:", file=sys.stderr)
    traceback.print_exception(exc, file=sys.stderr)
    text = f"Internal error in {method}: {type(exc).__name__}; the request was not carried out."
    return error_reply(request_id, -32603, text)


def encode_message(message: dict[str, Any]) -> bytes:
    """``message`` as strict JSON in UTF-8, for both doors. A message that has no such form (a
    non-finite number, a lone surrogate) is replaced by an internal error for its request, so
    what goes out is always JSON a client can read."""
    try:
        return wire_json.dumps(message)
    except (ValueError, UnicodeEncodeError) as exc:
        print(f"toolbelt mcp: cannot encode a reply: {exc}", file=sys.stderr)
        request_id = message.get("id")
        reply_id = request_id if _is_id(request_id) else None
        text = "Internal error: the reply could not be encoded as JSON."
        return json.dumps(error_reply(reply_id, -32603, text)).encode()


def check_message(message: Any) -> dict[str, Any]:
    """``message`` when its envelope is well formed; raise ``InvalidMessage`` otherwise.

    The error carries the message's id when that id is valid (so the client can match it),
    else null, as JSON-RPC prescribes for a request whose id cannot be determined.
    """
    if not isinstance(message, dict):
        raise InvalidMessage(
            INVALID_REQUEST, "Send one JSON-RPC message, a JSON object, per line or request.", None
        )
    has_id = "id" in message
    request_id = message.get("id")
    valid_id = _is_id(request_id)
    reply_id = request_id if valid_id else None
    if message.get("jsonrpc") != "2.0":
        raise InvalidMessage(INVALID_REQUEST, 'Set "jsonrpc" to "2.0".', reply_id)
    if has_id and not valid_id:
        raise InvalidMessage(
            INVALID_REQUEST,
            "The request id must be a string or an integer (not null, a float, a boolean, "
            "an array or an object).",
            None,
        )
    if "method" not in message:
        _check_response(message, reply_id)
        return message
    method = message["method"]
    if not isinstance(method, str):
        raise InvalidMessage(INVALID_REQUEST, 'The "method" must be a string.', reply_id)
    if "params" in message:
        _check_params(method, message["params"], reply_id)
    return message


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _check_response(message: dict[str, Any], reply_id: str | int | None) -> None:
    if reply_id is None:
        raise InvalidMessage(
            INVALID_REQUEST,
            'A request needs a "method"; a response needs the "id" it answers.',
            None,
        )
    has_result, has_error = "result" in message, "error" in message
    if has_result == has_error:
        raise InvalidMessage(
            INVALID_REQUEST, 'A response carries exactly one of "result" and "error".', None
        )
    body = message["result"] if has_result else message["error"]
    if not isinstance(body, dict):
        raise InvalidMessage(
            INVALID_REQUEST, 'A response\'s "result" or "error" must be an object.', None
        )


def _check_params(method: str, params: Any, reply_id: str | int | None) -> None:
    def refuse(text: str) -> InvalidMessage:
        return InvalidMessage(INVALID_PARAMS, f"Invalid params for {method}: {text}", reply_id)

    if not isinstance(params, dict):
        raise refuse('"params" must be an object; omit it when there is nothing to send.')
    meta = params.get("_meta")
    if meta is not None and not isinstance(meta, dict):
        raise refuse('"_meta" must be an object.')
    for key, value in (meta or {}).items():
        if key.endswith("/clientCapabilities") and not isinstance(value, dict):
            raise refuse(f'"_meta.{key}" must be an object.')
        if key == "progressToken" and not _is_id(value):
            raise refuse('"_meta.progressToken" must be a string or an integer.')
    for key in _OBJECT_PARAMS.get(method, ()):
        if params.get(key) is not None and not isinstance(params[key], dict):
            raise refuse(f'"{key}" must be an object.')
    for key in _STRING_PARAMS.get(method, ()):
        if params.get(key) is not None and not isinstance(params[key], str):
            raise refuse(f'"{key}" must be a string.')
    if method == "tools/call" and not isinstance(params.get("name"), str):
        raise refuse('"name" must be the name of a tool, a string; tools/list lists them.')
    if method == "notifications/cancelled" and not _is_id(params.get("requestId")):
        raise refuse('"requestId" must be the id (string or integer) of the request to cancel.')
