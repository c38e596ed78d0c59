"""What a text tool-call family is: how its calls open, end and parse, and how it renders.

A family parses what the model writes (``openers``) and renders what the model reads: the tool
definitions for the system prompt, an assistant turn's calls, and tool results, each the way
that family was trained, so a multi-turn transcript replays in the shape the model knows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.model import ModelToolCall
from toolbelt.providers.textcalls.closers import Closer, MarkerCloser, Swallow

__all__ = ["BadCall", "Call", "Family", "Item", "Opener", "Visible", "lone_call", "swallowed"]


@dataclass(frozen=True, slots=True)
class Call:
    """A call a family parsed; ``raw_text`` says its values all arrived as text."""

    name: str
    arguments: Mapping[str, Any]
    id: str | None = None
    raw_text: bool = False


@dataclass(frozen=True, slots=True)
class BadCall:
    """A call that does not parse; ``problem`` names what is wrong and the shape that works."""

    name: str
    problem: str


@dataclass(frozen=True, slots=True)
class Visible:
    """Text inside a block that turned out to be for the reader (a Harmony final message)."""

    text: str


Item = Call | BadCall | Visible


def _no_name(body: str) -> str:
    return ""


@dataclass(frozen=True, slots=True)
class Opener:
    """One way a call block starts: its marker, a fresh closer per block, the body parser.

    ``at_start`` openers match only while everything before them is blank, and keep the
    marker in the body (Llama's bare ``{"name": ...}`` answer).
    """

    marker: str
    closer: Callable[[], Closer]
    parse: Callable[[str], list[Item]]
    name_hint: Callable[[str], str] = _no_name
    at_start: bool = False
    early: re.Pattern[str] | None = None
    """Matches (at its start) a body once the first call's tool name is complete (group
    ``name`` or ``alt``, and ``id`` when the model writes one there), so the call can be
    announced while its arguments still stream."""


@dataclass(frozen=True, slots=True)
class Family:
    """A text tool-call format: parsing (``openers``) and rendering, and the shape to teach."""

    name: str
    openers: tuple[Opener, ...]
    shape: str
    """One correct call, quoted in correction messages."""
    render_tools: Callable[[Sequence[Tool[Any]]], str]
    render_calls: Callable[[Sequence[ModelToolCall]], str]
    render_results: Callable[[Sequence[ToolCallResult]], str]


def lone_call(
    begin: str,
    end: str,
    parse: Callable[[str], list[Item]],
    name_hint: Callable[[str], str],
    *,
    early: re.Pattern[str] | None,
) -> Opener:
    """The opener of one call the model wrote without the section that should hold it
    (``begin``…``end`` alone): its body goes back between those markers before ``parse`` and
    ``name_hint``, written for a whole section, read it."""
    return Opener(
        begin,
        lambda: MarkerCloser(end),
        lambda body: parse(begin + body + end),
        lambda body: name_hint(begin + body),
        early=early,
    )


def swallowed(*markers: str) -> tuple[Opener, ...]:
    """Openers that take ``markers`` out of the visible text: end-of-turn tokens a server left
    in (``<|eot_id|>``, ``<|return|>``) are not for the reader."""
    return tuple(Opener(marker, Swallow, lambda body: []) for marker in markers)
