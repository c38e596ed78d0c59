"""The hook events of a whole conversation, in Claude Code's settings format and payloads.

Tool calls have their hooks in the executor (``settings_hooks``); a conversation — ``toolbelt
chat``, ``toolbelt run``, a subagent — runs these, from the same merged ``hooks`` settings
(so the same trust and pinning rules: an untrusted or changed workspace's hooks never run):

- ``SessionStart`` (matcher: ``startup`` | ``resume`` | ``clear`` | ``compact``): its stdout,
  or ``hookSpecificOutput.additionalContext``, is added to the conversation as context;
- ``UserPromptSubmit``: exit 2 or ``{"decision": "block", "reason": ...}`` drops the prompt
  (the reason is shown to the person, never sent); stdout or ``additionalContext`` joins it;
- ``Stop`` and ``SubagentStop`` (matcher: the subagent's profile): exit 2 (stderr) or
  ``decision: block`` with a ``reason`` makes the model go on with the reason as its next
  instruction; ``stop_hook_active`` is true when the turn already went on because of a Stop
  hook, and the caller bounds how often that happens;
- ``PreCompact`` (matcher: ``manual`` | ``auto``) and ``SessionEnd`` (matcher: the reason):
  told only;
- ``Notification`` (matcher: ``permission_prompt`` | ``elicitation_dialog``): the session
  waits for the person;
- ``PermissionRequest`` (matcher: the tool): a permission prompt is about to be shown; a hook
  may answer it — ``{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision":
  {"behavior": "allow" | "deny", "message": ...}}}`` — and the person is then not asked.
  ``updatedInput`` and ``interrupt`` cannot be honoured by a prompt that already has its
  call, so a decision carrying them is refused (the person is asked), as Codex does.

Every payload has ``session_id``, ``transcript_path``, ``cwd``, ``permission_mode`` and
``hook_event_name``, plus the event's own fields (``source``, ``prompt``,
``stop_hook_active``, ``trigger`` and ``custom_instructions``, ``reason``, ``message`` and
``notification_type``, ``tool_name`` and ``tool_input``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolbelt.hooks.command import HookOutcome, run_command_hook
from toolbelt.hooks.config import HookMatcherGroup, hooks_for, validate_hooks

__all__ = ["PromptVerdict", "SessionHooks"]

HooksConfig = Mapping[str, Sequence[HookMatcherGroup | Mapping[str, Any]]]


@dataclass(frozen=True, slots=True)
class PromptVerdict:
    """What UserPromptSubmit hooks said: a reason to drop the prompt, or context to add."""

    blocked: str | None = None
    context: str = ""


@dataclass(frozen=True, slots=True)
class PermissionVerdict:
    """A PermissionRequest hook's answer: allow, or deny with a message for the model."""

    allow: bool
    message: str = ""


