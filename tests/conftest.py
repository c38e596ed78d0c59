"""Shared test settings: async tests run on asyncio through anyio's pytest plugin, and
property tests are derandomized in CI so a landing never depends on which examples were drawn
(locally they explore fresh examples on every run)."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def anyio_backend() -> str:
    """Run ``@pytest.mark.anyio`` tests on asyncio, the loop toolbelt ships on."""
    return "asyncio"


PRIVATE_DIRECTORIES = {
    "HOME": "home",
    "XDG_CONFIG_HOME": "config",
    "XDG_STATE_HOME": "state",
    "XDG_DATA_HOME": "data",
    "XDG_CACHE_HOME": "cache",
}


@pytest.fixture(autouse=True)
def _private_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test gets a home and XDG directories of its own (inherited by the CLIs and servers
    it starts): nothing of the real user's configuration — ``~/.config/toolbelt/mcp.json``,
    settings, trust, tokens — reaches a test, and nothing a test writes reaches the user."""
    base = tmp_path_factory.mktemp("user")
    for variable, name in PRIVATE_DIRECTORIES.items():
        directory = base / name
        directory.mkdir()
        monkeypatch.setenv(variable, str(directory))
    # Edit results are checked word for word: the tests of diagnostics after edits turn them on.
    monkeypatch.setenv("TOOLBELT_DIAGNOSTICS", "0")
