"""``toolbelt run PROMPT``: one agent task, non-interactive, made for the person watching and
for scripts alike.

The final answer goes to standard output — rendered as Markdown when that is a terminal, the
exact text (control characters escaped) otherwise. Standard error shows the run as it goes:
at a terminal the model's narration streams, each tool call has a live line (with a spinner,
its time and its output's last line) and leaves a line with its outcome, edits show as diffs;
piped, one line per call (``name target: state (time)``, with the reason of a refusal or an
error). A last line gives the tokens and the cost. ``--output-format stream-json`` prints one
JSON event per line on standard output instead (text deltas, tool calls, results, turns with
usage, the result), and ``json`` (or ``--json``) the whole transcript at the end.

The conversation is saved like a chat's (``toolbelt sessions``); ``--continue`` and
``--resume ID`` add this task to a saved one. Exit status: 0 when the loop ended (a note on
standard error when that was short of an answer), 3 when it ended with calls refused (denied by
the person, a rule, a mode or a hook: the answer may rest on them), 1 when the model provider
failed, 2 for invalid usage, 130 when interrupted — 143 on SIGTERM and 129 on SIGHUP, which
stop the run the same way (``termination``).

The model is ``--model PROVIDER:MODEL``, else the ``TOOLBELT_MODEL`` environment variable —
an environment variable rather than a settings key, because a workspace's settings would let
a repository pick which provider its contents are sent to. Provider SDKs are imported only
here, when a model is opened: ``toolbelt call`` and ``toolbelt mcp`` never load them.

``--prompt SERVER:NAME [K=V...]`` starts the task with an MCP server's prompt (its text, then
PROMPT's if both are given), and ``@server:uri`` in the prompt attaches that server's resource
(``mcp_client.prompts``): both read through the runtime, under the server's rules.

The answer is the model's text, which a web page, a file or a tool result can steer: it is
printed with its control characters escaped (``\\x1b``), newlines and tabs kept, whether
standard output is a terminal or not — a file it goes to is read on a terminal later, and
``--json`` carries the exact text. A provider's error (which quotes the server) is escaped too.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any, TextIO

import anyio

from toolbelt.agent import AgentFinished, AgentResult, Compacted, ModelTurn, ToolResults
from toolbelt.agent.conversation import ConversationEvent, PromptBlocked
from toolbelt.cli.commands import result_as_json
from toolbelt.cli.conversation_setup import (
    MODEL_ENV,
    ConversationOptions,
    OpenedConversation,
    open_at_terminal,
    opening_failed,
)
from toolbelt.cli.json_output import print_json
from toolbelt.cli.notices import print_notices
from toolbelt.cli.run_output import (
    ActivityLog,
    stop_note,
    tool_call_json,
    transcript_json,
    usage_json,
)
from toolbelt.cli.termination import Termination
from toolbelt.core.errors import ToolError, UsageError
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.providers.model import ProviderError, TextDelta, ToolResultsMessage
from toolbelt.runtime import Runtime

__all__ = ["EXIT_REFUSED", "MODEL_ENV", "OUTPUT_FORMATS", "run_task"]

EXIT_REFUSED = 3
OUTPUT_FORMATS = ("text", "json", "stream-json")


def run_task(
    prompt: str | None,
    options: ConversationOptions,
    *,
    yes: bool,
    output_format: str = "text",
    mcp_prompt: list[str] | None = None,
) -> int:
    """Run the task and print its answer; returns the documented exit status."""
    try:
        text = "" if prompt is None and mcp_prompt else _prompt(prompt or "")
        opened = open_at_terminal(options, yes=yes)
    except (UsageError, ProviderError) as exc:
        return opening_failed(exc)
    print_notices(opened.runtime)
    termination = Termination()
    try:
        with termination:
            result = anyio.run(_run, opened, text, output_format, mcp_prompt or [])
    except ToolError as exc:  # the MCP prompt asked for cannot be had
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return 2
    except ProviderError as exc:
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):  # after a hang-up there may be no terminal left
            print(f"toolbelt: {termination.reason}", file=sys.stderr)
        return termination.exit_status
    if result is None:  # a UserPromptSubmit hook blocked it (said on stderr)
        return 2
    if output_format == "json":
        print_json(transcript_json(result, model=opened.spec))
    elif output_format == "text" and result.text:
        _print_answer(result.text)
    note = stop_note(result, max_turns=options.max_turns)
    if note:
        print(f"toolbelt: {escape_for_terminal(note)}", file=sys.stderr)
    print(f"toolbelt: {_usage_line(opened, result)}", file=sys.stderr)
    refused = _refused(result, opened)
    if refused:
        print(
            f"toolbelt: {refused} call{'s' if refused > 1 else ''} refused; the answer may rest "
            "on them (exit status 3)",
            file=sys.stderr,
        )
        return EXIT_REFUSED
    return 0


async def _with_mcp(runtime: Runtime, prompt: str, mcp_prompt: list[str]) -> str:
    """The task's text: the MCP prompt asked for first, and the resources ``@server:uri``
    mentions name attached; ``ToolError`` when the prompt cannot be had."""
    if runtime.mcp_servers is None:
        if mcp_prompt:
            raise ToolError(
                "--prompt names an MCP server's prompt, but no MCP server is configured."
            )
        return prompt
    from toolbelt.mcp_client.prompts import expand_mentions, parse_prompt_arguments, render_prompt

    if mcp_prompt:
        rendered = await render_prompt(
            runtime.mcp_servers, mcp_prompt[0], parse_prompt_arguments(mcp_prompt[1:])
        )
        prompt = f"{rendered}\n\n{prompt}" if prompt.strip() else rendered
    prompt, problems = await expand_mentions(runtime.mcp_servers, runtime.run_one, prompt)
    for problem in problems:
        print(f"toolbelt: {escape_for_terminal(problem)}", file=sys.stderr)
    return prompt


def _prompt(argument: str) -> str:
    text = sys.stdin.read() if argument == "-" else argument
    if not text.strip():
        where = "standard input" if argument == "-" else "the PROMPT argument"
        raise UsageError(f"The prompt from {where} is empty; say what the task is.")
    return text


async def _run(
    opened: OpenedConversation, prompt: str, output_format: str, mcp_prompt: list[str]
) -> AgentResult | None:
    show = _Display.choose(output_format)
    result: AgentResult | None = None
    conversation = opened.conversation
    async with opened.runtime, opened.agent:
        try:
            await conversation.start("resume" if opened.saved else "startup")
            prompt = await _with_mcp(opened.runtime, prompt, mcp_prompt)
            show.begin()
            try:
                async for event in conversation.stream(prompt):
                    show.handle(event)
                    if isinstance(event, AgentFinished):
                        result = event.result
            finally:
                show.end()
            if result is not None:
                show.finish(result, opened)
        finally:
            with anyio.CancelScope(shield=True):
                await conversation.close("other")
    return result


class _Display:
    """Where the run's events go: the piped activity log, the live screen, or JSON lines."""

    def __init__(self, output_format: str, stream: TextIO) -> None:
        self.format = output_format
        self.show: Callable[[Callable[[], None]], None] = _now
        if stream.isatty() or sys.stdout.isatty():  # a prompt may wait there: output waits
            from toolbelt.cli.terminal_owner import terminal_owner

            self.show = terminal_owner().show
        self.activity = ActivityLog(stream, self.show)
        self.screen: Any = None

    @classmethod
    def choose(cls, output_format: str) -> _Display:
        display = cls(output_format, sys.stderr)
        if output_format == "text" and sys.stderr.isatty():
            from rich.console import Console

            from toolbelt.cli.chat_screen import ChatScreen
            from toolbelt.cli.terminal_owner import terminal_owner

            console = Console(file=sys.stderr, highlight=False)
            display.screen = ChatScreen(console, terminal_owner(), final_answer_elsewhere=True)
        return display

    def begin(self) -> None:
        if self.screen is not None:
            self.screen.begin_turn()

    def end(self) -> None:
        if self.screen is not None:
            self.screen.end_turn()

    def handle(self, event: ConversationEvent) -> None:
        if isinstance(event, PromptBlocked):
            print(
                f"toolbelt: a hook blocked the prompt: {escape_for_terminal(event.reason)}",
                file=sys.stderr,
            )
            return
        if self.format == "stream-json":
            line = _event_json(event)
            if line is not None:
                self.show(lambda: print_json(line, compact=True))
            return
        if self.screen is not None:
            self.screen.handle(event)
        else:
            self.activity.handle(event)

    def finish(self, result: AgentResult, opened: OpenedConversation) -> None:
        if self.format == "stream-json":
            print_json(
                {
                    "type": "result",
                    "text": result.text,
                    "stop": result.stop,
                    "usage": usage_json(result.usage),
                    "cost_usd": result.cost,
                    "session_id": opened.runtime.session.id,
                    "refused": _refused(result, opened),
                },
                compact=True,
            )


