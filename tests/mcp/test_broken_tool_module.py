"""A tool module that fails to import (here the standard library's ``glob``, which the shell
tools use, shadowed through PYTHONPATH) costs its tools only: ``tools/list`` leaves them out,
stderr says so once, a call of one names the module and the import error, the rest work."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.support.toolbelt_cli import TOOLBELT

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}
SHELL_TOOLS = ("bash", "bash_output", "kill_shell")


def test_a_tool_module_that_fails_to_import_leaves_only_its_tools_out(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "glob.py").write_text('raise ImportError("glob is shadowed here")\n')
    workspace = tmp_path / "ws"
    workspace.mkdir()
    requests = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "bash", "arguments": {"command": "true"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "think", "arguments": {"thought": "still here"}},
        },
    ]
    done = subprocess.run(
        [*TOOLBELT, "mcp", "--root", str(workspace), "--mode", "bypass", "--sandbox", "off"],
        input="".join(json.dumps(r) + "\n" for r in requests).encode(),
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(shadow)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    replies = {m["id"]: m for m in map(json.loads, done.stdout.splitlines())}
    for listing in (replies[1], replies[2]):
        names = [tool["name"] for tool in listing["result"]["tools"]]
        assert "think" in names and "read_file" in names
        assert not set(SHELL_TOOLS) & set(names)
    assert replies[3]["result"] == {
        "content": [
            {
                "type": "text",
                "text": "The tool `bash` is unavailable: its module toolbelt.tools.bash failed "
                "to import (ImportError: glob is shadowed here). Check the Python environment "
                "(a module named like a standard-library one on PYTHONPATH, a broken install) "
                "and restart toolbelt.",
            }
        ],
        "isError": True,
    }
    assert replies[4]["result"]["content"][0]["text"] == "Thought recorded."
    told = [line for line in done.stderr.decode().splitlines() if "failed to import" in line]
    assert told == [
        f"toolbelt: module toolbelt.tools.{tool} failed to import "
        f"(ImportError: glob is shadowed here); left out: {tool}."
        for tool in SHELL_TOOLS
    ]
