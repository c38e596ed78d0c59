"""Pruning by age and by size keeps what the remaining checkpoints need (their undo still
works after git collected the rest), drops the rest, and never waits for another pruner."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from tests.checkpoints.helpers import call, open_runtime
from toolbelt.checkpoints.retention import prune
from toolbelt.checkpoints.settings import CheckpointSettings
from toolbelt.checkpoints.store import CheckpointStore
from toolbelt.checkpoints.undo import undo

pytestmark = pytest.mark.anyio

DAY = 86400


async def three_edits(root: Path) -> list[str]:
    """Three edits of an ignored file (its contents are in no snapshot, only in the journal),
    each followed by a command."""
    (root / ".gitignore").write_text("*.log\n")
    (root / "a.log").write_text("0\n")
    async with open_runtime(root) as runtime:
        ids = []
        for n in range(1, 4):
            edit = await call(
                runtime, "edit_file", path="a.log", old_string=f"{n - 1}", new_string=f"{n}"
            )
            ids.append(edit.call_id)
            (root / f"scratch{n}.bin").write_bytes(os.urandom(20_000))
            await call(runtime, "bash", command=f"cp scratch{n}.bin copy{n}.bin")
    return ids


def age_everything(store: CheckpointStore, seconds: float) -> None:
    """Make every stored object look ``seconds`` old (git's grace period is an hour)."""
    past = time.time() - seconds
    for folder, _, files in os.walk(store.layout.objects):
        for name in files:
            os.utime(Path(folder) / name, (past, past))


def object_exists(store: CheckpointStore, oid: str) -> bool:
    return (store.layout.objects / oid[:2] / oid[2:]).exists()


async def test_old_checkpoints_go_and_what_the_rest_need_stays(tmp_path: Path) -> None:
    await three_edits(tmp_path)
    store = CheckpointStore(tmp_path)
    history = store.history()
    assert len(history) == 6
    oldest = history[-1]
    old_blob = oldest.changes[0].before
    assert old_blob is not None and object_exists(store, old_blob.oid)
    for name in oldest.entry_names:  # recorded 40 days ago
        stamp = time.time_ns() - 40 * DAY * 10**9
        os.rename(store.layout.entries / name, store.layout.entries / f"{stamp:019d}-1-x.json")
    age_everything(store, 2 * 3600)
    report = prune(store)
    assert report is not None and report.dropped == 1
    assert len(store.history()) == 5
    assert not object_exists(store, old_blob.oid)  # "0\n": nothing refers to it any more
    for _ in range(5):  # every remaining checkpoint can still be undone, newest first
        undo(store)
    assert (tmp_path / "a.log").read_text() == "1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".gitignore",
        "a.log",
        "scratch1.bin",
        "scratch2.bin",
        "scratch3.bin",
    ]


async def test_a_store_over_its_size_keeps_only_the_newest(tmp_path: Path) -> None:
    await three_edits(tmp_path)
    store = CheckpointStore(tmp_path, replace(CheckpointSettings(), max_size_bytes=1))
    newest = store.history()[0]
    age_everything(store, 2 * 3600)
    report = prune(store)
    assert report is not None and report.size_after < report.size_before
    assert [c.call_id for c in store.history()] == [newest.call_id]
    undo(store)
    assert not (tmp_path / "copy3.bin").exists()


async def test_a_second_pruner_does_not_wait(tmp_path: Path) -> None:
    await three_edits(tmp_path)
    store = CheckpointStore(tmp_path)
    with store.layout.locked("prune.lock"):
        assert prune(store, now=time.time() + 365 * DAY) is None
    assert len(store.history()) == 6


async def test_a_runtime_prunes_in_the_background_once_an_hour(tmp_path: Path) -> None:
    await three_edits(tmp_path)
    store = CheckpointStore(tmp_path)
    stamp = store.layout.base / "pruned"
    assert time.time() - stamp.stat().st_mtime < 60  # a new store waits an hour
    os.utime(stamp, (time.time() - 7200, time.time() - 7200))
    async with open_runtime(tmp_path) as runtime:
        await call(runtime, "edit_file", path="a.log", old_string="3", new_string="4")
        deadline = time.monotonic() + 60
        while time.time() - stamp.stat().st_mtime > 60:
            assert time.monotonic() < deadline, "no prune ran"
            await anyio.sleep(0.05)
    assert (store.layout.shadow / "refs" / "toolbelt" / "keep").exists()
