"""The one containment test: is a path at or beneath a root?

``is_within`` compares the paths as given, component by component, so ``/w`` never contains
``/w-evil``; it touches no disk and is cheap enough for every path a listing shows. It is
the test for *resolved* paths (``paths.realpath``, ``os.path.realpath``): comparing what
the model wrote would let ``root/link/..`` or a symlinked directory decide, so callers resolve
first. A caller that means the lexical path on purpose — a file *named* in the workspace,
whatever it points to (``config.launch_files``) — says so by calling it on
``os.path.abspath`` of the path, beside the resolved one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import PurePath

__all__ = ["is_beneath", "is_within", "is_within_any"]


def is_within(path: PurePath | str, root: PurePath | str) -> bool:
    """Whether ``path`` is ``root`` or lies beneath it, compared as given (both absolute and
    normalised: resolved, or ``abspath``-ed when the lexical path is meant)."""
    text, top = os.fspath(path), os.fspath(root)
    if len(top) > 1:
        top = top.rstrip("/")
    if len(text) > 1:
        text = text.rstrip("/")
    return text == top or text.startswith(top if top == "/" else top + "/")


def is_beneath(path: PurePath | str, root: PurePath | str) -> bool:
    """Whether ``path`` lies strictly beneath ``root`` (``is_within``, ``root`` itself not)."""
    return is_within(path, root) and not is_within(root, path)


def is_within_any(path: PurePath | str, roots: Iterable[PurePath | str]) -> bool:
    """Whether ``path`` is within one of ``roots`` (``is_within``)."""
    return any(is_within(path, root) for root in roots)
