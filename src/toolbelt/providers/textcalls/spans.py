"""Quoted and reasoning text, where call markup is a mention and not a call.

A model that shows call markup in a code block (```` ``` ````) or an inline code span
(`` ` ``), or weighs a call while it thinks (``<think>``…``</think>``, Magistral's
``[THINK]``…``[/THINK]``), has not made that call; a prompt-injected page only has to get the
model to quote its payload. So the parser reads no call inside such a span: its text streams
on as text. This is the safe reading of what vLLM and llama.cpp do with reasoning (their
reasoning parsers take ``<think>`` out before the tool parser looks), applied to code spans
too, which those parsers ignore.

Spans follow CommonMark closely enough for model output: a run of three or more backticks
opens a block that a run at least as long closes; a shorter run opens an inline span that a
run of the same length closes, or a blank line ends (a paragraph break: the backtick was
literal). The end of a message (a family's terminator such as ``<|end|>``) ends any span.
Every search is incremental and holds back only what could still become a marker, so the
result does not depend on how the stream is split.
"""

from __future__ import annotations

import re
from typing import Protocol

__all__ = ["REASONED", "CodeSpan", "MarkerSpan", "Reasoned", "Span", "SpanOpeners", "held_tail"]

THINKING = (("<think>", "</think>"), ("[THINK]", "[/THINK]"))
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_OPEN_LINE = re.compile(r"\n[ \t]*\Z")


def held_tail(buf: str, markers: tuple[str, ...]) -> int:
    """How many trailing characters of ``buf`` are the start of one of ``markers``."""
    longest = min(len(buf), max((len(m) for m in markers), default=0))
    for size in range(longest, 0, -1):
        tail = buf[-size:]
        if any(m.startswith(tail) for m in markers):
            return size
    return 0


class Span(Protocol):
    """Quoted or reasoning text: ``scan`` answers how much of ``buf`` is inside the span or
    ends it (shown as text) and whether the span ended there."""

    chars: re.Pattern[str]
    """Matches a character that could start the span's end; a chunk without one is inside."""

    def scan(self, buf: str, *, final: bool) -> tuple[int, bool]: ...


def _first_chars(markers: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(sorted({re.escape(m[0]) for m in markers})) or "$^")


def _earliest(buf: str, markers: tuple[str, ...], end: int) -> int:
    """The first of ``markers`` that starts before ``end`` (-1: none); bounded, so a search
    never reads past the point that already decides."""
    best = -1
    for marker in markers:
        index = buf.find(marker, 0, end + len(marker) - 1)
        if 0 <= index < end and (best < 0 or index < best):
            best, end = index, index
    return best


class MarkerSpan:
    """Reasoning, ended by its closing tag (shown with it) or by the end of the message."""

    def __init__(self, end: str, terminators: tuple[str, ...]) -> None:
        self._end = end
        self._terminators = terminators
        self.chars = _first_chars((end, *terminators))

    def scan(self, buf: str, *, final: bool) -> tuple[int, bool]:
        end = buf.find(self._end)
        stop = _earliest(buf, self._terminators, len(buf) if end < 0 else end)
        if stop >= 0:
            return stop, True
        if end >= 0:
            return end + len(self._end), True
        if final:
            return len(buf), False
        return len(buf) - held_tail(buf, (self._end, *self._terminators)), False


