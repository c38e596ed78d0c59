"""The quick pass every stop runs: start-up, ready, per-call and grep, each a ratio to its peer.

About a minute. Each figure is the ratio of this checkout's median to its peer's median in
the same interleaved rounds — the only comparison a shared, loaded machine allows:

- start-up: ``toolbelt call think`` against a bare ``python -c pass`` (goal ≤ 12×);
- ready: ``toolbelt mcp`` from spawn to the initialize answer, against Node's reference
  server-filesystem (goal ≤ 0.7×);
- per-call: calls/s over stdio with 16 in flight from a raw JSON-RPC client, a trivial call
  (think / list_allowed_directories) and a small-file read (colorsys.py), against
  server-filesystem (goal ≥ 1.5×; here the ratio is theirs over ours' time, so ≤ 0.67);
- grep over MCP (all results) against ``rg`` as a process on the stdlib corpus: files,
  content and count mode, and a pattern found nowhere (goal ≤ 1.05×).

``--baseline DIR`` runs the same cases for another checkout (its ``.venv/bin/toolbelt``, e.g.
``/work/release``) in the same rounds. The ratios are recorded in bench/RESULTS.md (section
``quick``, with a machine-readable comment); each run prints which ratios moved by more than
``MOVED`` against the recorded ones, and only then replaces them (``--no-record``: leave
RESULTS.md as it is).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_mcp import RawClient
from harness import RESULTS, fmt_time, table, write_section
from peers import PEERS, filesystem_server_available

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / ".corpus" / "stdlib"
MOVED = 0.25
"""A ratio that changed by more than this fraction of the recorded one has moved."""
GOALS = {
    "start-up (call think / python -c pass)": 12.0,
    "ready (toolbelt mcp / server-filesystem)": 0.7,
    "trivial call, 16 in flight (time per call / server-filesystem)": 1 / 1.5,
    "small read, 16 in flight (time per call / server-filesystem)": 1 / 1.5,
    "trivial call, server CPU per call / server-filesystem's": 1 / 1.5,
    "small read, server CPU per call / server-filesystem's": 1 / 1.5,
    "grep files `def __init__` / rg -l": 1.05,
    "grep content `def __init__` / rg -n": 1.05,
    "grep count `def __init__` / rg -c": 1.05,
    "grep no match `xyzzy` / rg -n": 1.05,
}
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "quick", "version": "1"},
}


@dataclass
class Samples:
    """Medians of one checkout's (or peer's) cases, name → seconds per sample."""

    times: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        self.times.setdefault(name, []).append(seconds)

    def median(self, name: str) -> float:
        """The median; for a CPU time, the mean (``/proc`` counts in 10 ms ticks, which only
        the sum over every round resolves)."""
        if name.endswith(" cpu"):
            return statistics.fmean(self.times[name])
        return statistics.median(self.times[name])


def timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def ready(command: list[str], cwd: Path) -> None:
    client = RawClient(command, cwd)
    try:
        client.call("initialize", INITIALIZE)
    finally:
        client.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def per_call(client: RawClient, tool: str, args: dict[str, Any], total: int) -> tuple[float, float]:
    """(seconds per call, the server's CPU seconds per call), 16 in flight."""
    sent = received = 0
    cpu = cpu_seconds(client.process.pid)
    started = time.perf_counter()
    while sent < min(16, total):
        client.send("tools/call", {"name": tool, "arguments": args})
        sent += 1
    while received < total:
        reply = client.receive()
        assert not reply["result"].get("isError"), reply
        received += 1
        if sent < total:
            client.send("tools/call", {"name": tool, "arguments": args})
            sent += 1
    took = (time.perf_counter() - started) / total
    return took, (cpu_seconds(client.process.pid) - cpu) / total


GREPS = {
    "files": ({"pattern": "def __init__", "output_mode": "files_with_matches"}, ["-l"]),
    "content": ({"pattern": "def __init__", "output_mode": "content"}, ["-n"]),
    "count": ({"pattern": "def __init__", "output_mode": "count"}, ["-c"]),
    "no match": ({"pattern": "xyzzy", "output_mode": "content"}, ["-n"]),
}
GREP_LABEL = {
    "files": "grep files `def __init__` / rg -l",
    "content": "grep content `def __init__` / rg -n",
    "count": "grep count `def __init__` / rg -c",
    "no match": "grep no match `xyzzy` / rg -n",
}


def grep_rg(rg: str, flags: list[str], pattern: str) -> None:
    subprocess.run(
        [rg, "--hidden", "--glob", "!.git", *flags, "-e", pattern],
        cwd=CORPUS,
        stdout=subprocess.PIPE,
        check=False,
    )


def grep_mcp(client: RawClient, arguments: dict[str, Any]) -> None:
    reply = client.call("tools/call", {"name": "grep", "arguments": {**arguments, "head_limit": 0}})
    assert not reply["result"]["isError"], reply


def measure(checkouts: dict[str, Path], rounds: int) -> dict[str, Samples]:
    """Every case of every checkout and peer, interleaved round by round."""
    node = [str(PEERS / "node_modules/.bin/mcp-server-filesystem"), str(CORPUS)]
    rg = str(Path(sys.executable).with_name("rg"))
    samples = {name: Samples() for name in [*checkouts, "peer"]}
    workspace = Path(tempfile.mkdtemp(prefix="quick-"))
    servers = {
        name: RawClient([str(tb), "mcp", "--root", str(CORPUS)], CORPUS)
        for name, tb in checkouts.items()
    }
    peer = RawClient(node, CORPUS)
    try:
        for client in [*servers.values(), peer]:
            client.initialize()
        for warm in range(rounds + 1):
            record = warm > 0
            peer_start = timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
            if record:
                samples["peer"].add("start-up", peer_start)
            for name, tb in checkouts.items():
                call = [str(tb), "call", "think", '{"thought": "x"}']
                took = timed(
                    lambda c=call: subprocess.run(
                        c, cwd=workspace, check=True, stdout=subprocess.DEVNULL
                    )
                )
                if record:
                    samples[name].add("start-up", took)
            if warm % 2 == 0 or not record:  # ready: every other round (each costs a spawn)
                took = timed(lambda: ready(node, CORPUS))
                if record:
                    samples["peer"].add("ready", took)
                for name, tb in checkouts.items():
                    command = [str(tb), "mcp", "--root", str(CORPUS)]
                    took = timed(lambda c=command: ready(c, CORPUS))
                    if record:
                        samples[name].add("ready", took)
            total = 400
            pairs = [
                ("trivial", ("think", {"thought": "x"}), ("list_allowed_directories", {})),
                (
                    "read",
                    ("read_file", {"path": "colorsys.py"}),
                    ("read_text_file", {"path": str(CORPUS / "colorsys.py")}),
                ),
            ]
            for label, ours, theirs in pairs:
                took, cpu = per_call(peer, *theirs, total)
                if record:
                    samples["peer"].add(label, took)
                    samples["peer"].add(f"{label} cpu", cpu)
                for name, client in servers.items():
                    took, cpu = per_call(client, *ours, total)
                    if record:
                        samples[name].add(label, took)
                        samples[name].add(f"{label} cpu", cpu)
            for label, (arguments, flags) in GREPS.items():
                took = timed(lambda f=flags, a=arguments: grep_rg(rg, f, a["pattern"]))
                if record:
                    samples["peer"].add(f"grep {label}", took)
                for name, client in servers.items():
                    took = timed(lambda c=client, a=arguments: grep_mcp(c, a))
                    if record:
                        samples[name].add(f"grep {label}", took)
    finally:
        for client in [*servers.values(), peer]:
            client.close()
    return samples


def ratios(ours: Samples, peer: Samples) -> dict[str, float]:
    found = {
        "start-up (call think / python -c pass)": ours.median("start-up") / peer.median("start-up"),
        "ready (toolbelt mcp / server-filesystem)": ours.median("ready") / peer.median("ready"),
        "trivial call, 16 in flight (time per call / server-filesystem)": ours.median("trivial")
        / peer.median("trivial"),
        "small read, 16 in flight (time per call / server-filesystem)": ours.median("read")
        / peer.median("read"),
        "trivial call, server CPU per call / server-filesystem's": ours.median("trivial cpu")
        / peer.median("trivial cpu"),
        "small read, server CPU per call / server-filesystem's": ours.median("read cpu")
        / peer.median("read cpu"),
    }
    for label in GREPS:
        found[GREP_LABEL[label]] = ours.median(f"grep {label}") / peer.median(f"grep {label}")
    return found


def recorded() -> dict[str, float]:
    """The ratios bench/RESULTS.md holds for this checkout (empty when none are)."""
    text = RESULTS.read_text() if RESULTS.exists() else ""
    found = re.search(r"<!-- quick-ratios (\{.*?\}) -->", text)
    return json.loads(found.group(1)) if found else {}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench/run.py quick")
    parser.add_argument("--baseline", type=Path, help="another checkout, measured alongside")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--no-record", action="store_true", help="leave RESULTS.md unchanged")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        raise SystemExit(
            "build the corpus first: ../shared/bench/make-corpus stdlib .corpus/stdlib"
        )
    if not filesystem_server_available():
        raise SystemExit("install the peers first: ../shared/bench/install-peers .peers")
    checkouts = {"this": ROOT / ".venv/bin/toolbelt"}
    if args.baseline is not None:
        checkouts["baseline"] = args.baseline.resolve() / ".venv/bin/toolbelt"
        if not checkouts["baseline"].exists():
            raise SystemExit(f"{checkouts['baseline']} does not exist: bootstrap it first")
    load = os.getloadavg()[0]
    samples = measure(checkouts, args.rounds)
    found = {name: ratios(samples[name], samples["peer"]) for name in checkouts}
    rows = []
    for case, goal in GOALS.items():
        key = {
            "start-up": "start-up",
            "ready": "ready",
            "trivial": "trivial",
            "small": "read",
        }.get(case.split(" ")[0])
        if key in ("trivial", "read") and "CPU" in case:
            key += " cpu"
        peer_time = samples["peer"].median(key) if key else None
        cells = [case]
        for name in checkouts:
            cells.append(f"×{found[name][case]:.2f}")
        cells.append(fmt_time(peer_time) if peer_time is not None else "")
        cells.append(f"≤ ×{goal:.2f}")
        rows.append(cells)
    headers = ["ratio to the peer", *[f"{n}" for n in checkouts], "peer median", "goal"]
    body = (
        f"Command: `.venv/bin/python bench/run.py quick"
        f"{' --baseline ' + str(args.baseline) if args.baseline else ''}`; {args.rounds} "
        f"interleaved rounds, medians; load average {load:.2f} at start. Per-call ratios are "
        "time per call (16 in flight) over server-filesystem's: ≤ ×0.67 is ≥ 1.5× its calls/s; "
        "the CPU rows divide the server processes' own CPU time per call (/proc), which a "
        "loaded machine disturbs far less than the time. "
        f"Peers: `python -c pass`, server-filesystem, `rg`.\n\n" + table(rows, headers)
    )
    print(body)
    before = recorded()
    moved = [
        f"  {case}: ×{before[case]:.2f} → ×{now:.2f}"
        for case, now in found["this"].items()
        if case in before and abs(now - before[case]) > MOVED * before[case]
    ]
    print(
        "\nmoved against bench/RESULTS.md:"
        if moved
        else f"\nnothing moved by more than {MOVED:.0%} against bench/RESULTS.md"
    )
    print("\n".join(moved))
    if not args.no_record:
        machine_readable = json.dumps({k: round(v, 3) for k, v in found["this"].items()})
        write_section("quick", body + f"\n\n<!-- quick-ratios {machine_readable} -->")
