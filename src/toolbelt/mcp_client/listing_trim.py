"""A remote server's tool list cut to ``MAX_TOOLS`` before the SDK reads it.

The SDK validates a ``tools/list`` answer three times over on the event loop (the transport's
JSON-RPC parse, the revision's result schema, the result model): about 1.5 s for 20,000 small
tools and 7 s for 100,000, during which every other server and call in the process waits, and
the start-up timeout cannot fire. Moving that into a thread would not help: the parsers are C
code holding the GIL. So the HTTP client (``http_limits``) hands the raw answer to a
``tools/list`` request — a JSON body, or the events of a stream — to ``trimmed_listing``, in a
worker thread, which keeps the first ``MAX_TOOLS`` tools and notes how many were left out, and
the first ``MAX_NAMED`` of their names, under ``LEFT_OUT`` in the result's ``_meta``
(``tool_listing.Listing`` tells the user). It reads the list one tool at a time, so the GIL
passes to the event loop between tools; what the SDK then reads is small. A stdio server's
list is still read whole by the SDK, and cut after.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["LEFT_OUT", "MAX_NAMED", "MAX_TOOLS", "trimmed_events", "trimmed_listing"]

MAX_TOOLS = 1000
"""Tools taken from one server at the most (past a few hundred, tool search serves them)."""
MAX_NAMED = 20
"""Tools left out past ``MAX_TOOLS`` that the note about them names."""

LEFT_OUT = "io.toolbelt/leftOut"
"""``_meta`` key of a trimmed listing: ``{"count": N, "names": [...]}``."""


def trimmed_listing(body: bytes) -> bytes:
    """``body`` (a JSON-RPC answer to ``tools/list``) with at most ``MAX_TOOLS`` tools; as it
    was when it has no more, or is not such an answer (the SDK reports what is wrong).

    The tools are read one at a time (``_Walk``), so the thread that trims lets go of the GIL
    between them: parsing 13 MB at once held it, and the event loop, for over a second."""
    try:
        text = body.decode("utf-8")
        walk = _Walk(text)
        cut = walk.tools_cut()
    except (ValueError, RecursionError, IndexError):
        return _parsed_whole(body)
    if cut is None:
        return body
    return cut.encode()


def _parsed_whole(body: bytes) -> bytes:
    """The same, by parsing everything (an answer the walk cannot follow)."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return body
    if not _trim(message):
        return body
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()


_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"


class _Walk:
    """Finds ``result.tools`` in the raw text of a message and cuts it, decoding one value at
    a time (each ``raw_decode`` is short, and the GIL may pass between them)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def _space(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in _SPACE:
            self.at += 1

    def _expect(self, char: str) -> None:
        self._space()
        if self.text[self.at] != char:
            raise ValueError(f"expected {char!r} at {self.at}")
        self.at += 1

    def _value(self) -> object:
        self._space()
        value, self.at = _DECODER.raw_decode(self.text, self.at)
        return value

    def tools_cut(self) -> str | None:
        """The message with ``result.tools`` cut to ``MAX_TOOLS``; None when it has no more
        (or no such list); ``ValueError`` when the walk cannot follow it."""
        self._expect("{")
        if not self._to_key("result"):
            return None
        self._expect("{")
        result_open = self.at
        if not self._to_key("tools", refuse="_meta"):
            return None
        self._expect("[")
        array_open = self.at
        kept_end, count = array_open, 0
        names: list[object] = []
        self._space()
        if self.text[self.at] == "]":
            return None
        while True:
            tool = self._value()
            count += 1
            if count == MAX_TOOLS:
                kept_end = self.at
            elif count > MAX_TOOLS and len(names) < MAX_NAMED and isinstance(tool, dict):
                names.append(tool.get("name"))
            self._space()
            if self.text[self.at] == "]":
                break
            self._expect(",")
        array_close = self.at
        if count <= MAX_TOOLS:
            return None
        self.at += 1
        self._space()
        if self.text[self.at] == ",":  # the members after the list: none may be _meta
            self.at += 1
            self._to_key(None, refuse="_meta")
        left_out = json.dumps({"count": count - MAX_TOOLS, "names": names}, ensure_ascii=False)
        meta = f'"_meta":{{{json.dumps(LEFT_OUT)}:{left_out}}},'
        return "".join(
            (
                self.text[:result_open],
                meta,
                self.text[result_open:kept_end],
                self.text[array_close:],
            )
        )

    def _to_key(self, wanted: str | None, *, refuse: str = "") -> bool:
        """Move to the value of ``wanted`` in the object whose members start here (None: to
        its end); ``ValueError`` on meeting the key ``refuse`` (a result's own ``_meta``:
        then the whole parse merges the note into it)."""
        while True:
            self._space()
            if self.text[self.at] == "}":
                return False
            key = self._value()
            if key == refuse:
                raise ValueError(f"the object has {refuse!r}: parse it whole")
            self._expect(":")
            if key == wanted:
                self._space()
                return True
            self._value()
            self._space()
            if self.text[self.at] == ",":
                self.at += 1


def trimmed_events(body: bytes) -> bytes:
    """An event stream's bytes with every ``message`` event's listing trimmed."""
    events = body.replace(b"\r\n", b"\n").split(b"\n\n")
    return b"\n\n".join(_trimmed_event(event) for event in events)


def _trimmed_event(event: bytes) -> bytes:
    lines = event.split(b"\n")
    data = [line[5:].removeprefix(b" ") for line in lines if line.startswith(b"data:")]
    if not data:
        return event
    trimmed = trimmed_listing(b"\n".join(data))
    kept = [line for line in lines if not line.startswith(b"data:")]
    return b"\n".join([*kept, b"data: " + trimmed.replace(b"\n", b"")])


def _trim(message: Any) -> bool:
    result = message.get("result") if isinstance(message, dict) else None
    if not isinstance(result, dict):
        return False
    tools = result.get("tools")
    if not isinstance(tools, list) or len(tools) <= MAX_TOOLS:
        return False
    rest = tools[MAX_TOOLS:]
    names = [tool.get("name") for tool in rest[:MAX_NAMED] if isinstance(tool, dict)]
    meta = result.get("_meta")
    left_out = {"count": len(rest), "names": names}
    result["_meta"] = {**(meta if isinstance(meta, dict) else {}), LEFT_OUT: left_out}
    result["tools"] = tools[:MAX_TOOLS]
    return True
