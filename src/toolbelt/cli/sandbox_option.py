"""``--sandbox`` on every door: the flag and the settings' ``sandbox`` key, made one
``SandboxSettings`` that the door hands to its runtime (``Runtime.use_sandbox``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolbelt.config.settings import Settings
from toolbelt.core.errors import UsageError
from toolbelt.sandbox.landlock import abi_version
from toolbelt.sandbox.sandbox import MODES, SandboxSettings, choose_backend

__all__ = ["MODES", "sandbox_settings"]


def sandbox_settings(
    settings: Settings, flag: str | None, *, secrets: Sequence[Path] = ()
) -> SandboxSettings:
    """The sandbox settings (the flag wins over the settings files; ``auto`` by default),
    checked now — an explicitly chosen backend that is missing is a UsageError at start-up,
    and ``auto`` with none warns once."""
    sandbox = SandboxSettings(
        mode=flag or settings.sandbox_mode or "auto",
        network=_network(settings.sandbox_network),
        secrets=tuple(secrets),
    )
    choose_backend(sandbox.mode)
    if sandbox.ports and abi_version() < 4 and sandbox.mode != "off":
        raise UsageError(
            "sandbox.network lists ports, which needs Landlock ABI 4 (Linux 6.7+) to enforce; "
            'use "off", or "on" to allow every connection.'
        )
    return sandbox


def _network(value: str | list[str] | None) -> str | tuple[str, ...]:
    if value is None:
        return "off"
    return value if isinstance(value, str) else tuple(value)
