"""``SandboxSettings``: which sandbox a door chose, kept apart from the sandbox itself.

Every door builds one at start-up (``--sandbox`` and the settings' ``sandbox`` key) and hands
it to its runtime; the sandbox (``sandbox.sandbox``: the backends, their probes, the launcher)
loads only when the first command runs, so ``toolbelt call think`` and an MCP server's
``initialize`` never import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolbelt.core.errors import UsageError
from toolbelt.sandbox.runner_policy import network_ports

__all__ = ["MODES", "SandboxSettings"]

MODES = ("auto", "landlock", "bwrap", "off")


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """``"sandbox": {"mode": …, "network": "off" | "on" | ["host:port", …]}`` of settings."""

    mode: str = "auto"
    network: str | tuple[str, ...] = "off"
    secrets: tuple[Path, ...] = ()
    """More files the sandbox must hide (the HTTP server's token file)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise UsageError(f"Unknown sandbox mode {self.mode!r}; choose one of {MODES}.")
        if isinstance(self.network, str) and self.network not in ("off", "on"):
            raise UsageError(
                f'Unknown sandbox network {self.network!r}; use "off", "on" or a list of '
                '"host:port" strings.'
            )
        network_ports(self.network)

    @property
    def ports(self) -> tuple[int, ...] | None:
        """TCP ports commands may connect to: None for any, () for none."""
        return network_ports(self.network)
