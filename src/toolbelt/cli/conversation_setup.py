"""Open the conversation ``toolbelt chat`` and ``toolbelt run`` drive: the runtime, the model,
its subagents, the session's hooks, and its saved file — new, resumed (``--resume [ID]``) or
continued (``--continue``: the workspace's latest).

The model comes from ``--model``, else ``TOOLBELT_MODEL``, else — resuming — the model the
saved conversation used (never from a settings file: a repository must not choose where its
contents are sent).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from toolbelt.agent import Agent
from toolbelt.agent.conversation import Conversation
from toolbelt.agent.profiles import load_profiles
from toolbelt.agent.sessions import (
    SavedSession,
    SessionLog,
    find_session,
    load_session,
    new_session_id,
    prune_sessions,
    workspace_dir,
)
from toolbelt.agent.subagents import enable_subagents
from toolbelt.cli.commands import terminal_requester, terminal_user, toolset_from_spec
from toolbelt.cli.render import Renderer
from toolbelt.cli.sandbox_option import sandbox_settings
from toolbelt.config.settings import load_settings
from toolbelt.core.errors import UsageError
from toolbelt.core.permission import PermissionRequester
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.core.user import UserChannel
from toolbelt.hooks.permission_hooks import HookedRequester, HookedUser
from toolbelt.hooks.session_hooks import SessionHooks
from toolbelt.providers.model import ProviderError
from toolbelt.runtime import Runtime, RuntimeOptions

__all__ = [
    "MODEL_ENV",
    "ConversationOptions",
    "OpenedConversation",
    "open_at_terminal",
    "open_conversation",
    "opening_failed",
]

MODEL_ENV = "TOOLBELT_MODEL"
NO_RESUME = "<none>"


@dataclass(frozen=True)
class ConversationOptions:
    """What the command line said."""

    model: str | None
    base_url: str | None
    tool_format: str
    root: str
    mode: str | None
    add_dirs: list[str]
    trust_workspace: bool = False
    toolset_spec: str | None = None
    sandbox: str | None = None
    max_turns: int = 50
    resume: str | None = NO_RESUME
    """An id (or its start), None for a choice among the latest, ``NO_RESUME`` for none."""
    continue_latest: bool = False


@dataclass
class OpenedConversation:
    runtime: Runtime
    conversation: Conversation
    spec: str
    saved: SavedSession | None

    @property
    def agent(self) -> Agent:
        return self.conversation.agent


def open_conversation(
    options: ConversationOptions,
    *,
    requester_for: Callable[[bool], PermissionRequester],
    user: UserChannel | None,
) -> OpenedConversation:
    """Build everything (nothing starts); ``UsageError`` / ``ProviderError`` for what is wrong."""
    root = Path(options.root).expanduser().resolve()
    saved = _saved(root, options)
    spec = options.model or os.environ.get(MODEL_ENV, "").strip() or (saved.model if saved else "")
    if not spec:
        raise UsageError(
            f"No model given: pass --model PROVIDER:MODEL (e.g. anthropic:claude-sonnet-4-5 "
            f"or ollama:qwen3-coder) or set {MODEL_ENV}."
        )
    if options.max_turns < 1:
        raise UsageError(f"--max-turns must be at least 1, not {options.max_turns}.")
    session_id = saved.id if saved is not None else new_session_id()
    settings = load_settings(root, trusted=True if options.trust_workspace else None)
    # whoever answers prompts words its hints for the trust in force (``settings.trusted``)
    requester = requester_for(settings.trusted)
    transcript = saved.path if saved is not None else workspace_dir(root) / f"{session_id}.jsonl"
    runtime: Runtime | None = None
    hooks = SessionHooks(
        settings.hooks,
        root,
        session_id=session_id,
        transcript_path=transcript,
        mode=lambda: runtime.mode if runtime is not None else "default",
    )
    if any(hooks.configured(e) for e in ("PermissionRequest", "Notification")):
        # the hooks see every prompt: they wrap whoever answers before the runtime exists
        requester = HookedRequester(requester, hooks)
        if user is not None:
            user = HookedUser(user, hooks)
    runtime = Runtime(
        root,
        toolset=toolset_from_spec(options.toolset_spec),
        mode=options.mode or (saved.mode if saved and saved.mode else None),
        add_dirs=options.add_dirs,
        settings=settings,
        requester=requester,
        user=user,
        options=RuntimeOptions(session_id=session_id),
    )
    runtime.use_sandbox(sandbox_settings(runtime.settings, options.sandbox))
    agent = Agent(
        spec,
        runtime,
        base_url=options.base_url,
        tool_format=options.tool_format,
        max_turns=options.max_turns,
        compact_at=settings.compaction_threshold if settings.compaction_auto else None,
    )
    prune_sessions(
        max_age_days=settings.sessions_max_age_days,
        max_total_mb=settings.sessions_max_total_mb,
    )
    if saved is not None:
        log = SessionLog(saved.path)
    else:
        log = SessionLog.start(runtime.session.root, session_id, model=spec, mode=runtime.mode)
    profiles = load_profiles(runtime.session.root, trusted=settings.trusted)
    enable_subagents(agent, profiles, hooks=hooks, max_parallel=settings.subagents_max_parallel)
    conversation = Conversation(agent, log=log, hooks=hooks)
    if saved is not None:
        conversation.restore(saved)
        if options.model and options.model != saved.model:
            log.setting("model", spec)
    return OpenedConversation(runtime, conversation, spec, saved)


def open_at_terminal(options: ConversationOptions, *, yes: bool) -> OpenedConversation:
    """``open_conversation`` for a person at this terminal (``chat``, ``run``): permission
    prompts and questions on standard error, approved without asking under ``--yes``."""
    return open_conversation(
        options,
        requester_for=lambda trusted: terminal_requester(
            Renderer.for_stderr(), yes=yes, trusted=trusted
        ),
        user=terminal_user(),
    )


def opening_failed(error: UsageError | ProviderError) -> int:
    """Say on standard error why the conversation could not be opened; the exit status: 2
    for invalid usage, 1 when the model provider failed."""
    print(f"toolbelt: {escape_for_terminal(str(error))}", file=sys.stderr)
    return 2 if isinstance(error, UsageError) else 1


def _saved(root: Path, options: ConversationOptions) -> SavedSession | None:
    if options.continue_latest:
        return load_session(find_session(root, None))
    if options.resume == NO_RESUME:
        return None
    return load_session(find_session(root, options.resume))
