"""Agent profiles: what a ``task`` subagent is — its instructions, tools, model and mode.

Profiles are Markdown files with YAML frontmatter, Claude Code's format (``.claude/agents/*.md``
pastes as is)::

    ---
    name: reviewer
    description: Reviews a change for bugs; give it the files to look at.
    tools: Read, Grep, Glob          # toolbelt or Claude names; omitted: every tool; none: no tool
    model: anthropic:claude-opus-4-5 # optional: another model (a second opinion)
    mode: plan                       # optional: a stricter permission mode
    ---
    You review code. ...             # the body: the subagent's instructions

Read from, lowest precedence first: the built-ins (``explore``, ``plan``, ``general``),
``~/.config/toolbelt/agents/``, and — in a trusted workspace only, since a profile chooses
tools and a model for work the user asked for — ``.claude/agents/`` and ``.toolbelt/agents/``.
A profile with no tools answers with the parent conversation's context: the way to consult
another model about the conversation (Kode's AskExpertModel, Mini-Kode's architect).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from toolbelt.core.errors import UsageError
from toolbelt.paths.small_read import read_head
from toolbelt.policy.modes import MODES

__all__ = ["BUILTIN_PROFILES", "AgentProfile", "load_profiles"]

_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")
_FRONTMATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)(.*)\Z", re.DOTALL)
_MAX_FILE = 64 * 1024
_CLAUDE_MODES = {
    "acceptEdits": "accept_edits",
    "bypassPermissions": "bypass",
    "dontAsk": "dont_ask",
}
_READING = ("read_file", "glob", "grep", "ls", "bash", "bash_output", "think", "web_fetch")


@dataclass(frozen=True, slots=True)
class AgentProfile:
    """One kind of subagent."""

    name: str
    description: str
    system: str
    """Instructions added to the default system prompt."""
    tools: tuple[str, ...] | None = None
    """The tools it may use (names as toolbelt or Claude Code write them); None: every tool."""
    model: str | None = None
    """``provider:model`` of another model; None: the parent's."""
    mode: str | None = None
    """A permission mode it runs in when stricter than the parent's; None: the parent's."""
    source: str = "built-in"


BUILTIN_PROFILES = (
    AgentProfile(
        "explore",
        "Finds things in the code base fast and cannot change anything: give it what to look "
        "for; it answers with the files, lines and facts it found.",
        "You are an exploring subagent. Search and read to answer the question you are given; "
        "you cannot change files or run commands that write. Answer with the exact files, "
        "line numbers and facts found, briefly.",
        _READING,
        mode="plan",
    ),
    AgentProfile(
        "plan",
        "Designs how to do a task without changing anything: give it the goal; it reads what "
        "it needs and answers with a step-by-step plan naming the files to change.",
        "You are a planning subagent (an architect). Read what you need, change nothing, and "
        "answer with a concrete plan: the steps in order, the files and functions each step "
        "changes, the risks, and how to check the result.",
        _READING,
        mode="plan",
    ),
    AgentProfile(
        "general",
        "Does a self-contained part of the task with every tool (reading, editing, commands): "
        "give it the goal and what it needs to know; it answers with what it did.",
        "You are a subagent doing one part of a larger task. Do it completely, then answer "
        "with what you did and what the caller needs to know.",
    ),
)


def load_profiles(
    root: Path, *, trusted: bool, home: Path | None = None
) -> dict[str, AgentProfile]:
    """Every profile by name (later directories replace earlier ones of the same name);
    ``UsageError`` naming the file for one that cannot be read."""
    profiles = {profile.name: profile for profile in BUILTIN_PROFILES}
    config = os.environ.get("XDG_CONFIG_HOME") if home is None else None
    user = Path(config) if config else (home or Path.home()) / ".config"
    directories = [user / "toolbelt" / "agents"]
    if trusted:
        directories += [root / ".claude" / "agents", root / ".toolbelt" / "agents"]
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.md")):
            profile = read_profile(path)
            profiles[profile.name] = profile
    return profiles


def read_profile(path: Path) -> AgentProfile:
    """The profile a Markdown file defines; ``UsageError`` saying what is wrong with it."""
    data = read_head(path, _MAX_FILE)  # the workspace's file: never blocks on a FIFO
    if data is None:
        raise UsageError(f"Cannot read the agent profile {path}: it is not a regular file.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"Cannot read the agent profile {path}: {exc}.") from exc
    if len(text) > _MAX_FILE:
        raise UsageError(f"The agent profile {path} is over 64 KiB; shorten it.")
    match = _FRONTMATTER.match(text)
    if match is None:
        raise UsageError(
            f"The agent profile {path} has no frontmatter; start it with a '---' block "
            "holding at least name and description."
        )
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise UsageError(f"The frontmatter of the agent profile {path} is not YAML: {exc}") from exc
    if not isinstance(meta, dict):
        raise UsageError(f"The frontmatter of the agent profile {path} must be a mapping.")
    name = str(meta.get("name") or path.stem)
    if not _NAME.fullmatch(name):
        raise UsageError(
            f"The agent profile {path} is named {name!r}; use lowercase letters, digits, - and _."
        )
    description = str(meta.get("description") or "").strip()
    if not description:
        raise UsageError(f"The agent profile {path} needs a description (when to use it).")
    mode = meta.get("mode", meta.get("permissionMode"))
    if mode is not None:
        mode = _CLAUDE_MODES.get(str(mode), str(mode))
        if mode not in MODES:
            raise UsageError(
                f"The agent profile {path} names the mode {mode!r}; use one of {', '.join(MODES)}."
            )
    model = meta.get("model")
    if model in ("inherit", "", None):
        model = None
    elif ":" not in str(model):
        raise UsageError(
            f"The agent profile {path} names the model {model!r}; write provider:model "
            "(e.g. anthropic:claude-opus-4-5) or leave it out to use the parent's."
        )
    return AgentProfile(
        name,
        description,
        match.group(2).strip(),
        _tools(meta.get("tools")),
        str(model) if model is not None else None,
        mode,
        str(path),
    )


def _tools(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value.strip().lower() in ("none", ""):
            return ()
        value = value.split(",")
    if isinstance(value, list):
        return tuple(str(item).strip() for item in value if str(item).strip())
    return None