class SessionHooks:
    """Runs a conversation's hook events; each method returns what the hooks decided."""

    def __init__(
        self,
        config: HooksConfig,
        cwd: Path,
        *,
        session_id: str,
        transcript_path: Path | None = None,
        mode: Callable[[], str] = lambda: "default",
    ) -> None:
        self._config = validate_hooks(dict(config))
        self._cwd = cwd
        self.session_id = session_id
        self.transcript_path = transcript_path
        self._mode = mode

    def configured(self, event: str) -> bool:
        """Whether any hook is configured for ``event`` (nothing runs otherwise)."""
        return bool(self._config.get(event))

    async def session_start(self, source: str) -> str:
        """Context the hooks add when the conversation starts, resumes, is cleared or compacted."""
        outcomes = await self._run("SessionStart", source, {"source": source})
        return _context(outcomes, plain_stdout=True)

    async def user_prompt_submit(self, prompt: str) -> PromptVerdict:
        """Whether the prompt may go to the model, and the context that goes with it."""
        outcomes = await self._run("UserPromptSubmit", "", {"prompt": prompt})
        for outcome in outcomes:
            if outcome.decision == "deny":
                return PromptVerdict(blocked=outcome.reason or "A hook blocked the prompt.")
        return PromptVerdict(context=_context(outcomes, plain_stdout=True))

    async def stop(self, *, active: bool) -> str | None:
        """The reason to go on instead of stopping, or None to stop."""
        return _continuation(await self._run("Stop", "", {"stop_hook_active": active}))

    async def subagent_stop(self, agent_type: str, agent_id: str, *, active: bool) -> str | None:
        """As ``stop``, for a subagent about to hand back its answer."""
        fields = {"stop_hook_active": active, "agent_type": agent_type, "agent_id": agent_id}
        return _continuation(await self._run("SubagentStop", agent_type, fields))

    async def pre_compact(self, trigger: str, custom_instructions: str | None) -> None:
        """Tell the hooks a compaction is about to happen."""
        fields = {"trigger": trigger, "custom_instructions": custom_instructions or ""}
        await self._run("PreCompact", trigger, fields)

    async def session_end(self, reason: str) -> None:
        """Tell the hooks the conversation ends (``prompt_input_exit``, ``clear``, ``other``)."""
        await self._run("SessionEnd", reason, {"reason": reason})

    async def notification(self, message: str, kind: str) -> None:
        """Tell the hooks the session waits for the person."""
        fields = {"message": message, "notification_type": kind}
        await self._run("Notification", kind, fields)

    async def permission_request(
        self, tool: str, tool_input: Mapping[str, Any], aliases: Sequence[str] = ()
    ) -> PermissionVerdict | None:
        """A hook's answer to the prompt about to be shown, or None: ask the person."""
        fields = {"tool_name": tool, "tool_input": dict(tool_input)}
        outcomes = await self._run("PermissionRequest", tool, fields, aliases)
        verdicts = [v for v in map(_permission_verdict, outcomes) if v is not None]
        denied = [v for v in verdicts if not v.allow]
        if denied:  # any deny wins, as for PreToolUse
            return denied[0]
        return verdicts[-1] if verdicts else None

    async def _run(
        self,
        event: str,
        target: str,
        fields: Mapping[str, Any],
        aliases: Sequence[str] = (),
    ) -> list[HookOutcome]:
        hooks = hooks_for(event, target, self._config, aliases)
        if not hooks:
            return []
        payload = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript_path or ""),
            "cwd": str(self._cwd),
            "permission_mode": self._mode(),
            "hook_event_name": event,
            **fields,
        }
        return [
            await run_command_hook(hook.command, payload, timeout=hook.timeout, cwd=self._cwd)
            for hook in hooks
        ]


def _context(outcomes: Sequence[HookOutcome], *, plain_stdout: bool) -> str:
    parts = []
    for outcome in outcomes:
        if outcome.error:
            continue
        if outcome.additional_context:
            parts.append(outcome.additional_context)
        elif plain_stdout and not outcome.stdout.lstrip().startswith("{"):
            parts.append(outcome.stdout.strip())
    return "\n".join(p for p in parts if p)


def _continuation(outcomes: Sequence[HookOutcome]) -> str | None:
    reasons = [o.reason for o in outcomes if o.decision == "deny" and o.stop_reason is None]
    if not reasons:
        return None
    return "\n".join(r for r in reasons if r) or "A Stop hook asked you to continue."


def _permission_verdict(outcome: HookOutcome) -> PermissionVerdict | None:
    if outcome.exit_code == 2:
        return PermissionVerdict(allow=False, message=outcome.reason)
    if outcome.exit_code != 0 or not outcome.stdout.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(outcome.stdout)
    except ValueError:
        return None
    specific = data.get("hookSpecificOutput") if isinstance(data, dict) else None
    decision = specific.get("decision") if isinstance(specific, dict) else None
    if not isinstance(decision, dict):
        return None
    if decision.get("updatedInput") is not None or decision.get("interrupt"):
        return None  # not honoured: the person decides
    behavior = decision.get("behavior")
    message = str(decision.get("message") or "")
    if behavior == "allow":
        return PermissionVerdict(allow=True, message=message)
    if behavior == "deny":
        return PermissionVerdict(
            allow=False, message=message or "A PermissionRequest hook denied this call."
        )
    return None
