"""Fixtures for the MCP client: a workspace with servers configured, and no process left over.

Every server a test configures carries ``TOOLBELT_TEST_MARK=<uuid>`` in its environment, which
every process it starts inherits (a new session or parent does not change it); after the test,
no live process may still carry it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
FAKE = Path(__file__).with_name("fake_server.py")
NODE_MODULES = ROOT / ".node" / "node_modules" / "@modelcontextprotocol"
EVERYTHING = NODE_MODULES / "server-everything" / "dist" / "index.js"
FILESYSTEM = NODE_MODULES / "server-filesystem" / "dist" / "index.js"


def node_server(path: Path) -> str:
    """The server's entry point; missing fails in CI (bootstrap installs it) and skips elsewhere."""
    if path.exists():
        return str(path)
    if os.environ.get("CI"):
        pytest.fail(f"{path} is missing; scripts/bootstrap installs it with npm ci in .node/")
    pytest.skip(f"{path} is missing (run scripts/bootstrap)")


def marked_processes(mark: str) -> list[int]:
    needle = f"TOOLBELT_TEST_MARK={mark}\0".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
            with open(f"/proc/{entry}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in environ and state != b"Z":
            found.append(int(entry))
    return found


@pytest.fixture
def mark() -> Iterator[str]:
    """The marker the test's servers carry; asserts afterwards that none of them is left."""
    value = uuid.uuid4().hex
    yield value
    with contextlib.suppress(AssertionError):  # one killed a moment ago may not be reaped yet
        wait_until(lambda: not marked_processes(value), "the test's MCP servers to end")
    left = marked_processes(value)
    assert left == [], f"processes left behind by the test's MCP servers: {left}"


@pytest.fixture(autouse=True)
def user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user configuration directory of the test's own (the real ~/.config is never read)."""
    config = tmp_path / "config-home"
    (config / "toolbelt").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    return config / "toolbelt"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def fake_entry(mark: str, state: Path, **env: str) -> dict[str, Any]:
    """A stdio entry running ``fake_server.py``."""
    return {
        "command": sys.executable,
        "args": [str(FAKE)],
        "env": {"TOOLBELT_TEST_MARK": mark, "FAKE_STATE": str(state), **env},
    }


def everything_entry(mark: str) -> dict[str, Any]:
    return {
        "command": "node",
        "args": [node_server(EVERYTHING), "stdio"],
        "env": {"TOOLBELT_TEST_MARK": mark},
    }


def write_servers(path: Path, servers: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))
    return path
