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


@pytest.fixture(autouse=True)
def _state_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the sandbox moves aside goes to ``$XDG_STATE_HOME/toolbelt/quarantine``: a temp
    directory here (inherited by the CLIs tests start), never the real user's."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
