"""symbol_edit: change code by symbol — rename one across the code base, or replace a
definition whole — applied like apply_patch: every file planned first, one permission
judging every path, all written or none (``_patch_commit``), a diff per file, and the
diagnostics after edits.

A rename is the language server's (it follows imports and leaves same-named strangers and
strings alone); the server sees every file as it is on disk. A replaced definition is found
with tree-sitter, so it needs no server.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import BaseModel, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.tools._code import code_diagnostics
from toolbelt.tools._code_text import read_source
from toolbelt.tools._edit_result import ChangedPath, EditReport, edit_result
from toolbelt.tools._files import file_guard, resolve
from toolbelt.tools._patch_commit import commit
from toolbelt.tools._patch_plan import PatchPlan, kept_plan, plan_rewrites

__all__ = ["SymbolEditInput", "SymbolEditTool"]

START_WAIT = 60.0

DESCRIPTION = """\
Change code by symbol. `symbol` names a definition in `path`: `Class.method` for a method \
(`line`, where its definition starts, picks among same-named ones), or for `rename` any use \
of a name on `line` (or at `character`). `rename`: rename it to `new_name` everywhere it is \
used, across files, through the language server (imports and references follow; same-named \
other things and strings do not). `replace_body`: replace the whole definition (its \
`def`/`class`/`function` line to its last line; decorators above stay) with `body`, the \
complete new definition indented as in the file. `insert_before` / `insert_after`: put `body` \
before the definition (above its decorators) or after its last line. `safe_delete`: remove \
the definition, only if nothing else uses it (the language server finds the uses). All files \
change or none; the result shows each file's diff."""


class SymbolEditInput(ToolInput):
    """Arguments of `symbol_edit`."""

    operation: Literal["rename", "replace_body", "insert_before", "insert_after", "safe_delete"] = (
        Field(description="What to do.")
    )
    path: str = Field(description="The file where the symbol is (defined, for replace_body).")
    symbol: str = Field(description="The symbol's name (Class.method for replace_body).")
    line: int | None = Field(default=None, ge=1, description="1-based line of the symbol.")
    character: int | None = Field(default=None, ge=1, description="1-based column (rename).")
    new_name: str | None = Field(default=None, description="The new name (rename).")
    body: str | None = Field(default=None, description="The new definition, or the code to insert.")


class SymbolEditOutput(BaseModel):
    """Structured result of `symbol_edit`."""

    files: list[dict[str, Any]]


class SymbolEditTool(Tool[SymbolEditInput]):
    """Rename across files; replace a definition."""

    name = "symbol_edit"
    rule_family = "Edit"
    title = "Edit symbol"
    description = DESCRIPTION
    output_model = SymbolEditOutput
    example = {
        "operation": "rename",
        "path": "src/store.py",
        "symbol": "load",
        "line": 12,
        "new_name": "load_config",
    }

    async def access(self, args: SymbolEditInput, ctx: ToolContext) -> Access:
        plan = await _plan(args, ctx)
        ctx.scratch["symbol_edit"] = (args, plan)
        return plan.access(
            f"{args.operation} {args.symbol}: "
            + ", ".join(f"{c.shown} (+{c.change.added} -{c.change.removed})" for c in plan.changes)
        )

    async def run(self, args: SymbolEditInput, ctx: ToolContext) -> ToolOutput:
        plan = kept_plan(ctx, "symbol_edit", args) or await _plan(args, ctx)
        report = await anyio.to_thread.run_sync(_commit, ctx, args, plan)
        return await edit_result(ctx, report)


async def _plan(args: SymbolEditInput, ctx: ToolContext) -> PatchPlan:
    from toolbelt.tools._symbol_edits import definition_rewrite

    resolved = resolve(ctx, args.path)
    shown = file_guard(ctx).display(resolved.path)
    text = await anyio.to_thread.run_sync(read_source, ctx, resolved)
    if args.operation in ("replace_body", "insert_before", "insert_after"):
        if args.body is None:
            raise ToolError(f"{args.operation} needs `body`: the code to put in.")
        where = {"replace_body": "replace", "insert_before": "before", "insert_after": "after"}
        rewrite = definition_rewrite(
            resolved.path,
            text.encode(),
            args.symbol,
            args.line,
            args.body,
            shown=shown,
            where=where[args.operation],
        )
        rewrites = [(str(resolved.path), rewrite)]
    elif args.operation == "safe_delete":
        await _refuse_if_used(args, ctx, resolved.path, text, shown)
        rewrite = definition_rewrite(
            resolved.path, text.encode(), args.symbol, args.line, "", shown=shown, where="delete"
        )
        rewrites = [(str(resolved.path), rewrite)]
    else:
        if not args.new_name:
            raise ToolError("rename needs `new_name`.")
        rewrites = await _rename(args, ctx, resolved.path, text, shown)
    plan = await anyio.to_thread.run_sync(plan_rewrites, ctx, rewrites)
    if not plan.changes:
        raise ToolError(f"{args.operation} of {args.symbol!r} changes nothing.")
    return plan


