"""Run every red-team case of the doors (HTTP server, stdio server, MCP client and the CLI's
terminal output, lifetime) against this checkout, on 127.0.0.1 with private homes, and print
the count of cases by class: held and findings. About four minutes on two cores."""

from __future__ import annotations

import collections
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))

import client_cases
import http_cases
import lifetime_cases
import stdio_cases
from common import RESULTS


def main() -> None:
    for module in (http_cases, stdio_cases, client_cases, lifetime_cases):
        module.main()
    table: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for cls, _case, verdict, _detail in RESULTS:
        table[cls][verdict] += 1
    print(f"\n{'class':10} {'held':>5} {'FINDING':>8} {'note':>5}")
    for cls, counts in sorted(table.items()):
        print(f"{cls:10} {counts['held']:5} {counts['FINDING']:8} {counts['note']:5}")
    print(
        f"{'all':10} {sum(c['held'] for c in table.values()):5} "
        f"{sum(c['FINDING'] for c in table.values()):8}"
    )


if __name__ == "__main__":
    main()
