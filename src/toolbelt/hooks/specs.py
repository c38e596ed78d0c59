"""The models of a settings file's ``hooks`` section: a matcher group and its command handlers.

Apart from ``hooks.config`` (the rules, which load without pydantic, and which load this
module only when they need it) so that settings without
hooks — most of them — never build or load these; ``hooks.config`` exports them lazily.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from toolbelt.hooks.matcher import (
    DEFAULT_TIMEOUT,
    compiled_matcher,
    is_name_list,
    matcher_selects,
)

__all__ = ["CommandHookSpec", "HookMatcherGroup"]


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
        if not is_name_list(value) and value != "*":
            try:
                compiled_matcher(value)
            except re.error as exc:
                raise ValueError(f"matcher {value!r} is not a valid regex ({exc})") from exc
        return value

    def selects(self, tool_name: str, aliases: Sequence[str] = ()) -> bool:
        """Whether this group's matcher selects the tool ``tool_name`` (also called ``aliases``)."""
        return matcher_selects(self.matcher, tool_name, aliases)
