"""The permission seam: a request, a pure decision, and the user's answer.

The executor never decides anything itself. For each call it builds a ``PermissionRequest``
(tool, arguments, what the call touches), asks a ``PermissionPolicy`` for a ``Decision`` —
``Allow``, ``Ask`` or ``Deny``, each with a reason the model can read — and, on ``Ask``, awaits
a ``PermissionRequester`` (a CLI prompt, an MCP elicitation, a test fake) for an ``Answer``.
The orchestration is always the same: decide, ask if needed, run, report.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from toolbelt.core.access import Access
from toolbelt.core.rule_identity import RuleIdentity

__all__ = [
    "Allow",
    "Answer",
    "Approval",
    "Ask",
    "Decision",
    "Deny",
    "NeedsInput",
    "PermissionPolicy",
    "PermissionRequest",
    "PermissionRequester",
]


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """One call as the policy sees it."""

    call_id: str
    tool: str
    arguments: Mapping[str, Any]
    access: Access
    readonly: bool
    identity: RuleIdentity | None = None
    """How rules see the tool (``Tool.rule_identity()``); None: rules may only name it."""
    agent: str = ""
    """Which subagent made the call ("" the main agent): a prompt says who is asking."""

    @property
    def rule_identity(self) -> RuleIdentity:
        """The tool's permission identity; a tool that declares none is its own family."""
        return self.identity or RuleIdentity(self.tool, self.tool)


@dataclass(frozen=True, slots=True)
class Allow:
    """Run the call without asking."""

    reason: str = ""


@dataclass(frozen=True, slots=True)
class Ask:
    """Ask the user first.

    ``reason`` says why in one sentence. ``remember`` says whether an "allow for the session"
    or "always" answer may be remembered (never for dangerous commands). ``forced`` marks an
    ask that a hook's "allow" cannot skip (an ask rule, a protected path, a dangerous command)
    and no mode skips either. ``remedy`` is set when no allow rule skips it either (a protected
    path, an ask rule, a command outside the sandbox, a hook's ask): what can be done instead
    of approving, which a refusal says in place of suggesting a rule or a mode that would not
    work. ``no_always`` says why an "always" answer could not be kept (an untrusted workspace
    ignores the rules saved in it): the requester then offers no "always" and says why.
    """

    reason: str
    remember: bool = True
    forced: bool = False
    remedy: str = ""
    no_always: str = ""


@dataclass(frozen=True, slots=True)
class Deny:
    """Refuse; ``reason`` goes to the model and should say how to proceed instead."""

    reason: str


Decision = Allow | Ask | Deny


class NeedsInput(Exception):
    """Raised by a requester that cannot get the answer now: it will arrive with a retry of
    the same call (MCP's ``input_required``). The executor ends the call ``needs_input`` —
    not run, not denied, not an error."""

    def __init__(self, reason: str = "Waiting for the user's answer.") -> None:
        super().__init__(reason)
        self.reason = reason


class Approval(StrEnum):
    """What the user answered to a permission prompt."""

    ONCE = "once"
    SESSION = "session"
    ALWAYS = "always"
    DENY = "deny"


@dataclass(frozen=True, slots=True)
class Answer:
    """The user's answer, with an optional reason that is passed back to the model on deny."""

    approval: Approval
    reason: str = ""

    @property
    def allowed(self) -> bool:
        """True for every answer except a denial."""
        return self.approval is not Approval.DENY


class PermissionPolicy(ABC):
    """Decides allow / ask / deny for a request; a pure function of its rules and state."""

    mode: str = "default"

    @abstractmethod
    def decide(self, request: PermissionRequest) -> Decision:
        """The decision for ``request``; must not block or do I/O beyond reading settings."""

    def remember(self, request: PermissionRequest, answer: Answer) -> None:  # noqa: B027
        """Record a session or permanent approval so the same request is not asked again."""

    @property
    def why_no_always(self) -> str:
        """Why an "always" answer could not be kept, or "" when it can (``Ask.no_always``)."""
        return ""

    def hidden_paths(self) -> Callable[[Path], bool] | None:
        """What listings (grep, glob, ls) must leave out — paths reading would be denied — or
        None when the policy hides nothing; ``ToolContext.visible`` applies it."""
        return None


class PermissionRequester(ABC):
    """Obtains the user's answer to an ``Ask`` decision."""

    @abstractmethod
    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        """Show the request and the reason, return the user's answer (deny on timeout)."""
