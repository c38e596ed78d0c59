"""The streaming parser: model text in (chunks split anywhere), visible text and calls out.

Outside a call, text is passed on as soon as it cannot be the start of a call marker: only a
suffix that is a prefix of some marker is held back, so the UI never shows half a tag and
never waits longer than a marker's length. Inside a call, the family's closer decides where it
ends and the family parses it; ``turn_calls`` makes calls of what it parsed (values coerced by
the tool's schema). Bytes may be fed too: they are decoded incrementally, so a chunk may end
inside a multi-byte character (the DeepSeek markers are full-width). ``finish`` reports a call
the stream cut off as truncated — it is never returned as a runnable call.

Mention is not use: call markup inside a code block, an inline code span or reasoning
(``<think>``) is text, not a call (``spans``); when the template opened the reasoning in the
prompt, calls before its closing ``</think>`` are answered as not run.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Mapping

from toolbelt.core.schema import JsonSchema
from toolbelt.providers.model import TextDelta
from toolbelt.providers.textcalls.call_ids import new_call_id
from toolbelt.providers.textcalls.closers import Closer
from toolbelt.providers.textcalls.family import Family, Opener
from toolbelt.providers.textcalls.markers import Markers
from toolbelt.providers.textcalls.spans import Reasoned, Span, SpanOpeners
from toolbelt.providers.textcalls.turn_calls import ParseEvent, TurnCalls

__all__ = ["ParseEvent", "TextCallParser", "new_call_id"]


_NAME_WINDOW = 512
"""A call block's tool name comes within its first characters, or not early at all."""


