"""What an edit changed in what the tools say about the code: new problems, fixed ones.

A diagnostic is new when the file did not have it before the edit, told apart by what it says
(severity, rule, message) and the text of the line it is on — not by its line number, which
every line inserted above it moves. So a problem the file already had is not reported again
because the edit shifted it, and one the edit removed is named as fixed. Errors come first,
then warnings; information and hints are left out (a model acts on what breaks). The list is
capped: a file full of errors shows the first few and says how many more there are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["MAX_SHOWN", "Diagnostic", "Outcome", "compare", "render"]

MAX_SHOWN = 10
"""Diagnostics shown per result, new and fixed each."""

_SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem a server or checker reported, in toolbelt's terms (1-based positions)."""

    line: int
    column: int
    severity: int
    """1 error, 2 warning, 3 information, 4 hint (LSP's numbers)."""
    code: str
    message: str
    source: str
    cell: int | None = None
    """The notebook cell (1-based, as ruff counts) ``line`` is in, for a notebook."""
    text: str | None = None
    """The line's text where it is not the file's own line ``line`` (a notebook's cell)."""

    @property
    def severity_name(self) -> str:
        return _SEVERITIES.get(self.severity, "error")

    def shown(self, label: str) -> str:
        code = f" [{self.code}]" if self.code else ""
        message = " ".join(self.message.split())
        where = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{label}:{where}{self.line}:{self.column}: {self.severity_name}{code} {message}"

    def as_dict(self, label: str) -> dict[str, object]:
        return {
            "path": label,
            "line": self.line,
            "column": self.column,
            "cell": self.cell,
            "severity": self.severity_name,
            "code": self.code,
            "message": self.message,
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one file's edit did to its diagnostics."""

    label: str
    """The path as the model knows it."""
    source: str
    """The server or checker that said so."""
    new: tuple[Diagnostic, ...]
    fixed: tuple[Diagnostic, ...]


def _key(diagnostic: Diagnostic, lines: Sequence[str]) -> tuple[object, ...]:
    at = diagnostic.line - 1
    text = lines[at] if 0 <= at < len(lines) else ""
    if diagnostic.text is not None:
        text = diagnostic.text
    return (diagnostic.severity, diagnostic.code, diagnostic.message, text.strip())


def _relevant(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return sorted(
        (d for d in diagnostics if d.severity <= 2),
        key=lambda d: (d.severity, d.line, d.column),
    )


def compare(
    before: Iterable[Diagnostic] | None,
    after: Iterable[Diagnostic],
    before_text: str | None,
    after_text: str,
    *,
    label: str,
    source: str,
) -> Outcome:
    """The diagnostics ``after`` has that ``before`` had not, and those it lost.

    ``before`` None (a new file) counts every diagnostic as new."""
    old = _relevant(before or ())
    now = _relevant(after)
    old_lines = (before_text or "").splitlines()
    new_lines = after_text.splitlines()
    remaining = Counter(_key(d, old_lines) for d in old)
    new: list[Diagnostic] = []
    for diagnostic in now:
        key = _key(diagnostic, new_lines)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            new.append(diagnostic)
    current = Counter(_key(d, new_lines) for d in now)
    fixed: list[Diagnostic] = []
    for diagnostic in old:
        key = _key(diagnostic, old_lines)
        if current[key] > 0:
            current[key] -= 1
        else:
            fixed.append(diagnostic)
    return Outcome(label, source, tuple(new), tuple(fixed))


def render(outcomes: Sequence[Outcome]) -> list[str]:
    """The lines the result says, errors first and capped."""
    lines: list[str] = []
    for outcome in outcomes:
        if not outcome.new and not outcome.fixed:
            lines.append(f"No new diagnostics in {outcome.label} ({outcome.source}).")
            continue
        if outcome.new:
            errors = sum(1 for d in outcome.new if d.severity == 1)
            counts = _counts(len(outcome.new), errors)
            lines.append(f"New diagnostics in {outcome.label} ({outcome.source}): {counts}")
            lines += [f"  {d.shown(outcome.label)}" for d in outcome.new[:MAX_SHOWN]]
            if len(outcome.new) > MAX_SHOWN:
                lines.append(f"  … and {len(outcome.new) - MAX_SHOWN} more.")
        if outcome.fixed:
            lines.append(f"Fixed in {outcome.label} (no longer reported):")
            lines += [f"  {d.shown(outcome.label)}" for d in outcome.fixed[:MAX_SHOWN]]
            if len(outcome.fixed) > MAX_SHOWN:
                lines.append(f"  … and {len(outcome.fixed) - MAX_SHOWN} more.")
        if not outcome.new:
            lines.append(f"No new diagnostics in {outcome.label} ({outcome.source}).")
    return lines


def _counts(total: int, errors: int) -> str:
    warnings = total - errors
    parts = [f"{errors} error{'s' * (errors != 1)}" if errors else ""]
    parts.append(f"{warnings} warning{'s' * (warnings != 1)}" if warnings else "")
    return ", ".join(p for p in parts if p)
