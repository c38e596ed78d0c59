"""A small MCP server on raw JSON-RPC over stdio, with well-behaved and hostile tools.

Raw JSON-RPC (standard library only) so that it starts in milliseconds and can break the
protocol on purpose: a reply that never comes, a 60 MB line, a line that is not JSON, JSON
nested past any parser's depth, a crash. ``FAKE_STATE`` names a directory where tools leave
what a test checks (child PIDs, "cancelled" markers); ``FAKE_EXTRA_TOOLS=1`` adds the tools
with a ``$ref`` loop and odd characters in their names; ``FAKE_TOOLS`` names a JSON file of
more tool definitions, read at every listing (``change`` then announces the new list), whose
calls answer ``<FAKE_LABEL><name>: <arguments as JSON>``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

STATE = Path(os.environ.get("FAKE_STATE", "."))
children: dict[Any, subprocess.Popen[bytes]] = {}
added: list[dict[str, Any]] = []
pending_question: list[Any] = []


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tool(name: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return {"name": name, "description": f"The {name} tool.", "inputSchema": schema}


def listing() -> list[dict[str, Any]]:
    tools = [
        tool("echo", text={"type": "string"}),
        {**tool("readOnlyEcho", text={"type": "string"}), "annotations": {"readOnlyHint": True}},
        tool("hang"),
        tool("huge"),
        tool("garbage"),
        tool("deep"),
        tool("crash"),
        tool("sleeper"),
        tool("detach"),
        tool("progress"),
        tool("ask"),
        tool("change"),
    ]
    if os.environ.get("FAKE_TITLE"):  # a hostile title: escape sequences for the terminal
        tools[0]["title"] = os.environ["FAKE_TITLE"]
    if os.environ.get("FAKE_EXTRA_TOOLS"):
        loop = {
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/node"}},
            "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
        }
        tools.append({"name": "loop", "description": "A $ref loop.", "inputSchema": loop})
        tools.append(tool("odd name/ü!", text={"type": "string"}))
        tools.append(tool("odd_name_u", text={"type": "string"}))
    return tools + added + extra_tools()


def extra_tools() -> list[dict[str, Any]]:
    path = os.environ.get("FAKE_TOOLS")
    return json.loads(Path(path).read_text()) if path else []


def text(request_id: Any, value: str) -> None:
    send(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "result": {"content": [{"type": "text", "text": value}]},
        }
    )


def call(request_id: Any, params: dict[str, Any]) -> None:
    name = params["name"]
    arguments = params.get("arguments") or {}
    if name in ("echo", "readOnlyEcho", "odd name/ü!", "odd_name_u", "added"):
        text(request_id, f"{name}: {arguments.get('text', '')}")
    elif name in (extra["name"] for extra in extra_tools()):
        label = os.environ.get("FAKE_LABEL", "")
        text(request_id, f"{label}{name}: {json.dumps(arguments, sort_keys=True)}")
    elif name == "hang":
        return
    elif name == "huge":
        text(request_id, "x" * (60 * 1024 * 1024))
    elif name == "garbage":
        sys.stdout.write("this is not JSON-RPC\n")
        sys.stdout.flush()
    elif name == "deep":
        head = json.dumps({"jsonrpc": "2.0", "id": request_id})[:-1]
        sys.stdout.write(head + ', "result": ')
        sys.stdout.write("[" * 200_000 + "]" * 200_000 + "}\n")
        sys.stdout.flush()
    elif name == "crash":
        sys.stderr.write("fake server: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    elif name == "sleeper":
        child = subprocess.Popen(["sleep", "1000"])
        (STATE / "sleeper.pid").write_text(str(child.pid))
        children[request_id] = child
    elif name == "detach":
        # a double fork into a new session: out of the server's process group
        marker = STATE / "detached.pid"
        child = os.fork()
        if child == 0:
            os.setsid()
            if os.fork() == 0:
                partial = STATE / "detached.tmp"
                partial.write_text(str(os.getpid()))
                partial.rename(marker)
                os.execvp("sleep", ["sleep", "1000"])
            os._exit(0)
        os.waitpid(child, 0)
        while not marker.exists():
            time.sleep(0.005)
        text(request_id, "detached")
    elif name == "progress":
        token = (params.get("_meta") or {}).get("progressToken")
        for step in (1, 2, 3):
            if token is not None:
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {
                            "progressToken": token,
                            "progress": step,
                            "total": 3,
                            "message": f"step {step}",
                        },
                    }
                )
        text(request_id, "done")
    elif name == "ask":
        pending_question.append(request_id)
        schema = {
            "type": "object",
            "properties": {"color": {"type": "string"}},
            "required": ["color"],
        }
        send(
            {
                "jsonrpc": "2.0",
                "id": "question-1",
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": os.environ.get("FAKE_ASK_MESSAGE", "Which color?"),
                    "requestedSchema": schema,
                },
            }
        )
    elif name == "change":
        added.append(tool("added", text={"type": "string"}))
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        text(request_id, "changed")
    else:
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "error": {"code": -32602, "message": f"no tool {name}"},
            }
        )


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    with open(STATE / "started", "a") as starts:  # one line per start
        starts.write(f"{os.getpid()}\n")
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        request_id = message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            result = {
                "protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "fake", "version": "1"},
            }
            send({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": listing()}})
        elif method == "tools/call":
            call(request_id, params)
        elif method == "notifications/cancelled":
            child = children.pop(params.get("requestId"), None)
            if child is not None:
                child.kill()
                child.wait()
                (STATE / "cancelled").write_text(str(params.get("requestId")))
        elif method is None and request_id == "question-1":
            answer = message.get("result") or {}
            reply = json.dumps({"action": answer.get("action"), "content": answer.get("content")})
            text(pending_question.pop(), reply)
        elif request_id is not None and method is not None and method != "ping":
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": method}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})


if __name__ == "__main__":
    main()
