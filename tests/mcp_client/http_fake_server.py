"""An MCP server over streamable HTTP on 127.0.0.1 that answers too much or asks questions.

``python http_fake_server.py PORT json|sse``: the mcp SDK's ``MCPServer`` answering with one
JSON body per request (``json``) or with an event stream (``sse``). ``big {size}`` answers
with ``size`` bytes of text; ``ask {text}`` asks the client (elicitation) for a ``name`` and
answers with ``text`` and what came back; ``ask_together`` does the same once two calls of it
have arrived, so both are in flight on the connection when they ask.
"""

from __future__ import annotations

import sys

import anyio
import uvicorn
from mcp.server.elicitation import AcceptedElicitation
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("http-fake")


class Name(BaseModel):
    name: str


@server.tool()
def big(size: int) -> str:
    """Answer with ``size`` bytes."""
    return "x" * size


@server.tool()
async def ask(text: str, ctx: Context) -> str:
    """Ask the client for a name."""
    answer = await ctx.elicit(f"who is {text}?", schema=Name)
    got = answer.data.name if isinstance(answer, AcceptedElicitation) else answer.action
    return f"{text}: {got}"


_arrived: list[anyio.Event] = []


@server.tool()
async def ask_together(text: str, ctx: Context) -> str:
    """Wait for a second call of this tool, then ask like ``ask``."""
    mine = anyio.Event()
    _arrived.append(mine)
    if len(_arrived) % 2 == 0:
        for event in _arrived[-2:]:
            event.set()
    with anyio.fail_after(30):
        await mine.wait()
    return await ask(text, ctx)


if __name__ == "__main__":
    port, mode = int(sys.argv[1]), sys.argv[2]
    app = server.streamable_http_app(host="127.0.0.1", json_response=mode == "json")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
