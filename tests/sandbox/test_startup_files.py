"""Interpreter start-up files in a long-lived session: a ``.pth`` that appears between two
commands (an approved ``pip install``, a write the user allowed) is read-only for the next
confined command of the same shell, and making a new virtualenv in the sandbox still works."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from tests.tools.helpers import Harness
from toolbelt.sandbox.backends import namespaces_work
from toolbelt.sandbox.landlock import abi_version

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)"),
]


@pytest.fixture
async def h(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    monkeypatch.setenv("HOME", str(home))
    venv = [sys.executable, "-m", "venv", "--without-pip", str(workspace / ".venv")]
    await anyio.run_process(venv)
    harness = Harness(workspace)
    yield harness
    await harness.session.aclose()


def site_packages(root: Path) -> Path:
    (found,) = (root / ".venv" / "lib").glob("python*/site-packages")
    return found


async def test_a_pth_added_between_commands_is_read_only_for_the_next_one(h: Harness) -> None:
    if not namespaces_work():
        pytest.skip("without user namespaces Landlock cannot keep a nested file read-only")
    started = await h.call("bash", command="echo warm > warm.txt && cat warm.txt")
    assert started.text == "warm"  # the (writing) shell is started before the file appears
    pth = site_packages(h.root) / "__editable__.mypkg.pth"
    pth.write_text("/work/src\n")  # what an approved `pip install -e .` leaves
    appended = await h.call("bash", command=f"echo 'import os' >> {pth}")
    assert "Read-only file system" in appended.text
    assert pth.read_text() == "/work/src\n"
    module = site_packages(h.root) / "mypkg_helper.py"  # the rest stays writable
    assert (await h.call("bash", command=f"echo x > {module} && cat {module}")).text == "x"


async def test_a_new_virtualenv_can_be_made_in_the_sandbox(h: Harness) -> None:
    made = await h.call("bash", command=f"{sys.executable} -m venv --without-pip v2 && echo made")
    assert made.text == "made"
    assert (h.root / "v2" / "pyvenv.cfg").is_file()
    started = await anyio.run_process([str(h.root / "v2" / "bin" / "python"), "-c", "print(1)"])
    assert started.stdout == b"1\n"
