"""``toolbelt chat``: an interactive session with a model that uses the tools.

At a terminal: input on prompt_toolkit (history kept in the state directory, multi-line paste,
Esc then Enter for a new line), the turn rendered by ``chat_screen``, Esc or Ctrl-C cancelling
the running turn (its calls aborted, their processes ended; the session goes on), Ctrl-D
leaving. Slash commands and ``@path`` mentions: ``chat_slash``. Permission prompts and
questions go through the terminal's one owner (``terminal_owner``).

Without a terminal (standard input a pipe) it reads one prompt per line and behaves like
``toolbelt run`` for each: the answer on standard output, one line per tool call on standard
error, no escape codes — scriptable. Either way the conversation is saved as it happens
(``--resume [ID]``, ``--continue``). Exit status: 0, 1 when the provider failed to start, 2 for
invalid usage, 130 (143, 129) when a signal ended it.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING

import anyio

from toolbelt.agent import AgentFinished, AgentResult
from toolbelt.agent.conversation import PromptBlocked
from toolbelt.cli.conversation_setup import (
    ConversationOptions,
    OpenedConversation,
    open_at_terminal,
    opening_failed,
)
from toolbelt.cli.run_output import ActivityLog, stop_note
from toolbelt.cli.termination import Termination
from toolbelt.core.errors import UsageError
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.providers.model import ProviderError

if TYPE_CHECKING:
    from rich.console import Console

    from toolbelt.cli.chat_slash import SlashOutcome

__all__ = ["run_chat"]


def run_chat(options: ConversationOptions, *, yes: bool) -> int:
    """Run the chat; returns the exit status."""
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    try:
        opened = open_at_terminal(options, yes=yes)
    except (UsageError, ProviderError) as exc:
        return opening_failed(exc)
    if opened.runtime.notice:
        print(f"toolbelt: {escape_for_terminal(opened.runtime.notice)}", file=sys.stderr)
    termination = Termination()
    try:
        with termination:
            if interactive:
                anyio.run(_interactive, opened, options.base_url)
            else:
                anyio.run(_piped, opened, options.base_url)
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):
            print(f"toolbelt: {termination.reason}", file=sys.stderr)
        return termination.exit_status
    return 0


# -- at a terminal ------------------------------------------------------------------------


async def _interactive(opened: OpenedConversation, base_url: str | None) -> None:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.key_binding import KeyBindings
    from rich.console import Console

    from toolbelt.agent.sessions import sessions_dir
    from toolbelt.cli.chat_screen import ChatScreen
    from toolbelt.cli.terminal_owner import terminal_owner

    console = Console(highlight=False)
    owner = terminal_owner()
    screen = ChatScreen(console, owner)
    conversation = opened.conversation
    history = sessions_dir().parent / "chat_history"
    history.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    keys = KeyBindings()

    @keys.add("escape", "enter")
    def _newline(event: object) -> None:
        event.current_buffer.insert_text("\n")  # type: ignore[attr-defined]

    session: PromptSession[str] = PromptSession(
        history=FileHistory(str(history)), key_bindings=keys
    )
    reason = "other"
    async with opened.runtime, opened.agent:
        try:
            await conversation.start("resume" if opened.saved else "startup")
            _banner(console, opened)
            while True:
                try:
                    line = await session.prompt_async("› ")
                except KeyboardInterrupt:
                    continue
                except EOFError:
                    reason = "prompt_input_exit"
                    break
                if not line.strip():
                    continue
                prompt: str | None = line
                if line.startswith("/"):
                    outcome = await _slash(line, opened, console, base_url)
                    if outcome.leave:
                        reason = "prompt_input_exit"
                        break
                    prompt = outcome.prompt
                if prompt is not None:
                    await _turn(prompt, opened, screen, console)
        finally:
            with anyio.CancelScope(shield=True):
                await conversation.close(reason)


def _banner(console: Console, opened: OpenedConversation) -> None:
    from rich.text import Text

    runtime = opened.runtime
    line = Text("toolbelt chat", style="bold")
    line.append(
        f"  {escape_for_terminal(opened.agent.model.model)} · {runtime.mode}"
        f" · {runtime.session.root}",
        style="dim",
    )
    console.print(line)
    if opened.saved is not None:
        console.print(
            Text(
                f"resumed {opened.saved.id}: {len(opened.saved.messages)} messages",
                style="dim",
            )
        )
    console.print(Text("/help for commands · esc cancels a turn · ctrl-d leaves", style="dim"))


async def _slash(
    line: str, opened: OpenedConversation, console: Console, base_url: str | None
) -> SlashOutcome:
    from rich.text import Text

    from toolbelt.cli.chat_slash import run_slash

    def say(text: str) -> None:
        console.print(Text(text, style="cyan"))

    return await run_slash(line, opened.conversation, say, base_url=base_url)


async def _turn(prompt: str, opened: OpenedConversation, screen: object, console: Console) -> None:
    from rich.text import Text

    from toolbelt.cli.chat_keys import TurnKeys
    from toolbelt.cli.chat_screen import ChatScreen
    from toolbelt.cli.chat_slash import mentioned_files
    from toolbelt.cli.terminal_owner import terminal_owner

    assert isinstance(screen, ChatScreen)
    conversation = opened.conversation
    attachments, notes = mentioned_files(prompt, conversation)
    for note in notes:
        console.print(Text(note, style="yellow"))
    result: AgentResult | None = None
    screen.begin_turn()
    try:
        with TurnKeys(sys.stdin.fileno(), terminal_owner(), conversation.agent.cancel):
            async for event in conversation.stream(prompt, attachments):
                screen.handle(event)
                if isinstance(event, AgentFinished):
                    result = event.result
    except ProviderError as exc:
        screen.print(Text(escape_for_terminal(str(exc)), style="red"))
    finally:
        screen.end_turn()
    if result is None:
        return
    if result.stop == "cancelled":
        console.print(Text("⊘ cancelled — the conversation goes on", style="yellow"))
        return
    stopped = stop_note(result, max_turns=conversation.agent.max_turns)
    if stopped:
        console.print(Text(stopped, style="yellow"))
    console.print(Text(_usage_line(result, conversation.cost), style="dim"))


def _usage_line(result: AgentResult, session_cost: float | None) -> str:
    usage = result.usage
    line = f"{usage.input_tokens + usage.cache_read_tokens:,} in · {usage.output_tokens:,} out"
    if result.cost is not None:
        line += f" · ${result.cost:.4f}"
    if session_cost is not None:
        line += f" (session ${session_cost:.4f})"
    return line


# -- in a pipe --------------------------------------------------------------------------


async def _piped(opened: OpenedConversation, base_url: str | None) -> None:
    from toolbelt.cli.chat_slash import mentioned_files, run_slash

    conversation = opened.conversation
    activity = ActivityLog(sys.stderr)

    def say(text: str) -> None:
        print(escape_for_terminal(text, newlines=True), flush=True)

    reason = "other"
    async with opened.runtime, opened.agent:
        try:
            await conversation.start("resume" if opened.saved else "startup")
            while True:
                line = await anyio.to_thread.run_sync(sys.stdin.readline)
                if not line:
                    reason = "prompt_input_exit"
                    break
                prompt: str | None = line.rstrip("\n")
                if not prompt or not prompt.strip():
                    continue
                if prompt.startswith("/"):
                    outcome = await run_slash(prompt, conversation, say, base_url=base_url)
                    if outcome.leave:
                        reason = "prompt_input_exit"
                        break
                    prompt = outcome.prompt
                    if prompt is None:
                        continue
                attachments, notes = mentioned_files(prompt, conversation)
                for note in notes:
                    print(f"toolbelt: {note}", file=sys.stderr)
                try:
                    async for event in conversation.stream(prompt, attachments):
                        if isinstance(event, PromptBlocked):
                            print(
                                f"toolbelt: a hook blocked the prompt: {event.reason}",
                                file=sys.stderr,
                            )
                            continue
                        activity.handle(event)
                        if isinstance(event, AgentFinished):
                            if event.result.text:
                                say(event.result.text)
                            stopped = stop_note(
                                event.result, max_turns=conversation.agent.max_turns
                            )
                            if stopped:
                                print(f"toolbelt: {stopped}", file=sys.stderr)
                except ProviderError as exc:
                    print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        finally:
            with anyio.CancelScope(shield=True):
                await conversation.close(reason)
