"""An export in the main shell does not choose the programs the read-only shell runs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.tools.helpers import Harness
from toolbelt.core.events import CallState
from toolbelt.sandbox.landlock import abi_version

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)"),
]


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("real content\n")
    harness = Harness(tmp_path / "ws")
    yield harness
    await harness.session.aclose()


async def test_an_exported_path_does_not_reach_read_only_commands(h: Harness) -> None:
    setup = (
        "mkdir -p bin && printf '#!/bin/sh\\necho EVIL\\n' > bin/cat && chmod +x bin/cat && "
        "export PATH=$PWD/bin:$PATH PYTHONPATH=$PWD GREETING=hello"
    )
    assert (await h.call("bash", command=setup)).state is CallState.SUCCESS
    asked = len(h.requester.asked)
    shown = await h.call("bash", command="cat a.txt")
    seen = await h.call("bash", command='echo "$GREETING ${PYTHONPATH:-none}"')
    assert len(h.requester.asked) == asked  # both ran as read-only, unasked
    assert shown.text == "real content"
    assert seen.text == "hello none"  # other exports still reach it
    created = await h.call("bash", command="cat a.txt > b.txt; cat b.txt")  # only creates
    assert len(h.requester.asked) == asked  # unasked, in the create shell: its own PATH too
    assert created.text == "real content"
    main = await h.call("bash", command="touch a.txt && cat a.txt")  # changes a.txt: asked
    assert len(h.requester.asked) == asked + 1
    assert main.text == "EVIL"  # the main shell keeps what the user approved
