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
from toolbelt.providers.textcalls.family import BadCall, Call, Family, Item, Opener
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


def kimi_id(call: ModelToolCall | ToolCallResult) -> str:
    """The ``functions.NAME:INDEX`` id a call (or its result) is replayed under."""
    call_id, name = (
        (call.id, call.name) if isinstance(call, ModelToolCall) else (call.call_id, call.tool)
    )
    return call_id if _ID.fullmatch(call_id) else f"functions.{name}:{call_id}"


def _tools(tools: Sequence[Tool[Any]]) -> str:
    return (
        "# Tools\n\ntool_declare\n" + dumps([function_definition(t) for t in tools]) + "\n\n"
        f"To call tools, write: {SHAPE}"
    )


def _calls(calls: Sequence[ModelToolCall]) -> str:
    inner = "".join(
        f"{CALL_BEGIN}{kimi_id(c)}{ARGS}{dumps(dict(c.arguments))}{CALL_END}" for c in calls
    )
    return SECTION_BEGIN + inner + SECTION_END


def _results(results: Sequence[ToolCallResult]) -> str:
    return "\n".join(f"## Return of {kimi_id(r)}\n{result_text(r)}" for r in results)


KIMI_K2 = Family(
    "kimi-k2",
    (
        Opener(SECTION_BEGIN, lambda: MarkerCloser(SECTION_END), _parse, _name_hint),
        Opener(
            CALL_BEGIN,
            lambda: MarkerCloser(CALL_END),
            lambda body: _parse(CALL_BEGIN + body + CALL_END),
            lambda body: _name_hint(CALL_BEGIN + body),
        ),
    ),
    SHAPE,
    _tools,
    _calls,
    _results,
)
