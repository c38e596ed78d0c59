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
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from toolbelt.core.authorization import read_allowed
from toolbelt.core.permission import PermissionPolicy
from toolbelt.core.tool import Tool
from toolbelt.paths.containment import is_within
from toolbelt.paths.small_read import read_head, read_small_text

__all__ = ["INSTRUCTION_FILES", "MAX_INSTRUCTIONS_BYTES", "build_system_prompt", "git_branch"]

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
MAX_INSTRUCTIONS_BYTES = 16 * 1024

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
) -> str:
    """The default system prompt for an agent working in ``root`` with ``tools``.

    ``policy`` decides whether the instruction files may be shown (None: shown when they
    resolve inside ``root``).
    """
    facts = [
        f"- workspace root: {root}",
        f"- platform: {platform.system()} {platform.release()}",
        f"- today's date: {(today or date.today()).isoformat()}",
    ]
    branch = git_branch(root)
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
    return "\n\n".join(sections)


_GIT_POINTER_BYTES = 4096


def git_branch(root: Path) -> str | None:
    """The branch checked out in ``root`` (a short commit hash when detached), read from
    ``.git/HEAD`` without running git; None outside a repository. The workspace wrote these
    files: each is read bounded and never blocking (``paths.small_read``), so a ``HEAD`` that
    is a FIFO, a link to ``/dev/zero`` or a ``gitdir:`` pointing at either gives no branch
    rather than a session that never starts."""
    dot_git = root / ".git"
    if not dot_git.is_dir():  # a worktree or submodule: "gitdir: PATH"
        pointer = (read_small_text(dot_git, _GIT_POINTER_BYTES) or "").strip()
        if not pointer.startswith("gitdir:"):
            return None
        dot_git = root / pointer.removeprefix("gitdir:").strip()
    head = (read_small_text(dot_git / "HEAD", _GIT_POINTER_BYTES) or "").strip()
    if head.startswith("ref: refs/heads/"):
        return head.removeprefix("ref: refs/heads/")
    return f"(detached at {head[:12]})" if head else None


def _instructions(path: Path, root: Path, policy: PermissionPolicy | None) -> str | None:
    if not path.is_file() or not _may_show(path, root, policy):
        return None
    data = read_head(path, MAX_INSTRUCTIONS_BYTES)  # a FIFO swapped in meanwhile: none
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


def _may_show(path: Path, root: Path, policy: PermissionPolicy | None) -> bool:
    """Whether read_file of ``path`` would run without asking — the test for what may be
    quoted to the model that the executor applies to tools' output too."""
    resolved = path.resolve()
    if policy is None:
        return is_within(resolved, root.resolve())
    return read_allowed(policy, resolved)
