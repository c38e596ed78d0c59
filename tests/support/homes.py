"""A home and XDG directories of a test's own, so that nothing of the real user's configuration
— ``~/.config/toolbelt/mcp.json``, settings, trust, tokens — reaches it, and nothing it writes
reaches the user. ``tests/conftest.py`` gives one to every test; a fixture shared by a module
(a server started once for several tests) makes its own, since a test's home is removed when
that test ends."""

from __future__ import annotations

from pathlib import Path

__all__ = ["PRIVATE_DIRECTORIES", "private_home"]

PRIVATE_DIRECTORIES = {
    "HOME": "home",
    "XDG_CONFIG_HOME": "config",
    "XDG_STATE_HOME": "state",
    "XDG_DATA_HOME": "data",
    "XDG_CACHE_HOME": "cache",
}


def private_home(base: Path) -> dict[str, str]:
    """The variables that point a process at fresh directories under ``base`` (made here)."""
    environment = {}
    for variable, name in PRIVATE_DIRECTORIES.items():
        directory = base / name
        directory.mkdir(parents=True)
        environment[variable] = str(directory)
    return environment
