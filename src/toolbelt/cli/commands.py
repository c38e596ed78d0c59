"""``toolbelt tools`` and ``toolbelt call``: the executor driven from a terminal."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import anyio

from toolbelt.cli.json_output import print_json
from toolbelt.cli.notices import print_notices
from toolbelt.cli.render import Renderer
from toolbelt.cli.sandbox_option import sandbox_settings
from toolbelt.cli.termination import Termination
from toolbelt.config.settings import load_settings
from toolbelt.core.context import SessionConfig
from toolbelt.core.errors import UsageError
from toolbelt.core.executor import ToolCall, ToolCallResult
from toolbelt.core.permission import PermissionRequester
from toolbelt.core.registry import Toolset
from toolbelt.core.requesters import AutoApprove, DenyRequests
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.core.user import UserChannel
from toolbelt.runtime import Runtime, RuntimeOptions

__all__ = [
    "EXIT_CODES",
    "call_tool",
    "exit_code",
    "list_tools",
    "terminal_requester",
    "terminal_user",
    "toolset_from_spec",
]

EXIT_CODES = {
    None: 0,
    "tool_error": 1,
    "internal_error": 1,
    "aborted": 1,
    "invalid_input": 2,
    "unknown_tool": 2,
    "permission_denied": 3,
}

DENY_HINT = (
    "re-run with --yes to approve it, choose another --mode, or add an allow rule to "
    ".toolbelt/settings.json"
)
FORCED_HINT = (
    "re-run with --yes to approve it, or add an allow rule to .toolbelt/settings.json (no "
    "--mode skips this question)"
)
ONCE_HINT = "re-run with --yes to approve it"
UNTRUSTED_DENY_HINT = (
    "re-run with --yes to approve it, choose another --mode, or add an allow rule to {user}; "
    "this workspace is not trusted, so the allow rules in its .toolbelt/settings.json are "
    "ignored until you run `toolbelt trust`"
)
UNTRUSTED_FORCED_HINT = (
    "re-run with --yes to approve it, or add an allow rule to {user} (no --mode skips this "
    "question); this workspace is not trusted, so the allow rules in its "
    ".toolbelt/settings.json are ignored until you run `toolbelt trust`"
)
"""The hints in a workspace whose own allow rules do not apply: adding one there would change
nothing, so the user's own settings file is named instead, and the reason."""


def list_tools(
    *,
    as_json: bool,
    toolset_spec: str | None = None,
    root: str | None = None,
    trust_workspace: bool = False,
) -> int:
    """Print every tool: a table for people, or JSON with the full input schemas. With
    ``root``, the tools of that workspace's configured MCP servers too (their servers start)."""
    try:
        toolset = toolset_from_spec(toolset_spec)
        if toolset is None and root is not None:
            runtime = Runtime(root, trusted=True if trust_workspace else None)
            print_notices(runtime)
            toolset = anyio.run(_listed, runtime)
    except UsageError as exc:
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return 2
    if toolset is None:
        from toolbelt.tools import builtin_toolset

        toolset = builtin_toolset()
    if as_json:
        from toolbelt.providers.schema import neutral_schema

        listing = [
            {
                "name": tool.name,
                "title": tool.title,
                "readonly": tool.readonly,
                "description": tool.description,
                "input_schema": neutral_schema(tool),
            }
            for tool in toolset
        ]
        print_json(listing)
        return 0
    Renderer.for_stdout().tool_table(list(toolset))
    return 0


