"""What `toolbelt call` and `toolbelt mcp` import before their first answer: a fixed budget.

A start-up regression is nearly always an import that crept onto the path (a module-level
`import` of a heavy SDK, a listing module pulled in for a case that is not there). Timings
cannot be checked by a test on a shared machine; what is imported can: each door runs in a
fresh interpreter and reports ``sys.modules``, and none of the packages below may be in it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "anthropic",  # the providers' SDKs: only code that talks to a model
    "openai",
    "google.genai",
    "mcp",  # the MCP SDK: only a configured MCP server's client
    "httpx",  # web_fetch, MCP clients
    "prompt_toolkit",  # toolbelt chat
    "rich.markdown",
    "uvicorn",  # the HTTP door
    "starlette",
    "prometheus_client",
    "pypdf",  # read_file of a PDF
    "bs4",  # web_fetch's conversion
    "markdownify",
    "jsonschema",  # another MCP server's tool schemas
    "yaml",  # skills
    "toolbelt.agent",
)
"""Imported by neither door before its first answer."""

CALL_HEAVY = (
    *HEAVY,
    "toolbelt.toolsearch",  # only with configured MCP servers
    "toolbelt.mcp_client.toolset",
    "toolbelt.commands.analysis",  # the bash parser: only for commands and hooks
    "toolbelt.web",
    "toolbelt.mcp",
)
"""Also not imported by a call of one tool that needs none of them (the MCP server lists
every tool, so it imports their modules)."""

THINK_HEAVY = (
    *CALL_HEAVY,
    "toolbelt.sandbox.sandbox",  # the sandbox, its backends' probes and the process tree:
    "toolbelt.sandbox.backends",  # with the first command (``auto``)
    "toolbelt.procs",
    "toolbelt.shell",  # the shell's output and spill directories
    "toolbelt.checkpoints.store",  # the snapshot machinery: with the first change
    "toolbelt.providers.deferral",
    "toolbelt.cli.toolset_spec",  # only with --toolset
)
"""Not imported by ``toolbelt call think``, which runs no command and changes nothing."""

READY_HEAVY = (
    *HEAVY,
    "pydantic",  # no model is built or validated before the initialize answer
    "pydantic_core",
    "importlib.metadata",  # the version is a constant
    "toolbelt.tools.read_file",  # nor any tool: the built-ins load when listed or called
    "toolbelt.tools.bash",
    "toolbelt.tools.grep",
    "toolbelt.tools.think",
    "toolbelt.mcp.http",  # the HTTP door's modules, on stdio
    "toolbelt.mcp.http_sessions",
    "toolbelt.sandbox.sandbox",  # nor the sandbox and its probes (``auto``)
    "toolbelt.sandbox.backends",
    "toolbelt.providers.deferral",  # nor the tool list's machinery
    "toolbelt.providers.formats",
    "toolbelt.toolsearch.tool",
    "toolbelt.config.settings_file",  # nor a settings file's models, with no settings file
    "toolbelt.hooks.specs",
    "secrets",
)
"""Not imported by ``toolbelt mcp`` in an empty workspace before it answers ``initialize``."""

REPORT = """
import atexit, json, sys
def report():
    with open(sys.argv[1], "w") as out:
        json.dump(sorted(sys.modules), out)
atexit.register(report)
from toolbelt.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _imported(tmp_path: Path, *argv: str, stdin: str = "") -> list[str]:
    (tmp_path / "ws").mkdir(exist_ok=True)
    report = tmp_path / "modules.json"
    subprocess.run(
        [sys.executable, "-c", REPORT, str(report), *argv],
        input=stdin,
        text=True,
        capture_output=True,
        cwd=tmp_path / "ws",
        timeout=60,
        check=True,
    )
    modules: list[str] = json.loads(report.read_text())
    return modules


def _heavy(modules: list[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in heavy)]


def test_toolbelt_call_think_imports_nothing_heavy(tmp_path: Path) -> None:
    modules = _imported(tmp_path, "call", "think", '{"thought": "x"}')
    assert "toolbelt.tools.think" in modules  # the report is of the call that ran
    assert _heavy(modules, THINK_HEAVY) == []


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_toolbelt_mcp_answers_its_first_request_importing_nothing_heavy(
    tmp_path: Path, version: str
) -> None:
    if version == "2026-07-28":
        first = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}
    else:
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t"}}
        first = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    modules = _imported(tmp_path, "mcp", "--root", str(tmp_path / "ws"), stdin=json.dumps(first))
    assert "toolbelt.mcp.server" in modules
    assert _heavy(modules, READY_HEAVY) == []


def test_toolbelt_call_read_file_loads_its_tool_alone(tmp_path: Path) -> None:
    """A call loads the module of the tool it calls, pydantic with it, and no other tool's."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("hello\n")
    modules = _imported(tmp_path, "call", "read_file", '{"path": "notes.txt"}')
    tools = sorted(m for m in modules if m.startswith("toolbelt.tools.") and "._" not in m)
    assert tools == ["toolbelt.tools.read_file"]
    assert "pydantic" in modules
