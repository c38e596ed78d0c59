"""``toolbelt run PROMPT``: one agent task, non-interactive.

The final answer goes to standard output; one line per tool call (name, target, final state,
time) to standard error. Exit status: 0 when the loop ended (a note on standard error says
when that was short of an answer: the turn limit, malformed calls, a cut-off reply), 1 when
the model provider failed (the message says what to fix: a missing key, an unreachable base
URL, an unknown model), 2 for invalid usage, 130 when interrupted — 143 on SIGTERM and 129
on SIGHUP, which stop the run the same way (``termination``): calls aborted, their processes
and the MCP servers' ended.

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
import os
import sys
from pathlib import Path

import anyio

from toolbelt.agent import Agent, AgentFinished, AgentResult
from toolbelt.cli.commands import terminal_requester, terminal_user, toolset_from_spec
from toolbelt.cli.json_output import print_json
from toolbelt.cli.notices import print_notices
from toolbelt.cli.render import Renderer
from toolbelt.cli.run_output import ActivityLog, stop_note, transcript_json
from toolbelt.cli.sandbox_option import sandbox_settings
from toolbelt.cli.termination import Termination
from toolbelt.config.settings import load_settings
from toolbelt.core.errors import ToolError, UsageError
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.providers.model import ProviderError
from toolbelt.runtime import Runtime

__all__ = ["MODEL_ENV", "run_task"]

MODEL_ENV = "TOOLBELT_MODEL"


def run_task(
    prompt: str | None,
    *,
    model: str | None,
    base_url: str | None,
    tool_format: str,
    root: str,
    mode: str | None,
    add_dirs: list[str],
    yes: bool,
    max_turns: int,
    as_json: bool,
    trust_workspace: bool = False,
    toolset_spec: str | None = None,
    sandbox: str | None = None,
    mcp_prompt: list[str] | None = None,
) -> int:
    """Run the task and print its answer; returns the documented exit status."""
    try:
        text = "" if prompt is None and mcp_prompt else _prompt(prompt or "")
        spec = model or os.environ.get(MODEL_ENV, "").strip()
        if not spec:
            raise UsageError(
                f"No model given: pass --model PROVIDER:MODEL (e.g. anthropic:claude-sonnet-4-5 "
                f"or ollama:qwen3-coder) or set {MODEL_ENV}."
            )
        if max_turns < 1:
            raise UsageError(f"--max-turns must be at least 1, not {max_turns}.")
        # the settings first: whoever answers prompts words its hints for the trust in force
        settings = load_settings(Path(root).resolve(), trusted=True if trust_workspace else None)
        runtime = Runtime(
            root,
            toolset=toolset_from_spec(toolset_spec),
            mode=mode,
            add_dirs=add_dirs,
            settings=settings,
            requester=terminal_requester(Renderer.for_stderr(), yes=yes, trusted=settings.trusted),
            user=terminal_user(),
        )
        runtime.use_sandbox(sandbox_settings(runtime.settings, sandbox))
        agent = Agent(
            spec, runtime, base_url=base_url, tool_format=tool_format, max_turns=max_turns
        )
    except UsageError as exc:
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return 2
    except ProviderError as exc:
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return 1
    print_notices(runtime)
    termination = Termination()
    try:
        with termination:
            result = anyio.run(_run, runtime, agent, text, mcp_prompt or [])
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
    if as_json:
        print_json(transcript_json(result, model=spec))
    elif result.text:
        print(escape_for_terminal(result.text, newlines=True, tabs=True))
    note = stop_note(result, max_turns=max_turns)
    if note:
        print(f"toolbelt: {escape_for_terminal(note)}", file=sys.stderr)
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


async def _run(runtime: Runtime, agent: Agent, prompt: str, mcp_prompt: list[str]) -> AgentResult:
    activity = ActivityLog(sys.stderr)
    result: AgentResult | None = None
    async with runtime, agent:
        prompt = await _with_mcp(runtime, prompt, mcp_prompt)
        async for event in agent.stream(prompt):
            activity.handle(event)
            if isinstance(event, AgentFinished):
                result = event.result
    assert result is not None  # every stream that does not raise ends with AgentFinished
    return result