class CodeSpan:
    """A code block (``run`` ≥ 3 backticks) or an inline code span (``run`` < 3)."""

    def __init__(self, run: int, terminators: tuple[str, ...]) -> None:
        self._run = run
        self._inline = run < 3
        self._terminators = terminators
        self.chars = _first_chars(
            ("`", "\n", *terminators) if self._inline else ("`", *terminators)
        )

    def scan(self, buf: str, *, final: bool) -> tuple[int, bool]:
        close, after = self._closing_run(buf, final=final)
        limit = _earliest(buf, self._terminators, len(buf) if close < 0 else close)
        if self._inline:
            blank = _BLANK_LINE.search(buf, 0, len(buf) if close < 0 else close + 1)
            if blank is not None and (limit < 0 or blank.start() < limit):
                limit = blank.start()
        if limit >= 0:
            return limit, True  # the message or the paragraph ended first
        if close >= 0:
            return (after, True) if after >= 0 else (close, False)
        if final:
            return len(buf), False
        keep = held_tail(buf, self._terminators)
        if self._inline:
            line = _OPEN_LINE.search(buf)
            if line is not None:
                keep = max(keep, len(buf) - line.start())
        return len(buf) - keep, False

    def _closing_run(self, buf: str, *, final: bool) -> tuple[int, int]:
        """Where the run that closes the span starts and ends; the end is -1 when the run
        reaches the end of ``buf`` and may go on; (-1, -1) when there is none yet."""
        index = buf.find("`")
        while index >= 0:
            after = _run_end(buf, index)
            if after == len(buf) and not final:
                return index, -1
            run = after - index
            if run == self._run or (not self._inline and run > self._run):
                return index, after
            index = buf.find("`", after)
        return -1, -1


def _run_end(buf: str, index: int) -> int:
    end = index
    while end < len(buf) and buf[end] == "`":
        end += 1
    return end


class Reasoned:
    """An end of reasoning with no start: the server's template opened the reasoning in the
    prompt (Qwen3 and DeepSeek-R1 thinking templates end it with ``<think>``), so everything
    before this marker was reasoning."""


REASONED = Reasoned()


def _thinking_tag(
    buf: str, start: str, close: str, end: int, *, ends: bool
) -> tuple[int, str] | None:
    """The first ``start`` (or, with ``ends``, ``close``) tag that starts before ``end``: one
    search for what both end with (``think>``) is cheaper than a search for each."""
    tail = start[1:]
    index = buf.find(tail, 1, end + len(tail))
    while index >= 0:
        if buf.startswith(start, index - 1):
            return index - 1, start
        if ends and index >= 2 and buf.startswith(close, index - 2):
            return index - 2, close
        index = buf.find(tail, index + 1, end + len(tail))
    return None


class SpanOpeners:
    """Finds where a span opens in text outside calls; ``terminators`` are the family's
    end-of-message markers, which end any span. One per turn."""

    markers = ("`", *(marker for pair in THINKING for marker in pair))
    """What opens a span, for holding back a chunk's tail that may still become one."""

    def __init__(self, terminators: tuple[str, ...]) -> None:
        self._terminators = terminators
        self._thought = False  # a reasoning span was opened or closed: no unmatched end now

    def find(
        self, buf: str, end: int, *, final: bool
    ) -> tuple[int, int, Span | Reasoned | None] | None:
        """The first span opening before ``end`` (where a call starts): (where, where its
        marker ends, the span); the span is ``REASONED`` for an end of reasoning with no start,
        None when a backtick run reaches the end of ``buf``: wait for more."""
        index = buf.find("`", 0, end)
        end = end if index < 0 else index
        best: tuple[int, int, Span | Reasoned] | None = None
        for start, close in THINKING:  # bounded: only before what was found already
            tag = _thinking_tag(buf, start, close, end, ends=not self._thought)
            if tag is not None:
                at, marker = tag
                span = MarkerSpan(close, self._terminators) if marker == start else REASONED
                best, end = (at, at + len(marker), span), at
        if best is not None:
            return best
        if index < 0:
            return None
        after = _run_end(buf, index)
        if after == len(buf) and not final:
            return index, after, None
        return index, after, CodeSpan(after - index, self._terminators)

    def entered(self, span: Span | Reasoned) -> None:
        """The parser took ``span``: once reasoning has started or ended, an end of
        reasoning is just text."""
        if not isinstance(span, CodeSpan):
            self._thought = True
