"""What every SDK-backed client shares: the retry loop and the failure messages.

A subclass streams one attempt (``_attempt``) with the SDK's own retries turned off; this
class retries that attempt on rate limits, overloads and server errors as ``RetryPolicy``
says — but only while nothing has been yielded yet, since text already shown to the user
cannot be taken back. Every other failure, and the last retryable one, becomes a
``ProviderError`` whose message says what to fix.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncIterator

from toolbelt.providers.catalog import context_window
from toolbelt.providers.failures import Endpoint, describe, failure_from_exception
from toolbelt.providers.model import ModelClient, ModelEvent, ModelRequest, ProviderError
from toolbelt.providers.retry import RetryPolicy

__all__ = ["SdkModelClient"]


class SdkModelClient(ModelClient):
    """A ``ModelClient`` over an official SDK, with toolbelt's retries."""

    def __init__(self, endpoint: Endpoint, *, retry: RetryPolicy | None = None) -> None:
        self.endpoint = endpoint
        self.model = f"{endpoint.prefix}:{endpoint.model}"
        self.context_window = context_window(self.model)
        self.retry = retry or RetryPolicy()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        policy = self.retry
        attempt, waited = 1, 0.0
        while True:
            yielded = False
            try:
                async for event in self._attempt(request):
                    yielded = True
                    yield event
                return
            except ProviderError:
                raise
            except Exception as error:
                failure = failure_from_exception(error)
                if failure is None:
                    raise
                delay = policy.delay(attempt, failure.retry_after)
                too_long = waited + delay > policy.max_total_wait
                if yielded or not failure.retryable or attempt >= policy.max_attempts or too_long:
                    asked = failure.retry_after if failure.retryable and too_long else None
                    raise describe(failure, self.endpoint, attempt, asked_wait=asked) from error
            await policy.sleep(delay)
            waited += delay
            attempt += 1

    @abstractmethod
    def _attempt(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one request through the SDK; SDK exceptions propagate unchanged."""
