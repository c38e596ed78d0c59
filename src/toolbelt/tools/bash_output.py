"""bash_output: what a background job printed since the last look, and whether it still runs."""

from __future__ import annotations

from pydantic import BaseModel, Field

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.shell.binary import binary_text_summary
from toolbelt.tools._shell import job_manager

__all__ = ["BashOutputInput", "BashOutputTool"]

DESCRIPTION = """\
Show the new output of a background job started with bash `run_in_background`, since the last \
time you asked, and its status: running, or exited with a code. Poll it to follow a server or a \
long build; stop the job with kill_shell."""


class BashOutputInput(ToolInput):
    """Arguments of `bash_output`."""

    id: str = Field(description="The job id bash returned, e.g. 'bg-1a2b3c4d'.")


class BashOutputOutput(BaseModel):
    """Structured result of `bash_output`."""

    id: str
    status: str = Field(description="running, exited or killed.")
    exit_code: int | None
    more: bool = Field(description="More output is waiting.")


class BashOutputTool(Tool[BashOutputInput]):
    """Poll a background job."""

    name = "bash_output"
    rule_family = "Bash"
    claude_name = "BashOutput"
    title = "Background job output"
    description = DESCRIPTION
    output_model = BashOutputOutput
    example = {"id": "bg-1a2b3c4d"}
    hints = ToolHints(readonly=True, destructive=False)

    async def run(self, args: BashOutputInput, ctx: ToolContext) -> ToolOutput:
        jobs = job_manager(ctx)
        job = jobs.get(args.id)
        status = job.status()
        await jobs.settle(job)
        text, more = jobs.read_new(job)
        header = f"[{job.id}: {status.describe()}]"
        body = text.rstrip("\n") if text else "(no new output)"
        body = binary_text_summary(body, str(job.output_path)) or body
        if more:
            body += "\n[more output is waiting; call bash_output again]"
        if status.state != "running":
            body += "".join(f"\n\n[{note}]" for note in jobs.check_created())
        return ToolOutput.text(
            f"{header}\n{body}",
            {"id": job.id, "status": status.state, "exit_code": status.exit_code, "more": more},
        )
