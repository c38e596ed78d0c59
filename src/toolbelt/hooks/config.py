"""The ``hooks`` section of a settings file, in Claude Code's format, and which hooks a call runs.

``{"PreToolUse": [{"matcher": "write_file|edit_file", "hooks": [{"type": "command",
"command": "./check.sh", "timeout": 60}]}]}``. The matcher follows Claude Code's documented
rule: empty, missing or ``*`` selects every tool; a value made only of names (letters, digits,
``_``, ``-``) separated by ``|`` or ``,`` is a list of exact names; anything else is a regular
expression searched (unanchored, as Claude does) in the tool name. Because users paste Claude
settings, a name matches both toolbelt's name (``write_file``) and Claude's (``Write``), which
the tool declares itself (``Tool.claude_name``): a new tool needs no entry in a table here, and
an MCP tool's name (``mcp__server__tool``) is already Claude's.

Validation is strict where a mistake would silently disable a safety hook: an unknown event
name (a typo such as ``PreTooluse``), a bad regex, a handler type toolbelt cannot run
(``http``, ``prompt``...) or an ``if`` condition are errors, not skipped entries.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolbelt.core.lazy_exports import lazy_exports
from toolbelt.hooks.matcher import DEFAULT_TIMEOUT, matcher_selects

if TYPE_CHECKING:  # the models (and pydantic) load when a hooks section is read
    from pydantic import TypeAdapter

    from toolbelt.hooks.specs import CommandHookSpec, HookMatcherGroup

__all__ = [
    "DEFAULT_TIMEOUT",
    "SESSION_EVENTS",
    "TOOL_EVENTS",
    "CommandHookSpec",
    "HookMatcherGroup",
    "check_event",
    "hooks_for",
    "matcher_selects",
    "validate_hooks",
]


__getattr__ = lazy_exports(
    __name__,
    dict.fromkeys(("CommandHookSpec", "HookMatcherGroup"), "toolbelt.hooks.specs"),
)
"""``CommandHookSpec`` and ``HookMatcherGroup`` load — and pydantic with them — when first
asked for: settings without hooks never need them."""


TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
"""The events the executor runs around every call."""

SESSION_EVENTS = frozenset(
    {
        "SessionStart",
        "UserPromptSubmit",
        "Stop",
        "SubagentStop",
        "PreCompact",
        "SessionEnd",
        "Notification",
        "PermissionRequest",
    }
)
"""The events a conversation runs (``toolbelt chat``, ``toolbelt run``: ``hooks.session_hooks``);
Claude Code's other events load (settings paste) but never fire."""

_CLAUDE_ONLY_EVENTS = frozenset(
    [
        "PostToolBatch",
        "UserPromptExpansion",
        "StopFailure",
        "SubagentStart",
        "PostCompact",
        "PreModelSwitch",
        "PostModelSwitch",
        "PermissionDenied",
        "Setup",
        "TeammateIdle",
        "TaskCreated",
        "TaskCompleted",
        "Elicitation",
        "ElicitationResult",
        "ConfigChange",
        "WorktreeCreate",
        "WorktreeRemove",
        "InstructionsLoaded",
        "CwdChanged",
        "FileChanged",
        "DirectoryAdded",
        "MessageDisplay",
    ]
)


@functools.cache
def _hooks_adapter() -> TypeAdapter[dict[str, tuple[HookMatcherGroup, ...]]]:
    """Built on first use: most runs have no hooks, and building costs ~10 ms of start-up."""
    from pydantic import TypeAdapter

    from toolbelt.hooks.specs import HookMatcherGroup

    return TypeAdapter(dict[str, tuple[HookMatcherGroup, ...]])


def validate_hooks(raw: object) -> dict[str, tuple[HookMatcherGroup, ...]]:
    """Validate a ``hooks`` object; pydantic's ValidationError or ValueError when malformed."""
    config = _hooks_adapter().validate_python(raw)
    for event in config:
        check_event(event)
    return config


def check_event(event: str) -> None:
    """ValueError for a name that is no hook event at all (most likely a typo)."""
    if event not in TOOL_EVENTS | SESSION_EVENTS and event not in _CLAUDE_ONLY_EVENTS:
        known = ", ".join(sorted(TOOL_EVENTS | SESSION_EVENTS))
        raise ValueError(f"unknown hook event {event!r}; toolbelt runs {known}")


def hooks_for(
    event: str,
    tool_name: str,
    config: Mapping[str, Sequence[HookMatcherGroup | Mapping[str, Any]]],
    aliases: Sequence[str] = (),
) -> list[CommandHookSpec]:
    """The command hooks ``event`` runs for ``tool_name`` (also called ``aliases``), in
    configuration order.

    ``config`` is a validated ``hooks`` object (``validate_hooks``) or the raw JSON of one, as
    ``Settings.hooks`` holds it (merged over the scopes); raw groups are validated here too.
    """
    from toolbelt.hooks.specs import HookMatcherGroup

    selected: list[CommandHookSpec] = []
    for group in config.get(event, ()):
        parsed = (
            group if isinstance(group, HookMatcherGroup) else HookMatcherGroup.model_validate(group)
        )
        if parsed.selects(tool_name, aliases):
            selected.extend(parsed.hooks)
    return selected
