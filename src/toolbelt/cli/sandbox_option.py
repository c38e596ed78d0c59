"""``--sandbox`` on every door: the flag and the settings' ``sandbox`` key, made one
``SandboxSettings`` that the door hands to its runtime (``Runtime.use_sandbox``).

A backend chosen by name is probed here, so one that is missing fails at start-up. ``auto``
is not: it never fails, and its probe (Landlock's ABI, bubblewrap's trial run) and its one
warning when there is no sandbox at all come with the first command, when the sandbox is
built — a door that runs no command (``toolbelt call think``, an MCP client's
``initialize``) loads none of the sandbox's modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolbelt.config.settings import Settings
from toolbelt.core.errors import UsageError
from toolbelt.sandbox.settings import MODES, SandboxSettings

__all__ = ["MODES", "sandbox_settings"]


def sandbox_settings(
    settings: Settings, flag: str | None, *, secrets: Sequence[Path] = ()
) -> SandboxSettings:
    """The sandbox settings (the flag wins over the settings files; ``auto`` by default),
    checked now — an explicitly chosen backend that is missing is a UsageError at start-up,
    and so are ports the kernel cannot enforce."""
    sandbox = SandboxSettings(
        mode=flag or settings.sandbox_mode or "auto",
        network=_network(settings.sandbox_network),
        secrets=tuple(secrets),
    )
    if sandbox.mode not in ("auto", "off"):
        from toolbelt.sandbox.backends import choose_backend

        choose_backend(sandbox.mode)
    if sandbox.ports and sandbox.mode != "off":
        from toolbelt.sandbox.landlock import abi_version

        if abi_version() < 4:
            raise UsageError(
                "sandbox.network lists ports, which needs Landlock ABI 4 (Linux 6.7+) to "
                'enforce; use "off", or "on" to allow every connection.'
            )
    return sandbox


def _network(value: str | list[str] | None) -> str | tuple[str, ...]:
    if value is None:
        return "off"
    return value if isinstance(value, str) else tuple(value)
