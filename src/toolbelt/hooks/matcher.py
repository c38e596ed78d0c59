"""Claude Code's hook matcher rule, and a handler's default timeout: the plain parts of a
settings file's ``hooks`` section, shared by its rules (``hooks.config``) and its models
(``hooks.specs``) without either loading the other.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

__all__ = ["DEFAULT_TIMEOUT", "compiled_matcher", "is_name_list", "matcher_selects"]

DEFAULT_TIMEOUT = 60.0
"""Seconds; Claude Code now defaults to 600, but a hung check should not stall a turn that long."""

_NAME_LIST = re.compile(r"[A-Za-z0-9_\-|, ]*")


def is_name_list(matcher: str) -> bool:
    """Whether ``matcher`` is a list of exact names (``|`` or ``,`` between them), not a regex."""
    return _NAME_LIST.fullmatch(matcher) is not None


def matcher_selects(matcher: str, tool_name: str, aliases: Sequence[str] = ()) -> bool:
    """Claude Code's matcher rule, applied to every name of the tool (``HookCall.aliases``)."""
    if matcher in ("", "*"):
        return True
    names = {tool_name, *aliases}
    if is_name_list(matcher):
        return not names.isdisjoint(part.strip() for part in re.split(r"[|,]", matcher))
    pattern = compiled_matcher(matcher)
    return any(pattern.search(name) for name in names)


@functools.lru_cache(maxsize=256)
def compiled_matcher(matcher: str) -> re.Pattern[str]:
    """A regex matcher, compiled once (``re.error`` when it is not one)."""
    return re.compile(matcher)
