"""``toolbelt demo``: the main job in one command — list the tools, then use them on a repo.

It runs a fixed, harmless script of calls against the workspace (by default the current
directory) through a runtime, as the library and MCP do (the workspace's settings apply), as
one batch so consecutive read-only calls run concurrently, and renders each result as a user
would see it. Calls for tools this build does not have are skipped, so the demo grows with the
toolset.
"""

from __future__ import annotations

import shlex
import sys
import time

import anyio

from toolbelt.cli.render import Renderer
from toolbelt.core.context import SessionConfig
from toolbelt.core.errors import UsageError
from toolbelt.core.executor import ToolCall, ToolCallResult
from toolbelt.core.requesters import AutoApprove
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.runtime import Runtime, RuntimeOptions
from toolbelt.tools import builtin_toolset

__all__ = ["DEMO_CALLS", "run_demo"]

DEMO_CALLS: tuple[tuple[str, dict[str, object]], ...] = (
    (
        "todo_write",
        {
            "todos": [
                {"id": "1", "content": "Survey the repository layout", "status": "in_progress"},
                {"id": "2", "content": "Find where tools are executed", "status": "pending"},
                {"id": "3", "content": "Read the README", "status": "pending"},
            ]
        },
    ),
    ("ls", {"path": "."}),
    ("glob", {"pattern": "src/**/*.py", "limit": 10}),
    ("grep", {"pattern": "class \\w+Tool\\b", "output_mode": "content", "head_limit": 8}),
    ("read_file", {"path": "README.md", "limit": 15}),
    ("bash", {"command": "git log --oneline -n 3 || echo 'not a git repository'"}),
    ("think", {"thought": "The layout is clear; the executor is the entry point for calls."}),
    ("todo_read", {}),
)


def run_demo(*, root: str) -> int:
    """List the tools, run the demo script on ``root``; 0 if every call succeeded."""
    out = Renderer.for_stdout()
    toolset = builtin_toolset()
    print(f"toolbelt demo on {root}\n")
    out.tool_table(list(toolset))
    try:
        runtime = Runtime(
            root,
            toolset=toolset,
            mode="default",
            requester=AutoApprove(),
            options=RuntimeOptions(config=SessionConfig(require_read_before_write=False)),
        )
    except UsageError as exc:
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return 2
    if runtime.notice:
        print(f"toolbelt: {escape_for_terminal(runtime.notice)}", file=sys.stderr)
    calls = [
        ToolCall(f"demo-{index}", name, args)
        for index, (name, args) in enumerate(DEMO_CALLS)
        if name in toolset
    ]
    started = time.perf_counter()
    results = anyio.run(_run, runtime, calls)
    elapsed = time.perf_counter() - started
    for call, result in zip(calls, results, strict=True):
        # as a shell would take it: the arguments quoted so the line can be pasted and run
        print(f"\n$ toolbelt call {call.name} {shlex.quote(_compact(call.arguments))}")
        out.result(result)
    failed = sum(1 for r in results if r.is_error)
    print(f"\n{len(results)} calls, {failed} failed, {elapsed * 1000:.0f} ms in all.")
    return 0 if failed == 0 else 1


async def _run(runtime: Runtime, calls: list[ToolCall]) -> list[ToolCallResult]:
    async with runtime:
        return await runtime.run(calls)


def _compact(arguments: object) -> str:
    import json

    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
