"""The name toolbelt is installed under, and its version.

The import package and the command are ``toolbelt``, but the distribution on the package index
is ``agent-toolbelt`` (the name ``toolbelt`` there belongs to an unrelated project): metadata
is looked up by the distribution's name, so every place that asks for the installed files or
the install command names it through this module. The version is written here too
(``VERSION``), and the build takes it from here.
"""

from __future__ import annotations

__all__ = ["DISTRIBUTION", "PROVIDERS_INSTALL", "VERSION", "installed_version"]

DISTRIBUTION = "agent-toolbelt"
VERSION = "0.1.0"
"""The distribution's version, written here once: the build reads it from this line
(``[tool.hatch.version]`` in pyproject.toml), so it is the installed one too, known without
loading ``importlib.metadata`` — an MCP client's ``initialize`` and ``--version`` wait for it."""
PROVIDERS_INSTALL = f"pip install '{DISTRIBUTION}[providers]'"
"""The command that adds the model providers' SDKs (the ``providers`` extra)."""


def installed_version() -> str:
    """The installed distribution's version (``VERSION``)."""
    return VERSION
