"""skill: run one of the user's skills — return its instructions with the arguments filled in.

The tool's description lists the skills (name and description, in a stable order) so the model
knows what exists; calling it returns the skill's ``SKILL.md`` body with ``$ARGUMENTS`` and
``$1``… substituted, plus the skill folder's path so the model can read the skill's other
files. Where skills come from and why a workspace's count only when trusted: ``toolbelt.skills``.

The description is built for the workspace the tool was made for (``SkillTool(root, ...)``);
the built-in instance uses the process's working directory. Calls always use the session's
workspace and trust. A workspace's skill files reach the model only when read_file could show
them without asking: the description applies the read check it was given (the runtime's
policy), a call the executor's (``ToolContext.may_quote``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from toolbelt.config.trust import is_trusted
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.skills import SkillCatalog, expand_skill, load_skills
from toolbelt.tools._settings import session_settings

__all__ = ["SkillInput", "SkillTool"]

MAX_LISTED = 100

INTRO = """\
Run a skill: a saved set of instructions for a recurring task (release steps, a review \
checklist, a project's conventions). Call it with the skill's `name` and, if the skill takes \
them, `arguments` (one string; `$1`, `$2`… are its words). It returns the instructions to \
follow and the skill's folder, whose other files (scripts, templates) you can read. Use a skill \
when the user's request matches its description."""


class SkillInput(ToolInput):
    """Arguments of `skill`."""

    name: str = Field(min_length=1, max_length=64, description="The skill's name, as listed.")
    arguments: str = Field(
        default="", max_length=20_000, description="Arguments for the skill, as one string."
    )


class SkillOutput(BaseModel):
    """Structured result of `skill`."""

    name: str
    folder: str = Field(description="The skill's folder; its other files are there.")
    source: str = Field(description="user, user (claude), workspace or workspace (claude).")
    allowed_tools: list[str] = Field(description="The tools the skill says it uses.")


class SkillTool(Tool[SkillInput]):
    """List skills in the description; return a skill's expanded instructions."""

    name = "skill"
    claude_name = "Skill"
    title = "Run skill"
    output_model = SkillOutput
    example = {"name": "release-notes", "arguments": "v1.4.0"}
    hints = ToolHints.READ_ONLY

    def __init__(
        self,
        root: Path | None = None,
        *,
        trusted: bool | None = None,
        home: Path | None = None,
        read_check: Callable[[Path], bool] | None = None,
    ) -> None:
        """``read_check``: whether read_file would show a path without asking (the policy's
        answer), for the skills the description lists."""
        self._root = root
        self._trusted = trusted
        self._home = home
        self._read_check = read_check

    @property  # the listing depends on the workspace the tool is used in
    def description(self) -> str:  # type: ignore[override]
        root = self._root or Path.cwd()
        trusted = is_trusted(root, home=self._home) if self._trusted is None else self._trusted
        catalog = load_skills(root, trusted=trusted, home=self._home, may_read=self._read_check)
        return describe(catalog)

    async def run(self, args: SkillInput, ctx: ToolContext) -> ToolOutput:
        trusted = session_settings(ctx.session).trusted
        catalog = load_skills(ctx.root, trusted=trusted, home=self._home, may_read=ctx.may_quote)
        skill = catalog.skills.get(args.name)
        if skill is None and not catalog.skills:
            raise ToolError(
                f"There is no skill named {args.name!r}: no skills are installed here, so do "
                "the task without one."
            )
        if skill is None:
            raise ToolError(
                f"There is no skill named {args.name!r}; available skills: "
                f"{', '.join(sorted(catalog.skills))}. Call skill with one of those names."
            )
        body = expand_skill(skill.body, args.arguments)
        header = f"Skill `{skill.name}` from {skill.folder} (its other files are in that folder)."
        if skill.allowed_tools:
            header += f" It expects to use: {', '.join(skill.allowed_tools)}."
        structured = {
            "name": skill.name,
            "folder": str(skill.folder),
            "source": skill.source,
            "allowed_tools": list(skill.allowed_tools),
        }
        return ToolOutput.text(f"{header}\n\n{body}", structured)


def describe(catalog: SkillCatalog) -> str:
    """The tool description: what skills are, then each skill's name and description."""
    if not catalog.skills:
        return INTRO + "\n\nNo skills are installed, so there is nothing to call yet."
    names = sorted(catalog.skills)
    lines = [f"- {name}: {catalog.skills[name].description}" for name in names[:MAX_LISTED]]
    if len(names) > MAX_LISTED:
        lines.append(f"- … and {len(names) - MAX_LISTED} more (`toolbelt skills` lists them)")
    return INTRO + "\n\nAvailable skills:\n" + "\n".join(lines)
