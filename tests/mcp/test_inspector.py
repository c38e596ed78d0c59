"""A client nobody here wrote: the MCP Inspector CLI against `toolbelt mcp`.

`scripts/bootstrap` installs it into `.node/`; the test also finds the copy that
`../shared/bench/install-peers .peers` installs. In CI a missing Inspector fails the test
rather than skipping it, so the check cannot silently disappear.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from tests.support.toolbelt_cli import TOOLBELT

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = [
    ROOT / ".node" / "node_modules" / ".bin" / "mcp-inspector",
    ROOT / ".peers" / "node_modules" / ".bin" / "mcp-inspector",
]


def inspector() -> str:
    for path in CANDIDATES:
        if path.exists():
            return str(path)
    if os.environ.get("CI"):
        pytest.fail("the MCP Inspector is not installed; scripts/bootstrap installs it in .node/")
    pytest.skip("the MCP Inspector is not installed (run ../shared/bench/install-peers .peers)")


def run_inspector(tmp_path: Path, *args: str) -> dict[str, object]:
    server = [*TOOLBELT, "mcp", "--root", str(tmp_path)]
    out = subprocess.run(
        [inspector(), "--cli", *server, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    data: dict[str, object] = json.loads(out.stdout)
    return data


def test_inspector_lists_the_tools(tmp_path: Path) -> None:
    listing = run_inspector(tmp_path, "--method", "tools/list")
    tools = listing["tools"]
    assert isinstance(tools, list)
    names = {tool["name"] for tool in tools}
    assert {"read_file", "write_file", "edit_file", "grep", "glob", "ls", "bash"} <= names


def test_inspector_calls_a_tool(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("first\nsecond\n")
    result = run_inspector(
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "read_file",
        "--tool-arg",
        "path=notes.txt",
    )
    assert result["isError"] is False
    assert result["content"] == [{"type": "text", "text": "1\tfirst\n2\tsecond"}]


def test_inspector_calls_a_tool_over_http_with_the_token(tmp_path: Path) -> None:
    from tests.mcp.http_server import start

    (tmp_path / "notes.txt").write_text("over http\n")
    server = start(tmp_path)
    try:
        out = subprocess.run(
            [
                inspector(),
                "--cli",
                server.url,
                "--transport",
                "http",
                "--header",
                f"Authorization: Bearer {server.token}",
                "--method",
                "tools/call",
                "--tool-name",
                "read_file",
                "--tool-arg",
                "path=notes.txt",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    finally:
        server.stop()
    result = json.loads(out.stdout)
    assert result["isError"] is False
    assert result["content"] == [{"type": "text", "text": "1\tover http"}]
