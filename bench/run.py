"""Run benchmarks by name and record them in bench/RESULTS.md.

Usage: ``.venv/bin/python bench/run.py core [search files shell mcp ...]``;
``bench/run.py quick [--baseline DIR]`` is the one-minute pass every stop runs
(``bench_quick``: start-up, ready, per-call and grep as ratios to their peers, compared with
the figures recorded in RESULTS.md). Benchmarks that
need peers or corpora build them first with ../shared/bench/install-peers and make-corpus
into the git-ignored ``.peers/`` and ``.corpus/`` folders.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

BENCHMARKS = {
    "core": "bench_core",
    "search": "bench_search",
    "files": "bench_files",
    "shell": "bench_shell",
    "mcp": "bench_mcp",
    "http-soak": "bench_http_soak",
    "http-battery": "bench_http_battery",
    "mcp-search": "bench_mcp_search",
    "sandbox": "bench_sandbox",
    "toolsearch": "bench_toolsearch",
    "agent": "bench_agent",
    "textcalls": "bench_textcalls",
    "chat": "bench_chat",
    "quick": "bench_quick",
    "fleet": "bench_fleet",
    "checkpoints": "bench_checkpoints",
    "code": "bench_code",
    "serena": "bench_serena",
}


def main(argv: list[str]) -> int:
    if argv[:1] == ["quick"]:  # takes options of its own
        importlib.import_module("bench_quick").main(argv[1:])
        return 0
    names = argv or [n for n in BENCHMARKS if n != "quick"]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmarks {unknown}; choose from {sorted(BENCHMARKS)}", file=sys.stderr)
        return 2
    for name in names:
        print(f"== {name}")
        importlib.import_module(BENCHMARKS[name]).main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
