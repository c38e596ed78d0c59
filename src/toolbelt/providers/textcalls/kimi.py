"""Kimi K2: calls in ``<|tool_calls_section_begin|>``, each ``<|tool_call_begin|>
functions.NAME:INDEX<|tool_call_argument_begin|>{...}<|tool_call_end|>``.

``functions.NAME:INDEX`` is the call's id and is kept as such (results name it back: ``##
Return of functions.NAME:INDEX``). The tool name is everything between ``functions.`` and the
last ``:``, so a dotted name (``mcp.read``) survives; ``NAME:INDEX`` without the prefix is read
too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.model import ModelToolCall
from toolbelt.providers.textcalls.closers import MarkerCloser
from toolbelt.providers.textcalls.family import BadCall, Call, Family, Item, Opener, lone_call
from toolbelt.providers.textcalls.jsoncalls import load_json
from toolbelt.providers.textcalls.render import dumps, function_definition, result_text

__all__ = ["KIMI_K2"]

SECTION_BEGIN, SECTION_END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CALL_BEGIN, ARGS, CALL_END = (
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
)
SHAPE = (
    f'{SECTION_BEGIN}{CALL_BEGIN}functions.TOOL:0{ARGS}{{"PARAM": VALUE}}{CALL_END}{SECTION_END}'
)
_CALL = re.compile(
    re.escape(CALL_BEGIN)
    + r"\s*(.*?)\s*"
    + re.escape(ARGS)
    + r"(.*?)(?:"
    + re.escape(CALL_END)
    + r"|$)",
    re.DOTALL,
)
_ID = re.compile(r"(?:functions\.)?(.+):(\d+)")
_EARLY = re.compile(
    rf"^\s*(?:{re.escape(CALL_BEGIN)})?\s*(?P<id>(?:functions\.)?(?P<name>[^\s<]+?):\d+)\s*"
    + re.escape(ARGS)
)


def _parse(body: str) -> list[Item]:
    calls = _CALL.findall(body)
    if not calls:
        return [
            BadCall(
                "",
                f"Write each call as {CALL_BEGIN}functions.TOOL:INDEX{ARGS}"
                f"{{arguments}}{CALL_END}: {SHAPE}",
            )
        ]
    return [_one_call(call_id, arguments) for call_id, arguments in calls]


def _one_call(call_id: str, text: str) -> Item:
    match = _ID.fullmatch(call_id)
    if match is None:
        return BadCall(
            call_id, f"The call id {call_id!r} is not functions.TOOL:INDEX; use: {SHAPE}"
        )
    name = match.group(1)
    value = load_json(text, SHAPE)
    if isinstance(value, BadCall):
        return BadCall(name, value.problem)
    if not isinstance(value, dict):
        return BadCall(name, f"The arguments of {name} must be a JSON object: {SHAPE}")
    return Call(name, value, id=call_id)


def _name_hint(body: str) -> str:
    head = body.rpartition(CALL_BEGIN)[2].partition(ARGS)[0].strip()
    match = _ID.fullmatch(head)
    return match.group(1) if match else head.removeprefix("functions.")


def kimi_id(call_id: str, name: str, index: int) -> str:
    """The ``functions.NAME:INDEX`` id a call and its result are replayed under: the model's
    own, or for a call from elsewhere its position in the turn (results keep the calls' order,
    which is how Kimi's template pairs them)."""
    return call_id if _ID.fullmatch(call_id) else f"functions.{name}:{index}"


def _tools(tools: Sequence[Tool[Any]]) -> str:
    return (
        "# Tools\n\n" + dumps([function_definition(t) for t in tools]) + "\n\n"
        f"To call tools, write: {SHAPE}"
    )


def _calls(calls: Sequence[ModelToolCall]) -> str:
    inner = "".join(
        f"{CALL_BEGIN}{kimi_id(c.id, c.name, i)}{ARGS}{dumps(dict(c.arguments))}{CALL_END}"
        for i, c in enumerate(calls)
    )
    return SECTION_BEGIN + inner + SECTION_END


def _results(results: Sequence[ToolCallResult]) -> str:
    return "\n".join(
        f"## Return of {kimi_id(r.call_id, r.tool, i)}\n{result_text(r)}"
        for i, r in enumerate(results)
    )


KIMI_K2 = Family(
    "kimi-k2",
    (
        Opener(SECTION_BEGIN, lambda: MarkerCloser(SECTION_END), _parse, _name_hint, early=_EARLY),
        lone_call(CALL_BEGIN, CALL_END, _parse, _name_hint, early=_EARLY),
    ),
    SHAPE,
    _tools,
    _calls,
    _results,
)
