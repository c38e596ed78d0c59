"""A command line judged for the permission policy: the analysis's verdict, its file
arguments resolved by the path guard, as a ``CommandAccess``.

``analysis`` says what the command reads, writes and runs as written; here the names are
expanded (globs, against the cwd) and resolved (symlinks followed, protections stamped), and
what only the resolved paths show is added to why the command is dangerous: a write outside
the workspace, a read of another process's secrets (``/proc/<pid>/environ``), more names than
can be judged one by one. Which sandbox profile the command runs in is the tool's to add
(``dataclasses.replace``): it depends on the session's sandbox, not on the command.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolbelt.commands.analysis import ShellAnalysis, analyze_command
from toolbelt.commands.process_secrets import process_secret_reason
from toolbelt.commands.walk import expand_globs
from toolbelt.core.access import CommandAccess
from toolbelt.paths.guard import PathGuard, ResolvedPath

__all__ = ["JudgedCommand", "judge_command"]


@dataclass(frozen=True, slots=True)
class JudgedCommand:
    """A command's ``CommandAccess`` (profile not yet chosen), the paths it writes and reads
    as the guard resolved them, and the analysis behind it."""

    access: CommandAccess
    written: tuple[ResolvedPath, ...]
    read: tuple[ResolvedPath, ...]
    analysis: ShellAnalysis


def judge_command(command: str, guard: PathGuard, cwd: Path) -> JudgedCommand:
    """Analyse ``command`` and resolve the files it names against ``cwd`` through ``guard``."""
    analysis = analyze_command(command)
    writes = expand_globs(analysis.write_targets, cwd)
    reads = expand_globs(analysis.read_targets, cwd)
    dangerous = list(analysis.dangerous)
    if writes is None or reads is None:  # more names than can be judged one by one
        dangerous.append("a glob in it matches more than 10,000 files")
    written = tuple(guard.resolve(t, cwd) for t in writes or ())
    read = tuple(guard.resolve(t, cwd) for t in reads or ())
    dangerous += [r for p in read if (r := process_secret_reason(str(p.path)))]
    dangerous += [f"writes outside the workspace ({w.path})" for w in written if not w.inside]
    if not analysis.parse_ok:
        dangerous.append("the command could not be parsed")
    access = CommandAccess(
        command,
        commands=tuple(c.text for c in analysis.commands) + analysis.hidden_code or (command,),
        runs=analysis.runs,
        reads=tuple(r.path for r in read),
        readonly=analysis.readonly,
        dangerous=tuple(dangerous),
    )
    return JudgedCommand(access, written, read, analysis)
