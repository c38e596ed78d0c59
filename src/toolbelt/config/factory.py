"""Build a session's permission policy and hooks from a mode and the settings files."""

from __future__ import annotations

from pathlib import Path, PurePath

from toolbelt.config.settings import Settings, add_local_rule, load_settings
from toolbelt.config.user_config import UserConfig
from toolbelt.core.access import Protection
from toolbelt.core.context import Session
from toolbelt.core.errors import UsageError
from toolbelt.core.hooks import ToolHooks
from toolbelt.paths.own_install import OwnInstall
from toolbelt.paths.protected import protection_of
from toolbelt.paths.secret_links import SecretLinks
from toolbelt.policy.modes import MODES
from toolbelt.policy.policy import ToolbeltPolicy
from toolbelt.policy.rules import HiddenReads, RuleSet

__all__ = ["MODES", "build_hooks", "build_policy", "load_settings"]


def build_policy(
    session: Session, mode: str | None = "default", *, settings: Settings | None = None
) -> ToolbeltPolicy:
    """The standard policy for ``session`` in ``mode``, with the rules of ``settings``.

    With settings of a trusted workspace, "always allow" answers are written to
    ``.toolbelt/settings.local.json`` (an untrusted one's would be ignored, so none is offered)
    and read-deny rules also filter what grep, glob and ls return (``hidden_paths``). The settings'
    ``defaultMode`` applies when ``mode`` is None, their ``additionalDirectories`` join the
    session's roots, and ``disableBypassPermissionsMode`` refuses bypass.
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
        session.add_directories(settings.additional_directories)
        session.resource(Settings, lambda: settings)  # web_fetch, git_commit, skill read it
        rules = RuleSet(
            allow=settings.allow,
            ask=settings.ask,
            deny=settings.deny,
            # `./x` rules mean the directory the session started in: were they to follow the
            # shell's `cd`, `cd src && cat ../secret` would step around `Read(./secret)`
            cwd=session.cwd,
        )
        session.trusted = settings.trusted
        hidden = HiddenReads(rules.hidden_reads())  # a command must not read them either
        session.resource(HiddenReads, lambda: hidden)

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

    user_config = UserConfig.current()
    own_install = OwnInstall.around(session.roots)

    def secret_reason(below_root: Path, path: Path) -> str | None:
        # by names and strings only: it runs for every file a grep, glob or ls finds
        found = protection_of(below_root)
        if found is not None and found.kind == "secret":
            return found.reason
        token = user_config.protection(path) if user_config.secret(path) else None
        return None if token is None else token.reason

    links = SecretLinks(lambda: session.roots, secret_reason)  # `ln .env notes.txt`

    def protected(path: PurePath | str, real: Path | None = None) -> Protection | None:
        # by name (.git/, .env) wherever the file is, then the user's own configuration and
        # toolbelt's own installation (its .venv, package, launcher: what it runs unconfined),
        # then by identity: another name of a secret file is that secret
        return (
            protection_of(path, real)
            or user_config.protection(path, real)
            or own_install.protection(path, real)
            or (links.twin(real) if real is not None else None)
        )

    def listed_secret(below_root: Path, path: Path) -> bool:
        return secret_reason(below_root, path) is not None or links.twin(path) is not None

    return ToolbeltPolicy(
        mode=mode,
        roots=session.roots,
        rules=rules,
        protected=protected,
        persist=persist,
        listed_secret=listed_secret,
        no_always=no_always,
    )


def build_hooks(session: Session, settings: Settings) -> ToolHooks:
    """Command hooks from ``settings`` (no-op hooks when there are none)."""
    if not settings.hooks:
        return ToolHooks()
    from toolbelt.hooks.settings_hooks import SettingsHooks

    return SettingsHooks(settings.hooks, session.root)
