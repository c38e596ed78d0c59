"""``toolbelt skills``: the skills the skill tool would offer in a workspace, and those skipped."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toolbelt.config.trust import is_trusted
from toolbelt.core.display import visible
from toolbelt.skills import load_skills, skill_sources

__all__ = ["list_skills"]


def list_skills(root: str, *, trust_workspace: bool, as_json: bool) -> int:
    """Print each skill (name, source, description, folder); 0, or 2 for a missing root."""
    directory = Path(root).expanduser().resolve()
    if not directory.is_dir():
        print(f"toolbelt skills: {root!r} is not a directory.", file=sys.stderr)
        return 2
    trusted = trust_workspace or is_trusted(directory)
    catalog = load_skills(directory, trusted=trusted)
    skills = [catalog.skills[name] for name in sorted(catalog.skills)]
    if as_json:
        listed = [
            {
                "name": s.name,
                "description": s.description,
                "folder": str(s.folder),
                "source": s.source,
                "allowed_tools": list(s.allowed_tools),
            }
            for s in skills
        ]
        print(json.dumps({"skills": listed, "skipped": catalog.skipped}, indent=2))
        return 0
    for skill in skills:  # a workspace's SKILL.md files: shown escaped
        print(
            f"{visible(skill.name)} ({skill.source}): {visible(skill.description)}\n"
            f"    {visible(str(skill.folder))}"
        )
    if not skills:
        searched = ", ".join(str(path) for _, path in skill_sources(directory, trusted=trusted))
        print(f"No skills found (searched {searched}).")
    if not trusted:
        print(
            "The workspace is not trusted, so its .toolbelt/skills and .claude/skills were not "
            "read; trust it with `toolbelt trust` (or --trust-workspace for one run)."
        )
    for problem in catalog.skipped:
        print(f"skipped {visible(problem)}", file=sys.stderr)
    return 0
