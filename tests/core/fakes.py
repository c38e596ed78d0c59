"""Fake tools for executor tests: real code paths, controllable timing (the fake people —
requesters and users — are the public ones, ``toolbelt.testing``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
import anyio.lowlevel
from pydantic import Field

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.tool import Tool, ToolInput


class NoteInput(ToolInput):
    """Arguments of the fake tools."""

    label: str = Field(description="A label recorded in the trace.")
    count: int = Field(default=1, ge=1, description="A number with a default.")


@dataclass
class Trace:
    """What the fake tools saw: start/end order, and the most calls running at once."""

    events: list[str] = field(default_factory=list)
    active: int = 0
    max_active: int = 0
    started: int = 0
    all_started: anyio.Event = field(default_factory=anyio.Event)
    expected: int = 0

    def enter(self, label: str) -> None:
        self.events.append(f"start {label}")
        self.active += 1
        self.started += 1
        self.max_active = max(self.max_active, self.active)
        if self.expected and self.started >= self.expected:
            self.all_started.set()

    def leave(self, label: str) -> None:
        self.events.append(f"end {label}")
        self.active -= 1


class ReaderTool(Tool[NoteInput]):
    """Read-only; when ``trace.expected`` is set it waits until that many calls have started,
    which can only happen if they run concurrently (fail_after stops a hang)."""

    name = "reader"
    title = "Reader"
    description = "Reads something."
    input_model = NoteInput
    example = {"label": "a"}
    readonly = True

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    async def run(self, args: NoteInput, ctx: ToolContext) -> ToolOutput:
        self.trace.enter(args.label)
        try:
            if self.trace.expected:
                with anyio.fail_after(5):
                    await self.trace.all_started.wait()
            else:
                await anyio.lowlevel.checkpoint()
        finally:
            self.trace.leave(args.label)
        return ToolOutput.text(f"read {args.label}", {"label": args.label})


class WriterTool(Tool[NoteInput]):
    """Mutating, asks permission through the default policy, yields to let others interleave."""

    name = "writer"
    title = "Writer"
    description = "Writes something."
    input_model = NoteInput
    example = {"label": "a"}

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    async def access(self, args: NoteInput, ctx: ToolContext) -> Access:
        return Access(
            AccessKind.WRITE, paths=(ctx.root / args.label,), summary=f"write {args.label}"
        )

    async def run(self, args: NoteInput, ctx: ToolContext) -> ToolOutput:
        self.trace.enter(args.label)
        for _ in range(3):
            await anyio.lowlevel.checkpoint()
        self.trace.leave(args.label)
        return ToolOutput.text(f"wrote {args.label}")


class SlowTool(Tool[NoteInput]):
    """Runs until cancelled; records that its cleanup ran."""

    name = "slow"
    title = "Slow"
    description = "Never finishes on its own."
    input_model = NoteInput
    example = {"label": "a"}
    readonly = True

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.cleaned_up = False

    async def run(self, args: NoteInput, ctx: ToolContext) -> ToolOutput:
        try:
            self.started.set()
            await anyio.sleep_forever()
        finally:
            self.cleaned_up = True
        raise AssertionError("unreachable")


class BrokenTool(Tool[NoteInput]):
    """Raises: a ToolError when label is 'tool', otherwise a plain bug."""

    name = "broken"
    title = "Broken"
    description = "Fails."
    input_model = NoteInput
    example = {"label": "a"}
    readonly = True

    async def run(self, args: NoteInput, ctx: ToolContext) -> ToolOutput:
        if args.label == "tool":
            raise ToolError("The thing is missing; create it first.")
        if args.label == "result":
            return ToolOutput.text("Exit code 3", {"exit_code": 3}, is_error=True)
        raise ValueError("boom")
