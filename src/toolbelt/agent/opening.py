"""Open a model by name — ``provider:model`` — with the tool-call format it needs.

Provider SDKs load here, on first use, never when ``toolbelt`` is imported.
"""

from __future__ import annotations

from toolbelt.core.errors import UsageError
from toolbelt.providers.model import ModelClient

__all__ = ["open_client"]


def open_client(
    model: ModelClient | str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    tool_format: str = "native",
) -> ModelClient:
    """The client for ``model`` (a client, or a ``provider:model`` name to open) whose calls
    arrive in ``tool_format``: ``native`` (the provider's own), ``auto`` (native, and calls
    the model writes as text are recognised too) or a text family (``hermes``,
    ``qwen3-coder``, ``glm-4.5``, ...; see ``toolbelt.providers.textcalls``). Raises
    ``UsageError`` for a format that does not exist and ``ProviderError`` for a name the
    providers do not know or a missing key."""
    family = None
    if tool_format != "native":
        from toolbelt.providers.textcalls import FAMILY_NAMES, text_call_family

        try:
            family = text_call_family(tool_format)
        except ValueError as exc:
            raise UsageError(
                f"Unknown tool format {tool_format!r}; choose native, auto or one of: "
                f"{', '.join(FAMILY_NAMES)}."
            ) from exc
    client: ModelClient
    if isinstance(model, ModelClient):
        client = model
    else:
        from toolbelt.providers.open import open_model

        client = open_model(model, base_url=base_url, api_key=api_key)
    if family is None:
        return client
    from toolbelt.providers.textcalls import TextToolCallClient

    return TextToolCallClient(client, family)