def _now(write: Callable[[], None]) -> None:
    write()


def _event_json(event: ConversationEvent) -> dict[str, Any] | None:
    if isinstance(event, TextDelta):
        return {"type": "text", "text": event.text}
    if isinstance(event, ModelTurn):
        return {
            "type": "turn",
            "index": event.index,
            "tool_calls": [tool_call_json(call) for call in event.message.tool_calls],
            "usage": usage_json(event.usage),
            "cost_usd": event.cost,
            "stop_reason": event.stop_reason,
        }
    if isinstance(event, ToolResults):
        return {"type": "tool_results", "results": [result_as_json(r) for r in event.results]}
    if isinstance(event, Compacted):
        return {
            "type": "compacted",
            "trigger": event.trigger,
            "tokens_before": event.tokens_before,
            "tokens_after": event.tokens_after,
        }
    return None


def _print_answer(text: str) -> None:
    if sys.stdout.isatty():
        from rich.console import Console

        from toolbelt.cli.answer_markdown import answer_markdown

        Console(highlight=False).print(answer_markdown(text))
    else:
        print(escape_for_terminal(text, newlines=True, tabs=True))


def _usage_line(opened: OpenedConversation, result: AgentResult) -> str:
    usage = result.usage
    line = (
        f"{len(result.turns)} turn{'s' if len(result.turns) != 1 else ''}, "
        f"{usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens:,} tokens in "
        f"({usage.cache_read_tokens:,} cached), {usage.output_tokens:,} out"
    )
    cost = result.cost
    line += f", ${cost:.4f}" if cost is not None else ", cost unknown for this model"
    return line + f"; session {opened.runtime.session.id}"


def _refused(result: AgentResult, opened: OpenedConversation) -> int:
    """Calls of this run that were refused (the person, a rule, a mode, a hook): among the
    answers to this run's turns, the last ones of the transcript."""
    answered_turns = sum(1 for turn in result.turns if turn.tool_calls or turn.invalid_calls)
    answers = [m for m in result.messages if isinstance(m, ToolResultsMessage)]
    mine = answers[len(answers) - answered_turns :] if answered_turns else []
    return sum(1 for m in mine for r in m.results if r.error_kind == "permission_denied")
