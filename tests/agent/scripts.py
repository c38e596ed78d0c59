"""Shorthands for scripting a model's replies and opening a runtime on a temp workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolbelt.config.settings import Settings
from toolbelt.core.permission import PermissionRequester
from toolbelt.core.registry import Toolset
from toolbelt.providers.model import AssistantMessage, InvalidToolCall, ModelToolCall
from toolbelt.runtime import Runtime
from toolbelt.sandbox.sandbox import SandboxSettings


def call(call_id: str, name: str, **arguments: Any) -> ModelToolCall:
    return ModelToolCall(call_id, name, arguments)


def reply(text: str = "", *calls: ModelToolCall | InvalidToolCall) -> AssistantMessage:
    return AssistantMessage(
        text,
        tuple(c for c in calls if isinstance(c, ModelToolCall)),
        tuple(c for c in calls if isinstance(c, InvalidToolCall)),
    )


def open_runtime(
    root: Path,
    *,
    mode: str = "default",
    requester: PermissionRequester | None = None,
    toolset: Toolset | None = None,
) -> Runtime:
    """A runtime on ``root`` with empty settings (the user's own files never leak in) and no
    OS sandbox (a test looks for the processes it started in the host's /proc)."""
    runtime = Runtime(root, mode=mode, settings=Settings(), requester=requester, toolset=toolset)
    runtime.use_sandbox(SandboxSettings(mode="off"))
    return runtime
