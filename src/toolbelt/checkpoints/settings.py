"""How much undo history is kept, and what a snapshot leaves out: the ``checkpoints`` settings.

``{"checkpoints": {"enabled": true, "maxAgeDays": 30, "maxSizeMB": 2048, "maxFileSizeMB": 50}}``
in a settings file (``config.settings`` reads it; a workspace's own files only once it is
trusted). History older than ``maxAgeDays`` or past ``maxSizeMB`` for one workspace is pruned,
oldest first, in the background; a file bigger than ``maxFileSizeMB`` is left out of command
snapshots (and named in the checkpoint as not restorable).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CheckpointSettings"]

_MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class CheckpointSettings:
    """Retention and snapshot limits for one workspace's checkpoints."""

    enabled: bool = True
    """Record file changes and snapshot commands; False records nothing (undo still works on
    what was recorded before)."""
    max_age_days: float = 30.0
    """Checkpoints older than this are pruned."""
    max_size_bytes: int = 2048 * _MB
    """The workspace's store is pruned, oldest first, back under this size."""
    max_file_bytes: int = 50 * _MB
    """Files bigger than this are left out of command snapshots."""
    snapshot_timeout: float = 30.0
    """Seconds a snapshot may take; past it the call runs without one (not undoable)."""
