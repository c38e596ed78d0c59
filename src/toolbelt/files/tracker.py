"""The per-session read tracker: what the model has seen, to refuse blind overwrites.

A write to an existing file is only safe if the model read that file and it has not changed
since. Each read records the content's SHA-256 with the size and mtime; a check first compares
size and mtime (cheap) and only hashes when they differ, so a formatter that touched the file
without changing it is not a false alarm. After our own write the record is updated, so a
chain of edits needs no re-reads.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

__all__ = ["Freshness", "ReadRecord", "ReadTracker", "start_digest"]

_HASH_ON_WORKER = 1 << 20
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def start_digest(data: bytes) -> Callable[[], str]:
    """Begin hashing ``data``; call the returned function for the SHA-256 hex digest.

    A save hashes what it wrote, so the next edit needs no re-read. For big content the hash
    runs on a worker thread while the caller writes and fsyncs (both release the GIL), which
    takes about 4 ms off the edit of an 8 MB file; small content is hashed at once.
    """
    if len(data) < _HASH_ON_WORKER:
        digest = hashlib.sha256(data).hexdigest()
        return lambda: digest
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="toolbelt-hash")
        future = _pool.submit(lambda: hashlib.sha256(data).hexdigest())
    return future.result


class Freshness(StrEnum):
    """How the file on disk relates to what the model last saw."""

    FRESH = "fresh"
    CHANGED = "changed"
    UNREAD = "unread"


@dataclass(frozen=True, slots=True)
class ReadRecord:
    """What was read: content hash, size and modification time."""

    sha256: str
    size: int
    mtime_ns: int


class ReadTracker:
    """Read records of one session, keyed by real path."""

    def __init__(self) -> None:
        self._records: dict[Path, ReadRecord] = {}
        self._lock = threading.Lock()

    def record(
        self, path: Path, data: bytes | None, info: os.stat_result, *, digest: str | None = None
    ) -> None:
        """Remember that the model has seen ``data`` as the content of ``path``.

        ``data`` may be None for a ranged read of a file too large to hash cheaply; freshness
        then falls back to size and modification time. ``digest`` is data's SHA-256 when the
        caller already has it.
        """
        if digest is None:
            digest = hashlib.sha256(data).hexdigest() if data is not None else ""
        record = ReadRecord(digest, info.st_size, info.st_mtime_ns)
        with self._lock:
            self._records[path] = record

    def get(self, path: Path) -> ReadRecord | None:
        """The last record for ``path``."""
        with self._lock:
            return self._records.get(path)

    def check(self, path: Path, data: bytes, info: os.stat_result) -> Freshness:
        """Compare the current ``data`` of ``path`` with what was read."""
        record = self.get(path)
        if record is None:
            return Freshness.UNREAD
        if record.size == info.st_size and record.mtime_ns == info.st_mtime_ns:
            return Freshness.FRESH
        same = bool(record.sha256) and hashlib.sha256(data).hexdigest() == record.sha256
        return Freshness.FRESH if same else Freshness.CHANGED
