"""The public API is exactly ``toolbelt.__all__`` (plus ``toolbelt.testing`` and the framework
integrations, ``toolbelt.integrations.*``), every name resolves, the README uses nothing else,
and import is cheap."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import toolbelt
import toolbelt.integrations.openai_agents
import toolbelt.integrations.pydantic_ai
import toolbelt.testing

README = Path(__file__).parent.parent / "README.md"

PUBLIC = [
    "Access",
    "AccessKind",
    "Agent",
    "AgentError",
    "AgentEvent",
    "AgentFinished",
    "AgentResult",
    "Allow",
    "Answer",
    "Approval",
    "Ask",
    "AutoApprove",
    "CallState",
    "Checkpoint",
    "Checkpoints",
    "CombinedToolset",
    "CommandAccess",
    "CondenseError",
    "ConfigFileError",
    "ConnectionLostError",
    "DataError",
    "Deny",
    "DenyRequests",
    "DiffEvent",
    "ErrorKind",
    "Event",
    "EventBus",
    "Executor",
    "FatalError",
    "FilteredToolset",
    "HookCall",
    "ImageBlock",
    "InvalidInputError",
    "MODES",
    "Mode",
    "ModelPricing",
    "ModelTurn",
    "NeedsInput",
    "NoUser",
    "PathError",
    "PermissionDeniedError",
    "PermissionPolicy",
    "PermissionRequest",
    "PermissionRequester",
    "PostToolUseResult",
    "PreToolUseResult",
    "ProgressEvent",
    "Protection",
    "Provider",
    "ProviderError",
    "Question",
    "RemoteToolset",
    "RuleIdentity",
    "Runtime",
    "RuntimeOptions",
    "RuntimeState",
    "SandboxSettings",
    "SchemaArguments",
    "SchemaTool",
    "Session",
    "SessionConfig",
    "SettingsError",
    "StateEvent",
    "StrictJsonError",
    "TextBlock",
    "Tool",
    "ToolCall",
    "ToolCallResult",
    "ToolContext",
    "ToolError",
    "ToolHints",
    "ToolHooks",
    "ToolInput",
    "ToolOutput",
    "ToolRegistry",
    "ToolResults",
    "ToolbeltError",
    "Toolset",
    "UndoError",
    "UndoOutcome",
    "UnknownToolError",
    "UnusableToolError",
    "UsageError",
    "UserAnswer",
    "UserChannel",
    "anthropic_tool_result",
    "build_hooks",
    "build_policy",
    "build_toolset",
    "builtin_toolset",
    "calls_from_anthropic",
    "calls_from_gemini",
    "calls_from_openai_chat",
    "calls_from_openai_responses",
    "configure_session",
    "gemini_function_response",
    "load_settings",
    "openai_chat_tool_message",
    "openai_responses_output",
    "tool_definitions",
]
TESTING = [
    "EventLog",
    "NeverAnswers",
    "NeverReplies",
    "ScriptedModel",
    "ScriptedRequester",
    "ScriptedUser",
    "run_call",
    "tool_context",
]


def test_the_public_names_are_exactly_these() -> None:
    assert toolbelt.__all__ == PUBLIC
    assert toolbelt.testing.__all__ == TESTING
    assert toolbelt.integrations.pydantic_ai.__all__ == INTEGRATIONS
    assert toolbelt.integrations.openai_agents.__all__ == OPENAI_AGENTS


INTEGRATIONS = ["ApprovedCalls", "ToolbeltToolset"]
OPENAI_AGENTS = ["ToolbeltTools"]


def test_every_public_name_resolves() -> None:
    for name in PUBLIC:
        assert getattr(toolbelt, name) is not None, name
    for name in TESTING:
        assert getattr(toolbelt.testing, name) is not None, name


def test_the_readme_uses_only_public_names() -> None:
    # parsed by a fresh interpreter: CPython 3.11's AST builder keeps one recursion counter per
    # interpreter, which a thread left by an earlier test can skew mid-parse (cpython#106905)
    done = subprocess.run(
        [sys.executable, "-c", _README_NAMES, str(README)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found = json.loads(done.stdout)
    assert found["modules"] == [], found["modules"]
    used = set(found["used"])
    assert used - set(PUBLIC) - set(TESTING) - set(INTEGRATIONS) - set(OPENAI_AGENTS) == set()
    assert {"Runtime", "tool_definitions", "calls_from_anthropic"} <= used


_README_NAMES = """
import ast, json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"```python\\n(.*?)```", text, re.DOTALL)
assert blocks
used, modules = set(), []
allowed = ("toolbelt", "toolbelt.testing", "toolbelt.integrations.pydantic_ai",
           "toolbelt.integrations.openai_agents")
for block in blocks:
    for node in ast.walk(ast.parse(block.replace("await ", ""))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("toolbelt"):
            if node.module not in allowed:
                modules.append(node.module)
            used.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            modules += [a.name for a in node.names
                        if a.name.startswith("toolbelt") and a.name not in allowed]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id == "toolbelt"):
            used.add(node.attr)
print(json.dumps({"used": sorted(used), "modules": modules}))
"""


def test_importing_toolbelt_loads_no_heavy_module() -> None:
    code = (
        "import sys, toolbelt, toolbelt.cli.main; "
        "print(sorted(m for m in ('pydantic', 'rich', 'mcp', 'anthropic', 'openai', 'httpx') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_call_path_imports_no_provider_or_mcp_sdk() -> None:
    code = (
        "import sys; from toolbelt.cli.main import main; main(['call', 'think', "
        "'{\"thought\": \"x\"}']); print(sorted(m for m in ('mcp', 'anthropic', 'openai', "
        "'google.genai', 'rich', 'jsonschema') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "[]"
