"""What a path holds, as a checkpoint records it: a file's content id and mode bits, a
symbolic link's target, or nothing.

A ``FileState`` names content by its git blob id (``objects.blob_id``), so a state read from
the work tree, one recorded by the file journal and one found in a snapshot's tree compare
directly. The journal records a file's own mode bits (``exact``); a snapshot has git's
(``100644``/``100755``), where only the executable bit is known — restoring one keeps the
file's current bits when they agree on it, else uses the umask's default.

Whether a file "is still as the call left it" compares content and kind (file or link), not
mode bits: a ``chmod`` since the call does not block its undo.

A big file (``BIG_FILE`` and more) is recorded without hashing or copying it on the edit's
path: its before-image is the old file itself, hard-linked into the store (``raw``: the
tool's atomic write puts a new file in its place, so nothing writes the old one again), its
content id computed only if an undo asks; what the call writes is fingerprinted by size and
CRC-32 (``crc32:SIZE:CRC``), a thousand times cheaper than SHA-1 over megabytes and enough to
tell whether someone changed the file since.
"""

from __future__ import annotations

import os
import stat
import zlib
from dataclasses import dataclass
from typing import Any, Literal

from toolbelt.checkpoints.objects import blob_id

__all__ = [
    "BIG_FILE",
    "Change",
    "FileState",
    "current_umask",
    "describe_state",
    "fingerprint",
    "holds",
    "read_current",
    "same",
]

Kind = Literal["file", "link", "directory", "special"]

BIG_FILE = 1024 * 1024
"""Bytes from which a file's before-image is linked, not copied, and its new content
fingerprinted, not hashed."""
_CRC = "crc32:"


@dataclass(frozen=True, slots=True)
class FileState:
    """A path's content: a regular file or a symlink (``oid`` of its bytes / its target);
    ``directory`` and ``special`` (FIFO, socket, device) only describe what is there now."""

    oid: str
    mode: int = 0o644
    kind: Kind = "file"
    exact: bool = True
    """``mode`` is the file's own; False: git's 644/755, only the executable bit is known."""
    raw: str | None = None
    """The name of the store's hard link to the file's old inode (a big file's before-image;
    ``oid`` is then empty until an undo computes it)."""

    def same_content(self, other: FileState | None) -> bool:
        return other is not None and self.kind == other.kind and self.oid == other.oid

    def as_json(self) -> dict[str, Any]:
        data = {"oid": self.oid, "mode": self.mode, "kind": self.kind, "exact": self.exact}
        return data if self.raw is None else {**data, "raw": self.raw}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> FileState | None:
        if data is None:
            return None
        return cls(
            data["oid"],
            int(data["mode"]),
            data.get("kind", "file"),
            data.get("exact", True),
            data.get("raw"),
        )

    @classmethod
    def from_git(cls, mode: str, oid: str) -> FileState | None:
        """The state a tree entry describes (None for ``000000``: absent)."""
        if set(oid) == {"0"}:
            return None
        if mode == "120000":
            return cls(oid, 0o777, "link", exact=False)
        return cls(oid, 0o755 if mode == "100755" else 0o644, "file", exact=False)


def same(a: FileState | None, b: FileState | None) -> bool:
    """Whether two states hold the same thing (both absent counts)."""
    return a is None if b is None else b.same_content(a)


def fingerprint(data: bytes) -> str:
    """What a file tool's record names new content by: its git blob id, or for a big file
    its size and CRC-32 (see the module)."""
    if len(data) >= BIG_FILE:
        return f"{_CRC}{len(data)}:{zlib.crc32(data):08x}"
    return blob_id(data)


def holds(current: FileState | None, data: bytes | None, expected: FileState | None) -> bool:
    """Whether what a path holds now (``current``, with its bytes) is ``expected`` — by
    content id, or by the fingerprint ``expected`` was recorded with. A state known only by
    its raw copy is compared by the caller, who can read that copy."""
    if expected is None or current is None:
        return expected is None and current is None
    if current.kind != expected.kind:
        return False
    if expected.oid.startswith(_CRC):
        return data is not None and fingerprint(data) == expected.oid
    return current.oid == expected.oid


@dataclass(frozen=True, slots=True)
class Change:
    """One path a call changed: what it held before and after (None: absent), and the
    directories the call created for it (removed again by an undo when they are empty)."""

    path: str
    """Relative to the workspace root, or absolute when outside it."""
    before: FileState | None
    after: FileState | None
    dirs: tuple[str, ...] = ()

    @property
    def verb(self) -> str:
        if self.before is None:
            return "created"
        if self.after is None:
            return "deleted"
        return "modified"

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "before": None if self.before is None else self.before.as_json(),
            "after": None if self.after is None else self.after.as_json(),
        }
        if self.dirs:
            data["dirs"] = list(self.dirs)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Change:
        return cls(
            data["path"],
            FileState.from_json(data.get("before")),
            FileState.from_json(data.get("after")),
            tuple(data.get("dirs", ())),
        )


def read_current(path: str | os.PathLike[str]) -> tuple[FileState | None, bytes | None]:
    """What ``path`` holds now (never following a final symlink), with the bytes of a file
    or a link's target; (None, None) when nothing is there."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        target = os.fsencode(os.readlink(path))
        return FileState(blob_id(target), mode, "link"), target
    if stat.S_ISDIR(info.st_mode):
        return FileState("", mode, "directory"), None
    if not stat.S_ISREG(info.st_mode):
        return FileState("", mode, "special"), None
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    return FileState(blob_id(data), mode, "file"), data


def describe_state(state: FileState | None) -> str:
    """A few words for messages: "absent", "a directory", "a symbolic link", "a file"."""
    if state is None:
        return "absent"
    return {
        "file": "a file",
        "link": "a symbolic link",
        "directory": "a directory",
        "special": "a special file",
    }[state.kind]


def current_umask() -> int:
    """The process's umask, read without changing it (``os.umask`` would, for a moment, for
    every thread)."""
    try:
        with open("/proc/self/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022
