"""``--toolset MODULE:ATTR``: serve or call a toolset of the user's own instead of the built-ins.

``ATTR`` names a ``Toolset`` or a function that returns one (called once per session, so each
MCP HTTP session gets its own, opened when the session starts and closed when it ends). A
``Toolset`` object is shared by every session: it is opened when the first one starts and
closed when the last one ends (``core.shared_toolset``).

The module is imported the way ``python -c 'import MODULE'`` would, with the current directory
first on the path, so a ``my_tools.py`` beside the project works without installing it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from toolbelt.core.errors import UsageError
from toolbelt.core.registry import Toolset
from toolbelt.core.shared_toolset import SharedToolset

__all__ = ["ToolsetFactory", "load_toolset_factory"]

ToolsetFactory = Callable[[], Toolset]


def load_toolset_factory(spec: str) -> ToolsetFactory:
    """The factory ``spec`` (``MODULE:ATTR``) names; ``UsageError`` saying what is wrong."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise UsageError(
            f"--toolset wants MODULE:ATTR (for example my_tools:toolset), not {spec!r}."
        )
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"--toolset: cannot import {module_name!r} ({exc}).") from exc
    value = getattr(module, attr, None)
    if value is None:
        raise UsageError(f"--toolset: module {module_name!r} has no attribute {attr!r}.")
    if isinstance(value, Toolset):
        return SharedToolset(value).lease  # one object for every session: opened once
    if not callable(value):
        raise UsageError(f"--toolset: {spec} is neither a Toolset nor a function returning one.")
    factory: Callable[[], object] = value

    def make() -> Toolset:
        made = factory()
        if not isinstance(made, Toolset):
            raise UsageError(f"--toolset: {spec}() returned {type(made).__name__}, not a Toolset.")
        return made

    return make