def call_tool(
    name: str,
    raw_arguments: str,
    *,
    root: str,
    mode: str | None,
    add_dirs: list[str],
    yes: bool,
    as_json: bool,
    trust_workspace: bool = False,
    toolset_spec: str | None = None,
    sandbox: str | None = None,
) -> int:
    """Run one call and print what the model would see; returns the documented exit status."""
    renderer = Renderer.for_stdout()
    try:
        arguments = sys.stdin.read() if raw_arguments == "-" else raw_arguments
        # the settings first: whoever answers prompts words its hints for the trust in force
        settings = load_settings(Path(root).resolve(), trusted=True if trust_workspace else None)
        runtime = Runtime(
            root,
            toolset=toolset_from_spec(toolset_spec),
            mode=mode,
            add_dirs=add_dirs,
            settings=settings,
            requester=terminal_requester(renderer, yes=yes, trusted=settings.trusted),
            user=terminal_user(),
            options=RuntimeOptions(config=SessionConfig(require_read_before_write=False)),
        )
        runtime.use_sandbox(sandbox_settings(runtime.settings, sandbox))
    except UsageError as exc:
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return 2
    print_notices(runtime)
    termination = Termination()  # SIGTERM and SIGHUP take Ctrl-C's path
    try:
        with termination:
            call = ToolCall(f"cli-{os.urandom(4).hex()}", name, arguments)  # `toolbelt undo` ids
            result = anyio.run(_run_one, runtime, call)
    except KeyboardInterrupt:  # the call was cancelled and the session closed
        with contextlib.suppress(OSError):
            print(f"\ntoolbelt: {termination.reason}; the call was cancelled.", file=sys.stderr)
        return termination.exit_status
    if as_json:
        print_json(result_as_json(result))
    else:
        renderer.result(result)
    return EXIT_CODES.get(result.error_kind, 1)


async def _listed(runtime: Runtime) -> Toolset:
    """The runtime's tools once every configured MCP server has listed its own."""
    from toolbelt.core.registry import ToolRegistry

    async with runtime:
        tools = await runtime.toolset.list_tools()
        _report_servers(runtime)
        return ToolRegistry(tools)


def _report_servers(runtime: Runtime) -> None:
    """Say on stderr which configured MCP servers could not list their tools, and why."""
    from toolbelt.mcp_client.status import server_states

    for state in server_states(runtime):
        if state.error:
            name, error = escape_for_terminal(state.name), escape_for_terminal(state.error)
            print(f"toolbelt: MCP server `{name}`: {error}", file=sys.stderr)


def exit_code(result: ToolCallResult) -> int:
    """The CLI exit status for a result."""
    return EXIT_CODES.get(result.error_kind, 1)


async def _run_one(runtime: Runtime, call: ToolCall) -> ToolCallResult:
    async with runtime:  # an MCP server's tool starts its server (``Runtime.run_one``)
        Renderer.for_stderr().follow(runtime.events)
        return await runtime.run_one(call)


def toolset_from_spec(spec: str | None) -> Toolset | None:
    """The toolset ``--toolset`` names, or None for the built-ins."""
    if spec is None:
        return None
    from toolbelt.cli.toolset_spec import load_toolset_factory

    return load_toolset_factory(spec)()


def terminal_user() -> UserChannel | None:
    """The person at the terminal, when there is one (tools' own questions)."""
    if sys.stdin.isatty() and sys.stderr.isatty():
        from toolbelt.cli.user_prompt import TerminalUser

        return TerminalUser()
    return None


def terminal_requester(
    renderer: Renderer, *, yes: bool, trusted: bool = True
) -> PermissionRequester:
    """Who answers permission prompts: ``--yes`` approves all, a person at a terminal is
    asked, and without one every prompt is denied with a hint on how to allow it — one that
    works with the settings in force (``trusted``: whether the workspace's own allow rules
    apply)."""
    if yes:
        return AutoApprove()
    if sys.stdin.isatty() and sys.stderr.isatty():
        from toolbelt.cli.prompt import TerminalRequester

        return TerminalRequester()
    if trusted:
        return DenyRequests(DENY_HINT, forced_hint=FORCED_HINT, once_hint=ONCE_HINT)
    from toolbelt.config.trust import user_config_dir

    user = user_config_dir() / "settings.json"
    return DenyRequests(
        UNTRUSTED_DENY_HINT.format(user=user),
        forced_hint=UNTRUSTED_FORCED_HINT.format(user=user),
        once_hint=ONCE_HINT,
    )


def result_as_json(result: ToolCallResult) -> dict[str, Any]:
    """The structured view of a result that ``--json`` prints."""
    content: list[dict[str, Any]] = []
    for block in result.output.content:
        if block.type == "text":
            content.append({"type": "text", "text": block.text})
        else:
            content.append({"type": "image", "mime_type": block.mime_type, "data": block.data})
    return {
        "call_id": result.call_id,
        "tool": result.tool,
        "status": result.state.value,
        "is_error": result.is_error,
        "error_kind": result.error_kind,
        "duration_ms": round(result.duration * 1000, 3),
        "content": content,
        "structured": dict(result.output.structured) if result.output.structured else None,
    }
