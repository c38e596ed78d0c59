"""Score the near-miss corpus through the real edit_file tool, the figures issue reports quote.

    .venv/bin/python -m tests.files.near_miss_score

Each recoverable case is *applied* (the file holds exactly the expected bytes), *corrupted*
(the edit succeeded but the file holds something else) or *missed* (refused); each must-refuse
case is *refused* with the file untouched, or not. ``test_near_miss_corpus`` asserts every case;
this prints the totals and names the cases that fail.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import anyio
from tests.files.near_miss_cases import CASES, REFUSE, Case
from tests.files.test_near_miss_corpus import run_case

from toolbelt.core.events import CallState


async def verdict(case: Case) -> str:
    """``applied``, ``corrupted``, ``missed``, ``refused`` or ``not refused``."""
    with tempfile.TemporaryDirectory() as root:
        state, after, before = await run_case(case, Path(root))
    if case.expected is REFUSE:
        return "refused" if state is CallState.ERROR and after == before else "not refused"
    if state is not CallState.SUCCESS:
        return "missed"
    return "applied" if after == case.expected else "corrupted"


async def main() -> None:
    counts: Counter[str] = Counter()
    for case in CASES:
        found = await verdict(case)
        counts[found] += 1
        if found not in ("applied", "refused"):
            print(f"{found}: {case.name}")
    recoverable = counts["applied"] + counts["corrupted"] + counts["missed"]
    must_refuse = counts["refused"] + counts["not refused"]
    share = 100 * counts["applied"] / recoverable if recoverable else 100.0
    print(
        f"recoverable: {counts['applied']}/{recoverable} applied ({share:.1f}%), "
        f"{counts['corrupted']} corrupted, {counts['missed']} missed; "
        f"must-refuse: {counts['refused']}/{must_refuse} refused"
    )


if __name__ == "__main__":
    anyio.run(main)
