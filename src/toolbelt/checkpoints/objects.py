"""File contents in the shadow repository's object store, written without starting git.

A file tool's before-image must be recorded on every edit, so it is written here as a git
loose object directly — ``zlib("blob <size>\\0" + bytes)`` at ``objects/ab/cdef…``, named by
the SHA-1 of what it compresses, the same name ``git hash-object`` gives — so command
snapshots (which git writes) and the journal share one content-addressed store: a content is
stored once, however many edits and snapshots hold it (a big file's before-image is
hard-linked instead: ``states.BIG_FILE``). An object that is already there is only touched
(its mtime renewed), which is what keeps ``git prune``'s grace period from removing it under
a new reference. A new one goes to a temp file, is fsynced and renamed: a crash leaves the
object whole or absent.

Reading goes the other way; an object git has since packed (``git gc`` when pruning) is read
with ``git cat-file`` (``shadow_git``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import zlib
from pathlib import Path

from toolbelt.files.atomic import replace_file

__all__ = ["blob_id", "read_loose_blob", "write_blob"]


def blob_id(data: bytes) -> str:
    """The git object id (SHA-1) of a blob holding ``data``."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def write_blob(objects: Path, data: bytes, oid: str | None = None) -> str:
    """Store ``data`` as a loose blob under ``objects`` (durably) and return its id."""
    oid = oid or blob_id(data)
    folder = objects / oid[:2]
    target = folder / oid[2:]
    try:
        os.utime(target)
        return oid
    except FileNotFoundError:
        pass
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o700)
    packer = zlib.compressobj(1)
    packed = packer.compress(b"blob %d\0" % len(data)) + packer.compress(data) + packer.flush()
    replace_file(target, packed, mode=0o444, temp=folder / f"tmp_obj_{secrets.token_hex(6)}")
    return oid


def read_loose_blob(objects: Path, oid: str) -> bytes | None:
    """The content of the loose blob ``oid``, or None when it is not stored loose."""
    try:
        packed = (objects / oid[:2] / oid[2:]).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    raw = zlib.decompress(packed)
    header, _, data = raw.partition(b"\0")
    kind, _, size = header.partition(b" ")
    if kind != b"blob" or int(size) != len(data):
        raise ValueError(f"object {oid} in {objects} is not a whole blob")
    return data
