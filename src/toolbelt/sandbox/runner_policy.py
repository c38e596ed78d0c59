"""What a sandbox setting says of the network, and where a runner's programs run.

Kept apart from ``sandbox.sandbox`` so the settings can validate ``sandbox.network``,
``sandbox.hooks`` and ``sandbox.mcpServers`` without loading the sandbox itself (``toolbelt
call read_file`` never starts one).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolbelt.core.errors import UsageError

__all__ = ["Network", "RunnerPolicy", "network_ports"]

Network = str | tuple[str, ...]
"""``"off"``, ``"on"`` or ``("host:port", …)``: what a sandbox setting says of the network."""


@dataclass(frozen=True, slots=True)
class RunnerPolicy:
    """Where a kind of program toolbelt starts on its own — command hooks, the workspace's MCP
    servers — runs: ``sandbox.hooks`` / ``sandbox.mcpServers`` of the user's settings
    (``runners``). By default inside the sandbox's workspace profile with the network off."""

    confined: bool = True
    network: Network = "off"

    def __post_init__(self) -> None:
        network_ports(self.network)  # a malformed entry is refused when the settings load


def network_ports(network: Network) -> tuple[int, ...] | None:
    """The TCP ports ``network`` lets a confined program connect to: None for any, () for
    none; ``UsageError`` for a value that is none of the three forms."""
    if network == "on":
        return None
    if network == "off":
        return ()
    if isinstance(network, str):
        raise UsageError(
            f'Unknown sandbox network {network!r}; use "off", "on" or a list of "host:port" '
            "strings."
        )
    return tuple(sorted({_port(entry) for entry in network}))


def _port(entry: str) -> int:
    host, _, port = entry.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f'Sandbox network entries are "host:port" strings; got {entry!r}.')
    return int(port)
