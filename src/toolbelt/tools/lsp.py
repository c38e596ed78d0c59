"""lsp: ask the language server what the code means — where a name is defined, who uses it,
what implements it, its type, a file's symbols, a file's problems. Read-only.

The same servers as the diagnostics after edits (``lsp.servers``: one per language, started
once per session, sandboxed). The file is sent to the server as it is on disk before each
question. Answers name places as ``path:line:column: the line's text``; a place in a file this
call may not show (read-denied, ``.env``, outside the workspace) is counted, not quoted.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import BaseModel, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.tools._code import code_diagnostics
from toolbelt.tools._code_map import repo_map_result
from toolbelt.tools._code_search import find_definitions
from toolbelt.tools._code_text import FileLines, place_lines, read_source
from toolbelt.tools._files import file_guard, read_access, resolve
from toolbelt.tools._outline import can_outline, outline_result

__all__ = ["LspInput", "LspTool"]

Operation = Literal[
    "definition", "references", "implementations", "hover", "symbols", "diagnostics"
]
POSITIONED = ("definition", "references", "implementations", "hover")
START_WAIT = 60.0
"""Seconds a question waits for its server to start (a cold one takes a few)."""
ANSWER_WAIT = 60.0

DESCRIPTION = """\
Ask the language server about code (read-only). Operations: `definition`, `references`, \
`implementations` and `hover` take `path` and `symbol` — a definition's name there \
(`Class.method` for a method), or with a 1-based `line` the name as it appears on that line \
(or `character`, a 1-based column); `symbols` lists a file's classes, \
functions and methods with their line ranges (`path` a file); with `path` a directory it maps \
the most used definitions there (ranked by how many files use them, `max_tokens` long), or \
with `symbol` searches the workspace for definitions by name; `diagnostics` lists a file's \
current errors and warnings. Answers give `path:line:column: text`. Prefer this to grep \
when you need where a name is really defined or used (it follows imports and ignores \
same-named strangers)."""


class LspInput(ToolInput):
    """Arguments of `lsp`."""

    operation: Operation = Field(description="What to ask.")
    path: str = Field(description="The file asked about (a directory for `symbols`).")
    line: int | None = Field(default=None, ge=1, description="1-based line of the symbol.")
    character: int | None = Field(default=None, ge=1, description="1-based column on the line.")
    symbol: str | None = Field(
        default=None, description="The symbol's name: on `line`, or searched for by `symbols`."
    )
    max_tokens: int = Field(
        default=2048, ge=256, le=32_768, description="Size of a directory's symbol map."
    )


class LspOutput(BaseModel):
    """Structured result of `lsp`."""

    operation: str
    server: str
    places: list[dict[str, Any]] = Field(default_factory=list)
    text: str = ""


