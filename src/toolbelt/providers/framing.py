"""Untrusted text rendered through a chat template cannot close its frame.

A tool result goes to the model between markers (``<tool_response>``…``</tool_response>``,
``[TOOL_RESULTS]``…``[/TOOL_RESULTS]``) inside a turn the server's chat template frames with
special tokens (``<|im_start|>``, ``<|eot_id|>``), and many servers read those tokens in any
message's text as the real thing. A file, a page or an MCP result that holds one could end
the result early and forge a user turn or a past call. So every framing marker and special
token in such text gets a zero-width space after its first character: the model still reads
what is there, and no tokenizer or parser sees a marker. Text tool calls (``textcalls``) and
native calls to a self-hosted server (``untrusted``) both apply it.

A list of every family's spellings always has a next family, so the markers are found by
their shape first: any ``<…>`` token without spaces (``<|im_start|>``, Gemma's
``<start_of_turn>``, Seed-OSS's ``<seed:bos>``, ``<tool_call>``, ``<function=x>``),
DeepSeek's full-width ``<｜…｜>``, an upper-case bracket token (Mistral's ``[INST]``,
``[TOOL_CALLS]``; GLM's ``[gMASK]``), MiniMax's bracket-and-tilde forms (``]~b]``, ``]~!b[``,
``[e~[``), Kimi's ``# Return of`` header. What a server says its special tokens are
(``special_tokens``: vLLM's ``/tokenizer_info``, llama.cpp's ``/props``) is added with
``learn_special_tokens``, whatever its shape; the set only grows, for the whole process
(breaking a token of another server in text sent to this one changes nothing the model reads).

The loop's own corrections for a malformed call are not neutralised: they quote the shape
that works, markers included. ``restore`` undoes exactly the insertion in the values of the
model's calls, so text the model copies from a result (a chat template in the repository it
edits) reaches the file unchanged.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from toolbelt.core.content import TextBlock
from toolbelt.core.executor import ToolCallResult

__all__ = [
    "ZWSP",
    "learn_special_tokens",
    "neutralise",
    "neutralise_values",
    "neutralised_result",
    "restore",
    "restore_values",
]

ZWSP = "\u200b"
# After "<": any token of up to 64 characters without spaces or angle brackets, closed by ">"
# (every chat-template token and tag of that shape), a template token with spaces inside
# bars (``<| im_start |>``), DeepSeek's full-width form, and the unclosed call openers.
_AFTER_ANGLE = r"/?[^\s<>]{1,64}>|/?\|[\w.:\- ]{1,48}\|>|/?｜[^｜\s]{1,48}｜|function=|parameter="
# After "[": an upper-case control token (Mistral's, ``[/INST]``), GLM's masks, MiniMax's
# end-of-turn ``[e~[``.
_AFTER_BRACKET = r"/?[A-Z][A-Z0-9_]{1,31}\]|[gs]?MASK\]|[a-z]{1,4}~\["
# After "]": MiniMax's ``]~b]`` and ``]~!b[`` (a tilde, up to 8 marks, a bracket).
_AFTER_CLOSE = r"~[^\s\[\]]{0,8}[\[\]]"
# After a line's "#": Kimi's header between two results of one turn.
_AFTER_HASH = r"# Return of "
# Every branch starts with its literal character, so the engine skips to the next "<", "[",
# "]" or "#" in C (three times faster on source files than a branch that starts with "^");
# whether the "#" starts a line is checked in ``_break``.
_SHAPES = rf"<(?={_AFTER_ANGLE})|\[(?={_AFTER_BRACKET})|\](?={_AFTER_CLOSE})|#(?={_AFTER_HASH})"
_BROKEN_SHAPES = (
    rf"(<){ZWSP}(?={_AFTER_ANGLE})|(\[){ZWSP}(?={_AFTER_BRACKET})|(\]){ZWSP}(?={_AFTER_CLOSE})"
    rf"|(?m:^(#){ZWSP}(?={_AFTER_HASH}))"
)


class _Markers:
    """The patterns that find markers, and what ``neutralise`` made of them; rebuilt when a
    server's special tokens are learnt (``learn_special_tokens``)."""

    def __init__(self) -> None:
        self.tokens: frozenset[str] = frozenset()
        self.find = re.compile(_SHAPES)
        self.broken = re.compile(_BROKEN_SHAPES)
        self._lock = threading.Lock()

    def learn(self, tokens: Iterable[str]) -> None:
        shaped = re.compile(_SHAPES)
        new = {
            token
            for token in tokens
            if len(token) >= 2
            and ZWSP not in token
            and not token.isspace()
            and shaped.match(token) is None  # its shape breaks it already (most do)
        }
        with self._lock:
            new = set(sorted(new - self.tokens)[: max(0, _MAX_LEARNT - len(self.tokens))])
            if not new:
                return
            self.tokens = self.tokens | new
            learnt = sorted(self.tokens, key=len, reverse=True)
            first = "|".join(re.escape(t[0]) + f"(?={re.escape(t[1:])})" for t in learnt)
            again = "|".join(f"({re.escape(t[0])}){ZWSP}(?={re.escape(t[1:])})" for t in learnt)
            self.find = re.compile(f"{_SHAPES}|{first}")
            self.broken = re.compile(f"{_BROKEN_SHAPES}|{again}")


_MAX_LEARNT = 512
"""The most tokens learnt from servers (a server listing thousands keeps the pattern small)."""
_MARKERS = _Markers()


def learn_special_tokens(tokens: Iterable[str]) -> None:
    """Break ``tokens`` too from now on (a server's special tokens, whatever their shape)."""
    _MARKERS.learn(tokens)


def neutralise(text: str) -> str:
    """``text`` with every framing marker and special token broken by a zero-width space."""
    return _MARKERS.find.sub(_break, text)


def _break(match: re.Match[str]) -> str:
    start = match.start()
    if match.group() == "#" and start and match.string[start - 1] != "\n":
        return "#"  # Kimi's header only counts at the start of a line
    return match.group() + ZWSP


def restore(text: str) -> str:
    """``text`` with what ``neutralise`` inserted taken out again."""
    if ZWSP not in text:
        return text
    return _MARKERS.broken.sub(_join, text)


def _join(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group)


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
