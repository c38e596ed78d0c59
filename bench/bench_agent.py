"""Agent benchmarks: what the loop costs per turn besides the model, and that ``toolbelt
call`` start-up does not pay for the agent or any provider SDK.

- Per turn: a scripted model answers every request at once with 3 read_file calls; an agent
  runs ``TURNS`` such turns per sample (the transcript grows as in a real task). Compared in
  the same rounds with the same 3 calls through ``Runtime.run`` alone (the executor's share)
  and with the scripted model's stream alone, so that what is left is the loop: building the
  request, the events, the context guard, the transcript.
- Start-up: wall time of ``toolbelt call read_file`` from this checkout's sources and from
  main's (``git archive main``), interleaved, plus the provider SDK modules each loaded. Both
  run from copies in the temporary folder: the same sources read from the worktree measured
  2-3 % slower than from there, which would pass for a regression.
- Request building: the tools' share of one request per provider format, this checkout
  against main's sources in the same run (``request_cost``).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from harness import Case, fmt_time, interleave, table, write_section
from request_cost import REPEATS, request_cost
from request_cost import rows as request_rows
from toolbelt.agent import Agent
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.config.settings import Settings
from toolbelt.core.executor import ToolCall
from toolbelt.providers.model import AssistantMessage, ModelRequest, ModelToolCall
from toolbelt.runtime import Runtime

TURNS = 20
REPO = Path(__file__).resolve().parent.parent
SDKS = ("anthropic", "openai", "google.genai", "httpx2")


def three_reads(request: ModelRequest) -> AssistantMessage:
    turn = len(request.messages)
    return AssistantMessage(
        "",
        tuple(ModelToolCall(f"{turn}-{i}", "read_file", {"path": f"f{i}.py"}) for i in range(3)),
    )


def per_turn(rounds: int = 30) -> tuple[Case, Case, Case]:
    root = Path(tempfile.mkdtemp())
    for i in range(3):
        (root / f"f{i}.py").write_text("".join(f"line {n}\n" for n in range(200)))
    loop = asyncio.new_event_loop()
    runtime = Runtime(root, settings=Settings())
    loop.run_until_complete(runtime.__aenter__())
    calls = [ToolCall(str(i), "read_file", {"path": f"f{i}.py"}) for i in range(3)]
    request = ModelRequest(system="", messages=())

    async def agent_turns() -> None:
        model = ScriptedModel([three_reads] * TURNS)
        await Agent(model, runtime, max_turns=TURNS, system="bench").run("read")

    async def executor_only() -> None:
        for _ in range(TURNS):
            await runtime.run(calls)

    async def model_only() -> None:
        model = ScriptedModel([three_reads] * TURNS)
        for _ in range(TURNS):
            async for _event in model.stream(request):
                pass

    cases = (
        Case("agent turn (3 read_file calls)", lambda: loop.run_until_complete(agent_turns())),
        Case("Runtime.run of the 3 calls", lambda: loop.run_until_complete(executor_only())),
        Case("scripted model stream", lambda: loop.run_until_complete(model_only())),
    )
    interleave(cases, rounds)
    for case in cases:
        case.samples = [s / TURNS for s in case.samples]
    loop.run_until_complete(runtime.aclose())
    loop.close()
    return cases


PROBE = """
import sys
from toolbelt.cli.main import main
code = main(["call", "read_file", sys.argv[1], "--root", sys.argv[2]])
sdks = sorted({m for m in sys.modules for s in SDKS if m == s or m.startswith(s + ".")})
agent = sorted(m for m in sys.modules if m.startswith("toolbelt.agent"))
print(json.dumps({"code": code, "sdks": sdks, "agent": agent}), file=sys.stderr)
"""


def startup(rounds: int = 15) -> tuple[list[Case], dict[str, str]]:
    main_src = Path(tempfile.mkdtemp())
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "main", "src"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(main_src, filter="data")
    branch_src = Path(tempfile.mkdtemp())
    shutil.copytree(REPO / "src", branch_src / "src", ignore=shutil.ignore_patterns("__pycache__"))
    root = tempfile.mkdtemp()
    (Path(root) / "x.py").write_text("x = 1\n")
    probe = f"import json\nSDKS = {SDKS!r}\n{PROBE}"
    args = ['{"path": "x.py"}', root]
    commands = {
        "toolbelt call read_file (main)": [sys.executable, "-c", probe, *args],
        "toolbelt call read_file (this branch)": [sys.executable, "-c", probe, *args],
    }
    paths = {
        "toolbelt call read_file (main)": str(main_src / "src"),
        "toolbelt call read_file (this branch)": str(branch_src / "src"),
    }
    loaded: dict[str, str] = {}

    def runner(name: str) -> Case:
        def run() -> None:
            done = subprocess.run(
                commands[name],
                capture_output=True,
                text=True,
                check=True,
                env={"PYTHONPATH": paths[name], "PATH": "/usr/bin:/bin", "HOME": root},
            )
            report = json.loads(done.stderr.strip().splitlines()[-1])
            loaded[name] = f"SDKs {report['sdks'] or 'none'}, agent modules {len(report['agent'])}"

        return Case(name, run)

    cases = [runner(name) for name in commands]
    interleave(cases, rounds)
    return cases, loaded


def main() -> None:
    agent, executor, model = per_turn()
    loop_share = agent.median - executor.median - model.median
    rows = [
        [c.name, fmt_time(c.median), fmt_time(c.percentile(0.9))] for c in (agent, executor, model)
    ]
    rows.append(
        [
            "**loop overhead per turn** (agent − executor − model)",
            f"**{fmt_time(loop_share)}**",
            "goal ≤ 2 ms",
        ]
    )
    rows.append(
        ["agent turn excluding the model", fmt_time(agent.median - model.median), "goal ≤ 2 ms"]
    )
    starts, loaded = startup()
    for case in starts:
        rows.append([case.name, fmt_time(case.median), loaded[case.name]])
    rows.append(
        [
            "**start-up, this branch / main**",
            f"**×{starts[1].median / starts[0].median:.2f}**",
            "goal: unchanged, no SDK imported",
        ]
    )
    requests = request_rows(request_cost())
    body = (
        f"Command: `.venv/bin/python bench/run.py agent` ({TURNS} turns per sample, per-turn "
        "medians)\n\n"
        + table(rows, ["case", "median", "p90 / notes"])
        + "\n\nThe tools' share of one request, as each client builds it (medians of "
        f"{REPEATS} requests × 4 processes per side, main and this branch alternating):\n\n"
        + table(requests, ["format, tools", "main", "this branch", "main / branch"])
    )
    print(body)
    write_section("agent", body)


if __name__ == "__main__":
    main()
