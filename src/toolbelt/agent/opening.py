"""Open a model by name — ``provider:model`` — with the tool-call format it needs.

Provider SDKs load here, on first use, never when ``toolbelt`` is imported.
"""

from __future__ import annotations

from toolbelt.core.errors import UsageError
from toolbelt.providers.model import ModelClient

__all__ = ["TOOL_FORMATS", "open_client"]

TOOL_FORMATS = ("native",)
"""The values ``tool_format`` accepts."""


def open_client(
    model: ModelClient | str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    tool_format: str = "native",
) -> ModelClient:
    """The client for ``model`` (a client, or a ``provider:model`` name to open) speaking
    ``tool_format``; raises ``UsageError`` for a name or format that does not exist and
    ``ProviderError`` for what the provider needs (a key)."""
    if tool_format not in TOOL_FORMATS:
        raise UsageError(
            f"Unknown tool format {tool_format!r}; choose one of: {', '.join(TOOL_FORMATS)}."
        )
    if isinstance(model, ModelClient):
        return model
    from toolbelt.providers.open import open_model  # type: ignore[import-not-found]

    client: ModelClient = open_model(model, base_url=base_url, api_key=api_key)
    return client
