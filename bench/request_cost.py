"""What putting the tools into one request costs, per provider format, on this branch and on
main's sources in the same run (part of ``bench/run.py agent``).

A request lists every offered tool, so this is paid on every turn before a byte goes out. Each
format is timed as its client builds it: ``tool_definitions`` (Anthropic, OpenAI Chat, its
strict mode, Responses, MCP ``tools/list``), Gemini's declarations, and a text-call model's
prompt (``TextToolCallClient.text_request`` plus the schemas its parser reads), for the
built-in tools and for 100 JSON-schema tools (like a large MCP catalog). A child process per
side (``PYTHONPATH`` = this checkout or ``git archive main``) times ``REPEATS`` requests per
case after one warm-up request; children alternate main / branch for ``rounds`` rounds. The
first request of a fresh process (Anthropic, built-ins) is reported apart: it pays any build.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from harness import Case, fmt_time

REPO = Path(__file__).resolve().parent.parent
REPEATS = 10
SIDES = ("main", "this branch")

PROBE = r"""
import json, sys, time
from typing import Any
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.core.schema_tool import SchemaArguments, SchemaTool
from toolbelt.providers.formats import gemini_function_declaration, tool_definitions
from toolbelt.providers.model import ModelRequest
from toolbelt.providers.schema import neutral_schema
from toolbelt.providers.textcalls.client import TextToolCallClient
from toolbelt.core.content import ToolOutput
from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCallResult
from toolbelt.providers.model import AssistantMessage, ModelToolCall, ToolResultsMessage
from toolbelt.providers.model import UserMessage
from toolbelt.core.content import TextBlock
from toolbelt.providers.openai_chat import chat_messages
from toolbelt.tools import builtin_toolset
try:
    from toolbelt.providers.untrusted import neutralised_definition, neutralised_request
except ImportError:  # main: a self-hosted server got the request as it was
    neutralised_definition = neutralised_request = lambda x: x

REPEATS = int(sys.argv[1])


class Remote(SchemaTool):
    async def run(self, args: SchemaArguments, ctx: Any) -> Any:
        raise NotImplementedError


def remote(i: int) -> Remote:
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": f"What to look for in store {i}."},
            "limit": {"type": "integer", "minimum": 1, "default": 20},
            "order": {"enum": ["newest", "oldest", "relevance"], "default": "relevance"},
            "labels": {"type": "array", "items": {"type": "string"}},
            "range": {
                "type": "object",
                "properties": {"from": {"type": "string", "format": "date"},
                               "to": {"type": "string", "format": "date"}},
            },
            "archived": {"type": ["boolean", "null"]},
        },
        "required": ["query"],
    }
    return Remote(f"mcp__store{i % 7}__search_{i}", description=f"Search store {i}.",
                  input_schema=schema)


def text_call(family: str, tools: tuple) -> Any:
    client = TextToolCallClient(ScriptedModel([]), family)
    request = ModelRequest(system="You are a coding agent.", messages=(), tools=tools)
    return lambda: ({t.name: neutral_schema(t) for t in tools}, client.text_request(request))


def cases(tools: tuple) -> dict[str, Any]:
    return {
        "anthropic": lambda: tool_definitions(tools, "anthropic"),
        "openai chat": lambda: tool_definitions(tools, "openai"),
        "openai chat strict": lambda: tool_definitions(tools, "openai", strict=True),
        "openai responses": lambda: tool_definitions(tools, "openai-responses"),
        "gemini": lambda: [gemini_function_declaration(t) for t in tools],
        "text calls (hermes)": text_call("hermes", tools),
        "text calls (harmony)": text_call("harmony", tools),
        "mcp tools/list": lambda: tool_definitions(tools, "mcp"),
    }


builtins = tuple(builtin_toolset().tools())
samples: dict[str, list[float]] = {}
started = time.perf_counter()
tool_definitions(builtins, "anthropic")
samples["first request of a process (anthropic, built-ins)"] = [time.perf_counter() - started]
for label, tools in (("the built-ins", builtins),  # a count would differ between the sides
                     ("100 schema tools", tuple(remote(i) for i in range(100)))):
    for name, build in cases(tools).items():
        build()
        timed = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            build()
            timed.append(time.perf_counter() - started)
        samples[f"{name}, {label}"] = timed
source = "".join(f"def handler_{i}(request):\n    return {{'status': {i}, 'body': request}}\n"
                 for i in range(150))[:8000]
transcript: list[Any] = [UserMessage((TextBlock("Read the handlers and fix the bug."),))]
for turn in range(20):
    call = ModelToolCall(f"call_{turn}", "read_file", {"path": f"handlers_{turn}.py"})
    transcript.append(AssistantMessage("Reading.", (call,)))
    answer = ToolCallResult(call.id, call.name, CallState.SUCCESS, ToolOutput.text(source))
    transcript.append(ToolResultsMessage((answer,)))
long = ModelRequest(system="You are a coding agent.\n" + source[:2000], messages=tuple(transcript),
                    tools=builtins)


def self_hosted() -> Any:
    request = neutralised_request(long)
    definitions = [neutralised_definition(d) for d in tool_definitions(request.tools, "openai")]
    return chat_messages(request.system, request.messages), definitions


self_hosted()
timed = []
for _ in range(REPEATS):
    started = time.perf_counter()
    self_hosted()
    timed.append(time.perf_counter() - started)
samples["openai chat request to a self-hosted server, built-ins + 20 results (160 KB)"] = timed
print(json.dumps(samples))
"""


def request_cost(rounds: int = 4) -> dict[str, dict[str, Case]]:
    """Case per (side, format and toolset), samples gathered over alternating children."""
    main_src = Path(tempfile.mkdtemp())
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "main", "src"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(main_src, filter="data")
    paths = {"main": str(main_src / "src"), "this branch": str(REPO / "src")}
    home = tempfile.mkdtemp()
    results: dict[str, dict[str, Case]] = {side: {} for side in SIDES}
    for _ in range(rounds):
        for side in SIDES:
            done = subprocess.run(
                [sys.executable, "-c", PROBE, str(REPEATS)],
                capture_output=True,
                text=True,
                check=True,
                env={"PYTHONPATH": paths[side], "PATH": "/usr/bin:/bin", "HOME": home},
            )
            for name, timed in json.loads(done.stdout).items():
                results[side].setdefault(name, Case(name, lambda: None)).samples += timed
    return results


def rows(results: dict[str, dict[str, Case]]) -> list[list[str]]:
    """One row per case: main's median, this branch's, and main / branch."""
    before, after = results["main"], results["this branch"]
    return [
        [
            name,
            fmt_time(before[name].median),
            fmt_time(after[name].median),
            f"×{before[name].median / after[name].median:.0f}"
            if before[name].median >= after[name].median
            else f"×{before[name].median / after[name].median:.2f}",
        ]
        for name in before
    ]
