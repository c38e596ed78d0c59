"""The fast checkers used where no language server is: ruff, ``node --check``, ``bash -n``,
``gofmt -e``.

Each reads the file's text on stdin — the text before the edit and after it are checked the
same way, side by side, so what is new can be told from what was there — and its report is
read into ``Diagnostic``s. They run like servers (``spawn``: anchored, sandboxed, no network),
bounded by the caller's deadline; a checker that is not installed is simply not used. Only a
checker beside toolbelt (its environment's ``bin``) or on the PATH outside the workspace is
run: the workspace's own copies are not needed for a syntax check.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

from toolbelt.core.programs import program
from toolbelt.lsp.diagnostics import Diagnostic
from toolbelt.lsp.languages import CHECKERS, Checker
from toolbelt.lsp.spawn import end_process, spawn_process
from toolbelt.sandbox.sandbox import Sandbox

__all__ = ["checker_for", "run_checker"]


def checker_for(language: str) -> tuple[Checker, str] | None:
    """The checker for ``language`` and its program's path, if it is installed."""
    family = "javascript" if language.startswith("javascript") else language
    checker = CHECKERS.get(family)
    if checker is None:
        return None
    beside = Path(sys.prefix) / "bin" / checker.program
    if beside.is_file() and os.access(beside, os.X_OK):
        return checker, str(beside)
    found = program(checker.program)
    return None if found is None else (checker, found)


async def run_checker(
    checker: Checker, binary: str, path: Path, text: str, *, root: Path, sandbox: Sandbox | None
) -> list[Diagnostic]:
    """``checker``'s diagnostics for ``text`` (as the content of ``path``); the caller bounds
    the wait (cancelled, the checker's process tree is ended)."""
    args = [arg.replace("{path}", str(path)) for arg in checker.args]
    started = await spawn_process(
        [binary, *args],
        cwd=root,
        sandbox=sandbox,
        workspace_code=False,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await started.process.communicate(text.encode("utf-8", "surrogateescape"))
    finally:
        await end_process(started, grace=0.2)
    said = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    return _parse(checker.name, *said, source=text)


_NODE_LINE = re.compile(r"^\[stdin\]:(\d+)$", re.MULTILINE)
_NODE_ERROR = re.compile(r"^(\w*Error): (.*)$", re.MULTILINE)
_BASH = re.compile(r"line (\d+): (.*)$", re.MULTILINE)
_GOFMT = re.compile(r"^<standard input>:(\d+):(\d+): (.*)$", re.MULTILINE)


def _parse(name: str, out: str, err: str, *, source: str) -> list[Diagnostic]:
    if name == "ruff":
        entries = json.loads(out or "[]")
        cells = _cells(source) if any(e.get("cell") for e in entries) else []
        return [_ruff(entry, cells) for entry in entries]
    if name == "node":
        line, error = _NODE_LINE.search(err), _NODE_ERROR.search(err)
        if error is None:
            return []
        number = int(line.group(1)) if line else 1
        return [Diagnostic(number, 1, 1, error.group(1), error.group(2), "node --check")]
    if name == "bash":
        return [
            Diagnostic(int(m.group(1)), 1, 1, "", m.group(2), "bash -n")
            for m in _BASH.finditer(err)
        ]
    return [
        Diagnostic(int(m.group(1)), int(m.group(2)), 1, "", m.group(3), "gofmt -e")
        for m in _GOFMT.finditer(err)
    ]


def _ruff(entry: dict[str, object], cells: list[list[str]]) -> Diagnostic:
    location = entry.get("location")
    row = column = 1
    if isinstance(location, dict):
        row, column = int(location.get("row", 1)), int(location.get("column", 1))
    code = str(entry.get("code") or "syntax-error")
    message = str(entry.get("message", ""))
    cell = entry.get("cell")
    if not isinstance(cell, int):
        return Diagnostic(row, column, 1, code, message, "ruff")
    lines = cells[cell - 1] if 0 < cell <= len(cells) else []
    text = lines[row - 1] if 0 < row <= len(lines) else ""
    return Diagnostic(row, column, 1, code, message, "ruff", cell=cell, text=text)


def _cells(notebook: str) -> list[list[str]]:
    """Each cell's lines, in order (ruff numbers all cells, markdown ones too)."""
    try:
        cells = json.loads(notebook).get("cells", [])
    except (ValueError, AttributeError):
        return []
    found = []
    for cell in cells:
        source = cell.get("source", "") if isinstance(cell, dict) else ""
        found.append(("".join(source) if isinstance(source, list) else str(source)).splitlines())
    return found
