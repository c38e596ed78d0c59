"""Core benchmarks: executor overhead per call, and a whole `toolbelt call` process.

- Executor overhead: the time of ``Executor.run([think call])`` minus nothing — compared with
  calling the tool's ``run`` directly in the same loop, so the difference is what validation,
  events, the permission decision and result building cost.
- Process: wall time of ``toolbelt call think '{"thought":"x"}'`` against ``python -c pass``.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import Case, fmt_time, interleave, table, write_section
from toolbelt.config.factory import build_policy
from toolbelt.core.context import Session, ToolContext
from toolbelt.core.events import EventBus
from toolbelt.core.executor import Executor, ToolCall
from toolbelt.tools import builtin_toolset
from toolbelt.tools.think import ThinkInput, ThinkTool

TOOLBELT = str(Path(sys.executable).with_name("toolbelt"))


def executor_overhead(calls_per_sample: int = 200, rounds: int = 30) -> tuple[Case, Case]:
    loop = asyncio.new_event_loop()
    root = tempfile.mkdtemp()
    session = Session(root)
    executor = Executor(builtin_toolset(), session, policy=build_policy(session))
    tool = ThinkTool()
    args = ThinkInput(thought="x")
    ctx = ToolContext(session, "bench", "think", EventBus())
    raw = '{"thought": "x"}'

    async def through_executor() -> None:
        for i in range(calls_per_sample):
            await executor.run([ToolCall(str(i), "think", raw)])

    async def direct() -> None:
        for _ in range(calls_per_sample):
            await tool.run(args, ctx)

    cases = (
        Case("executor.run([think])", lambda: loop.run_until_complete(through_executor())),
        Case("ThinkTool.run directly", lambda: loop.run_until_complete(direct())),
    )
    interleave(cases, rounds)
    for case in cases:
        case.samples = [s / calls_per_sample for s in case.samples]
    loop.close()
    return cases


def process_wall(rounds: int = 15) -> tuple[Case, Case]:
    root = tempfile.mkdtemp()
    call = [TOOLBELT, "call", "think", '{"thought":"x"}', "--root", root]
    cases = (
        Case(
            "toolbelt call think (process)",
            lambda: subprocess.run(call, capture_output=True, check=True),
        ),
        Case(
            "python -c pass (interpreter floor)",
            lambda: subprocess.run([sys.executable, "-c", "pass"], check=True),
        ),
    )
    interleave(cases, rounds)
    return cases


def main() -> None:
    via, direct = executor_overhead()
    proc, floor = process_wall()
    overhead = via.median - direct.median
    rows = [
        [via.name, fmt_time(via.median), fmt_time(via.percentile(0.9))],
        [direct.name, fmt_time(direct.median), fmt_time(direct.percentile(0.9))],
        ["**executor overhead per call**", f"**{fmt_time(overhead)}**", "target ≤ 50 µs"],
        [proc.name, fmt_time(proc.median), fmt_time(proc.percentile(0.9))],
        [floor.name, fmt_time(floor.median), fmt_time(floor.percentile(0.9))],
        [
            "**toolbelt call / interpreter floor**",
            f"**×{proc.median / floor.median:.1f}**",
            "target ≤ 0.35 s wall",
        ],
    ]
    body = "Command: `.venv/bin/python bench/run.py core`\n\n" + table(
        rows, ["case", "median", "p90"]
    )
    print(body)
    write_section("core", body)


if __name__ == "__main__":
    main()
