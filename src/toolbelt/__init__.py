"""toolbelt: the tool layer of an AI coding agent.

One registry of typed tools, one permission policy, one executor — used from Python, served
over MCP (``toolbelt mcp``) or run by hand (``toolbelt call``)::

    import anyio, toolbelt

    async def main() -> None:
        async with toolbelt.Runtime(".", toolset=toolbelt.build_toolset()) as runtime:
            [result] = await runtime.run([toolbelt.ToolCall("1", "think", {"thought": "hi"})])
            print(result.text)

    anyio.run(main)

The names below are the public API, with ``toolbelt.testing`` (fakes for testing your own
tools and requesters); every other module is internal and may change. They are loaded on
first use (PEP 562), so that ``import toolbelt`` — which every ``toolbelt`` command pays —
costs almost nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolbelt.core.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from toolbelt.agent import (
        Agent,
        AgentEvent,
        AgentFinished,
        AgentResult,
        ModelPricing,
        ModelTurn,
        ToolResults,
    )
    from toolbelt.checkpoints.history import Checkpoint
    from toolbelt.checkpoints.session import Checkpoints
    from toolbelt.checkpoints.undo import UndoError, UndoOutcome
    from toolbelt.config.factory import build_hooks, build_policy, configure_session
    from toolbelt.config.settings import load_settings
    from toolbelt.core.access import Access, AccessKind, CommandAccess, Protection
    from toolbelt.core.content import ImageBlock, TextBlock, ToolOutput
    from toolbelt.core.context import Session, SessionConfig, ToolContext
    from toolbelt.core.errors import (
        AgentError,
        CondenseError,
        ConfigFileError,
        ConnectionLostError,
        DataError,
        FatalError,
        InvalidInputError,
        PathError,
        PermissionDeniedError,
        ProviderError,
        SettingsError,
        StrictJsonError,
        ToolbeltError,
        ToolError,
        UnknownToolError,
        UnusableToolError,
        UsageError,
    )
    from toolbelt.core.events import (
        CallState,
        DiffEvent,
        Event,
        EventBus,
        ProgressEvent,
        StateEvent,
    )
    from toolbelt.core.executor import ErrorKind, Executor, ToolCall, ToolCallResult
    from toolbelt.core.hooks import HookCall, PostToolUseResult, PreToolUseResult, ToolHooks
    from toolbelt.core.permission import (
        Allow,
        Answer,
        Approval,
        Ask,
        Deny,
        NeedsInput,
        PermissionPolicy,
        PermissionRequest,
        PermissionRequester,
    )
    from toolbelt.core.registry import (
        CombinedToolset,
        FilteredToolset,
        ToolRegistry,
        Toolset,
    )
    from toolbelt.core.requesters import AutoApprove, DenyRequests
    from toolbelt.core.rule_identity import RuleIdentity
    from toolbelt.core.schema_tool import SchemaArguments, SchemaTool
    from toolbelt.core.tool import Tool, ToolInput
    from toolbelt.core.tool_hints import ToolHints
    from toolbelt.core.user import NoUser, Question, UserAnswer, UserChannel
    from toolbelt.policy.modes import MODES, Mode
    from toolbelt.providers.calls import (
        calls_from_anthropic,
        calls_from_gemini,
        calls_from_openai_chat,
        calls_from_openai_responses,
    )
    from toolbelt.providers.formats import (
        Provider,
        anthropic_tool_result,
        gemini_function_response,
        openai_chat_tool_message,
        openai_responses_output,
        tool_definitions,
    )
    from toolbelt.remote import RemoteToolset
    from toolbelt.runtime import Runtime, RuntimeOptions, RuntimeState
    from toolbelt.sandbox.settings import SandboxSettings
    from toolbelt.tools import build_toolset, builtin_toolset

_EXPORTS = {
    "Access": "toolbelt.core.access",
    "AccessKind": "toolbelt.core.access",
    "Agent": "toolbelt.agent",
    "AgentError": "toolbelt.core.errors",
    "AgentEvent": "toolbelt.agent",
    "AgentFinished": "toolbelt.agent",
    "AgentResult": "toolbelt.agent",
    "Allow": "toolbelt.core.permission",
    "Answer": "toolbelt.core.permission",
    "Approval": "toolbelt.core.permission",
    "Ask": "toolbelt.core.permission",
    "AutoApprove": "toolbelt.core.requesters",
    "CallState": "toolbelt.core.events",
    "Checkpoint": "toolbelt.checkpoints.history",
    "Checkpoints": "toolbelt.checkpoints.session",
    "CombinedToolset": "toolbelt.core.registry",
    "CommandAccess": "toolbelt.core.access",
    "CondenseError": "toolbelt.core.errors",
    "ConfigFileError": "toolbelt.core.errors",
    "ConnectionLostError": "toolbelt.core.errors",
    "DataError": "toolbelt.core.errors",
    "Deny": "toolbelt.core.permission",
    "DenyRequests": "toolbelt.core.requesters",
    "DiffEvent": "toolbelt.core.events",
    "ErrorKind": "toolbelt.core.executor",
    "Event": "toolbelt.core.events",
    "EventBus": "toolbelt.core.events",
    "Executor": "toolbelt.core.executor",
    "FatalError": "toolbelt.core.errors",
    "FilteredToolset": "toolbelt.core.registry",
    "HookCall": "toolbelt.core.hooks",
    "ImageBlock": "toolbelt.core.content",
    "InvalidInputError": "toolbelt.core.errors",
    "MODES": "toolbelt.policy.modes",
    "Mode": "toolbelt.policy.modes",
    "ModelPricing": "toolbelt.agent",
    "ModelTurn": "toolbelt.agent",
    "NeedsInput": "toolbelt.core.permission",
    "NoUser": "toolbelt.core.user",
    "PathError": "toolbelt.core.errors",
    "PermissionDeniedError": "toolbelt.core.errors",
    "PermissionPolicy": "toolbelt.core.permission",
    "PermissionRequest": "toolbelt.core.permission",
    "PermissionRequester": "toolbelt.core.permission",
    "PostToolUseResult": "toolbelt.core.hooks",
    "PreToolUseResult": "toolbelt.core.hooks",
    "ProgressEvent": "toolbelt.core.events",
    "Protection": "toolbelt.core.access",
    "Provider": "toolbelt.providers.formats",
    "ProviderError": "toolbelt.core.errors",
    "Question": "toolbelt.core.user",
    "RemoteToolset": "toolbelt.remote",
    "RuleIdentity": "toolbelt.core.rule_identity",
    "Runtime": "toolbelt.runtime",
    "RuntimeOptions": "toolbelt.runtime",
    "RuntimeState": "toolbelt.runtime",
    "SandboxSettings": "toolbelt.sandbox.settings",
    "SchemaArguments": "toolbelt.core.schema_tool",
    "SchemaTool": "toolbelt.core.schema_tool",
    "Session": "toolbelt.core.context",
    "SessionConfig": "toolbelt.core.context",
    "SettingsError": "toolbelt.core.errors",
    "StateEvent": "toolbelt.core.events",
    "StrictJsonError": "toolbelt.core.errors",
    "TextBlock": "toolbelt.core.content",
    "Tool": "toolbelt.core.tool",
    "ToolCall": "toolbelt.core.executor",
    "ToolCallResult": "toolbelt.core.executor",
    "ToolContext": "toolbelt.core.context",
    "ToolError": "toolbelt.core.errors",
    "ToolHints": "toolbelt.core.tool_hints",
    "ToolHooks": "toolbelt.core.hooks",
    "ToolInput": "toolbelt.core.tool",
    "ToolOutput": "toolbelt.core.content",
    "ToolRegistry": "toolbelt.core.registry",
    "ToolResults": "toolbelt.agent",
    "ToolbeltError": "toolbelt.core.errors",
    "Toolset": "toolbelt.core.registry",
    "UndoError": "toolbelt.checkpoints.undo",
    "UndoOutcome": "toolbelt.checkpoints.undo",
    "UnknownToolError": "toolbelt.core.errors",
    "UnusableToolError": "toolbelt.core.errors",
    "UsageError": "toolbelt.core.errors",
    "UserAnswer": "toolbelt.core.user",
    "UserChannel": "toolbelt.core.user",
    "anthropic_tool_result": "toolbelt.providers.formats",
    "build_hooks": "toolbelt.config.factory",
    "build_policy": "toolbelt.config.factory",
    "configure_session": "toolbelt.config.factory",
    "build_toolset": "toolbelt.tools",
    "builtin_toolset": "toolbelt.tools",
    "calls_from_anthropic": "toolbelt.providers.calls",
    "calls_from_gemini": "toolbelt.providers.calls",
    "calls_from_openai_chat": "toolbelt.providers.calls",
    "calls_from_openai_responses": "toolbelt.providers.calls",
    "gemini_function_response": "toolbelt.providers.formats",
    "load_settings": "toolbelt.config.settings",
    "openai_chat_tool_message": "toolbelt.providers.formats",
    "openai_responses_output": "toolbelt.providers.formats",
    "tool_definitions": "toolbelt.providers.formats",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
