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
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_validator

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

DEFAULT_TIMEOUT = 60.0
"""Seconds; Claude Code now defaults to 600, but a hung check should not stall a turn that long."""

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

_NAME_LIST = re.compile(r"[A-Za-z0-9_\-|, ]*")


class CommandHookSpec(BaseModel):
    """One ``{"type": "command", "command": ..., "timeout": ...}`` handler.

    Other keys Claude Code knows (``statusMessage``, ``async``...) are accepted and ignored.
    """

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    type: Literal["command"] = "command"
    command: str = Field(min_length=1)
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _refuse_what_would_be_skipped(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            kind = data.get("type", "command")
            if kind != "command":
                raise ValueError(f"hook type {kind!r} is not supported; toolbelt runs `command`")
            if "if" in data:
                raise ValueError(
                    "`if` conditions are not supported; select tools with `matcher` and "
                    "filter inside the hook command"
                )
        return data


class HookMatcherGroup(BaseModel):
    """A matcher and the handlers it selects."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    matcher: str = ""
    hooks: tuple[CommandHookSpec, ...]

    @field_validator("matcher", mode="before")
    @classmethod
    def _none_means_all(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("matcher")
    @classmethod
    def _compiles(cls, value: str) -> str:
        if not _NAME_LIST.fullmatch(value) and value != "*":
            try:
                _regex(value)
            except re.error as exc:
                raise ValueError(f"matcher {value!r} is not a valid regex ({exc})") from exc
        return value

    def selects(self, tool_name: str, aliases: Sequence[str] = ()) -> bool:
        """Whether this group's matcher selects the tool ``tool_name`` (also called ``aliases``)."""
        return matcher_selects(self.matcher, tool_name, aliases)


@functools.cache
def _hooks_adapter() -> TypeAdapter[dict[str, tuple[HookMatcherGroup, ...]]]:
    """Built on first use: most runs have no hooks, and building costs ~10 ms of start-up."""
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


def matcher_selects(matcher: str, tool_name: str, aliases: Sequence[str] = ()) -> bool:
    """Claude Code's matcher rule, applied to every name of the tool (``HookCall.aliases``)."""
    if matcher in ("", "*"):
        return True
    names = {tool_name, *aliases}
    if _NAME_LIST.fullmatch(matcher):
        return not names.isdisjoint(part.strip() for part in re.split(r"[|,]", matcher))
    pattern = _regex(matcher)
    return any(pattern.search(name) for name in names)


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
    selected: list[CommandHookSpec] = []
    for group in config.get(event, ()):
        parsed = (
            group if isinstance(group, HookMatcherGroup) else HookMatcherGroup.model_validate(group)
        )
        if parsed.selects(tool_name, aliases):
            selected.extend(parsed.hooks)
    return selected


@functools.lru_cache(maxsize=256)
def _regex(matcher: str) -> re.Pattern[str]:
    return re.compile(matcher)
