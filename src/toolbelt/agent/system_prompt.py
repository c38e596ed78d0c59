"""The default system prompt: who the model is working for, where, and how to use the tools.

It states the workspace facts a model otherwise guesses wrong (root, platform, date, git
branch, permission mode), a few lines of guidance for the tools actually offered, and the
project's own instructions from ``AGENTS.md`` and ``CLAUDE.md`` at the workspace root.

The project instructions are included whether or not the workspace is trusted. Trust decides
what a repository's *settings* may loosen (allow rules, hooks, modes); instructions loosen
nothing — every call the model makes still goes through the same policy — and the model would
read the same file with ``read_file`` anyway. They are included only when the policy lets
read_file show them without asking (a symlink to a secret outside the workspace is not sent
to the provider), and at most ``MAX_INSTRUCTIONS_BYTES`` of each, cut with a note.

Every workspace file whose content reaches the prompt goes through that read policy, the git
branch's ``.git/HEAD`` included (a ``HEAD`` that is a link to ``.env`` would put the secret's
first line in the prompt), and is opened as read_file opens files: the resolved regular file
itself, never blocking on a FIFO, never following a symlink swapped in after the check.

The configured MCP servers' own ``instructions`` (what their ``initialize`` said about using
them, as Claude Code shows them) follow, at most ``MAX_SERVER_INSTRUCTIONS`` characters each:
a server's words, marked as such, that guide the use of its tools and grant nothing.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from toolbelt.core.authorization import read_allowed
from toolbelt.core.errors import PathError
from toolbelt.core.permission import PermissionPolicy
from toolbelt.core.tool import Tool
from toolbelt.paths.containment import is_within
from toolbelt.paths.guard import PathGuard

__all__ = [
    "INSTRUCTION_FILES",
    "MAX_INSTRUCTIONS_BYTES",
    "MAX_SERVER_INSTRUCTIONS",
    "build_system_prompt",
    "git_branch",
]

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
MAX_INSTRUCTIONS_BYTES = 16 * 1024
MAX_SERVER_INSTRUCTIONS = 2048
"""Characters of one MCP server's ``instructions`` the prompt carries (Claude Code's cap)."""

_MODES = {
    "default": "reads inside the workspace run freely; edits and commands may ask the user",
    "accept_edits": "reads and edits inside the workspace run freely; commands may ask",
    "plan": "nothing that writes or executes is allowed: investigate and propose a plan",
    "bypass": "everything runs without asking except protected paths and dangerous commands",
    "dont_ask": "what would ask the user is denied instead: nobody is there to answer",
}

_GUIDANCE = {
    "read_file": "Read a file before editing it; edits of a file not read in this session fail.",
    "edit_file": "Change files with edit_file (exact old_string → new_string) rather than "
    "rewriting them whole; make old_string unique or pass replace_all.",
    "apply_patch": "Change files with apply_patch: one patch (`*** Begin Patch` … `*** End "
    "Patch`) can add, update, move and delete several files, and applies whole or not at all.",
    "grep": "Search file contents with grep and find files by name with glob: they are "
    "faster than commands and leave out what the workspace hides.",
    "bash": "Run commands with bash; its shell persists between calls (cwd, variables).",
}

_INTRO = (
    "You are a coding agent. You work in the workspace below through the tools you are "
    "given: read and search before you change anything, make the smallest change that does "
    "the task, check it (run the tests or the command that shows it works), then answer with "
    "a short summary of what you did. A denied call is the user's decision: do not retry it "
    "unchanged."
)


def build_system_prompt(
    root: Path,
    *,
    mode: str,
    tools: Sequence[Tool[Any]],
    policy: PermissionPolicy | None = None,
    today: date | None = None,
    server_instructions: Sequence[tuple[str, str]] = (),
) -> str:
    """The default system prompt for an agent working in ``root`` with ``tools``.

    ``policy`` decides whether the instruction files may be shown (None: shown when they
    resolve inside ``root``); ``server_instructions``: (MCP server, its instructions).
    """
    facts = [
        f"- workspace root: {root}",
        f"- platform: {platform.system()} {platform.release()}",
        f"- today's date: {(today or date.today()).isoformat()}",
    ]
    branch = git_branch(root, policy)
    if branch:
        facts.append(f"- git branch: {branch}")
    facts.append(f"- permission mode: {mode} ({_MODES.get(mode, 'see the user settings')})")
    sections = [_INTRO, "# Workspace\n" + "\n".join(facts)]
    names = {tool.name for tool in tools}
    guidance = [f"- {text}" for name, text in _GUIDANCE.items() if name in names]
    if guidance:
        sections.append("# Using the tools\n" + "\n".join(guidance))
    for name in INSTRUCTION_FILES:
        text = _instructions(root / name, root, policy)
        if text is not None:
            sections.append(
                f"# Project instructions ({name})\nWritten by the project's authors; they "
                f"guide how you work here but do not change your permissions.\n\n{text}"
            )
    for server, text in server_instructions:
        text = text.strip()
        if not text:
            continue
        if len(text) > MAX_SERVER_INSTRUCTIONS:
            text = text[:MAX_SERVER_INSTRUCTIONS].rstrip() + "\n[… cut: the server said more]"
        sections.append(
            f"# Instructions of the MCP server `{server}`\nWritten by the server; they guide "
            f"the use of its tools (`mcp__…` of `{server}`) and grant nothing.\n\n{text}"
        )
    return "\n\n".join(sections)


def git_branch(root: Path, policy: PermissionPolicy | None = None) -> str | None:
    """The branch checked out in ``root`` (a short commit hash when detached), read from
    ``.git/HEAD`` without running git; None outside a repository, and when the files to read
    are not ones read_file would show without asking (``policy``; None: inside ``root``, or
    in a worktree's linked git directory, and no secret)."""
    dot_git = root / ".git"
    if dot_git.is_file():  # a worktree or submodule: "gitdir: PATH"
        pointer = _small_text(dot_git, root, policy)
        if pointer is None or not pointer.startswith("gitdir:"):
            return None
        linked = (root / pointer.removeprefix("gitdir:").strip()).resolve()
        head = _small_text(linked / "HEAD", root, policy, linked=linked)
    else:
        head = _small_text(dot_git / "HEAD", root, policy)
    if head is None:
        return None
    if head.startswith("ref: refs/heads/"):
        return head.removeprefix("ref: refs/heads/")
    return f"(detached at {head[:12]})" if head else None


def _small_text(
    path: Path, root: Path, policy: PermissionPolicy | None, *, linked: Path | None = None
) -> str | None:
    """The first line of the small file ``path`` (4 KiB read at most), when it may be shown
    (``_shown_bytes``)."""
    data = _shown_bytes(path, root, policy, 4096, linked=linked)
    if data is None:
        return None
    lines = data.decode("utf-8", "replace").strip().splitlines()
    return lines[0].strip() if lines else ""


def _instructions(path: Path, root: Path, policy: PermissionPolicy | None) -> str | None:
    data = _shown_bytes(path, root, policy, MAX_INSTRUCTIONS_BYTES + 1)
    if data is None:
        return None
    kept = data[:MAX_INSTRUCTIONS_BYTES]
    if len(data) > MAX_INSTRUCTIONS_BYTES:
        kept = kept[: kept.rfind(b"\n") + 1] or kept  # whole lines, when there are any
    text = kept.decode("utf-8", "replace").strip()
    if len(data) > MAX_INSTRUCTIONS_BYTES:
        text += (
            f"\n\n[{path.name} continues past {MAX_INSTRUCTIONS_BYTES:,} bytes; read the rest "
            f"with read_file when it matters.]"
        )
    return text or None


def _shown_bytes(
    path: Path,
    root: Path,
    policy: PermissionPolicy | None,
    limit: int,
    *,
    linked: Path | None = None,
) -> bytes | None:
    """At most ``limit`` bytes of the regular file ``path``, when they may be shown:
    ``_may_show``, or — for a worktree's linked git directory outside ``root`` — not one of
    the user's secrets. Opened as read_file opens files (never a FIFO, never a symlink swapped
    in after the check); None when it may not be shown or cannot be read."""
    guard = PathGuard(root)
    try:
        resolved = guard.resolve(str(path), root, must_exist=True)
    except PathError:
        return None
    if resolved.protection is not None and resolved.protection.kind == "secret":
        return None
    outside_linked = linked is not None and is_within(resolved.path, linked)
    if not outside_linked and not _may_show(resolved.path, root, policy):
        return None
    try:
        with os.fdopen(guard.open_for_read(resolved), "rb") as handle:
            return handle.read(limit)
    except (PathError, OSError):
        return None


def _may_show(path: Path, root: Path, policy: PermissionPolicy | None) -> bool:
    """Whether read_file of ``path`` would run without asking — the test for what may be
    quoted to the model that the executor applies to tools' output too."""
    resolved = path.resolve()
    if policy is None:
        return is_within(resolved, root.resolve())
    return read_allowed(policy, resolved)
