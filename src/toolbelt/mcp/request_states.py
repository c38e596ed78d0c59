"""The ``requestState`` tokens of the 2026-07-28 era, which tie a retried call to the one that
asked.

In that era the server asks the user by answering a call ``input_required`` with the form, and
the client retries the call carrying the user's answer and the token it was given. The token
outlives the request (the retry is a new one), so it is kept per connection, bound to the call
as the client sent it (tool name and raw arguments): an answer can never approve a different
call, and a token is good for one retry.
"""

from __future__ import annotations

from typing import Any

from toolbelt.mcp.inflight import InFlightCall

__all__ = ["RequestStates"]


class RequestStates:
    """Each token handed out → the call it was for and the key of the answer it waits for."""

    def __init__(self) -> None:
        self._states: dict[str, tuple[tuple[str, str], str]] = {}

    def input_required(self, call: InFlightCall) -> dict[str, Any]:
        """The ``input_required`` answer to ``call``, with a fresh token bound to it."""
        assert call.input_request is not None
        assert call.fingerprint is not None
        import secrets  # asking this way is rare: not loaded before initialize is answered

        token = secrets.token_urlsafe(16)
        key = call.input_request.key
        self._states[token] = (call.fingerprint, key)
        requests = {key: {"method": "elicitation/create", "params": call.input_request.elicitation}}
        asking = {"resultType": "input_required", "inputRequests": requests, "requestState": token}
        return {"jsonrpc": "2.0", "id": call.request_id, "result": asking}

    def take_input_responses(self, call: InFlightCall, params: dict[str, Any]) -> None:
        """A retry after ``input_required``: keep the user's answer for whoever asked it (the
        permission prompt, or a tool's question), under the key it was asked with."""
        token = params.get("requestState")
        pending = self._states.pop(token, None) if isinstance(token, str) else None
        if pending is None:
            return
        fingerprint, key = pending
        if fingerprint != call.fingerprint:
            return  # the state belongs to another call: ask again
        answer = (params.get("inputResponses") or {}).get(key)
        if isinstance(answer, dict):
            call.answer = (key, answer)
