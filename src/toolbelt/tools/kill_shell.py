"""kill_shell: stop a background job and every process it started."""

from __future__ import annotations

from pydantic import BaseModel, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.core.wording import counted
from toolbelt.tools._shell import job_manager

__all__ = ["KillShellInput", "KillShellTool"]

DESCRIPTION = """\
Stop a background job started with bash `run_in_background`, together with every process it \
started. Use the id bash returned."""


class KillShellInput(ToolInput):
    """Arguments of `kill_shell`."""

    id: str = Field(description="The job id to stop.")


class KillShellOutput(BaseModel):
    """Structured result of `kill_shell`."""

    id: str
    processes: int | None = Field(default=None, description="Processes ended.")


class KillShellTool(Tool[KillShellInput]):
    """End a background job's process tree."""

    name = "kill_shell"
    rule_family = "Bash"
    claude_name = "KillShell"
    title = "Stop background job"
    description = DESCRIPTION
    output_model = KillShellOutput
    example = {"id": "bg-1a2b3c4d"}
    hints = ToolHints(idempotent=True)

    async def access(self, args: KillShellInput, ctx: ToolContext) -> Access:
        # stopping what this session itself started needs no approval
        return Access.none()

    async def run(self, args: KillShellInput, ctx: ToolContext) -> ToolOutput:
        jobs = job_manager(ctx)
        job = jobs.get(args.id)
        was = job.status()
        if was.state != "running":
            return ToolOutput.text(f"{job.id} had already {was.describe()}.", {"id": job.id})
        count = await jobs.kill(job)
        notes = "".join(f"\n\n[{note}]" for note in jobs.check_created())
        return ToolOutput.text(
            f"Stopped {job.id} ({counted(count, 'process', 'processes')} ended).{notes}",
            {"id": job.id, "processes": count},
        )
