"""Runs inside Alan Code's venv (.peers/alancode): executes its tools in-process on request.

Protocol: one JSON object per line on stdin, ``{"tool": "Grep", "args": {...}}``; one line
back per request, ``{"ok": true}`` or ``{"ok": false, "error": "..."}``. The parent times the
round trip (a pipe hop, ~0.05 ms) around each request.
"""

import asyncio
import json
import os
import sys

from alancode.tools.base import ToolUseContext
from alancode.tools.builtin import ALL_BUILTIN_TOOLS

cwd = sys.argv[1]
os.chdir(cwd)
tools = {tool.name: tool for tool in ALL_BUILTIN_TOOLS}
loop = asyncio.new_event_loop()
for line in sys.stdin:
    request = json.loads(line)
    try:
        context = ToolUseContext(cwd=cwd, messages=[])
        loop.run_until_complete(tools[request["tool"]].call(request["args"], context))
        reply = {"ok": True}
    except Exception as exc:  # the peer's own failures are reported, not fatal
        reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
