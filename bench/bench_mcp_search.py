"""grep over MCP against ripgrep as a process, in the same run.

What an agent pays for a search through ``toolbelt mcp`` (stdio, a raw JSON-RPC client that
parses each reply, as every client does) next to what ``rg`` costs when a harness spawns it
and reads all of its output: four patterns (a literal, a regex, a case-insensitive word, a
string found nowhere) × three modes (content, files, count), interleaved rounds, medians,
×N = ratio to rg. toolbelt is asked for every result (``head_limit: 0``), the same answer rg
gives, and also for its default page of 250.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_mcp import RawClient
from bench_search import MODES, OUR_MODE, PATTERNS
from harness import Case, interleave, side_by_side, write_section

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / ".corpus" / "stdlib"
TOOLBELT = str(Path(sys.executable).with_name("toolbelt"))
RG = str(Path(sys.executable).with_name("rg"))
ROUNDS = 31


def main() -> None:
    if not CORPUS.is_dir():
        raise SystemExit(
            "build the corpus first: ../shared/bench/make-corpus stdlib .corpus/stdlib"
        )
    client = RawClient([TOOLBELT, "mcp", "--root", str(CORPUS)], CORPUS)
    client.initialize()
    before = _before_client()

    def grep(arguments: dict[str, Any], server: RawClient = client) -> None:
        reply = server.call("tools/call", {"name": "grep", "arguments": arguments})
        assert not reply["result"]["isError"], reply

    groups: list[tuple[str, list[Case]]] = []
    for label, (pattern, icase) in PATTERNS.items():
        for mode, flags in MODES.items():
            raw = [RG, "--hidden", "--glob", "!.git", *(["-i", "-w"] if icase else [])]
            raw += [*flags, "-e", pattern[0]]
            # -w is what rg needs for the word; toolbelt's pattern says it with \b
            ours = {
                "pattern": rf"\b{pattern[0]}\b" if icase else pattern[0],
                "output_mode": OUR_MODE[mode],
                "case_insensitive": icase,
            }
            group = [
                Case("rg", lambda raw=raw: _run(raw)),
                Case("toolbelt MCP (all)", lambda a=ours: grep({**a, "head_limit": 0})),
                Case("toolbelt MCP (page)", lambda a=ours: grep(a)),
            ]
            if before is not None:
                group.append(
                    Case("before (all)", lambda a=ours: grep({**a, "head_limit": 0}, before))
                )
            groups.append((f"{label} × {mode}", group))
    cpu: dict[str, list[float]] = {}
    for label, group in groups:
        _rotating(group, ROUNDS)
        cpu[label] = _server_cpu(client, group[1].run)
    client.close()
    if before is not None:
        before.close()
    summary = _summary(groups)
    body = (
        "Command: `.venv/bin/python bench/run.py mcp-search`\n\n"
        f"Corpus `.corpus/stdlib`; stdio, raw JSON-RPC client; median of {ROUNDS} interleaved "
        "rounds; ×N = ratio to rg as a process (all output read) in the same run.\n\n"
        + side_by_side(groups, "case")
        + "\n\n"
        + summary
        + "\n\nCPU the server itself spends on one call, all results (rg's own CPU not "
        "counted; unlike wall time it hardly moves with the machine's load): "
        + ", ".join(f"{label} {statistics.median(v) * 1e3:.1f} ms" for label, v in cpu.items())
        + "."
    )
    print(body)
    write_section("mcp-search", body)


def _rotating(group: list[Case], rounds: int) -> None:
    """Interleaved rounds whose order rotates, so no case always follows the same one (a
    process that has just exited still costs the next one a little)."""
    interleave(group, rounds=0, warmup=2)
    for index in range(rounds):
        for case in group[index % len(group) :] + group[: index % len(group)]:
            started = time.perf_counter()
            case.run()
            case.samples.append(time.perf_counter() - started)


def _server_cpu(client: RawClient, call: Callable[[], object], calls: int = 40) -> list[float]:
    """Seconds of CPU (user + system, from /proc, in clock ticks) the server spends on one
    call, averaged over ``calls`` calls so the tick is fine enough."""
    before = _cpu_seconds(client.process.pid)
    for _ in range(calls):
        call()
    return [(_cpu_seconds(client.process.pid) - before) / calls]


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _before_client() -> RawClient | None:
    """Another toolbelt's server, from the ``src`` tree in ``$TOOLBELT_BENCH_BEFORE`` (e.g. an
    older commit's ``git archive``), measured in the same run for a before/after column."""
    source = os.environ.get("TOOLBELT_BENCH_BEFORE")
    if not source:
        return None
    start = "import sys; from toolbelt.cli.main import main; sys.exit(main())"
    # -P: the corpus (the working directory) is a stdlib of its own and must not shadow ours
    command = [sys.executable, "-P", "-c", start, "mcp", "--root", str(CORPUS)]
    os.environ["PYTHONPATH"] = source
    try:
        client = RawClient(command, CORPUS)
    finally:
        del os.environ["PYTHONPATH"]
    client.initialize()
    return client


def _run(argv: list[str]) -> None:
    # stdin from /dev/null: rg given a readable stdin would search it instead of the tree
    subprocess.run(argv, cwd=CORPUS, capture_output=True, stdin=subprocess.DEVNULL, check=False)


def _summary(groups: list[tuple[str, list[Case]]]) -> str:
    """Median ratios to rg: over all twelve cases, then per mode, for all results."""

    def ratio(group: list[Case], name: str) -> float:
        return next(c for c in group if c.name == name).median / group[0].median

    every = statistics.median(ratio(g, "toolbelt MCP (all)") for _, g in groups)
    paged = statistics.median(ratio(g, "toolbelt MCP (page)") for _, g in groups)
    per_mode = [
        f"{mode} ×"
        + format(
            statistics.median(
                ratio(g, "toolbelt MCP (all)") for label, g in groups if label.endswith(mode)
            ),
            ".2f",
        )
        for mode in MODES
    ]
    return (
        f"Median ratio to rg over the 12 cases: all results ×{every:.2f}, default page "
        f"×{paged:.2f}; all results by mode: {', '.join(per_mode)}."
    )