async def _rename(
    args: SymbolEditInput, ctx: ToolContext, path: Path, text: str, shown: str
) -> list[tuple[str, Callable[[str], str]]]:
    from lsprotocol import types as lsp

    from toolbelt.tools._symbol_edits import workspace_edit_rewrites

    assert args.new_name is not None
    connection, position = await _server_at(args, ctx, path, text, shown, "Renaming")
    params = lsp.RenameParams(lsp.TextDocumentIdentifier(path.as_uri()), position, args.new_name)
    edit = await _ask_in_sync(
        connection, path, text, lambda: connection.client.text_document_rename_async(params)
    )
    if edit is None:
        raise ToolError(f"The server cannot rename {args.symbol!r} in {shown}.")
    return workspace_edit_rewrites(edit)


async def _ask_in_sync(
    connection: Any, path: Path, text: str, send: Callable[[], Awaitable[Any]]
) -> Any:
    """The answer to ``send``, asked once the server holds ``text`` as ``path``'s content and
    has settled on it (an edit computed on an older copy would be wrong), within
    ``START_WAIT``."""
    from toolbelt.lsp.languages import language_of

    with anyio.fail_after(START_WAIT):
        async with connection.checking:
            connection.sync(path, text, language_of(path) or "")
            await connection.settle(path)
            return await connection.request(send)


async def _server_at(
    args: SymbolEditInput, ctx: ToolContext, path: Path, text: str, shown: str, doing: str
) -> tuple[Any, Any]:
    """The server for ``path`` and the position of ``args.symbol`` in it: on ``line`` (or at
    ``character``), else at the name of its definition, found with tree-sitter."""
    from toolbelt.lsp.languages import language_of
    from toolbelt.lsp.queries import find_position
    from toolbelt.tools._symbol_edits import name_line

    language = language_of(path)
    servers = code_diagnostics(ctx.session).servers
    connection = None
    if language is not None:
        connection = await servers.ready(language, time.monotonic() + START_WAIT)
    if connection is None:
        raise ToolError(f"{doing} needs a language server for {shown}, and none is available.")
    name = re.split(r"[./]", args.symbol)[-1]
    line = args.line
    if line is None or args.operation == "safe_delete":
        line = name_line(path, text, args.symbol, args.line, shown=shown)
    position = find_position(text, line, args.character, name, shown=shown)
    return connection, position


async def _refuse_if_used(
    args: SymbolEditInput, ctx: ToolContext, path: Path, text: str, shown: str
) -> None:
    """A ``ToolError`` naming the uses of the definition outside itself, if any."""
    from lsprotocol import types as lsp

    from toolbelt.lsp.queries import locations
    from toolbelt.tools._symbol_edits import locate_definition

    target = locate_definition(path, text.encode(), args.symbol, args.line, shown=shown)
    connection, position = await _server_at(args, ctx, path, text, shown, "A safe delete")
    params = lsp.ReferenceParams(
        lsp.ReferenceContext(include_declaration=False),
        lsp.TextDocumentIdentifier(path.as_uri()),
        position,
    )
    answer = await _ask_in_sync(
        connection, path, text, lambda: connection.client.text_document_references_async(params)
    )
    lines = text.splitlines()
    uses = [
        place
        for place in locations(answer, lambda p: lines if p == path else [])
        if place.path != path or not target.line <= place.line <= target.end_line
    ]
    if uses:
        guard = file_guard(ctx)
        named = ", ".join(f"{guard.display(u.path)}:{u.line}" for u in uses[:10])
        more = f" and {len(uses) - 10} more" if len(uses) > 10 else ""
        raise ToolError(
            f"{args.symbol} is still used ({named}{more}), so it was not deleted; change "
            "those uses first, or remove it with replace_body if that is what you mean."
        )


def _commit(ctx: ToolContext, args: SymbolEditInput, plan: PatchPlan) -> EditReport:
    commit(ctx, plan.changes)
    files, lines = [], []
    verb = {"rename": "Renamed", "replace_body": "Replaced", "insert_before": "Inserted before",
            "insert_after": "Inserted after", "safe_delete": "Deleted"}[args.operation]  # fmt: skip
    what = f"{args.symbol} to {args.new_name}" if args.operation == "rename" else args.symbol
    lines.append(f"{verb} {what} in {len(plan.changes)} file{'s' * (len(plan.changes) != 1)}:")
    for change in plan.changes:
        ctx.diff(change.shown, change.change.unified, tuple(change.change.as_dicts()))
        quoted = change.quote
        lines.append(f"{change.change.unified.rstrip()}" if quoted else f"M {change.shown}")
        files.append(
            {
                "path": change.shown,
                "added": change.change.added,
                "removed": change.change.removed,
                "diff": change.change.unified if quoted else "",
            }
        )
    changed = tuple(ChangedPath(c.resolved.path, c.shown, c.before) for c in plan.changes)
    return EditReport(lines, {"files": files}, changed)
