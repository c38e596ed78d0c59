"""The near-miss corpus through the real edit_file tool: exact bytes, or a refusal that
leaves the file untouched (``near_miss_cases``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.files.near_miss_cases import CASES, REFUSE, Case
from tests.tools.helpers import Harness

from toolbelt.core.events import CallState

pytestmark = pytest.mark.anyio


async def run_case(case: Case, root: Path) -> tuple[CallState, bytes, bytes]:
    """(state of the edit, the file's bytes afterwards, the bytes it held before the edit)."""
    target = root / "target.txt"
    target.write_bytes(case.file)
    harness = Harness(root, mode="accept_edits")
    await harness.call("read_file", path="target.txt")
    before = case.file
    if case.stale is not None:
        target.write_bytes(case.stale)
        before = case.stale
    result = await harness.call(
        "edit_file",
        path="target.txt",
        old_string=case.old,
        new_string=case.new,
        replace_all=case.replace_all,
    )
    return result.state, target.read_bytes(), before


def test_the_corpus_is_large_and_cites_its_sources() -> None:
    assert len(CASES) >= 60
    assert len({case.name for case in CASES}) == len(CASES)
    assert all(case.source.startswith("https://github.com/") for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_near_miss(case: Case, tmp_path: Path) -> None:
    state, after, before = await run_case(case, tmp_path)
    if case.expected is REFUSE:
        assert state is CallState.ERROR
        assert after == before
    else:
        assert (state, after) == (CallState.SUCCESS, case.expected)
