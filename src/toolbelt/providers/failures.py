"""Provider failures, read out of any SDK's exceptions and told to the user as what to fix.

The Anthropic and OpenAI SDKs share one exception layout (``APIStatusError`` with
``status_code``, ``response`` and a JSON ``body``; ``APIConnectionError``); google-genai raises
``errors.APIError`` (``code``, ``message``) and lets httpx's transport errors through. They are
recognised by class name and attributes so that this module imports no SDK.

A base URL that points at something other than a model server (a web server, a proxy's
landing page) answers with an HTML page, or 405/501 for a method it does not serve: that is
told at once as a wrong base URL, never retried, and the page itself is never quoted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolbelt.providers.model import ProviderError, ProviderErrorKind
from toolbelt.providers.retry import retry_after_seconds

__all__ = [
    "Endpoint",
    "FailedTurn",
    "Failure",
    "classify_status",
    "describe",
    "failure_from_exception",
]

RETRYABLE: frozenset[ProviderErrorKind] = frozenset({"rate_limit", "overloaded", "server"})


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Who a client talks to, in the words its error messages need."""

    label: str
    """How the user calls the server: "Anthropic", "OpenAI", "Gemini", "Ollama", ..."""
    prefix: str
    """The provider part of the model spec, ``openai`` in ``openai:gpt-5``."""
    model: str
    base_url: str
    key_variable: str | None
    url_variable: str | None


@dataclass(frozen=True, slots=True)
class Failure:
    """One failed request: its kind, HTTP status, the server's own words, the wait it asked."""

    kind: ProviderErrorKind
    status: int | None
    detail: str
    retry_after: float | None = None

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE


