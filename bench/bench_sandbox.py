"""The OS sandbox's cost per command, and the prompts it saves.

Per command, through the executor, with the sandbox off, under Landlock, and under bubblewrap
(when installed): ``echo hi`` and ``cat a.txt``, which the analysis calls read-only (with a
sandbox they run in the read-only shell), and ``echo hi >> out.txt``, which runs in the
workspace shell. Goal: ≤ 2 ms over the unsandboxed
``echo hi`` (medians). Start-up: a fresh session's first command (the confined shell's launch).
Prompts: a scripted session of ordinary commands in default mode, every prompt approved,
counted with the sandbox off and on.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path
from typing import Any

from harness import Case, fmt_time, interleave, table, write_section
from toolbelt.config.factory import build_policy
from toolbelt.core.context import Session
from toolbelt.core.executor import Executor, ToolCall
from toolbelt.core.permission import Answer, Approval, Ask, PermissionRequest
from toolbelt.sandbox.sandbox import SandboxSettings, choose_backend
from toolbelt.tools import builtin_toolset

WORK = Path(__file__).resolve().parent / ".work" / "sandbox"
SCRIPT = [  # an ordinary session: look, build, test, edit with tools of the shell
    "ls",
    "cat a.txt",
    "git status --short",
    "git log --oneline | head -3",
    "grep -n hello a.txt",
    "mkdir -p build",
    "make",
    "python3 -m pytest -q -p no:cacheprovider",
    "sed -i s/hello/hi/ a.txt",
    "echo note >> notes.txt",
    "cp a.txt build/a.txt",
    "touch build/stamp",
    "python3 tool.py",
    "sort a.txt > build/sorted.txt",
    "wc -l a.txt",
    "rm build/stamp",
]


class Counter:
    """Approves every prompt and counts them."""

    def __init__(self) -> None:
        self.asked = 0

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        self.asked += 1
        return Answer(Approval.ONCE)


def _session(mode: str, policy_mode: str = "bypass") -> tuple[Session, Executor, Counter]:
    session = Session(WORK)
    session.resource(SandboxSettings, lambda: SandboxSettings(mode=mode))
    counter = Counter()
    policy = build_policy(session, policy_mode)
    return session, Executor(builtin_toolset(), session, policy=policy, requester=counter), counter


def _prepare() -> None:
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    (WORK / "a.txt").write_text("hello\nworld\n")
    (WORK / "tool.py").write_text("open('build/tool.out', 'w').write('ok')\n")
    (WORK / "test_a.py").write_text("def test_a():\n    assert True\n")
    (WORK / "Makefile").write_text("build/made:\n\tmkdir -p build && touch $@\n")
    subprocess.run(["git", "init", "-q", str(WORK)], check=True)


def main() -> None:
    _prepare()
    loop = asyncio.new_event_loop()
    modes = ["off", "landlock"] + (["bwrap"] if _available("bwrap") else [])
    sessions = {mode: _session(mode) for mode in modes}

    def call(mode: str, command: str) -> Any:
        _, executor, _ = sessions[mode]
        result = loop.run_until_complete(
            executor.run_one(ToolCall("b", "bash", {"command": command}))
        )
        assert not result.is_error, result.text
        return result

    cases = [Case(f"{mode}: echo hi", lambda m=mode: call(m, "echo hi")) for mode in modes]
    cases += [Case(f"{mode}: cat a.txt", lambda m=mode: call(m, "cat a.txt")) for mode in modes]
    write = "echo hi >> out.txt"  # not read-only: the workspace shell
    cases += [Case(f"{mode}: {write}", lambda m=mode: call(m, write)) for mode in modes]
    interleave(cases, rounds=200, warmup=3)
    starts = [
        Case(f"{mode}: new session + first echo", lambda m=mode: _first(loop, m)) for mode in modes
    ]
    interleave(starts, rounds=10)
    for session, _, _ in sessions.values():
        loop.run_until_complete(session.aclose())
    base = cases[0].median
    rows = [
        [c.name, fmt_time(c.median), fmt_time(c.percentile(0.9)), _over(c.median - base)]
        for c in cases + starts
    ]
    prompts = [[mode, str(_prompts(loop, mode)), str(len(SCRIPT))] for mode in ("off", "landlock")]
    body = (
        "Command: `.venv/bin/python bench/run.py sandbox`\n\nmedian of 200 interleaved rounds "
        '(10 for new sessions), bypass mode; "over" = median minus `off: echo hi`. '
        "Goal: ≤ 2 ms over.\n\n"
        + table(rows, ["case", "median", "p90", "over off: echo hi"])
        + "\n\nPrompts in a scripted session (default mode, every prompt approved):\n\n"
        + table(prompts, ["sandbox", "prompts", "commands"])
    )
    print(body)
    write_section("sandbox", body)


def _over(delta: float) -> str:
    return ("+" if delta >= 0 else "-") + fmt_time(abs(delta))


def _available(mode: str) -> bool:
    try:
        return choose_backend(mode) is not None
    except Exception:
        return False


def _first(loop: asyncio.AbstractEventLoop, mode: str) -> None:
    session, executor, _ = _session(mode)
    loop.run_until_complete(executor.run_one(ToolCall("b", "bash", {"command": "echo hi"})))
    loop.run_until_complete(session.aclose())


def _prompts(loop: asyncio.AbstractEventLoop, mode: str) -> int:
    _prepare()
    session, executor, counter = _session(mode, "default")
    for command in SCRIPT:
        loop.run_until_complete(executor.run_one(ToolCall("b", "bash", {"command": command})))
    loop.run_until_complete(session.aclose())
    return counter.asked


if __name__ == "__main__":
    main()
