"""Untrusted text rendered through a chat template cannot close its frame.

A tool result goes to the model between markers (``<tool_response>``…``</tool_response>``,
``[TOOL_RESULTS]``…``[/TOOL_RESULTS]``) inside a turn the server's chat template frames with
special tokens (``<|im_start|>``, ``<|eot_id|>``), and many servers read those tokens in any
message's text as the real thing. A file, a page or an MCP result that holds one could end
the result early and forge a user turn or a past call. So every framing marker and special
token of every family in such text gets a zero-width space after its first character: the
model still reads what is there, and no tokenizer or parser sees a marker. Text tool calls
(``textcalls``) and native calls to a self-hosted server (``untrusted``) both apply it.

The loop's own corrections for a malformed call are not neutralised: they quote the shape
that works, markers included. ``restore`` undoes exactly the insertion in the values of the
model's calls, so text the model copies from a result (a chat template in the repository it
edits) reaches the file unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from toolbelt.core.content import TextBlock
from toolbelt.core.executor import ToolCallResult

__all__ = [
    "ZWSP",
    "neutralise",
    "neutralise_values",
    "neutralised_result",
    "restore",
    "restore_values",
]

ZWSP = "\u200b"
# After "<": chat-template tokens <|...|> and DeepSeek's full-width <｜...｜> (and their
# closing forms), and the tags the families frame calls, results and tool lists with.
_TAGS = (
    "tool_response|tool_call|tools|think|function_results|result|functions|function"
    "|parameter|arg_key|arg_value|s"
)
_AFTER_ANGLE = (
    r"/?\|[\w.:\- ]{1,48}\|>"
    r"|/?｜[^｜\s]{1,48}｜"
    rf"|/?(?:{_TAGS})>|function=|parameter="
)
# After "[": Mistral's control tokens.
_AFTER_BRACKET = (
    r"/?(?:INST|AVAILABLE_TOOLS|TOOL_RESULTS|SYSTEM_PROMPT|THINK)\]"
    r"|(?:TOOL_CALLS|TOOL_CONTENT|CALL_ID|ARGS|IMG|IMG_BREAK|IMG_END)\]"
)
# After a line's "#": Kimi's header between two results of one turn.
_AFTER_HASH = r"# Return of "
# Every branch starts with its literal character, so the engine skips to the next "<", "[" or
# "#" in C (three times faster on source files than a branch that starts with "^"); whether
# the "#" starts a line is checked in ``_break``.
_MARKER = re.compile(rf"<(?={_AFTER_ANGLE})|\[(?={_AFTER_BRACKET})|#(?={_AFTER_HASH})")
_NEUTRALISED = re.compile(
    rf"(<){ZWSP}(?={_AFTER_ANGLE})|(\[){ZWSP}(?={_AFTER_BRACKET})|(?m:^(#){ZWSP}(?={_AFTER_HASH}))"
)


def neutralise(text: str) -> str:
    """``text`` with every framing marker and special token broken by a zero-width space."""
    return _MARKER.sub(_break, text)


def _break(match: re.Match[str]) -> str:
    start = match.start()
    if match.group() == "#" and start and match.string[start - 1] != "\n":
        return "#"  # Kimi's header only counts at the start of a line
    return match.group() + ZWSP


def restore(text: str) -> str:
    """``text`` with what ``neutralise`` inserted taken out again."""
    if ZWSP not in text:
        return text
    return _NEUTRALISED.sub(_join, text)


def _join(match: re.Match[str]) -> str:
    return match.group(1) or match.group(2) or match.group(3)


def neutralise_values(value: Any) -> Any:
    """``neutralise`` applied to every string in a JSON-shaped value (a schema, arguments)."""
    return _each_string(value, neutralise)


def restore_values(value: Any) -> Any:
    """``restore`` applied to every string in a call's (JSON-shaped) arguments."""
    return _each_string(value, restore)


def _each_string(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {key: _each_string(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [_each_string(item, change) for item in value]
    return value


def neutralised_result(result: ToolCallResult) -> ToolCallResult:
    """``result`` with its text neutralised (its images untouched)."""
    content = tuple(
        TextBlock(neutralise(block.text)) if isinstance(block, TextBlock) else block
        for block in result.output.content
    )
    return replace(result, output=replace(result.output, content=content))
