"""A conversation that lasts: an ``Agent`` with its saved session and its session hooks.

``toolbelt chat`` and ``toolbelt run`` both drive one. It adds to the agent what belongs to a
session rather than to a run:

- saving: every transcript change, each turn's usage and cost, mode and model changes and the
  deferred tools a search loaded go to the session's JSONL file (``sessions.SessionLog``) as
  they happen; ``restore`` puts a saved session back (messages, costs, loaded tools);
- the session's hook events (``hooks.session_hooks``): ``SessionStart`` context joins the next
  prompt, ``UserPromptSubmit`` may drop a prompt or add context, ``Stop`` may send the model
  back to work (at most ``MAX_STOP_CONTINUATIONS`` times in a row: the guard against a hook
  that never lets it stop), ``PreCompact`` before every compaction, ``SessionEnd`` on close;
- what a person changes between prompts: the permission mode and the model, each told to the
  model with the next prompt (the system prompt stays as it was, so the prompt cache holds).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass

from toolbelt.agent.compaction import Compacted, Trigger
from toolbelt.agent.events import AgentEvent, AgentFinished, ModelTurn, ToolResults
from toolbelt.agent.loop import Agent
from toolbelt.agent.result import AgentResult, TurnRecord
from toolbelt.agent.sessions import SavedSession, SessionLog
from toolbelt.agent.transcript import Transcript
from toolbelt.core.content import ContentBlock, TextBlock
from toolbelt.hooks.session_hooks import SessionHooks
from toolbelt.providers.catalog import total_cost
from toolbelt.providers.deferral import session_state
from toolbelt.providers.model import Usage

__all__ = ["MAX_STOP_CONTINUATIONS", "Conversation", "PromptBlocked"]

MAX_STOP_CONTINUATIONS = 5
"""How many times in a row Stop hooks may send the model back before it stops anyway."""


@dataclass(frozen=True, slots=True)
class PromptBlocked:
    """A UserPromptSubmit hook dropped the prompt; ``reason`` is for the person."""

    reason: str


ConversationEvent = AgentEvent | PromptBlocked


class Conversation:
    """Drives ``agent`` prompt after prompt, saving to ``log`` and running ``hooks``."""

    def __init__(
        self,
        agent: Agent,
        *,
        log: SessionLog | None = None,
        hooks: SessionHooks | None = None,
    ) -> None:
        self.agent = agent
        self.log = log
        self.hooks = hooks
        self.turns: list[tuple[Usage, float | None]] = []
        """Every model turn of the session (resumed and compaction turns too): usage, cost."""
        self._notes: list[str] = []  # context for the next prompt
        self._loaded: set[str] = set()
        self._watch(agent.transcript)
        agent.before_compact = self._before_compact

    @property
    def usage(self) -> Usage:
        """Tokens of every turn of the session."""
        return Usage.summed(usage for usage, _ in self.turns)

    @property
    def cost(self) -> float | None:
        """US dollars the session cost; None when a turn's price is unknown."""
        return total_cost(cost for _, cost in self.turns)

    def restore(self, saved: SavedSession) -> None:
        """Continue ``saved``: its messages, its costs, the tools its searches loaded."""
        transcript = Transcript(saved.messages)
        self.agent.transcript = transcript
        self._watch(transcript)
        self.turns = list(saved.turns)
        if saved.loaded_tools:
            state = session_state(self.agent.runtime.session)
            state.load(saved.loaded_tools)
            self._loaded.update(saved.loaded_tools)

    async def start(self, source: str = "startup") -> None:
        """Run SessionStart hooks (``startup``, ``resume``, ``clear``, ``compact``); what they
        print goes to the model with the next prompt."""
        if self.hooks is not None and self.hooks.configured("SessionStart"):
            context = await self.hooks.session_start(source)
            if context:
                self._notes.append(f"SessionStart hook context:\n{context}")

    async def stream(
        self, prompt: str, attachments: Sequence[str] = ()
    ) -> AsyncGenerator[ConversationEvent, None]:
        """Send ``prompt`` (with ``attachments``, texts such as a mentioned file's) and yield
        the run's events (``Agent.stream``), or one ``PromptBlocked``; Stop hooks may
        continue the run before its ``AgentFinished``."""
        if self.hooks is not None and self.hooks.configured("UserPromptSubmit"):
            verdict = await self.hooks.user_prompt_submit(prompt)
            if verdict.blocked is not None:
                yield PromptBlocked(verdict.blocked)
                return
            if verdict.context:
                self._notes.append(f"UserPromptSubmit hook context:\n{verdict.context}")
        blocks: list[ContentBlock] = [TextBlock(prompt)]
        blocks += [TextBlock(text) for text in attachments]
        blocks += [TextBlock(note) for note in self._notes]
        self._notes.clear()
        turns: list[TurnRecord] = []
        continued = 0
        while True:
            finished: AgentResult | None = None
            async with contextlib.aclosing(self.agent.stream(blocks)) as events:
                async for event in events:
                    if isinstance(event, AgentFinished):
                        finished = event.result
                        continue
                    self._record(event)
                    yield event
            assert finished is not None  # every stream that does not raise ends with it
            turns += finished.turns
            reason = await self._stop_reason(finished, active=continued > 0)
            if reason is None or continued >= MAX_STOP_CONTINUATIONS:
                break
            continued += 1
            blocks = [TextBlock(f"Stop hook feedback:\n{reason}")]
        yield AgentFinished(
            AgentResult(finished.text, finished.stop, tuple(turns), finished.messages)
        )

    async def compact(self, focus: str | None = None) -> Compacted | None:
        """Compact on request (``/compact [focus]``); None when there is nothing to."""
        compacted = await self.agent.compact(focus, trigger="manual")
        if compacted is not None:
            self._record(compacted)
            await self.start("compact")
        return compacted

    async def clear(self) -> None:
        """Start the conversation afresh (``/clear``): the saved file records the reset."""
        self.agent.transcript.reset(())
        await self.start("clear")

    def set_mode(self, mode: str) -> None:
        """Switch the permission mode; the model is told with the next prompt."""
        self.agent.runtime.policy.mode = mode
        self._notes.append(f"The user switched the permission mode to {mode}.")
        if self.log is not None:
            self.log.setting("mode", mode)

    async def set_model(self, spec: str, *, base_url: str | None = None) -> None:
        """Talk to ``spec`` from the next prompt on; raises ``ProviderError`` or
        ``UsageError`` (and keeps the current model) when it cannot be opened."""
        await self.agent.use_model(spec, base_url=base_url)
        if self.log is not None:
            self.log.setting("model", spec)

    async def close(self, reason: str = "other") -> None:
        """Run SessionEnd hooks and close the saved file."""
        try:
            if self.hooks is not None and self.hooks.configured("SessionEnd"):
                await self.hooks.session_end(reason)
        finally:
            if self.log is not None:
                self.log.close()

    # -- internals ---------------------------------------------------------------------

    def _watch(self, transcript: Transcript) -> None:
        if self.log is not None:
            transcript.observers.append(self.log.transcript_changed)

    def _record(self, event: AgentEvent) -> None:
        if isinstance(event, ModelTurn | Compacted):
            self.turns.append((event.usage, event.cost))
            if self.log is not None:
                self.log.turn(event.usage, event.cost)
        elif isinstance(event, ToolResults):
            self._record_subagents(event)
            if self.log is None:
                return
            loaded = session_state(self.agent.runtime.session).loaded
            fresh = [name for name in loaded if name not in self._loaded]
            if fresh:
                self._loaded.update(fresh)
                self.log.loaded(fresh)

    def _record_subagents(self, event: ToolResults) -> None:
        """A subagent's tokens and cost count as the session's (``subagents``)."""
        for result in event.results:
            data = result.output.structured or {}
            usage = data.get("usage")
            if result.tool != "task" or not isinstance(usage, list) or len(usage) != 4:
                continue
            cost = data.get("cost")
            spent = (Usage(*usage), float(cost) if isinstance(cost, int | float) else None)
            self.turns.append(spent)
            if self.log is not None:
                self.log.turn(*spent)

    async def _stop_reason(self, result: AgentResult, *, active: bool) -> str | None:
        if result.stop != "end_turn" or self.hooks is None:
            return None
        if not self.hooks.configured("Stop"):
            return None
        return await self.hooks.stop(active=active)

    async def _before_compact(self, trigger: Trigger, focus: str | None) -> None:
        if self.hooks is not None and self.hooks.configured("PreCompact"):
            await self.hooks.pre_compact(trigger, focus)
