"""Big files are recorded without copying or hashing them on the edit's path: the old file's
inode is kept by a hard link in the store and what the edit wrote is fingerprinted; undo,
refusal, redo and pruning work on them as on any file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.checkpoints.helpers import call, open_runtime
from toolbelt.checkpoints import retention
from toolbelt.checkpoints.retention import prune
from toolbelt.checkpoints.states import BIG_FILE
from toolbelt.checkpoints.store import CheckpointStore
from toolbelt.checkpoints.undo import UndoError, undo

pytestmark = pytest.mark.anyio

BIG = b"".join(b"line %07d of a big file\r\n" % i for i in range(BIG_FILE // 20))


async def test_a_big_file_is_kept_by_its_inode_and_undone_exactly(tmp_path: Path) -> None:
    target = tmp_path / "big.txt"
    target.write_bytes(BIG)
    target.chmod(0o640)
    inode = target.stat().st_ino
    async with open_runtime(tmp_path) as runtime:
        edit = await call(
            runtime, "edit_file", path="big.txt", old_string="line 0000007", new_string="SEVEN"
        )
        raw = runtime.checkpoints.store.layout.raw
        [kept] = list(raw.iterdir())
        assert kept.stat().st_ino == inode  # the old file itself, not a copy
        [checkpoint] = await runtime.checkpoints.list()
        [change] = checkpoint.changes
        assert change.before is not None and change.before.raw == kept.name
        assert change.after is not None and change.after.oid.startswith("crc32:")
        with target.open("ab") as handle:  # someone appends to the edited file
            handle.write(b"mine\r\n")
        with pytest.raises(UndoError, match=r"big\.txt was modified since, by someone else"):
            await runtime.checkpoints.undo()
        target.write_bytes(target.read_bytes()[: -len(b"mine\r\n")])
        await runtime.checkpoints.undo(edit.call_id)
        assert target.read_bytes() == BIG
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
        await runtime.checkpoints.redo()
        assert target.read_bytes() == BIG.replace(b"line 0000007", b"SEVEN", 1)


async def test_a_big_file_written_whole_and_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.bin").write_bytes(BIG)
    async with open_runtime(tmp_path) as runtime:
        await call(runtime, "write_file", path="a.bin", content="small now\n")
        await call(runtime, "write_file", path="a.bin", content="smaller\n")
    store = CheckpointStore(tmp_path)
    stray = store.layout.raw / "stray"
    stray.write_bytes(b"left by a writer that failed")
    monkeypatch.setattr(retention, "_GRACE_SECONDS", -1.0)  # everything is old enough
    assert prune(store) is not None
    assert len(list(store.layout.raw.iterdir())) == 1 and not stray.exists()
    undo(store)
    undo(store)
    assert (tmp_path / "a.bin").read_bytes() == BIG
