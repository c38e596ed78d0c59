"""What ``toolbelt chat`` shows at a terminal while a turn runs, on rich.

Permanent output scrolls up as it completes: the model's text as rendered Markdown (each
stretch of text once it ends), one line per finished tool call (mark, name, target, time
spent running — not the wait for the person's approval — and, for a refusal or an error, the
first line of why), edits as coloured diffs, a compaction's note. Below it, a live area
redrawn a few times a second: the tail of the text still streaming, each running call with a
spinner and its time and the last line of its output, and a spinner for a model that has said
nothing for over a second. The live area steps aside (``terminal_owner``) while a prompt
asks the person something, and what would be printed meanwhile (a parallel subagent's
finished calls) waits until the prompt is answered: nothing is written under the line the
person types on.

Everything that came from the model or a tool is escaped (``visible``) before rich sees it,
so it cannot move the cursor or restyle the screen; Markdown is rendered from escaped text.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.segment import Segment
from rich.syntax import Syntax
from rich.text import Text

from toolbelt.agent import AgentFinished, Compacted, ModelTurn
from toolbelt.agent.conversation import ConversationEvent, PromptBlocked
from toolbelt.cli.answer_markdown import answer_markdown
from toolbelt.cli.run_output import duration, target_of
from toolbelt.cli.terminal_owner import TerminalOwner
from toolbelt.core.events import CallState, DiffEvent, ProgressEvent, StateEvent
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.providers.model import TextDelta, ToolCallStarted

__all__ = ["ChatScreen"]

_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_MARKS = {
    CallState.SUCCESS: ("✓", "green"),
    CallState.ERROR: ("✗", "red"),
    CallState.ABORTED: ("⊘", "yellow"),
    CallState.NEEDS_INPUT: ("?", "yellow"),
}
_TAIL_LINES = 8
_SPIN_AFTER = 1.0


@dataclass
class _Running:
    name: str
    target: str
    started: float
    tail: str = ""


class ChatScreen:
    """Renders one conversation's events; ``begin_turn`` / ``end_turn`` around each turn."""

    def __init__(
        self, console: Console, owner: TerminalOwner, *, final_answer_elsewhere: bool = False
    ) -> None:
        """``final_answer_elsewhere``: the last turn's text is printed by the caller (``toolbelt
        run`` puts it on standard output), so the screen shows it only while it streams."""
        self.console = console
        self._answer_elsewhere = final_answer_elsewhere
        self.owner = owner
        self._live: Live | None = None
        self._text: list[str] = []
        self._targets: dict[str, str] = {}
        self._running: dict[str, _Running] = {}
        self._quiet_since: float | None = None

    # -- the turn ------------------------------------------------------------------------

    def begin_turn(self) -> None:
        self._quiet_since = time.monotonic()
        self._live = Live(
            self, console=self.console, refresh_per_second=8, transient=True, auto_refresh=True
        )
        self._live.start()
        self.owner.on_interaction(self._pause, self._resume)

    def end_turn(self) -> None:
        self._flush_text()
        self.owner.off_interaction(self._pause)
        if self._live is not None:
            self._live.stop()
            self._live = None
        self._running.clear()
        self._quiet_since = None

    def _pause(self) -> None:
        self._flush_text()
        if self._live is not None:
            self._live.stop()

    def _resume(self) -> None:
        if self._live is not None:
            self._live.start()

    # -- events --------------------------------------------------------------------------

    def handle(self, event: ConversationEvent) -> None:
        if isinstance(event, TextDelta):
            first = not self._text
            self._text.append(event.text)
            self._quiet_since = None
            if first and self._live is not None and self._live.is_started:
                self._live.refresh()  # the first characters show at once, not at the next tick
        elif isinstance(event, ToolCallStarted):
            self._flush_text()
        elif isinstance(event, ModelTurn):
            if self._answer_elsewhere and not event.message.tool_calls:
                self._text.clear()
            self._flush_text()
            for call in event.message.tool_calls:
                self._targets[call.id] = target_of(call.arguments)
            self._quiet_since = None if event.message.tool_calls else time.monotonic()
        elif isinstance(event, StateEvent):
            self._state(event)
        elif isinstance(event, ProgressEvent):
            running = self._running.get(event.call_id)
            if running is not None and event.tool == "task":  # a subagent's finished call
                self.print(Text(f"  ⎿ {escape_for_terminal(event.message)}", style="dim"))
            elif running is not None:
                lines = [line for line in event.message.splitlines() if line.strip()]
                if lines:
                    running.tail = escape_for_terminal(lines[-1])[:120]
        elif isinstance(event, DiffEvent):
            shown = escape_for_terminal(event.unified, newlines=True, tabs=True)
            self.print(Syntax(shown, "diff", theme="ansi_dark", background_color="default"))
        elif isinstance(event, Compacted):
            self.print(
                Text(
                    f"⟳ context compacted ({event.trigger}): about {event.tokens_before:,} → "
                    f"{event.tokens_after:,} tokens",
                    style="dim",
                )
            )
        elif isinstance(event, PromptBlocked):
            self.print(
                Text(
                    f"A hook blocked the prompt: {escape_for_terminal(event.reason)}",
                    style="yellow",
                )
            )
        elif isinstance(event, AgentFinished):
            self._flush_text()

    def _state(self, event: StateEvent) -> None:
        if event.state is CallState.PENDING:
            target = self._targets.get(event.call_id, "")
            self._running[event.call_id] = _Running(
                escape_for_terminal(event.tool), target, event.at
            )
        elif event.state is CallState.EXECUTING:
            running = self._running.get(event.call_id)
            if running is not None:  # time spent waiting for the person does not count
                running.started = event.at
        elif event.state.terminal:
            running = self._running.pop(event.call_id, None)
            started = running.started if running else event.at
            mark, colour = _MARKS[event.state]
            line = Text(f"{mark} ", style=f"bold {colour}")
            line.append(escape_for_terminal(event.tool), style="bold")
            target = self._targets.pop(event.call_id, "")
            if target:
                line.append(f" {target}")
            line.append(f"  ({duration(max(0.0, event.at - started))})", style="dim")
            if event.detail:
                first = escape_for_terminal(event.detail.strip().splitlines()[0])[:200]
                line.append(f" — {first}", style=colour)
            self.print(line)
            if not self._running:
                self._quiet_since = time.monotonic()

    def print(self, renderable: Any) -> None:
        """Print above the live area (or plainly between turns); while a prompt waits for
        the person, once it is answered."""
        self.owner.show(lambda: self._print_now(renderable))

    def _print_now(self, renderable: Any) -> None:
        if self._live is not None and self._live.is_started:
            self._live.console.print(renderable)
        else:
            self.console.print(renderable)

    def _flush_text(self) -> None:
        text = "".join(self._text)
        self._text.clear()
        if text.strip():
            self.print(answer_markdown(text))

    # -- the live area -------------------------------------------------------------------

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        now = time.monotonic()
        spin = _SPINNER[int(now * 10) % len(_SPINNER)]
        text = "".join(self._text)
        if text.strip():
            lines = console.render_lines(answer_markdown(text), options, pad=False)
            for segments in lines[-_TAIL_LINES:]:
                yield from segments
                yield Segment.line()
        wall = time.time()
        for running in list(self._running.values()):
            row = Text(f"{spin} ", style="cyan")
            row.append(running.name, style="bold")
            if running.target:
                row.append(f" {running.target}")
            row.append(f"  ({duration(max(0.0, wall - running.started))})", style="dim")
            yield row
            if running.tail:
                yield Text(f"    {running.tail}", style="dim")
        quiet = self._quiet_since
        if quiet is not None and not self._running and now - quiet > _SPIN_AFTER:
            yield Text(f"{spin} thinking… ({now - quiet:.0f} s)  esc to cancel", style="dim")
