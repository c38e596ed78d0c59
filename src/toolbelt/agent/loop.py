"""``Agent``: a model in front of a runtime's tools, turn after turn, until the task is done.

One turn: send the system prompt, the transcript and the offered tools to the model; stream
its reply; run the calls it made through the runtime's executor (the same permissions, hooks,
parallel read-only batches and events as every other door); put the answers, cut to fit the
context (``context_guard``), into the transcript; ask the model again. The loop ends when the
model answers without calling a tool, at ``max_turns``, after ``max_malformed_turns``
consecutive turns whose calls could not run, or on cancellation. Before each turn, a
transcript past ``compact_at`` of the model's window is compacted (``compaction``): older
turns summarised by the model, the latest kept.

A prompt starts with what the person undid or redid of the model's calls since the last run
(``Runtime.checkpoints.notices``), so the model does not build on files that changed back.

Call ids are made unique per turn before anything runs (``call_ids``): events, activity lines
and replayed results are keyed by them. The transcript is always well formed: every call the
model made gets exactly one answer — its result, an error naming the problem of a malformed
call, or ``aborted`` when the run was cancelled — so the conversation can go on with the next
``run``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

import anyio

from toolbelt.agent.answers import aborted_result, executor_call, invalid_call_result
from toolbelt.agent.call_ids import unique_call_ids
from toolbelt.agent.compaction import KEEP_SHARE, Compacted, Trigger, plan_compaction, summarise
from toolbelt.agent.context_guard import fit_results, text_tokens, tool_tokens
from toolbelt.agent.events import AgentEvent, AgentFinished, ModelTurn, ToolResults
from toolbelt.agent.offer import turn_offer
from toolbelt.agent.opening import open_client
from toolbelt.agent.reply import stream_reply
from toolbelt.agent.result import AgentResult, ModelPricing, StopCause, TurnRecord, stop_cause
from toolbelt.agent.streaming import iterate_events
from toolbelt.agent.system_prompt import build_system_prompt
from toolbelt.agent.transcript import Transcript
from toolbelt.core.content import ContentBlock, TextBlock
from toolbelt.core.events import CallState, Event, StateEvent
from toolbelt.core.resource import AsyncResource
from toolbelt.core.tool import Tool
from toolbelt.providers.model import (
    AssistantMessage,
    Message,
    ModelClient,
    ModelRequest,
    ToolResultsMessage,
    TurnComplete,
)
from toolbelt.runtime import Runtime

__all__ = ["Agent"]

Emit = Callable[[AgentEvent], None]
BeforeCompact = Callable[[Trigger, str | None], Awaitable[None]]


def _ignore(_event: AgentEvent) -> None:
    return None


class Agent(AsyncResource):
    """Drives ``model`` with ``runtime``'s tools; ``run`` a prompt, or ``stream`` its events."""

    def __init__(
        self,
        model: ModelClient | str,
        runtime: Runtime,
        *,
        system: str | None = None,
        tool_format: str = "native",
        base_url: str | None = None,
        api_key: str | None = None,
        max_turns: int = 50,
        max_tokens: int = 8192,
        max_malformed_turns: int = 3,
        pricing: ModelPricing | None = None,
        compact_at: float | None = None,
    ) -> None:
        """``model`` is a client, or a ``provider:model`` name the agent opens (with
        ``base_url`` and ``api_key``, else the provider's environment variables) and closes;
        ``tool_format`` is how the model writes calls (``native``: the provider's own);
        ``system`` None builds the default prompt (``build_system_prompt``) on first use;
        ``pricing`` overrides the list price (``providers.catalog``) used for ``cost``;
        ``max_tokens`` bounds each reply; ``compact_at`` (a share of the window, e.g. 0.8)
        compacts the transcript before a turn that would start past it (None: only
        ``compact`` does). Raises ``UsageError`` for an unknown format,
        ``ProviderError`` for an unknown name or a missing key."""
        self.model = open_client(model, base_url=base_url, api_key=api_key, tool_format=tool_format)
        self._owns_model = isinstance(model, str)
        self.runtime = runtime
        if runtime.small_model is None:  # web_fetch's prompt is answered by this model then
            runtime.use_small_model(self.model)
        self._listed = False
        self.max_turns = max_turns
        self.max_tokens = max_tokens
        self.max_malformed_turns = max_malformed_turns
        self.pricing = pricing
        self.compact_at = compact_at
        self.before_compact: BeforeCompact | None = None
        """Awaited before every compaction with its trigger and focus (PreCompact hooks)."""
        self.transcript = Transcript()
        """The conversation so far; each ``run`` continues it."""
        self._system = system
        self._cancelled = False
        self._stream_scope: anyio.CancelScope | None = None
        self._executing = False
        self._turn_tools: tuple[Tool[Any], ...] = ()  # what this turn offers (and is sized by)

    @property
    def system(self) -> str:
        """The system prompt sent with every turn."""
        if self._system is None:
            servers = self.runtime.mcp_servers.servers if self.runtime.mcp_servers else ()
            self._system = build_system_prompt(
                self.runtime.session.root,
                mode=self.runtime.mode,
                tools=turn_offer(self.runtime, self.model).tools,
                policy=self.runtime.policy,
                server_instructions=[
                    (server.config.name, server.instructions)
                    for server in servers
                    if server.instructions
                ],
            )
        return self._system

    @property
    def messages(self) -> list[Message]:
        """The conversation so far (``transcript.messages``)."""
        return self.transcript.messages

    async def run(self, prompt: str | Sequence[ContentBlock]) -> AgentResult:
        """Send ``prompt`` and loop until the model is done; raises ``ProviderError``."""
        return await self._drive(prompt, _ignore)

    def stream(self, prompt: str | Sequence[ContentBlock]) -> AsyncGenerator[AgentEvent, None]:
        """``run``, yielding its events as they happen (``toolbelt.agent.events``); the
        last is ``AgentFinished``, and a ``ProviderError`` is raised after the events before
        it. Closing the iterator early (``contextlib.aclosing``) cancels the run and returns
        once its calls are answered and their processes gone."""

        def start(emit: Emit) -> Awaitable[AgentResult]:
            return self._drive(prompt, emit)

        return iterate_events(start)

    async def use_model(
        self, model: ModelClient | str, *, base_url: str | None = None, api_key: str | None = None
    ) -> None:
        """Talk to ``model`` from the next turn on (the conversation stays); the client the
        agent opened before is closed. Raises as the constructor does, keeping the model."""
        client = open_client(model, base_url=base_url, api_key=api_key)
        if self._owns_model:
            await self.model.aclose()
        self.model = client
        self._owns_model = isinstance(model, str)

    async def compact(
        self, focus: str | None = None, *, trigger: Trigger = "manual"
    ) -> Compacted | None:
        """Summarise the conversation and replace it with the summary (``compaction``);
        a manual compaction keeps no turn whole, an automatic one the latest that fit in
        ``KEEP_SHARE`` of the window. None when there is nothing to summarise; raises
        ``ProviderError`` when the model fails (the transcript is then left as it was)."""
        window = max(0, getattr(self.model, "context_window", 0))
        keep = int(window * KEEP_SHARE) if trigger == "auto" else 0
        plan = plan_compaction(self.transcript.messages, keep)
        if plan is None:
            return None
        if self.before_compact is not None:
            await self.before_compact(trigger, focus)
        before = self.transcript.tokens()
        tools = self._turn_tools or turn_offer(self.runtime, self.model).tools
        summary, complete = await summarise(
            self.model,
            system=self.system,
            tools=tools,
            plan=plan,
            focus=focus,
            max_tokens=self.max_tokens,
        )
        self.transcript.reset((summary, *plan.kept))
        turn = TurnRecord.of(0, complete, self.model.model, self.pricing)
        return Compacted(
            trigger, before, self.transcript.tokens(), complete.message.text, turn.usage, turn.cost
        )

    def cancel(self) -> None:
        """Stop the run in flight: the model's reply is abandoned, running calls end
        ``aborted`` (their processes killed), and ``run`` returns with stop ``cancelled``.
        It cancels the runtime's batches in flight, so an agent sharing the runtime (a
        subagent) has its running calls aborted too."""
        self._cancelled = True
        if self._stream_scope is not None:
            self._stream_scope.cancel()
        if self._executing:
            self.runtime.cancel()

    async def aclose(self) -> None:
        """Close the model client if the agent opened it (the runtime, and a client passed
        in, belong to the caller)."""
        if self._owns_model:
            await self.model.aclose()

    # -- the loop ------------------------------------------------------------------------

    async def _drive(self, prompt: str | Sequence[ContentBlock], emit: Emit) -> AgentResult:
        self._cancelled = False
        if not self._listed:  # MCP servers start on first listing: their tools join the offer
            await self.runtime.toolset.list_tools()
            self._listed = True
        notices = self.runtime.checkpoints.notices()  # undos and redos since the last run
        if notices:
            blocks = (TextBlock(prompt),) if isinstance(prompt, str) else tuple(prompt)
            prompt = (TextBlock("[" + " ".join(notices) + "]"), *blocks)
        self.transcript.add_prompt(prompt)
        start = len(self.transcript.messages)
        turns: list[TurnRecord] = []
        malformed = 0
        stop: StopCause = "end_turn"
        while True:
            if self._cancelled:
                stop = "cancelled"
                break
            if len(turns) >= self.max_turns:
                stop = "max_turns"
                break
            await self._compact_if_full(emit)
            complete = await self._model_turn(emit)
            if complete is None:
                stop = "cancelled"
                break
            message = complete.message
            turn = TurnRecord.of(len(turns), complete, self.model.model, self.pricing)
            turns.append(turn)
            emit(ModelTurn(turn.index, message, turn.usage, turn.cost, turn.stop_reason))
            if complete.stop_reason == "pause_turn" and not message.tool_calls:
                continue  # the provider paused its own tool's work: asking again resumes it
            if not message.tool_calls and not message.invalid_calls:
                stop = stop_cause(complete.stop_reason)
                break
            await self._answer(len(turns) - 1, message, emit)
            malformed = malformed + 1 if message.invalid_calls else 0
            if self._cancelled:
                stop = "cancelled"
                break
            if malformed >= self.max_malformed_turns:
                stop = "malformed_calls"
                break
        replies = [m for m in self.transcript.messages[start:] if isinstance(m, AssistantMessage)]
        text = replies[-1].text if replies else ""
        result = AgentResult(text, stop, tuple(turns), tuple(self.transcript.messages))
        emit(AgentFinished(result))
        return result

    async def _compact_if_full(self, emit: Emit) -> None:
        """Compact before a turn that would start past ``compact_at`` of the window."""
        window = getattr(self.model, "context_window", 0)
        if self.compact_at is None or window <= 0:
            return
        used = self.transcript.tokens() + self._fixed_tokens()
        if used < self.compact_at * window:
            return
        compacted = await self.compact(trigger="auto")
        if compacted is not None:
            emit(compacted)

    async def _model_turn(self, emit: Emit) -> TurnComplete | None:
        """Stream one reply; None when cancelled (its partial text is kept)."""
        offer = turn_offer(self.runtime, self.model)
        self._turn_tools = offer.tools
        request = ModelRequest(
            system=self.system,
            messages=tuple(self.transcript.messages),
            tools=offer.tools,
            max_tokens=self.max_tokens,
            deferred_tools=offer.deferred,
            tool_search=offer.search,
        )
        complete: TurnComplete | None = None
        partial: list[str] = []
        with anyio.CancelScope() as scope:
            self._stream_scope = scope
            try:
                complete = await stream_reply(self.model, request, emit, partial)
            finally:
                self._stream_scope = None
        if complete is None:  # cancelled: what the model said so far stays said
            if "".join(partial):
                self.transcript.append(AssistantMessage("".join(partial)))
            return None
        complete = replace(complete, message=unique_call_ids(complete.message))
        self.transcript.append(complete.message)
        self.transcript.report(complete.usage)
        return complete

    async def _answer(self, index: int, message: AssistantMessage, emit: Emit) -> None:
        """Run the turn's calls and put one answer per call into the transcript."""
        ids = {call.id for call in message.tool_calls} | {c.id for c in message.invalid_calls}

        def forward(event: Event) -> None:
            if event.call_id in ids:
                emit(event)

        unsubscribe = self.runtime.events.subscribe(forward)
        try:
            try:
                if self._cancelled or not message.tool_calls:
                    executed = [aborted_result(call) for call in message.tool_calls]
                else:
                    self._executing = True
                    executed = await self.runtime.run(
                        [executor_call(call) for call in message.tool_calls]
                    )
            except anyio.get_cancelled_exc_class():
                self.transcript.append(
                    ToolResultsMessage(
                        tuple(aborted_result(call) for call in message.tool_calls)
                        + tuple(invalid_call_result(c) for c in message.invalid_calls)
                    )
                )
                raise
            finally:
                self._executing = False
            invalid = []
            for call in message.invalid_calls:
                result = invalid_call_result(call)
                self.runtime.events.emit(
                    StateEvent(call.id, call.name, CallState.ERROR, result.ended_at, call.problem)
                )
                invalid.append(result)
        finally:
            unsubscribe()
        results = fit_results([*executed, *invalid], self._room())
        self.transcript.append(ToolResultsMessage(results))
        emit(ToolResults(index, results))

    def _room(self) -> int:
        """Tokens left for this turn's results: the window, minus the system prompt, the
        tools, the transcript (or what the provider reported, if more) and the next reply."""
        window = getattr(self.model, "context_window", 0)
        if window <= 0:
            return 1 << 62  # the client does not know its window: nothing to guard
        used = self.transcript.tokens() + self._fixed_tokens()
        return window - used - self.max_tokens

    def _fixed_tokens(self) -> int:
        """Estimated tokens of the system prompt and the offered tools' definitions."""
        return text_tokens(self.system) + sum(map(tool_tokens, self._turn_tools))
