"""The one containment test: is a resolved path at or beneath a root?

Both paths must already be resolved (``paths.realpath``, ``Path.resolve``): comparing what the
model wrote would let ``root/link/..`` or a symlinked directory decide. The comparison is by
path components, so ``/w`` never contains ``/w-evil``.
"""

from __future__ import annotations

from pathlib import PurePath

__all__ = ["is_within"]


def is_within(path: PurePath, root: PurePath) -> bool:
    """Separator-aware containment on resolved paths: ``/w`` never contains ``/w-evil``."""
    return path == root or root in path.parents
