"""bash: ``echo hi`` through toolbelt's executor (persistent session) vs Alan Code's Bash and
Claude Code's Bash over MCP, plus a command that forks (``/bin/true``). Goal: ≤ 5 ms median.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from harness import Case, interleave, side_by_side, write_section
from peers import AlanCode, McpPeer, claude_available
from toolbelt.config.factory import build_policy
from toolbelt.core.context import Session
from toolbelt.core.executor import Executor, ToolCall
from toolbelt.tools import builtin_toolset

WORK = Path(__file__).resolve().parent / ".work" / "shell"


def main() -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    loop = asyncio.new_event_loop()
    session = Session(WORK)
    executor = Executor(builtin_toolset(), session, policy=build_policy(session, "bypass"))

    def ours(command: str) -> Any:
        return loop.run_until_complete(
            executor.run_one(ToolCall("b", "bash", {"command": command}))
        )

    alan = AlanCode.start(WORK)
    claude = McpPeer.claude(WORK) if claude_available() else None
    groups = []
    for command in ("echo hi", "/bin/true"):
        group = [Case("toolbelt", lambda c=command: ours(c))]
        if alan:
            group.append(Case("Alan Code", lambda c=command: alan.call("Bash", {"command": c})))
        if claude:
            group.append(
                Case("Claude Code (MCP)", lambda c=command: claude.call("Bash", {"command": c}))
            )
        groups.append((f"`{command}`", group))
    for _, group in groups:
        interleave(group, rounds=50)
    for peer in (alan, claude):
        if peer:
            peer.close()
    loop.run_until_complete(session.aclose())
    body = (
        "Command: `.venv/bin/python bench/run.py shell`\n\nmedian of 50 interleaved rounds; ×N = "
        "ratio to toolbelt in the same run. Goal: `echo hi` ≤ 5 ms.\n\n"
        + side_by_side(groups, "command")
    )
    print(body)
    write_section("shell", body)
