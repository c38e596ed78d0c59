"""Terminal output: rich colours for a person at a TTY, plain text for pipes and files.

Plain mode prints exactly what the model would see, so scripts and tests can compare it
byte for byte; rich is imported only when a TTY is attached (it costs ~0.1 s to import).
On a TTY, text that came from a tool, a file or an MCP server (results, tool titles and
descriptions, progress) is shown with its control characters escaped
(``escape_for_terminal``) and as plain ``Text``, never as rich markup, so it cannot move the
cursor, set the clipboard (OSC 52) or restyle the screen. The tool table escapes in both
modes: it is a listing for people (``--json`` has the exact strings). Progress shown while a
prompt waits for the person is held until it is answered (``terminal_owner``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TextIO

from toolbelt.core.events import CallState, Event, EventBus, ProgressEvent, StateEvent
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.terminal_text import escape_for_terminal

if TYPE_CHECKING:
    from toolbelt.core.tool import Tool

__all__ = ["Renderer"]

_MARK = {
    CallState.SUCCESS: "✓",
    CallState.ERROR: "✗",
    CallState.ABORTED: "⊘",
    CallState.NEEDS_INPUT: "?",
}


class Renderer:
    """Writes results, tool tables and progress to one stream, coloured when it is a TTY."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.rich = stream.isatty()

    @classmethod
    def for_stdout(cls) -> Renderer:
        """Renderer on standard output."""
        return cls(sys.stdout)

    @classmethod
    def for_stderr(cls) -> Renderer:
        """Renderer on standard error (progress and prompts)."""
        return cls(sys.stderr)

    def _console(self) -> Any:
        from rich.console import Console

        return Console(file=self.stream, highlight=False)

    def tool_table(self, tools: list[Tool[Any]]) -> None:
        """One row per tool: name, read-only or not, title."""
        if not self.rich:
            for tool in tools:
                kind = "read-only" if tool.readonly else "mutating"
                self.stream.write(
                    f"{escape_for_terminal(tool.name)}\t{kind}\t{escape_for_terminal(tool.title)}\n"
                )
            return
        from rich.table import Table
        from rich.text import Text

        table = Table(title="toolbelt tools", title_justify="left")
        table.add_column("name", style="bold cyan")
        table.add_column("kind")
        table.add_column("what it does")
        for tool in tools:
            kind = "[green]read-only[/]" if tool.readonly else "[yellow]mutating[/]"
            summary = tool.description.split(". ")[0].rstrip(".") + "."
            table.add_row(
                Text(escape_for_terminal(tool.name)), kind, Text(escape_for_terminal(summary))
            )
        self._console().print(table)

    def result(self, result: ToolCallResult) -> None:
        """The model-facing text of ``result``; with a status line and colours on a TTY."""
        text = result.text
        if not self.rich:
            self.stream.write(text if text.endswith("\n") else text + "\n")
            return
        from rich.syntax import Syntax
        from rich.text import Text

        console = self._console()
        style = {"success": "green", "error": "red", "aborted": "yellow"}[result.state.value]
        header = f"{_MARK[result.state]} {escape_for_terminal(result.tool)}"
        if result.error_kind:
            header += f" — {result.error_kind.replace('_', ' ')}"
        console.print(Text(f"{header}  ({result.duration * 1000:.1f} ms)", style=f"bold {style}"))
        structured = result.output.structured or {}
        diff = structured.get("diff")
        body = text
        if isinstance(diff, str) and diff:
            body = text.replace(diff, "").rstrip()
        console.print(Text(escape_for_terminal(body, newlines=True, tabs=True)))
        if isinstance(diff, str) and diff:
            shown = escape_for_terminal(diff, newlines=True, tabs=True)
            console.print(Syntax(shown, "diff", theme="ansi_dark", background_color="default"))

    def follow(self, events: EventBus) -> None:
        """Show progress and permission states of running calls (TTY only)."""
        if not self.rich:
            return

        from toolbelt.cli.terminal_owner import terminal_owner

        owner = terminal_owner()

        def write(text: str) -> None:
            self.stream.write(text)
            self.stream.flush()

        def show(event: Event) -> None:
            text = ""
            if isinstance(event, ProgressEvent):
                text = f"\x1b[2m… {escape_for_terminal(event.message)}\x1b[0m\n"
            elif isinstance(event, StateEvent) and event.state is CallState.PERMISSION_REQUIRED:
                detail = escape_for_terminal(event.detail or "")
                text = f"\x1b[33m? {escape_for_terminal(event.tool)}: {detail}\x1b[0m\n"
            if text:  # a server's progress during its own form waits for the form's answer
                owner.show(lambda: write(text))

        events.subscribe(show)
