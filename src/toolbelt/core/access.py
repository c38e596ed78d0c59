"""What a tool call touches, as the tool declares it, for the permission policy to judge.

A tool knows what its arguments mean (``path`` is a file to write, ``command`` is shell), the
policy knows what the user allows. ``Access`` is the hand-over between the two: resolved paths,
the command, the URL, and a preview (a diff for writes) that a prompt can show the user. What
only a shell command has — its parts, what it reads, how dangerous it is, the sandbox profile
it runs in — is a ``CommandAccess`` of its own, filled by the command analysis.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Literal

__all__ = ["Access", "AccessKind", "CommandAccess", "Protection", "SandboxProfile"]


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


SandboxProfile = Literal["workspace", "readonly", "create", "git", "unconfined"]
"""Where a command runs: the sandbox's workspace profile (writes inside the workspace only),
its read-only profile, its create profile (new files only; with the read-only one, where
commands that run without a prompt run), its git profile (``.git/`` writable but what makes
git run programs), or outside the sandbox, which the user approved."""


@dataclass(frozen=True, slots=True)
class CommandAccess:
    """What a shell command does, as the command analysis (``commands``) found it, and the
    sandbox profile it is to run in: the bash-only part of an ``Access``.

    A tool that runs a command of its own and knows no more than its text gives
    ``CommandAccess(text)`` (or the text itself as ``Access.command``): it is then judged as
    a command toolbelt cannot see into.
    """

    text: str
    """The shell command as the model wrote it."""
    commands: tuple[str, ...] = ()
    """Every simple command inside ``text`` (for per-command rule matching)."""
    runs: tuple[str, ...] = ()
    """Each program the command really runs, quotes removed and wrappers stripped (``env
    -S'rm x'`` runs ``rm x``): deny and ask rules are matched against these too."""
    reads: tuple[Path, ...] = ()
    """Real paths a read-only command reads (``cat``, ``grep``, ``ls`` arguments): judged as
    reads — outside the workspace they ask, read rules and protected ``.env`` files apply."""
    readonly: bool = False
    """The analysis found only read-only programs and no writing redirection."""
    dangerous: tuple[str, ...] = ()
    """Why the command is dangerous (rm, git push, curl | sh ...); such calls always ask."""
    sandboxed: bool = False
    """The command may run without a prompt on the sandbox's strength ("the fewer-prompts
    rule"): it runs in the create profile, where what would have needed a prompt is
    impossible — it can create files in the workspace but not change or delete any that
    exist, reads only the system, toolchains and the workspace minus its secrets, and has no
    network."""
    asks_because: str = ""
    """Why the command cannot run without a prompt on the sandbox's strength, worded to follow
    "runs a command" (`` that the sandbox cannot make safe: …``); "" to say nothing more."""
    outside_sandbox: str | None = None
    """The model asks to run the command unconfined, for this reason: always asks the user,
    and the answer is never remembered."""
    profile: SandboxProfile = "workspace"
    """The sandbox profile the command runs in once approved; the executor hands the approved
    access to the run (``ToolContext.access``), which runs it in the shell of this profile."""
    prompted_profile: SandboxProfile | None = None
    """The profile it runs in instead when the person approved it at a prompt (None: the
    same): a command judged safe to run unasked in a narrow profile (read-only, create) that
    asked for another reason — ``cat .env`` — runs as the person approved it, in the
    workspace profile, not where ``.env`` is hidden."""

    @property
    def parts(self) -> tuple[str, ...]:
        """The simple commands rules are matched against: ``commands``, else the whole text."""
        return self.commands or ((self.text,) if self.text else ())


@dataclass(frozen=True, slots=True)
class Access:
    """The effect of one call: kind, resolved paths, command, URL and a preview for prompts."""

    kind: AccessKind
    paths: tuple[Path, ...] = ()
    """Real (resolved) paths the call reads or writes; the policy judges these, not raw text.
    For a command, the files it writes."""
    command: CommandAccess | None = None
    """The shell command and what the analysis found in it (a plain string is taken as
    ``CommandAccess(text)``)."""
    url: str | None = None
    preview: str | None = None
    """What a prompt shows the user before approving: a diff for writes."""
    summary: str = ""
    """One line for prompts and logs, e.g. "write src/app.py (+3 -1)"."""
    protections: tuple[Protection, ...] | None = None
    """What the session's ``Protections`` say of ``paths`` and the command's reads, as the
    path guard found them (``protections_of``); None when no guard resolved the paths, and
    the policy asks the catalogue itself."""

    def __post_init__(self) -> None:
        if isinstance(self.command, str):  # a tool that gives just the command's text
            object.__setattr__(self, "command", CommandAccess(self.command))

    def approved_at_prompt(self) -> Access:
        """This access as it runs once the person approved it at a prompt (a command's
        ``prompted_profile``)."""
        command = self.command
        if command is None or command.prompted_profile is None:
            return self
        return replace(self, command=replace(command, profile=command.prompted_profile))

    @classmethod
    def none(cls) -> Access:
        """A call with no effect outside the session: one shared value (an ``Access`` is
        immutable), not a new one for every read-only call."""
        return _NO_ACCESS if cls is Access else cls(AccessKind.NONE)

    @property
    def reads(self) -> tuple[Path, ...]:
        """The real paths a command reads (``CommandAccess.reads``), else none."""
        return () if self.command is None else self.command.reads

    @property
    def target(self) -> str:
        """The one thing a prompt or a rule talks about: command, URL or first path."""
        if self.command is not None:
            return self.command.text
        if self.url is not None:
            return self.url
        if self.paths:
            return str(self.paths[0])
        return ""


_NO_ACCESS = Access(AccessKind.NONE)
