"""Where one workspace's checkpoints live, and the shadow repository's skeleton.

Everything is under the user's state directory, never in the workspace:
``$XDG_STATE_HOME/toolbelt/checkpoints/<name>-<hash of the real root>/`` (``~/.local/state``
when unset), private to the user (0700), holding

- ``shadow.git/`` — a git repository of toolbelt's own: its object store keeps every file
  content a checkpoint needs (the file tools' before-images, written here as loose objects,
  and the trees of command snapshots); its config and ``info/attributes`` are written by
  toolbelt so that nothing in it starts a program or rewrites content (no filters, no line
  ending conversion);
- ``index`` — the private index snapshots refresh (``GIT_INDEX_FILE``): the user's own
  ``.git/index`` is never read or written;
- ``entries/`` and ``actions/`` — one small JSON file per recorded change and per undo or
  redo (``records``);
- ``raw/`` — big files' before-images, hard links to the old files (copies where the
  workspace is on another file system);
- ``lock`` — serialises snapshots and undo/redo between processes (``flock``).

The skeleton is built in a temporary directory and renamed into place, so two processes
starting at once both end up with the same complete repository.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Layout", "state_home"]

_CONFIG = """\
[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = false
\tautocrlf = false
\tsafecrlf = false
\tsymlinks = true
\tignorecase = false
\tprecomposeunicode = false
\tfsmonitor = false
\thooksPath = /dev/null
\tquotePath = false
\tcompression = 1
\tlooseCompression = 1
[gc]
\tauto = 0
\tautoDetach = false
[index]
\tversion = 2
"""
_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -export-subst\n"
"""The highest-precedence attributes: content goes in and comes out byte for byte whatever a
``.gitattributes`` in the workspace says."""

_EXCLUDE = "*.toolbelt-tmp-*\n*.toolbelt-link-*\n"
"""What toolbelt itself leaves for a moment (or, killed, until swept): its temp files."""

_ready: set[Path] = set()


def state_home() -> Path:
    """``$XDG_STATE_HOME``, or ``~/.local/state``."""
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")


@dataclass(frozen=True, slots=True)
class Layout:
    """The paths of one workspace's store."""

    root: Path
    """The workspace's real path."""
    base: Path

    @classmethod
    def for_root(cls, root: Path) -> Layout:
        real = Path(os.path.realpath(root))
        digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:20]
        name = re.sub(r"[^A-Za-z0-9._-]", "_", real.name)[:40] or "root"
        return cls(real, state_home() / "toolbelt" / "checkpoints" / f"{name}-{digest}")

    @property
    def shadow(self) -> Path:
        return self.base / "shadow.git"

    @property
    def objects(self) -> Path:
        return self.shadow / "objects"

    @property
    def index(self) -> Path:
        return self.base / "index"

    @property
    def entries(self) -> Path:
        return self.base / "entries"

    @property
    def actions(self) -> Path:
        return self.base / "actions"

    @property
    def raw(self) -> Path:
        """Big files' before-images: hard links to their old inodes (``states.BIG_FILE``)."""
        return self.base / "raw"

    def exists(self) -> bool:
        """Whether anything was ever recorded for this workspace."""
        return (self.shadow / "HEAD").is_file()

    def ensure(self) -> None:
        """Create the store (once per process and workspace); raises OSError when it cannot."""
        if self.base in _ready:
            return
        os.makedirs(self.base.parent.parent, exist_ok=True)  # $XDG_STATE_HOME/toolbelt
        for directory in (self.base.parent, self.base, self.entries, self.actions, self.raw):
            with contextlib.suppress(FileExistsError):
                os.mkdir(directory, 0o700)
        if not self.exists():
            self._make_shadow()
        workspace = self.base / "workspace"
        if not workspace.exists():
            workspace.write_text(f"{self.root}\n", encoding="utf-8", errors="surrogateescape")
        _ready.add(self.base)

    def _make_shadow(self) -> None:
        temp = self.base / f".shadow-{secrets.token_hex(6)}"
        try:
            for part in ("objects/info", "objects/pack", "refs/heads", "refs/tags", "info"):
                (temp / part).mkdir(parents=True, mode=0o700)
            (temp / "HEAD").write_text("ref: refs/heads/main\n")
            (temp / "config").write_text(_CONFIG)
            (temp / "info" / "attributes").write_text(_ATTRIBUTES)
            (temp / "info" / "exclude").write_text(_EXCLUDE)
            (temp / "description").write_text("toolbelt checkpoints (shadow repository)\n")
            with contextlib.suppress(OSError):  # another process made it first: keep theirs
                os.rename(temp, self.shadow)
        finally:
            shutil.rmtree(temp, ignore_errors=True)

    @contextlib.contextmanager
    def locked(self, name: str = "lock", *, wait: bool = True) -> Iterator[bool]:
        """Hold the store's ``name`` lock across processes; yields False (without waiting)
        when ``wait`` is False and another holder has it."""
        fd = os.open(self.base / name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)
