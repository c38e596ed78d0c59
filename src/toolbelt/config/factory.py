"""Assemble a session from the settings files: what they say about the session itself, its
one catalogue of protected paths, its permission policy and its hooks.

The runtime calls these in order — ``configure_session`` (extra directories, trust, the settings
the tools read, the ``Protections`` the path guard, the policy and the sandbox share), then
``build_policy`` and ``build_hooks``, which only build: they write nothing into the session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolbelt.config.protections import current_user_config, session_protections
from toolbelt.config.settings import Settings, add_local_rule, load_settings
from toolbelt.core.context import Session
from toolbelt.core.errors import UsageError
from toolbelt.core.hooks import ToolHooks
from toolbelt.paths.protections import Protections
from toolbelt.policy.modes import MODES
from toolbelt.policy.policy import ToolbeltPolicy
from toolbelt.policy.rules import RuleSet

if TYPE_CHECKING:  # the launch parser loads with a hook or server to pin
    from toolbelt.config.launch_files import Launch

__all__ = [
    "MODES",
    "build_hooks",
    "build_policy",
    "configure_session",
    "current_user_config",
    "load_settings",
    "session_protections",
]


def configure_session(session: Session, settings: Settings) -> Protections:
    """Apply ``settings`` to ``session`` before any tool runs, and give it its catalogue of
    protected paths; returns the catalogue, for ``build_policy``.

    The settings' ``additionalDirectories`` join the session's roots, the workspace's trust
    is recorded (git runs neutralised in an untrusted one), web_fetch, git_commit and skill
    read the settings from the session, and the paths read-deny rules name whole are hidden
    by the sandbox with the user's secrets.
    """
    if session.peek(Protections) is not None:
        raise UsageError(
            "The session's protected paths were fixed before its settings were applied; "
            "call configure_session before build_policy and before the first tool call."
        )
    session.add_directories(settings.additional_directories)
    session.trusted = settings.trusted
    session.resource(Settings, lambda: settings)
    # `./x` rules mean the directory the session started in, as in the policy's rules
    denied = RuleSet(deny=settings.deny, cwd=session.cwd).hidden_reads()
    return session_protections(session, hidden=denied)


def build_policy(
    session: Session,
    mode: str | None = "default",
    *,
    settings: Settings | None = None,
    protections: Protections | None = None,
) -> ToolbeltPolicy:
    """The standard policy for ``session`` in ``mode``, with the rules of ``settings`` and the
    session's ``protections`` (default: the session's own, ``configure_session``'s when the
    runtime ran it).

    With settings of a trusted workspace, "always allow" answers are written to
    ``.toolbelt/settings.local.json`` (an untrusted one's would be ignored, so none is offered)
    and read-deny rules also filter what grep, glob and ls return (``hidden_paths``). The
    settings' ``defaultMode`` applies when ``mode`` is None, and
    ``disableBypassPermissionsMode`` refuses bypass.
    """
    if mode is None:
        mode = (settings.default_mode if settings is not None else None) or "default"
    if mode not in MODES:
        raise UsageError(f"Unknown permission mode {mode!r}; choose one of {', '.join(MODES)}.")
    rules = None
    persist = None
    no_always = ""
    if settings is not None:
        if mode == "bypass" and settings.bypass_disabled:
            raise UsageError(
                "bypass mode is turned off by `disableBypassPermissionsMode` in your settings; "
                "choose another mode (accept_edits asks only for commands and outside paths)."
            )
        rules = RuleSet(
            allow=settings.allow,
            ask=settings.ask,
            deny=settings.deny,
            # `./x` rules mean the directory the session started in: were they to follow the
            # shell's `cd`, `cd src && cat ../secret` would step around `Read(./secret)`
            cwd=session.cwd,
        )
        if settings.trusted:

            def persist(rule: str) -> None:
                add_local_rule(session.root, "allow", rule)

        else:
            # the rule would go to the workspace's own settings.local.json, which an untrusted
            # workspace's settings ignore: "always" would be a promise not kept. Nor is it kept
            # elsewhere: a rule the repository could write itself would then be honoured.
            no_always = (
                "this workspace is not trusted, so a rule saved in it would be ignored; "
                "run `toolbelt trust` to be offered it"
            )
    return ToolbeltPolicy(
        mode=mode,
        roots=session.roots,
        rules=rules,
        protections=protections if protections is not None else session_protections(session),
        persist=persist,
        no_always=no_always,
    )


def _hook_code(launch: Launch) -> list[str]:
    """What of a hook's launch is not the user's own system: the workspace files it reaches,
    and what no pin could hold (a program known only when it runs, a registry package)."""
    return [str(path) for path in launch.files] + launch.unpinned


def build_hooks(session: Session, settings: Settings) -> ToolHooks:
    """Command hooks from ``settings`` (no-op hooks when there are none), started by the
    session's hook runner (``config.runners``: inside its sandbox unless the user's settings
    say otherwise)."""
    if not settings.hooks:
        return ToolHooks()
    from toolbelt.config.launch_files import launch_of_shell  # parses shell text: on use
    from toolbelt.config.runners import session_runner  # the sandbox's modules load on use
    from toolbelt.hooks.settings_hooks import SettingsHooks

    root = session.root
    return SettingsHooks(
        settings.hooks,
        root,
        runner=lambda: session_runner(session, "hook"),
        workspace_code=lambda command: _hook_code(launch_of_shell(command, root)),
    )
