"""The name toolbelt is installed under, and its version.

The import package and the command are ``toolbelt``, but the distribution on the package index
is ``agent-toolbelt`` (the name ``toolbelt`` there belongs to an unrelated project): metadata
is looked up by the distribution's name, so every place that asks for the version, the
installed files or the install command names it through this module.
"""

from __future__ import annotations

__all__ = ["DISTRIBUTION", "PROVIDERS_INSTALL", "installed_version"]

DISTRIBUTION = "agent-toolbelt"
PROVIDERS_INSTALL = f"pip install '{DISTRIBUTION}[providers]'"
"""The command that adds the model providers' SDKs (the ``providers`` extra)."""


def installed_version() -> str:
    """The installed distribution's version ("unknown" when toolbelt runs from a source tree
    that was never installed)."""
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"