class FailedTurn(Exception):
    """A reply the server sent whole but that holds nothing usable (Gemini's
    ``MALFORMED_FUNCTION_CALL``): a client raises it so the retry loop asks again."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.detail)
        self.failure = failure


def classify_status(status: int, error_type: str | None = None) -> ProviderErrorKind:
    """The kind of an HTTP failure (``error_type`` covers errors sent inside a 200 stream)."""
    if error_type == "overloaded_error" or status in (503, 529):
        return "overloaded"
    if error_type == "rate_limit_error" or status == 429:
        return "rate_limit"
    if error_type in ("api_error", "server_error") or status >= 500 or status == 408:
        return "server"
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    return "bad_request"


def failure_from_exception(error: BaseException) -> Failure | None:
    """The failure an SDK exception stands for; None for anything else (a bug: re-raised)."""
    if isinstance(error, FailedTurn):
        return error.failure
    names = {cls.__name__ for cls in type(error).__mro__}
    status = getattr(error, "status_code", None)
    if "APIStatusError" in names and isinstance(status, int):
        body = getattr(error, "body", None)
        error_type = _error_type(body)
        headers = _headers(getattr(error, "response", None))
        foreign = _foreign_reply(status, headers)
        if foreign is not None:
            return foreign
        detail = _server_message(body) or str(getattr(error, "message", error))
        kind = classify_status(status, error_type)
        return Failure(kind, status, detail, retry_after_seconds(headers))
    if "APIConnectionError" in names:
        return Failure("connection", None, _connection_detail(error))
    code = getattr(error, "code", None)
    if "APIError" in names and isinstance(code, int):  # google-genai, or an OpenAI stream error
        headers = _headers(getattr(error, "response", None))
        foreign = _foreign_reply(code, headers)
        if foreign is not None:
            return foreign
        detail = str(getattr(error, "message", None) or error)
        return Failure(classify_status(code), code, detail, retry_after_seconds(headers))
    if "APIError" in names:  # an error object in the middle of an OpenAI stream
        body = getattr(error, "body", None)
        detail = _server_message(body) or str(getattr(error, "message", error))
        return Failure(classify_status(500, _error_type(body)), None, detail)
    if "TransportError" in names and type(error).__module__.startswith("httpx"):
        return Failure("connection", None, _connection_detail(error))
    return None


def describe(
    failure: Failure, endpoint: Endpoint, attempts: int, *, asked_wait: float | None = None
) -> ProviderError:
    """A ``ProviderError`` whose one sentence says what happened and what to do about it.

    ``asked_wait``: the server asked for a longer wait than the retry budget allows.
    """
    where = f"{endpoint.label} at {endpoint.base_url}"
    said = f"{failure.status}: {failure.detail}" if failure.status else failure.detail
    if asked_wait is not None:
        said += f"; it asked to wait {asked_wait:g} s, longer than toolbelt waits"
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    match failure.kind:
        case "connection":
            fix = "check that the server is running and that the URL is right"
            if endpoint.url_variable:
                fix += f" (set {endpoint.url_variable} or pass --base-url)"
            else:
                fix += " (pass --base-url)"
            message = f"Cannot reach {where} ({failure.detail}); {fix}."
        case "auth":
            fix = f"set {endpoint.key_variable} to a valid key" if endpoint.key_variable else ""
            message = f"{where} rejected the API key ({said}); {fix or 'check the API key'}."
        case "not_found":
            message = (
                f"{where} does not know the model '{endpoint.model}' ({said}); check the "
                f"model name after '{endpoint.prefix}:'."
            )
        case "bad_request":
            message = f"{where} rejected the request ({said})."
        case "rate_limit":
            message = (
                f"{where} is still rate-limiting{tries} ({said}); wait a minute and try again, "
                "or check the rate limits of your plan."
            )
        case "overloaded":
            message = f"{where} is overloaded{tries} ({said}); try again in a few minutes."
        case "server":
            what = "a server error" if failure.status else "an unusable reply"
            message = f"{where} failed with {what}{tries} ({said}); try again later."
        case "not_model_server":
            fix = (
                f"set {endpoint.url_variable} or pass --base-url"
                if endpoint.url_variable
                else ("pass --base-url")
            )
            if endpoint.prefix in ("openai", "openai-responses", "openai-compatible", "ollama"):
                fix += "; an OpenAI-compatible server's usually ends in /v1"
            message = (
                f"{endpoint.base_url}, the {endpoint.label} base URL, is not a model server: it "
                f"answered {failure.detail}; point it at the server's API ({fix})."
            )
    return ProviderError(message, kind=failure.kind, status=failure.status)


_NOT_SERVED = {405: "405 Method Not Allowed", 501: "501 Not Implemented"}
_PASSING = frozenset({408, 429, 502, 503, 504, 529})
"""Statuses a proxy in front of a real model server answers with its own HTML page for a
while (a gateway timeout, an overload): retried, the page left out of the message."""


def _foreign_reply(status: int, headers: Mapping[str, str]) -> Failure | None:
    """The failure for a reply that only something other than a model server sends (an HTML
    page, a method the server does not serve); None when a model server may have sent it."""
    content_type = {k.lower(): v for k, v in headers.items()}.get("content-type", "").lower()
    html = "html" in content_type
    if status in _NOT_SERVED:
        said = _NOT_SERVED[status] + (" with an HTML page" if html else "")
        return Failure("not_model_server", status, said)
    if html and status in _PASSING:
        return Failure(classify_status(status), status, "an HTML page")
    if html:
        return Failure("not_model_server", status, f"{status} with an HTML page")
    return None


def _error_type(body: Any) -> str | None:
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping) and isinstance(inner.get("type"), str):
            return str(inner["type"])
        if isinstance(body.get("type"), str) and body.get("type") != "error":
            return str(body["type"])
    return None


def _server_message(body: Any) -> str | None:
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return None


def _headers(response: Any) -> dict[str, str]:
    headers = getattr(response, "headers", None)
    if headers is None:
        return {}
    return {str(key): str(value) for key, value in headers.items()}


def _connection_detail(error: BaseException) -> str:
    cause: BaseException | None = error
    while cause is not None and cause.__cause__ is not None:
        cause = cause.__cause__
    text = str(cause) if cause is not None else ""
    return text or str(error) or type(error).__name__
