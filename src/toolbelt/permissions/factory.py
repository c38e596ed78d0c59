"""Build a session's permission policy and hooks from a mode and the settings files."""

from __future__ import annotations

from typing import cast

from toolbelt.core.context import Session
from toolbelt.core.errors import UsageError
from toolbelt.hooks.base import ToolHooks
from toolbelt.permissions.paths import protected_reason
from toolbelt.permissions.policy import Mode, ToolbeltPolicy
from toolbelt.permissions.rules import RuleSet
from toolbelt.permissions.settings import Settings, add_local_rule, load_settings

__all__ = ["MODES", "build_hooks", "build_policy", "load_settings"]

MODES = ("default", "accept_edits", "plan", "bypass", "dont_ask")


def build_policy(
    session: Session, mode: str | None = "default", *, settings: Settings | None = None
) -> ToolbeltPolicy:
    """The standard policy for ``session`` in ``mode``, with the rules of ``settings``.

    With settings, "always allow" answers are written to ``.toolbelt/settings.local.json``
    and read-deny rules also filter what grep, glob and ls return. The settings'
    ``defaultMode`` applies when ``mode`` is None, their ``additionalDirectories`` join the
    session's roots, and ``disableBypassPermissionsMode`` refuses bypass.
    """
    if mode is None:
        mode = (settings.default_mode if settings is not None else None) or "default"
    if mode not in MODES:
        raise UsageError(f"Unknown permission mode {mode!r}; choose one of {', '.join(MODES)}.")
    rules = None
    persist = None
    if settings is not None:
        if mode == "bypass" and settings.bypass_disabled:
            raise UsageError(
                "bypass mode is turned off by `disableBypassPermissionsMode` in your settings; "
                "choose another mode (accept_edits asks only for commands and outside paths)."
            )
        session.add_directories(settings.additional_directories)
        rules = RuleSet(
            allow=settings.allow,
            ask=settings.ask,
            deny=settings.deny,
            # `./x` rules mean the directory the session started in: were they to follow the
            # shell's `cd`, `cd src && cat ../secret` would step around `Read(./secret)`
            cwd=session.cwd,
        )
        # None when nothing is denied: searches then need not judge each path they find
        session.read_denied = rules.read_denied if rules.denies_reads else None

        def persist(rule: str) -> None:
            add_local_rule(session.root, "allow", rule)

    return ToolbeltPolicy(
        mode=cast(Mode, mode),
        roots=session.roots,
        rules=rules,
        protected=protected_reason,
        persist=persist,
    )


def build_hooks(session: Session, settings: Settings) -> ToolHooks:
    """Command hooks from ``settings`` (no-op hooks when there are none)."""
    if not settings.hooks:
        return ToolHooks()
    from toolbelt.hooks.settings_hooks import SettingsHooks

    return SettingsHooks(settings.hooks, session.root)
