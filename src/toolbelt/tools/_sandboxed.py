"""The bash tool's side of the sandbox: the unconfined shell a user approved, and the note
that tells the model what the sandbox refused and how to proceed."""

from __future__ import annotations

import re

from toolbelt.commands.analysis import ShellAnalysis
from toolbelt.core.access import SandboxProfile
from toolbelt.core.context import ToolContext
from toolbelt.shell.environment import command_environment
from toolbelt.shell.session import ShellSession

__all__ = ["UnconfinedShell", "denial_note", "git_writes", "unconfined_shell"]

GIT_WRITES = frozenset(
    {"add", "am", "apply", "branch", "checkout", "cherry-pick", "commit", "merge", "mv",
     "notes", "rebase", "reset", "restore", "revert", "rm", "stash", "switch", "tag"}
)  # fmt: skip
"""git subcommands whose writes to ``.git/`` are the point: run in the git profile."""

# What a refused open, write, connect or socket looks like in a program's error output
_DENIED = re.compile(
    r"^.*(Permission denied|Operation not permitted|Read-only file system|Network is "
    r"unreachable|Could not resolve host|Temporary failure in name resolution).*$",
    re.MULTILINE,
)


class UnconfinedShell(ShellSession):
    """The shell for commands the user approved to run outside the sandbox.

    It keeps its own saved exports: the sandboxed shells' file is writable from inside the
    sandbox, and sourcing it here would run whatever a confined command wrote into it,
    unconfined. So it starts from the session's environment, not the sandboxed shell's."""

    state_name = "exports-unconfined.sh"


def unconfined_shell(ctx: ToolContext) -> ShellSession:
    """The session's unconfined shell (no sandbox), started on first use."""
    session = ctx.session
    return session.resource(
        UnconfinedShell,
        lambda: UnconfinedShell(session.cwd, command_environment(), session.id),
    )


def denial_note(output: str, *, profile: SandboxProfile) -> str | None:
    """A note for a failed sandboxed command whose output shows a refusal, else None."""
    found = _DENIED.search(output)
    if found is None:
        return None
    line = found.group(0).strip()[:300]
    if profile == "readonly":
        where = (
            "this command ran without a prompt in the read-only sandbox because it was judged "
            "read-only (no writes, no network; it reads only the workspace minus its .env "
            "files, the system and toolchain directories)"
        )
    elif profile == "create":
        where = (
            "this command ran without a prompt because it only creates files, in a sandbox "
            "where nothing that exists can be changed, emptied, renamed or deleted, with no "
            "network, reading only the workspace minus its .env files and the system and "
            "toolchain directories"
        )
    else:
        where = (
            "the sandbox allows writes only inside the workspace and not to protected paths "
            "such as .git/, hides the user's secrets and has no network"
        )
    return (
        f"The sandbox may have refused this ({line!r}): {where}. If the command really needs "
        'that, retry with "sandbox": false and a "justification"; the user will be asked.'
    )


def git_writes(analysis: ShellAnalysis) -> bool:
    """Every simple command is ``git SUBCOMMAND …`` writing the repository, with no option
    before the subcommand (``-c``, ``-C``, ``--git-dir`` would point git elsewhere)."""
    return bool(analysis.commands) and all(
        c.program == "git" and not c.dynamic and len(c.argv) > 1 and c.argv[1] in GIT_WRITES
        for c in analysis.commands
    )
