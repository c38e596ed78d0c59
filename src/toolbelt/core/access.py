"""What a tool call touches, as the tool declares it, for the permission policy to judge.

A tool knows what its arguments mean (``path`` is a file to write, ``command`` is shell), the
policy knows what the user allows. ``Access`` is the hand-over between the two: resolved paths,
the command, the URL, and a preview (a diff for writes) that a prompt can show the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal

__all__ = ["Access", "AccessKind", "Protection"]


@dataclass(frozen=True, slots=True)
class Protection:
    """Why a path is protected even inside the workspace, as the path guard found it.

    ``kind`` says what the protection covers: ``secret`` files (``.env``) ask before they are
    read or written, ``code`` (``.git/``, ``.vscode/``, ``.envrc``, shell start-up files) asks
    before it is written. ``path`` is the real path the protection was found for — by its
    name as written or by where it resolves.
    """

    kind: Literal["secret", "code"]
    reason: str
    path: Path


class AccessKind(StrEnum):
    """The kind of effect a call has; the policy's modes are written in these terms."""

    NONE = "none"
    """Touches nothing outside the session's own state (think, todo lists)."""
    READ = "read"
    """Reads files or lists directories."""
    WRITE = "write"
    """Creates, changes or deletes files."""
    EXECUTE = "execute"
    """Runs a command or a program."""
    NETWORK = "network"
    """Reaches a host over the network."""
    INTERACT = "interact"
    """Asks the person at the keyboard something."""


@dataclass(frozen=True, slots=True)
class Access:
    """The effect of one call: kind, resolved paths, command, URL and a preview for prompts."""

    kind: AccessKind
    paths: tuple[Path, ...] = ()
    """Real (resolved) paths the call reads or writes; the policy judges these, not raw text."""
    command: str | None = None
    """The shell command as the model wrote it."""
    url: str | None = None
    preview: str | None = None
    """What a prompt shows the user before approving: a diff for writes."""
    summary: str = ""
    """One line for prompts and logs, e.g. "write src/app.py (+3 -1)"."""
    commands: tuple[str, ...] = ()
    """Every simple command inside ``command`` (for per-command rule matching)."""
    readonly_command: bool = False
    """The command analysis found only read-only programs and no writing redirection."""
    dangerous: tuple[str, ...] = ()
    """Why the command is dangerous (rm, git push, curl | sh ...); such calls always ask."""
    sandboxed: bool = False
    """The command runs in an OS sandbox with the network off: whatever it is, it can write
    only inside the workspace (protected paths excepted), so it needs no prompt for that."""
    outside_sandbox: str | None = None
    """The model asks to run the command unconfined, for this reason: always asks the user,
    and the answer is never remembered."""
    reads: tuple[Path, ...] = ()
    """Real paths a read-only command reads (``cat``, ``grep``, ``ls`` arguments): judged as
    reads — outside the workspace they ask, read rules and protected ``.env`` files apply."""
    protections: tuple[Protection, ...] = ()
    """What the path guard found protected among ``paths`` and ``reads`` (``protections_of``)."""
    runs: tuple[str, ...] = ()
    """Each program a command really runs, quotes removed and wrappers stripped (``env -S'rm
    x'`` runs ``rm x``): deny and ask rules are matched against these too."""

    @classmethod
    def none(cls) -> Access:
        """A call with no effect outside the session."""
        return cls(AccessKind.NONE)

    @property
    def target(self) -> str:
        """The one thing a prompt or a rule talks about: command, URL or first path."""
        if self.command is not None:
            return self.command
        if self.url is not None:
            return self.url
        if self.paths:
            return str(self.paths[0])
        return ""
