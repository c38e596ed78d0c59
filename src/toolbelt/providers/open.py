"""``open_model("provider:model")``: the one way to get a ``ModelClient`` by name.

Providers:

- ``anthropic:MODEL`` — Anthropic Messages. Key ``ANTHROPIC_API_KEY`` (or
  ``ANTHROPIC_AUTH_TOKEN``), base URL ``ANTHROPIC_BASE_URL``.
- ``openai:MODEL`` — OpenAI Chat Completions. Key ``OPENAI_API_KEY``, base URL
  ``OPENAI_BASE_URL`` (include the ``/v1``).
- ``openai-responses:MODEL`` — OpenAI Responses, same key and base URL.
- ``gemini:MODEL`` — Gemini API. Key ``GEMINI_API_KEY`` (or ``GOOGLE_API_KEY``), base URL
  ``GOOGLE_GEMINI_BASE_URL``.
- ``ollama:MODEL`` — Ollama's OpenAI-compatible endpoint, ``http://localhost:11434/v1`` unless
  a base URL is given.
- ``openai-compatible:MODEL`` — any other server speaking Chat Completions (vLLM, llama.cpp,
  LM Studio): the base URL is required (``base_url`` or ``OPENAI_BASE_URL``) and the model is
  sent as written, so names like ``Qwen/Qwen3-Coder-30B`` work. ``openai:MODEL`` with a base URL
  works too, but asks for the OpenAI parameter names (``max_completion_tokens``) that some
  servers do not know.

Every Chat Completions or Responses server but OpenAI's own API (``api.openai.com``, Azure
OpenAI's ``*.openai.azure.com``) gets untrusted text with its chat-template special tokens
neutralised (``providers.untrusted``): ``ollama:`` and ``openai-compatible:`` always,
``openai:`` and ``openai-responses:`` whenever their base URL points elsewhere. Such a server
renders messages through an open model's chat template and may read ``<|im_start|>`` in a tool
result as the real token; a gateway serving open weights does the same, so only the hosts known
to send content as text are exempt. The model sees the same characters with a zero-width space
inside each marker.

``base_url`` and ``api_key`` override the environment. A server on the loopback interface
needs no key. Every failure is a ``ProviderError`` saying what to set or fix, except a
provider SDK that is not installed (the ``providers`` extra): that is the set-up's mistake, a
``UsageError`` naming the command that installs it.
"""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

from toolbelt.core.distribution import PROVIDERS_INSTALL
from toolbelt.core.errors import UsageError
from toolbelt.providers.failures import Endpoint
from toolbelt.providers.model import ModelClient, ProviderError
from toolbelt.providers.retry import RetryPolicy

__all__ = ["PROVIDERS", "is_loopback", "is_openai_api", "open_model"]

PROVIDERS = ("anthropic", "openai", "openai-responses", "gemini", "ollama", "openai-compatible")

_OLLAMA_URL = "http://localhost:11434/v1"
_DEFAULT_URLS = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
    "gemini": "https://generativelanguage.googleapis.com",
}
_LABELS = {
    "anthropic": "Anthropic",
    "openai": "OpenAI",
    "openai-responses": "OpenAI",
    "gemini": "Gemini",
    "ollama": "Ollama",
    "openai-compatible": "the OpenAI-compatible server",
}
_KEY_VARIABLES = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY",),
    "openai-responses": ("OPENAI_API_KEY",),
    "openai-compatible": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "ollama": (),
}
_URL_VARIABLES = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
    "openai-responses": "OPENAI_BASE_URL",
    "openai-compatible": "OPENAI_BASE_URL",
    "gemini": "GOOGLE_GEMINI_BASE_URL",
}


def open_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    retry: RetryPolicy | None = None,
) -> ModelClient:
    """The client for ``spec`` (``provider:model``); raises ``ProviderError`` with the fix."""
    provider, _, model = spec.partition(":")
    if provider not in PROVIDERS or not model:
        raise ProviderError(_bad_spec(spec, provider, model), kind="bad_request")
    url_variable = _URL_VARIABLES.get(provider)
    url = base_url or (os.environ.get(url_variable) if url_variable else None) or None
    if url is None and provider == "openai-compatible":
        raise ProviderError(
            f"{spec} needs the server's base URL; pass --base-url (for example "
            "http://127.0.0.1:8000/v1) or set OPENAI_BASE_URL.",
            kind="bad_request",
        )
    url = (url or (_OLLAMA_URL if provider == "ollama" else _DEFAULT_URLS[provider])).rstrip("/")
    _check_url(url)
    key_variables = _KEY_VARIABLES[provider]
    key = api_key or next((os.environ[v] for v in key_variables if os.environ.get(v)), None)
    if key is None:
        if provider != "ollama" and not is_loopback(url):
            raise ProviderError(
                f"{spec} needs an API key: set {key_variables[0]} (or point the base URL at a "
                "server on this machine, which needs none).",
                kind="auth",
            )
        key = "no-key-needed"  # the SDKs insist on a key; local servers ignore it
    endpoint = Endpoint(
        _LABELS[provider],
        provider,
        model,
        url,
        key_variables[0] if key_variables else None,
        url_variable,
    )
    try:
        return _client(provider, endpoint, key, retry)
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in _SDK_MODULES:
            raise
        raise UsageError(
            f"{spec} needs the {_LABELS[provider]} SDK, which is not installed (no module "
            f"named {exc.name!r}); install the providers extra: {PROVIDERS_INSTALL}"
        ) from None


_SDK_MODULES = frozenset({"anthropic", "openai", "google"})
"""The top-level modules of the providers' SDKs (the ``providers`` extra)."""


def is_openai_api(url: str) -> bool:
    """Whether ``url`` is OpenAI's own API (or Azure OpenAI): content there is never read as a
    chat template's special tokens."""
    host = (urlsplit(url).hostname or "").lower()
    return host == "api.openai.com" or host.endswith(".openai.azure.com")


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (localhost, 127.0.0.0/8, ::1)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _client(provider: str, endpoint: Endpoint, key: str, retry: RetryPolicy | None) -> ModelClient:
    if provider == "anthropic":
        from toolbelt.providers.anthropic_messages import AnthropicClient

        return AnthropicClient(endpoint, key, retry=retry)
    if provider == "openai-responses":
        from toolbelt.providers.openai_responses import OpenAIResponsesClient

        neutralise = not is_openai_api(endpoint.base_url)
        return OpenAIResponsesClient(endpoint, key, neutralise_untrusted=neutralise, retry=retry)
    if provider == "gemini":
        from toolbelt.providers.gemini import GeminiClient

        return GeminiClient(endpoint, key, retry=retry)
    from toolbelt.providers.openai_chat import OpenAIChatClient

    compatible = provider in ("ollama", "openai-compatible")
    neutralise = compatible or not is_openai_api(endpoint.base_url)
    return OpenAIChatClient(
        endpoint, key, compatible=compatible, neutralise_untrusted=neutralise, retry=retry
    )


def _bad_spec(spec: str, provider: str, model: str) -> str:
    valid = ", ".join(PROVIDERS)
    if provider in PROVIDERS:
        return f"'{spec}' names no model; write {provider}:MODEL, for example {_example()}."
    if not model:
        return f"'{spec}' names no provider; write provider:model ({valid}), e.g. {_example()}."
    return f"Unknown model provider '{provider}' in '{spec}'; use one of {valid}."


def _example() -> str:
    return "anthropic:claude-sonnet-4-5"


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProviderError(
            f"The base URL '{url}' is not an http(s) URL; pass one like http://127.0.0.1:8000/v1.",
            kind="bad_request",
        )