class TextCallParser:
    """Parses one assistant turn of ``family`` text; make a new one per turn."""

    def __init__(
        self,
        family: Family,
        schemas: Mapping[str, JsonSchema] | None = None,
        *,
        new_id: Callable[[], str] = new_call_id,
    ) -> None:
        self.family = family
        self._turn = TurnCalls(family.shape, schemas or {}, new_id)
        self._markers = Markers(family)
        self._at_start = self._markers.at_start
        self._spans = SpanOpeners(self._markers.terminators)
        self._span: Span | None = None  # quoted or reasoning text: no call is read in it
        self._marker_char = self._markers.marker_char
        self._decoder: codecs.IncrementalDecoder | None = None  # made when bytes arrive
        self._buf = ""
        self._opener: Opener | None = None
        self._closer: Closer | None = None
        self._blank_so_far = True
        self._looking = False  # still looking for the open block's tool name
        self._text: list[str] = []
        self.calls = self._turn.calls
        self.invalid = self._turn.invalid

    @property
    def text(self) -> str:
        """The visible text so far."""
        return "".join(self._text)

    def feed(self, chunk: str | bytes) -> list[ParseEvent]:
        """Take the next piece of model output; returns what became known."""
        if isinstance(chunk, bytes):
            if self._decoder is None:
                self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
            chunk = self._decoder.decode(chunk)
        events: list[ParseEvent] = []
        if self._closer is not None and self._opener is not None:
            buf = self._buf
            self._buf = ""
            buf += chunk  # a local with one reference grows in place: linear in the call's size
            if self._looking:
                self._announce(buf, events)
            found = self._closer.scan(buf, final=False)
            if found is None:  # inside a call, only its closer needs to look
                self._buf = buf
                return events
            buf = self._close(buf, found, events)
        elif not self._buf and self._plain(chunk):
            if chunk:  # the common case: prose with nothing marker-like
                self._text.append(chunk)
                events.append(TextDelta(chunk))
            return events
        else:
            buf = self._buf + chunk
        self._buf = self._drain(buf, events, final=False)
        return events

    def _plain(self, chunk: str) -> bool:
        if self._span is not None:
            return self._span.chars.search(chunk) is None
        if self._blank_so_far:
            if self._at_start or not chunk.strip():
                return False
            self._blank_so_far = False
        return self._marker_char.search(chunk) is None

    def finish(self, *, natural_stop: bool = False) -> list[ParseEvent]:
        """The stream ended. A call left open was cut off by the token limit — unless the
        model stopped by itself (``natural_stop``: end of sequence or a stop string): then the
        missing closing marker is forgiven, and what it wrote is read as a call or, when it
        does not parse, answered with the correction for a malformed call."""
        events: list[ParseEvent] = []
        rest = self._decoder.decode(b"", final=True) if self._decoder is not None else ""
        buf = self._drain(self._buf + rest, events, final=True)
        self._buf = ""
        if self._opener is not None:
            opener, self._opener, self._closer = self._opener, None, None
            raw = buf if opener.at_start else opener.marker + buf
            items = opener.parse(buf) if natural_stop else []
            if items:
                self._turn.emit(items, raw, events, self._show)
            else:
                self._turn.truncated(opener.name_hint(buf), raw, events)
            self._turn.block_ended()
            self._looking = False
        return events

    def _drain(self, buf: str, events: list[ParseEvent], *, final: bool) -> str:
        # The next call marker, counted from the end: ``buf`` only loses its front here, so one
        # search serves every span before it (None: there is none; -1: not searched yet).
        ahead: tuple[int, Opener] | int | None = -1
        while True:
            if self._closer is None or self._opener is None:
                if not buf:
                    return buf
                if self._span is not None:
                    quoted, closed = self._span.scan(buf, final=final)
                    self._show(buf[:quoted], events)
                    buf = buf[quoted:]
                    if not closed:
                        return buf
                    self._span = None
                    continue
                if isinstance(ahead, tuple) and ahead[0] <= len(buf):
                    found = (len(buf) - ahead[0], ahead[1])
                elif ahead is None:
                    found = None
                else:  # not searched yet, or the marker found was inside quoted text
                    found = self._markers.find_opener(buf, blank_so_far=self._blank_so_far)
                    ahead = None if found is None else (len(buf) - found[0], found[1])
                span = self._spans.find(buf, len(buf) if found is None else found[0], final=final)
                if span is not None:
                    rest = self._enter(buf, span, events)
                    if rest is None:  # a run of backticks that may go on
                        return buf[span[0] :]
                    buf = rest
                    continue
                if found is None:
                    keep = 0
                    if not final:  # a tail that may still grow into a marker waits
                        keep = self._markers.holdback(buf, blank_so_far=self._blank_so_far)
                    self._show(buf[: len(buf) - keep], events)
                    return buf[len(buf) - keep :]
                index, opener = found
                ahead = -1
                self._show(buf[:index], events)
                buf = buf[index:] if opener.at_start else buf[index + len(opener.marker) :]
                self._opener, self._closer = opener, opener.closer()
                self._looking = opener.early is not None
                continue
            if self._looking:
                self._announce(buf, events)
            end = self._closer.scan(buf, final=final)
            if end is None:
                return buf
            buf = self._close(buf, end, events)

    def _enter(
        self, buf: str, span: tuple[int, int, Span | Reasoned | None], events: list[ParseEvent]
    ) -> str | None:
        """Show the text up to and with a span's opening; the text after it, or None when
        the opening is not complete yet."""
        index, marker_end, entered = span
        if entered is None:
            self._show(buf[:index], events)
            return None
        self._spans.entered(entered)
        self._show(buf[:marker_end], events)
        if isinstance(entered, Reasoned):
            self._turn.retract(buf[index:marker_end])
        else:
            self._span = entered
        return buf[marker_end:]

    def _announce(self, buf: str, events: list[ParseEvent]) -> None:
        """Announce the block's first call as soon as its name is complete (UIs show it while
        the arguments stream); give up once the block is longer than any name prefix."""
        assert self._opener is not None
        assert self._opener.early is not None
        match = self._opener.early.match(buf, 0, _NAME_WINDOW)
        if match is None:
            self._looking = len(buf) < _NAME_WINDOW
            return
        self._looking = False
        groups = match.groupdict()
        name = groups.get("name") or groups.get("alt") or ""
        events.append(self._turn.announce(groups.get("id"), name))

    def _close(self, buf: str, found: tuple[int, int], events: list[ParseEvent]) -> str:
        """Parse the block that ends at ``found``; returns the text after it."""
        assert self._opener is not None
        body_end, consumed = found
        opener = self._opener
        self._opener, self._closer = None, None
        marker = "" if opener.at_start else opener.marker
        self._turn.emit(opener.parse(buf[:body_end]), marker + buf[:consumed], events, self._show)
        self._turn.block_ended()
        self._looking = False
        return buf[consumed:]

    def _show(self, text: str, events: list[ParseEvent]) -> None:
        if text:
            self._text.append(text)
            if self._blank_so_far:
                self._blank_so_far = not text.strip()
            events.append(TextDelta(text))
