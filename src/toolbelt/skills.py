"""Skills: folders holding a ``SKILL.md`` (Claude Code's and Keen Code's format).

``SKILL.md`` starts with YAML frontmatter — ``name``, ``description``, optionally
``allowed-tools`` — and its body is the instruction the model follows, with ``$ARGUMENTS``
(everything passed) and ``$1``, ``$2``… (the arguments split as a shell would) substituted.
Other files in the folder (scripts, templates, references) are the skill's to mention; the
model reads them from the folder's path.

Where skills come from, in precedence order (the first folder defining a name wins):
the user's ``~/.config/toolbelt/skills/`` and ``~/.claude/skills/``, then the workspace's
``.toolbelt/skills/`` and ``.claude/skills/`` — the workspace's only when it is trusted, since
every skill's description is put in front of the model in the tool list, where a cloned
repository must not be able to write. A workspace skill whose ``SKILL.md`` resolves outside the
workspace (a symlink) is skipped, and so is one that read_file could not show without asking:
a ``SKILL.md`` that is a link to ``.env`` (a symlink, or a hard link) would put the secret's
first line in front of the model as the description. The workspace's skill files go through
the read policy (``may_read``: the session's, where there is one; else the workspace's
catalogue of protected paths) and are opened as the path guard opens files — the resolved
file itself, never a symlink swapped in after the check.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolbelt.config.trust import user_config_dir
from toolbelt.core.errors import PathError
from toolbelt.paths.guard import PathGuard
from toolbelt.paths.small_read import read_head

__all__ = ["Skill", "SkillCatalog", "expand_skill", "load_skills", "skill_sources"]

MAX_SKILL_BYTES = 256 * 1024
MAX_DESCRIPTION = 300
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")


@dataclass(frozen=True, slots=True)
class Skill:
    """One loaded skill: its name, description, body and where it lives."""

    name: str
    description: str
    body: str
    folder: Path
    source: str
    """``user``, ``user (claude)``, ``workspace`` or ``workspace (claude)``."""
    allowed_tools: tuple[str, ...] = ()


@dataclass
class SkillCatalog:
    """Every usable skill by name (in listing order) and the folders skipped, with why."""

    skills: dict[str, Skill] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


def skill_sources(root: Path, *, trusted: bool, home: Path | None = None) -> list[tuple[str, Path]]:
    """``(label, directory)`` to search, highest precedence first."""
    user_home = home or Path.home()
    sources = [
        ("user", user_config_dir(home) / "skills"),
        ("user (claude)", user_home / ".claude" / "skills"),
    ]
    if trusted:
        sources += [
            ("workspace", root / ".toolbelt" / "skills"),
            ("workspace (claude)", root / ".claude" / "skills"),
        ]
    return sources


def load_skills(
    root: Path,
    *,
    trusted: bool,
    home: Path | None = None,
    may_read: Callable[[Path], bool] | None = None,
) -> SkillCatalog:
    """Find and parse every skill; broken ones are listed in ``skipped``, never fatal.

    ``may_read`` says whether read_file would show a real path without asking (the session's
    read policy); None: the workspace's own catalogue of protected paths decides.
    """
    catalog = SkillCatalog()
    guards: list[PathGuard] = []  # made for the first workspace skill: the tool's description
    # is read for every request, and a guard's catalogue of protected paths costs milliseconds

    def guard() -> PathGuard:
        if not guards:
            guards.append(PathGuard(root))
        return guards[0]

    for label, directory in skill_sources(root, trusted=trusted, home=home):
        try:
            folders = sorted(p for p in directory.iterdir() if (p / "SKILL.md").is_file())
        except OSError:
            continue
        for folder in folders:
            skill_file = folder / "SKILL.md"
            workspace = label.startswith("workspace")
            try:
                data = _workspace_file(guard(), skill_file, may_read) if workspace else None
                skill = _parse(skill_file, folder, label, data)
            except ValueError as exc:
                catalog.skipped.append(f"{skill_file}: {exc}")
                continue
            catalog.skills.setdefault(skill.name, skill)
    return catalog


def _workspace_file(guard: PathGuard, path: Path, may_read: Callable[[Path], bool] | None) -> bytes:
    """The bytes of a workspace skill file, read as read_file would read it: inside the
    workspace, allowed without asking, and opened without following a symlink put there
    after the check."""
    try:
        resolved = guard.resolve(str(path), guard.root, must_exist=True)
    except PathError as exc:
        raise ValueError(str(exc)) from exc
    if not resolved.inside:
        raise ValueError("it resolves outside the workspace")
    protection = resolved.protection
    if protection is not None and protection.kind == "secret":
        raise ValueError(f"reading it asks ({protection.reason}), so it is not shown")
    if may_read is not None and not may_read(resolved.path):
        raise ValueError("reading it asks, so it is not shown")
    try:
        fd = guard.open_for_read(resolved)
    except PathError as exc:
        raise ValueError(str(exc)) from exc
    with os.fdopen(fd, "rb") as handle:
        return handle.read(MAX_SKILL_BYTES + 1)


def _parse(path: Path, folder: Path, source: str, data: bytes | None = None) -> Skill:
    import yaml

    if data is None:
        data = read_head(path, MAX_SKILL_BYTES)  # never blocks on a FIFO, never reads /dev/zero
        if data is None:
            raise ValueError("cannot be read (not a regular file)")
    if len(data) > MAX_SKILL_BYTES:
        raise ValueError(f"larger than {MAX_SKILL_BYTES // 1024} KB")
    text = data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n")
    meta: Any = {}
    body = text
    if text.startswith("---\n"):
        end = text.find("\n---", 3)
        if end == -1:
            raise ValueError("the frontmatter's closing `---` is missing")
        try:
            meta = yaml.safe_load(text[4:end]) or {}
        except yaml.YAMLError as exc:
            raise ValueError(f"the frontmatter is not valid YAML ({exc})") from exc
        body = text[end + 4 :].split("\n", 1)[1] if "\n" in text[end + 4 :] else ""
    if not isinstance(meta, dict):
        raise ValueError("the frontmatter must be a mapping of keys to values")
    name = str(meta.get("name") or folder.name).strip()
    if not _NAME.fullmatch(name):
        raise ValueError(f"{name[:80]!r} is not a usable skill name (letters, digits, - _ . :)")
    description = " ".join(str(meta.get("description") or "").split())
    if not description:
        first = next((line.strip("# ") for line in body.splitlines() if line.strip()), "")
        description = first or "(no description)"
    if len(description) > MAX_DESCRIPTION:
        description = description[: MAX_DESCRIPTION - 1] + "…"
    return Skill(name, description, body.strip("\n"), folder, source, _tools(meta))


def _tools(meta: dict[Any, Any]) -> tuple[str, ...]:
    value = meta.get("allowed-tools", meta.get("allowed_tools"))
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list):
        return tuple(str(part).strip() for part in value if str(part).strip())
    return ()


_POSITIONAL = re.compile(r"\$(ARGUMENTS\b|[1-9](?!\d))")


def expand_skill(body: str, arguments: str) -> str:
    """``$ARGUMENTS`` → all of ``arguments``; ``$1``… → the shell-split words (or "").

    A body that mentions neither gets the arguments appended, so they are never lost.
    """
    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()

    def substitute(match: re.Match[str]) -> str:
        token = match.group(1)
        if token == "ARGUMENTS":
            return arguments
        index = int(token)
        return words[index - 1] if 1 <= index <= len(words) else ""

    expanded, count = _POSITIONAL.subn(substitute, body)
    if count == 0 and arguments.strip():
        expanded = f"{expanded.rstrip()}\n\nARGUMENTS: {arguments}"
    return expanded
