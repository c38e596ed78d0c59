"""A stdio MCP server on the real SDK whose tool asks the person something while it runs.

``python eliciting_mcp_server.py`` serves over stdio. Its tool ``deploy`` (read-only by its
annotations, so a client may run it beside other read-only calls) sends an elicitation form
(``elicitation/create``: one required string field ``target``) and answers with what came
back: ``deploy: accept {"target": "staging"}``, ``deploy: decline``. With
``ELICIT_PROGRESS`` set it also sends that text as a progress notification while its form
waits (a server that writes on the screen under a prompt), then pings the client — which
answers once it has handled the notification, messages being handled in order — and writes
the file ``ELICIT_PROGRESS_SHOWN`` names, so a test knows the client has it. With
``ELICIT_TWICE`` it sends a second form (field ``confirm``) after the first. For the terminal
tests (issue #27, "the terminal has no owner").
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

server = MCPServer("eliciting")


class Target(BaseModel):
    target: str = Field(description="Where to deploy")


class Confirm(BaseModel):
    confirm: str = Field(description="Type the target again")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def deploy(ctx: Context) -> str:
    """Deploy after asking the person where to."""
    progress = os.environ.get("ELICIT_PROGRESS")
    async with anyio.create_task_group() as tasks:
        if progress:
            tasks.start_soon(_progress_under_the_form, ctx, progress)
        first = await ctx.elicit("Where shall I deploy?", Target)
    answers = [_said(first)]
    if os.environ.get("ELICIT_TWICE"):
        answers.append(_said(await ctx.elicit("Confirm the deployment.", Confirm)))
    return "deploy: " + "; ".join(answers)


async def _progress_under_the_form(ctx: Context, message: str) -> None:
    await anyio.sleep(0.2)  # the form's request goes out first
    await ctx.report_progress(1, 2, message)
    await ctx.session.send_ping()
    Path(os.environ["ELICIT_PROGRESS_SHOWN"]).write_text("sent\n")


def _said(result: object) -> str:
    action = getattr(result, "action", "?")
    data = getattr(result, "data", None)
    if action == "accept" and isinstance(data, BaseModel):
        return f"accept {json.dumps(data.model_dump())}"
    return str(action)


if __name__ == "__main__":
    server.run("stdio")
