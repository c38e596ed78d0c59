"""Llama 3.1/3.2/3.3: a call is the whole answer, a bare JSON object ``{"name": ...,
"parameters": {...}}`` (several joined by ``;``), or follows ``<|python_tag|>``.

A bare object counts as a call only when it opens the answer and names a tool; an answer
that merely is JSON stays text. Built-in tools (``brave_search.call(...)``) are not offered by
toolbelt and get a correction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.model import ModelToolCall
from toolbelt.providers.textcalls.closers import JsonCloser
from toolbelt.providers.textcalls.family import BadCall, Family, Item, Opener, Visible, swallowed
from toolbelt.providers.textcalls.jsoncalls import call_from_object, load_json, name_from_json
from toolbelt.providers.textcalls.render import dumps, function_definition, result_text

__all__ = ["LLAMA3"]

SHAPE = '{"name": "TOOL", "parameters": {"PARAM": VALUE}}'
_DECODER = json.JSONDecoder()
_EARLY_NAME = re.compile(r'^\s*\{\s*"name"\s*:\s*"(?P<name>[^"\\]+)"')


def _split_calls(body: str) -> list[str]:
    """The ``;``-separated objects of ``body``; a piece that does not decode is kept whole."""
    pieces, index = [], 0
    while index < len(body):
        while index < len(body) and (body[index].isspace() or body[index] == ";"):
            index += 1
        if index >= len(body):
            break
        try:
            end = _DECODER.raw_decode(body, index)[1]
        except ValueError:
            pieces.append(body[index:])
            break
        pieces.append(body[index:end])
        index = end
    return pieces


def _parse(body: str, *, bare: bool) -> list[Item]:
    items: list[Item] = []
    if not bare and not body.lstrip().startswith("{"):
        builtin = body.strip().partition("(")[0] or "code"
        return [
            BadCall(
                builtin,
                f"There is no built-in tool {builtin}; call one of the offered "
                f"functions with JSON: {SHAPE}",
            )
        ]
    for piece in _split_calls(body) or [body]:
        value = load_json(piece, SHAPE)
        if bare and not (isinstance(value, dict) and "name" in value):
            if isinstance(value, BadCall) and value.name:
                items.append(value)  # it named a tool, so it was meant as a call
            else:
                items.append(Visible(piece))
            continue
        items.append(call_from_object(value, SHAPE))
    return items


def _tools(tools: Sequence[Tool[Any]]) -> str:
    definitions = "\n\n".join(dumps(function_definition(t), indent=4) for t in tools)
    return (
        "Environment: ipython\n\nYou have access to the following functions. To call a "
        "function, please respond with JSON for a function call. Respond in the format "
        '{"name": function name, "parameters": dictionary of argument name and its value}. '
        f"Do not use variables.\n\n{definitions}"
    )


def _calls(calls: Sequence[ModelToolCall]) -> str:
    return "; ".join(dumps({"name": c.name, "parameters": dict(c.arguments)}) for c in calls)


def _json_calls(marker: str, *, bare: bool) -> Opener:
    """Calls as JSON objects (``;`` between them) after ``<|python_tag|>``, or ``bare``: an
    answer that is nothing but the JSON (the ``{`` opens it only at the start)."""
    return Opener(
        marker,
        lambda: JsonCloser("{", separator=";"),
        lambda body: _parse(body, bare=bare),
        name_from_json,
        at_start=bare,
        early=_EARLY_NAME,
    )


def _results(results: Sequence[ToolCallResult]) -> str:
    return "\n".join(dumps(result_text(r)) for r in results)


LLAMA3 = Family(
    "llama3",
    (
        _json_calls("<|python_tag|>", bare=False),
        _json_calls("{", bare=True),
        *swallowed("<|eot_id|>", "<|eom_id|>"),
    ),
    SHAPE,
    _tools,
    _calls,
    _results,
)
