"""``toolbelt demo``: the main job in one command — list the tools, then use them on a repo.

It runs a fixed, harmless script of calls against the workspace (by default the current
directory) through the same executor the library and MCP use, as one batch so consecutive
read-only calls run concurrently, and renders each result as a user would see it. Calls for
tools this build does not have are skipped, so the demo grows with the toolset.
"""

from __future__ import annotations

import sys
import time

import anyio

from toolbelt.cli.render import Renderer
from toolbelt.config.factory import build_policy
from toolbelt.core.context import Session, SessionConfig
from toolbelt.core.display import visible
from toolbelt.core.errors import UsageError
from toolbelt.core.executor import Executor, ToolCall, ToolCallResult
from toolbelt.core.requesters import AutoApprove
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
        session = Session(root, config=SessionConfig(require_read_before_write=False))
    except UsageError as exc:
        print(f"toolbelt: {visible(str(exc))}", file=sys.stderr)
        return 2
    calls = [
        ToolCall(f"demo-{index}", name, args)
        for index, (name, args) in enumerate(DEMO_CALLS)
        if name in toolset
    ]
    started = time.perf_counter()
    results = anyio.run(_run, session, calls)
    elapsed = time.perf_counter() - started
    for call, result in zip(calls, results, strict=True):
        print(f"\n$ toolbelt call {call.name} '{_compact(call.arguments)}'")
        out.result(result)
    failed = sum(1 for r in results if r.is_error)
    print(f"\n{len(results)} calls, {failed} failed, {elapsed * 1000:.0f} ms in all.")
    return 0 if failed == 0 else 1


async def _run(session: Session, calls: list[ToolCall]) -> list[ToolCallResult]:
    async with session:
        executor = Executor(
            builtin_toolset(),
            session,
            policy=build_policy(session, "default"),
            requester=AutoApprove(),
        )
        return await executor.run(calls)


def _compact(arguments: object) -> str:
    import json

    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