class LspTool(Tool[LspInput]):
    """Definitions, references, implementations, hover, symbols and diagnostics."""

    name = "lsp"
    title = "Language server"
    description = DESCRIPTION
    output_model = LspOutput
    example = {"operation": "references", "path": "src/app.py", "line": 12, "symbol": "load"}
    hints = ToolHints.READ_ONLY

    async def access(self, args: LspInput, ctx: ToolContext) -> Access:
        return read_access(ctx, args.path, f"lsp {args.operation} {args.path}")

    async def run(self, args: LspInput, ctx: ToolContext) -> ToolOutput:
        from toolbelt.lsp.languages import language_of

        resolved = resolve(ctx, args.path)
        shown = file_guard(ctx).display(resolved.path)
        if args.operation in POSITIONED and args.line is None and not args.symbol:
            raise ToolError(
                f"{args.operation} needs `symbol` (a definition's name, Class.method for a "
                "method) or `line` (and `symbol` or `character` on it)."
            )
        if await anyio.to_thread.run_sync(resolved.path.is_dir):
            if args.operation != "symbols":
                raise ToolError(
                    f"{shown} is a directory: {args.operation} asks about a file (`symbols` "
                    "maps a directory, or with `symbol` finds definitions by name in it)."
                )
            if args.symbol:
                return await find_definitions(ctx, resolved.path, args.symbol)
            return await repo_map_result(ctx, resolved.path, args.max_tokens)
        if args.operation == "symbols" and can_outline(resolved.path):  # structure: no server
            data = (await anyio.to_thread.run_sync(read_source, ctx, resolved)).encode()
            outlined = outline_result(resolved.path, data, shown, over_budget=None)
            definitions = (outlined.structured or {}).get("definitions", [])
            structured = {"operation": "symbols", "server": "tree-sitter", "places": definitions}
            return ToolOutput.text(outlined.text_content, structured)
        language = language_of(resolved.path)
        if language is None or args.operation == "symbols":
            raise ToolError(f"No language server knows {shown}'s kind of file.")
        servers = code_diagnostics(ctx.session).servers
        connection = await servers.ready(language, time.monotonic() + START_WAIT)
        if connection is None:
            missing = servers.discovery(language).skipped or (
                f"no language server for {language} is installed or it could not start"
            )
            raise ToolError(f"The lsp tool cannot answer for {shown}: {missing}.")
        lines = FileLines(ctx)
        text = await anyio.to_thread.run_sync(read_source, ctx, resolved)
        lines.seed(resolved.path, text)
        if args.operation in POSITIONED and args.line is None and args.symbol:
            from toolbelt.tools._symbol_edits import name_line

            line = name_line(resolved.path, text, args.symbol, None, shown=shown)
            args = args.model_copy(
                update={"line": line, "symbol": re.split(r"[./]", args.symbol)[-1]}
            )
        with anyio.fail_after(ANSWER_WAIT):
            async with connection.checking:
                connection.sync(resolved.path, text, language)
                await connection.settle(resolved.path)
                answer = await _ask(connection, args, resolved.path, text, shown)
        said, places = await anyio.to_thread.run_sync(
            _render, args, answer, lines, shown, connection.name
        )
        structured = {
            "operation": args.operation,
            "server": connection.name,
            "places": places,
            "text": said if args.operation == "hover" else "",
        }
        return ToolOutput.text(said, structured)


async def _ask(connection: Any, args: LspInput, path: Path, text: str, shown: str) -> Any:
    from lsprotocol import types as lsp

    from toolbelt.lsp import queries

    client = connection.client
    doc = lsp.TextDocumentIdentifier(path.as_uri())
    if args.operation == "diagnostics":
        return await connection.diagnostics(path)
    assert args.line is not None
    position = queries.find_position(text, args.line, args.character, args.symbol, shown=shown)
    if args.operation == "definition":
        params = lsp.DefinitionParams(doc, position)
        return await connection.request(lambda: client.text_document_definition_async(params))
    if args.operation == "implementations":
        impl = lsp.ImplementationParams(doc, position)
        return await connection.request(lambda: client.text_document_implementation_async(impl))
    if args.operation == "hover":
        hover = lsp.HoverParams(doc, position)
        return await connection.request(lambda: client.text_document_hover_async(hover))
    refs = lsp.ReferenceParams(lsp.ReferenceContext(include_declaration=True), doc, position)
    return await connection.request(lambda: client.text_document_references_async(refs))


def _render(
    args: LspInput, answer: Any, lines: FileLines, shown: str, server: str
) -> tuple[str, list[dict[str, Any]]]:
    from toolbelt.lsp import queries
    from toolbelt.lsp.diagnostics import Diagnostic
    from toolbelt.lsp.service import from_lsp

    what = f"{args.symbol or 'the symbol'} ({shown}:{args.line})"
    if args.operation == "hover":
        text = queries.hover_text(answer)
        return (text or f"The server has nothing to say about {what}."), []
    if args.operation == "diagnostics":
        found = from_lsp(answer, lines.text(lines.first), server)
        found.sort(key=lambda d: (d.severity, d.line, d.column))
        if not found:
            return f"No diagnostics in {shown} ({server}).", []
        head = f"{len(found)} diagnostics in {shown} ({server}), errors first:"
        shown_items: list[Diagnostic] = found[:50]
        more = [f"… and {len(found) - 50} more."] if len(found) > 50 else []
        body = [f"  {d.shown(shown)}" for d in shown_items]
        return "\n".join([head, *body, *more]), [d.as_dict(shown) for d in shown_items]
    places = queries.locations(answer, lines.lines)
    label = {"definition": "Definition", "references": "References",
             "implementations": "Implementations"}[args.operation]  # fmt: skip
    return place_lines(
        [(p.path, p.line, p.column, None) for p in places],
        lines,
        f"{label} of {what}",
        none=f"The server found no {args.operation} for {what} ({server}).",
    )
