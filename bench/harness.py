"""Shared benchmark harness: interleaved rounds, medians, and the RESULTS.md writer.

Machines here are noisy and shared, so every benchmark runs its cases round-robin (one warm-up
pass, then N rounds), reports medians, and compares cases only by ratios measured in the same
run. Results go into ``bench/RESULTS.md`` under a section per benchmark, replaced on each run.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


@dataclass
class Case:
    """One thing to time: ``run`` is called once per round and returns nothing."""

    name: str
    run: Callable[[], object]
    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def percentile(self, q: float) -> float:
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def interleave(cases: Sequence[Case], rounds: int, *, warmup: int = 1) -> None:
    """Run every case once per round, round-robin, after ``warmup`` untimed passes."""
    for _ in range(warmup):
        for case in cases:
            case.run()
    for _ in range(rounds):
        for case in cases:
            started = time.perf_counter()
            case.run()
            case.samples.append(time.perf_counter() - started)


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0]
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), "
        f"Python {platform.python_version()}, load average {load:.2f} at start"
    )


def git_revision() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_section(name: str, body: str) -> None:
    """Replace (or append) the section ``name`` of RESULTS.md with ``body``."""
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    header = (
        "# Benchmark results\n\nWritten by `bench/run.py`; each section is replaced when its "
        "benchmark runs again. Medians of interleaved rounds; ratios compare cases measured in "
        "the same run.\n"
    )
    text = RESULTS.read_text() if RESULTS.exists() else header
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    block = (
        f"{begin}\n## {name}\n\n{stamp}, commit {git_revision()}; {machine()}.\n\n"
        f"{body.strip()}\n{end}"
    )
    if begin in text and end in text:
        before, rest = text.split(begin, 1)
        after = rest.split(end, 1)[1]
        text = before + block + after
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(text)


def table(rows: Sequence[Sequence[str]], headers: Sequence[str]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def side_by_side(groups: Sequence[tuple[str, Sequence[Case]]], first_column: str) -> str:
    """A table with one row per group and one column per case name (in order of first
    appearance); each cell is the median and its ratio to the group's first case."""
    names: list[str] = []
    for _, group in groups:
        for case in group:
            if case.name not in names:
                names.append(case.name)
    rows = []
    for label, group in groups:
        base = group[0].median
        by_name = {case.name: case for case in group}
        cells = [
            f"{fmt_time(by_name[n].median)} (×{by_name[n].median / base:.2f})"
            if n in by_name
            else "–"
            for n in names
        ]
        rows.append([label, *cells])
    return table(rows, [first_column, *names])
