"""MCP servers side by side over stdio: toolbelt, the reference filesystem server, Claude Code.

A raw newline-delimited JSON-RPC client (no SDK overhead on the measuring side) measures:
ready-to-initialize (spawn to the initialize response), tools/call round trip on a trivial
tool, calls/s with 16 requests in flight on one connection, and read / grep / glob latency
on the stdlib corpus. Goals: ready ≤ 0.6 s, trivial call ≤ 1 ms p50, ≥ 2,000 calls/s.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from harness import fmt_time, table, write_section
from peers import PEERS, claude_available, filesystem_server_available

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / ".corpus" / "stdlib"
TOOLBELT = str(Path(sys.executable).with_name("toolbelt"))
EDIT_TARGET = CORPUS / "toolbelt_bench_edit.py"
MARKERS = ("EDIT_MARKER_ALPHA", "EDIT_MARKER_BRAVO")


class RawClient:
    """Just enough JSON-RPC over a child's stdio to time it."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False
    ) -> int:
        assert self.process.stdin is not None
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        return self.next_id

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        while True:
            message: dict[str, Any] = json.loads(self.process.stdout.readline())
            if "id" in message and "method" not in message:
                return message

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.send(method, params)
        return self.receive()

    def initialize(self) -> None:
        self.call(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        self.send("notifications/initialized", notify=True)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def servers() -> dict[str, tuple[list[str], dict[str, tuple[str, dict[str, Any]]]]]:
    """name -> (command, {operation: (tool, arguments)})."""
    found = {
        "toolbelt": (
            [TOOLBELT, "mcp", "--root", str(CORPUS), "--mode", "accept_edits"],
            {
                "trivial call": ("think", {"thought": "x"}),
                "read small file": ("read_file", {"path": "colorsys.py"}),
                "grep content": ("grep", {"pattern": "def __repr__", "output_mode": "content"}),
                "glob **/*.py": ("glob", {"pattern": "**/*.py"}),
                "edit": ("edit_file", {"path": EDIT_TARGET.name}),
            },
        )
    }
    if filesystem_server_available():
        found["server-filesystem"] = (
            [str(PEERS / "node_modules/.bin/mcp-server-filesystem"), str(CORPUS)],
            {
                "trivial call": ("list_allowed_directories", {}),
                "read small file": ("read_text_file", {"path": str(CORPUS / "colorsys.py")}),
                "glob **/*.py": ("search_files", {"path": str(CORPUS), "pattern": "**/*.py"}),
                "edit": ("edit_file", {"path": str(EDIT_TARGET)}),
            },
        )
    if claude_available():
        found["Claude Code"] = (
            [str(PEERS / "claude-mcp")],
            {
                "read small file": ("Read", {"file_path": str(CORPUS / "colorsys.py")}),
                "grep content": ("Grep", {"pattern": "def __repr__", "output_mode": "content"}),
                "glob **/*.py": ("Glob", {"pattern": "**/*.py"}),
                "edit": ("Edit", {"file_path": str(EDIT_TARGET)}),
            },
        )
    return found


def ready_time(command: list[str], runs: int = 10) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        client = RawClient(command, CORPUS)
        client.call(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        times.append(time.perf_counter() - started)
        client.close()
    return statistics.median(times)


def latency(client: RawClient, tool: str, args: dict[str, Any], calls: int) -> float:
    times = []
    for index in range(calls + 3):
        call_args = _edit_args(tool, args, index) if "edit" in tool.lower() else args
        started = time.perf_counter()
        reply = client.call("tools/call", {"name": tool, "arguments": call_args})
        if index >= 3:
            times.append(time.perf_counter() - started)
        assert "result" in reply, reply
        assert not reply["result"].get("isError"), reply
    return statistics.median(times)


def _edit_args(tool: str, args: dict[str, Any], index: int) -> dict[str, Any]:
    """Flip a marker in a 2,600-line copy of argparse.py, one way then back."""
    old, new = MARKERS if index % 2 == 0 else MARKERS[::-1]
    if tool == "edit_file" and "path" in args and not args["path"].startswith("/"):
        return {**args, "old_string": old, "new_string": new}
    if tool == "edit_file":
        return {**args, "edits": [{"oldText": old, "newText": new}]}
    return {**args, "old_string": old, "new_string": new}


def throughput(
    client: RawClient, tool: str, args: dict[str, Any], *, in_flight: int = 16, total: int = 2000
) -> float:
    started = time.perf_counter()
    sent = received = 0
    while sent < min(in_flight, total):
        client.send("tools/call", {"name": tool, "arguments": args})
        sent += 1
    while received < total:
        client.receive()
        received += 1
        if sent < total:
            client.send("tools/call", {"name": tool, "arguments": args})
            sent += 1
    return total / (time.perf_counter() - started)


def main() -> None:
    if not CORPUS.is_dir():
        raise SystemExit(
            "build the corpus first: ../shared/bench/make-corpus stdlib .corpus/stdlib"
        )
    EDIT_TARGET.write_text((CORPUS / "argparse.py").read_text() + f"\n# {MARKERS[0]}\n")
    rows = []
    ops = ["trivial call", "read small file", "grep content", "glob **/*.py", "edit"]
    for name, (command, operations) in servers().items():
        row = [name, fmt_time(ready_time(command))]
        client = RawClient(command, CORPUS)
        client.initialize()
        if name == "toolbelt":  # its edit_file requires a read first in the session
            client.call(
                "tools/call", {"name": "read_file", "arguments": {"path": EDIT_TARGET.name}}
            )
        if name == "Claude Code":
            client.call(
                "tools/call", {"name": "Read", "arguments": {"file_path": str(EDIT_TARGET)}}
            )
        for op in ops:
            if op in operations:
                tool, args = operations[op]
                row.append(
                    fmt_time(latency(client, tool, args, 200 if op != "grep content" else 30))
                )
            else:
                row.append("–")
        trivial = operations.get("trivial call") or operations["read small file"]
        row.append(f"{throughput(client, *trivial):,.0f}")
        client.close()
        rows.append(row)
        EDIT_TARGET.write_text((CORPUS / "argparse.py").read_text() + f"\n# {MARKERS[0]}\n")
    body = (
        "Command: `.venv/bin/python bench/run.py mcp`\n\nstdio, raw JSON-RPC client; medians. "
        "Goals: ready ≤ 0.6 s, trivial call ≤ 1 ms, ≥ 2,000 calls/s with 16 in flight. "
        "server-filesystem has no content search; its trivial call is list_allowed_directories, "
        "Claude Code's throughput is measured on Read (it has no trivial tool).\n\n"
        + table(rows, ["server", "ready (initialize)", *ops, "calls/s, 16 in flight"])
    )
    EDIT_TARGET.unlink(missing_ok=True)
    print(body)
    write_section("mcp", body)
