"""What OpenAI's two wire formats (Chat Completions, Responses) share: the ``openai`` SDK's
client, and — for a self-hosted server — the untrusted text of each request neutralised on the
way out (with the special tokens the server reports, ``special_tokens``) and the model's
arguments restored on the way back (``untrusted``).

A subclass streams one neutral request (``_stream``); this class neutralises it first when
asked to, restores the finished turn, and offers ``_definitions`` for the tool definitions the
subclass builds in its own format.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncIterator
from typing import Any

from toolbelt.providers.failures import Endpoint
from toolbelt.providers.model import ModelEvent, ModelRequest, TurnComplete
from toolbelt.providers.retry import RetryPolicy
from toolbelt.providers.sdk_client import SdkModelClient
from toolbelt.providers.special_tokens import SpecialTokens
from toolbelt.providers.untrusted import neutralised_definition, neutralised_request, restored_turn

__all__ = ["OpenAISdkClient"]


class OpenAISdkClient(SdkModelClient):
    """A ``ModelClient`` over ``openai.AsyncOpenAI`` (its own retries off)."""

    def __init__(
        self,
        endpoint: Endpoint,
        api_key: str,
        *,
        neutralise_untrusted: bool = False,
        retry: RetryPolicy | None = None,
    ) -> None:
        import openai  # the SDK costs a second to import: only when this client is used

        super().__init__(endpoint, retry=retry)
        self._neutralise = neutralise_untrusted  # a self-hosted server (see ``untrusted``)
        self._tokens = SpecialTokens(endpoint.base_url, api_key)
        self._sdk = openai.AsyncOpenAI(api_key=api_key, base_url=endpoint.base_url, max_retries=0)

    async def aclose(self) -> None:
        await self._sdk.close()

    async def learn_special_tokens(self) -> None:
        """Ask a self-hosted server for its special tokens, once, so untrusted text sent to
        it has them broken too (``special_tokens``)."""
        if self._neutralise:
            await self._tokens.learn()

    async def _attempt(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if self._neutralise:
            await self._tokens.learn()
            request = neutralised_request(request)
        async for event in self._stream(request):
            if self._neutralise and isinstance(event, TurnComplete):
                event = restored_turn(event)
            yield event

    def _definitions(self, definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The request's tool definitions as this server gets them."""
        if not self._neutralise:
            return definitions
        return [neutralised_definition(definition) for definition in definitions]

    @abstractmethod
    def _stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one request (already neutralised where it must be) through ``self._sdk``."""
